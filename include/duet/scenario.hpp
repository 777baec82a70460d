// Hand-written scenarios: a Y-program written in the test (a prefix, the calls of each branch,
// a suffix, with their arguments) instead of drawn, checked as a generated program is, by every
// executor and strategy (Lincheck's custom scenarios). A state-machine spec's scenario holds its
// command values; a duet::Lin's names each operation with its arguments
// (duet::call). The checks are duet::check_scenario (duet/parallel.hpp).
//
//   const duet::Scenario<QueueSpec::Cmd> lost_item{.prefix = {Push{1}}, .branches = {{Pop{}}, {Pop{}}}};
//   EXPECT_TRUE(duet::check_scenario<QueueSpec>(lost_item, {.executor = duet::fibers(duet::pct(3))}));
//
//   const duet::Scenario<> pops{.prefix = {duet::call("push", 1)},
//                               .branches = {{duet::call("try_pop")}, {duet::call("try_pop")}}};
//   EXPECT_TRUE(duet::check_scenario(lin, pops));
#pragma once

#include <any>
#include <string>
#include <utility>
#include <vector>

#include "duet/detail/scenario_args.hpp"

namespace duet {

/// A call of a hand-written scenario for a front end that names its operations (duet::Lin):
/// the operation's name and its arguments, each converted to the parameter in its
/// place when the check binds the call (an integer to any integer type that holds its value, a
/// number to a floating type, a string literal to a string; a bool or a char takes only its own
/// type); an unknown name or arguments that do not fit are an error of the check, never a pass.
///
///   const duet::Call push = duet::call("push", 3);
struct Call {
  std::string op;
  std::vector<std::any> args;
};

template <class... A>
Call call(std::string op, A... args) {
  return {std::move(op), {std::any(std::move(args))...}};
}

/// A hand-written Y-program: the prefix runs alone, then the branches at once (2 to 8, each its
/// calls in order), then the suffix alone. `C` is a state-machine spec's command type, or
/// duet::Call for duet::Lin. The program is fixed: a failure shrinks its schedule
/// (on fibers), not its calls, and its replay token replays only this scenario.
///
///   const duet::Scenario<CounterSpec::Cmd> incrs{.prefix = {Get{}}, .branches = {{Incr{}}, {Incr{}, Get{}}}};
template <class C = Call>
struct Scenario {
  std::vector<C> prefix = {};
  std::vector<std::vector<C>> branches = {};
  std::vector<C> suffix = {};
};

}  // namespace duet
