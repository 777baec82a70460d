// Hand-written scenarios (duet/scenario.hpp): why a call's arguments do not fit its operation,
// for the front ends that name operations (duet::Lin).
#include <any>
#include <string>

#include "duet/scenario.hpp"
#include "duet/show.hpp"

namespace duet::detail {

std::string scenario_arg_error(const std::string& op, std::size_t k, const std::any& given, const std::string& to) {
  const std::string held = given.has_value() ? cached_demangle(given.type()) : std::string("nothing");
  return "argument " + std::to_string(k + 1) + " of the scenario's call of " + op + " is a " + held + ", and " + op +
         " takes a " + to +
         " there (an integer converts to any integer type that holds it, a string literal to "
         "std::string)";
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
