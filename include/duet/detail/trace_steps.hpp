// A case's steps as its report shows them: what the front ends record into the case's Trace as
// calls run, and the Y diagram of a parallel program. Defined in src/report/trace.cpp.
#pragma once

#include <string>
#include <vector>

#include "duet/detail/engine.hpp"

namespace duet {
class Result;
}  // namespace duet

namespace duet::detail {

struct YShape;

/// "candidate returned 0; the model allows 1" (want given), or
/// "candidate threw std::out_of_range(\"...\"); the model does not allow it: why".
std::string disagreement(const Result& got, const Result* want, const std::string& why);
void record_step(Trace* trace, std::string code, const Result& observed);
void record_failure(Trace* trace, const Result* expected, std::string explanation);
/// The failing step as record_step and record_failure would have traced it.
Step failing_step(std::string code, const Result& observed, const Result* expected, std::string explanation);

/// An Api call's step: its C++ and what it returned as the report spells it (`binds`: the call's
/// result is bound to a name the later steps use).
void record_api_step(Trace* trace, std::string code, std::string observed, bool binds = false);
void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation);
Step api_failure_step(std::string code, std::string expected, std::string explanation);

/// The Y diagram: the prefix on top, one column per branch, the suffix below; `call : result`.
std::string y_diagram(const YShape& shape, const std::vector<std::string>& calls, const std::vector<std::string>& results);

}  // namespace duet::detail
