// Hand-written scenarios (duet/scenario.hpp): why a call's arguments do not fit its operation,
// for the front ends that name operations (duet::Lin), and a drawn command value spelled as C++.
#include <any>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "duet/scenario.hpp"
#include "duet/show.hpp"

#include "duet/detail/scenario_cpp.hpp"

namespace duet::detail {

ScenarioNumber scenario_number(const std::any& given) {
  ScenarioNumber n;
  using Kind = ScenarioNumber::Kind;
  auto as = [&]<class F>(F*, Kind kind) {
    const F* v = std::any_cast<F>(&given);
    if (!v) return false;
    n.kind = kind;
    if constexpr (std::is_floating_point_v<F>) n.floating = static_cast<double>(*v);
    else if constexpr (std::is_signed_v<F>) n.integer = *v;  // NOLINT(bugprone-signed-char-misuse): a number here
    else n.natural = *v;
    return true;
  };
  (void)(as(static_cast<int*>(nullptr), Kind::integer) || as(static_cast<long*>(nullptr), Kind::integer) ||
         as(static_cast<long long*>(nullptr), Kind::integer) || as(static_cast<short*>(nullptr), Kind::integer) ||
         as(static_cast<signed char*>(nullptr), Kind::integer) || as(static_cast<unsigned*>(nullptr), Kind::natural) ||
         as(static_cast<unsigned long*>(nullptr), Kind::natural) ||
         as(static_cast<unsigned long long*>(nullptr), Kind::natural) ||
         as(static_cast<unsigned short*>(nullptr), Kind::natural) ||
         as(static_cast<unsigned char*>(nullptr), Kind::natural) || as(static_cast<double*>(nullptr), Kind::floating) ||
         as(static_cast<float*>(nullptr), Kind::floating) || as(static_cast<long double*>(nullptr), Kind::floating));
  return n;
}

// Declared in duet/detail/scenario_cpp.hpp.
std::optional<std::string> aggregate_text(const std::string& type, std::span<const std::optional<std::string>> fields) {
  std::string out = type + "{";
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (!fields[i]) return std::nullopt;
    out += (i == 0 ? "" : ", ") + *fields[i];
  }
  return out + "}";
}

const char* scenario_text(const std::any& given) {
  const char* const* text = std::any_cast<const char*>(&given);
  return text ? *text : nullptr;
}

std::string scenario_arg_error(const std::string& op, std::size_t k, const std::any& given, const std::string& to) {
  const std::string held = given.has_value() ? cached_demangle(given.type()) : std::string("nothing");
  return "argument " + std::to_string(k + 1) + " of the scenario's call of " + op + " is a " + held + ", and " + op +
         " takes a " + to +
         " there (an integer converts to any integer type that holds it and any number to a floating type; a bool "
         "or a character takes only its own type; a string literal converts to a string)";
}

std::string scenario_arg_cpp(const std::any& given) {
  std::string text;
  auto as = [&]<class T>(T*) {
    const T* v = std::any_cast<T>(&given);
    if (v) text = duet::show(*v);
    return v != nullptr;
  };
  if (as(static_cast<int*>(nullptr)) || as(static_cast<long*>(nullptr)) || as(static_cast<long long*>(nullptr)) ||
      as(static_cast<unsigned*>(nullptr)) || as(static_cast<unsigned long*>(nullptr)) ||
      as(static_cast<unsigned long long*>(nullptr)) || as(static_cast<short*>(nullptr)) ||
      as(static_cast<unsigned short*>(nullptr)) || as(static_cast<signed char*>(nullptr)) ||
      as(static_cast<unsigned char*>(nullptr)) || as(static_cast<long double*>(nullptr)) ||
      as(static_cast<double*>(nullptr)) || as(static_cast<float*>(nullptr)) || as(static_cast<bool*>(nullptr)) ||
      as(static_cast<char*>(nullptr)) || as(static_cast<std::string*>(nullptr)))
    return text;
  if (const char* const* s = std::any_cast<const char*>(&given)) return show_string(*s);
  return "<" + (given.has_value() ? cached_demangle(given.type()) : std::string("nothing")) + ">";
}

std::string scenario_arity_error(const std::string& op, std::size_t n, std::size_t takes) {
  if (n == takes) return {};
  auto args = [](std::size_t k) { return std::to_string(k) + (k == 1 ? " argument" : " arguments"); };
  return "the scenario calls " + op + " with " + args(n) + ", and it takes " + args(takes);
}

}  // namespace duet::detail
