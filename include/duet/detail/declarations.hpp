// The public names detail headers use without needing their definitions. The public headers sit
// above detail: a detail header includes this, never the public header that defines the name. A
// detail header whose code needs a definition is a part of the public header that includes it,
// after that definition (its opening comment says which), or that code is in the library.
#pragma once

#include <string>

namespace duet {

struct Config;
struct CheckResult;
class Source;
class Result;
template <class T>
class Gen;
struct Call;  // NOLINT(bugprone-forward-declaration-namespace): duet/scenario.hpp defines it
template <class C>
struct Scenario;
struct Verdict;
struct Caller;
class Executor;
struct Progress;  // NOLINT(bugprone-forward-declaration-namespace): duet/progress.hpp defines it

template <class T>
std::string show(const T& v);
template <class T>
std::string type_name();

}  // namespace duet
