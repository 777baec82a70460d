// What the checks do with a hand-written scenario (duet/scenario.hpp): its calls in report order,
// and a call's arguments read as the parameters they are bound to, or why they do not fit.
#pragma once

#include <any>
#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/declarations.hpp"

namespace duet {
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
