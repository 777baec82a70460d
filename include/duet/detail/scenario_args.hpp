// What the checks do with a hand-written scenario (duet/scenario.hpp): its calls in report order,
// and a call's arguments read as the parameters they are bound to, or why they do not fit.
#pragma once

#include <any>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
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

/// A scenario's number argument as given: a signed char, short, int, long, long long
/// (`integer`), unsigned char, unsigned short, unsigned, unsigned long, unsigned long long
/// (`natural`), float, double or long double (`floating`); none for any other type (a bool or a
/// char is not a number here). Out of line: a test file compiles one type test per argument
/// type, not thirteen.
struct ScenarioNumber {
  enum class Kind : unsigned char { none, integer, natural, floating } kind = Kind::none;
  long long integer = 0;
  unsigned long long natural = 0;
  double floating = 0;
};
ScenarioNumber scenario_number(const std::any& given);
/// The string literal a scenario gives (a `const char*`), or null.
const char* scenario_text(const std::any& given);

/// A parameter type that a scenario's number converts to: an integer type other than bool and
/// the character types (std::in_range's: signed and unsigned char are numbers), or a floating
/// type. A bool or a character parameter takes only its own type.
template <class To>
inline constexpr bool scenario_number_type = std::is_floating_point_v<To> ||
                                             (std::is_integral_v<To> && !std::is_same_v<To, bool> &&
                                              !std::is_same_v<To, char> && !std::is_same_v<To, wchar_t> &&
                                              !std::is_same_v<To, char8_t> && !std::is_same_v<To, char16_t> &&
                                              !std::is_same_v<To, char32_t>);

/// A parameter type whose values duet::show prints as a scenario's argument that binds back to
/// it (a draft's `duet::call("push", 3)`): the numbers above, bool, char and std::string.
template <class T>
inline constexpr bool scenario_literal_type =
    scenario_number_type<T> || std::is_same_v<T, bool> || std::is_same_v<T, char> || std::is_same_v<T, std::string>;

/// Reads `given` as a To: the same type; an integer of another type that holds its value; a
/// floating value from any number; a string literal as a string (std::string,
/// std::string_view), never as a bool. Empty otherwise.
template <class To>
std::optional<To> scenario_arg(const std::any& given) {
  if (const To* same = std::any_cast<To>(&given)) return *same;
  if constexpr (scenario_number_type<To>) {
    using Kind = ScenarioNumber::Kind;
    const ScenarioNumber n = scenario_number(given);
    if constexpr (std::is_integral_v<To>) {
      // A floating value for an integer parameter: not silently truncated.
      if (n.kind == Kind::integer && std::in_range<To>(n.integer)) return static_cast<To>(n.integer);
      if (n.kind == Kind::natural && std::in_range<To>(n.natural)) return static_cast<To>(n.natural);
    } else {
      if (n.kind == Kind::integer) return static_cast<To>(n.integer);
      if (n.kind == Kind::natural) return static_cast<To>(n.natural);
      if (n.kind == Kind::floating) return static_cast<To>(n.floating);
    }
  } else if constexpr (std::is_constructible_v<To, std::string_view> && std::is_constructible_v<To, const char*>) {
    // A string (std::string, std::string_view, an optional string), never a bool or a class
    // made from one (a pointer converts to bool).
    if (const char* text = scenario_text(given)) return To(text);
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
