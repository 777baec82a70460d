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
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/show.hpp"

namespace duet {

/// A call of a hand-written scenario for a front end that names its operations (duet::Lin):
/// the operation's name and its arguments, each converted to the parameter in its
/// place when the check binds the call (an integer to any integer type that holds its value, a
/// string literal to std::string); an unknown name or arguments that do not fit are an error of
/// the check, never a pass.
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

namespace detail {

/// Every call of a scenario in report order: prefix, branch 0, branch 1, ..., suffix.
template <class C>
std::vector<C> scenario_calls(const Scenario<C>& s) {
  std::vector<C> all(s.prefix.begin(), s.prefix.end());
  for (const auto& branch : s.branches) all.insert(all.end(), branch.begin(), branch.end());
  all.insert(all.end(), s.suffix.begin(), s.suffix.end());
  return all;
}

/// Reads `given` as a To: the same type; an integer of another type that holds its value; a
/// floating value from any arithmetic one; a string literal as std::string. Empty otherwise.
template <class To>
std::optional<To> scenario_arg(const std::any& given) {
  if (const To* same = std::any_cast<To>(&given)) return *same;
  if constexpr (std::is_arithmetic_v<To> && !std::is_same_v<To, bool>) {
    std::optional<To> out;
    auto from = [&]<class F>(F*) {
      const F* v = std::any_cast<F>(&given);
      if (!v) return false;
      if constexpr (std::is_integral_v<To> && std::is_integral_v<F>) {
        if (!std::in_range<To>(*v)) return false;
      } else if constexpr (std::is_integral_v<To>) {
        return false;  // a floating value for an integer parameter: not silently truncated
      }
      out = static_cast<To>(*v);
      return true;
    };
    (void)(from(static_cast<int*>(nullptr)) || from(static_cast<long*>(nullptr)) || from(static_cast<long long*>(nullptr)) ||
           from(static_cast<unsigned*>(nullptr)) || from(static_cast<unsigned long*>(nullptr)) ||
           from(static_cast<unsigned long long*>(nullptr)) || from(static_cast<double*>(nullptr)));
    return out;
  } else if constexpr (std::is_constructible_v<To, const char*>) {
    if (const char* const* text = std::any_cast<const char*>(&given)) return To(*text);
  }
  return std::nullopt;
}

/// A scenario's argument as C++ (`3`, `"a0"`), as duet::show prints a value of its type; for a
/// type without a literal, its name in angle brackets.
std::string scenario_arg_cpp(const std::any& given);

/// Why `n` arguments cannot be a call of `op`, which takes `takes`; empty when they can.
std::string scenario_arity_error(const std::string& op, std::size_t n, std::size_t takes);

/// Why argument `k` (from 0) of a call of `op` does not fit its parameter of type `To`.
std::string scenario_arg_error(const std::string& op, std::size_t k, const std::any& given, const std::string& to);

}  // namespace detail
}  // namespace duet
