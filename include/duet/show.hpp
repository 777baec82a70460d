// Printing values as C++ source: reports and draft tests paste what duet prints.
//
//   duet::show(3)                          == "3"
//   duet::show(std::optional<int>{})       == "std::nullopt"
//   duet::show(std::string("a\"b"))        == "\"a\\\"b\""
//   duet::show(std::vector<int>{1, 2})     == "std::vector<int>{1, 2}"
//
// A user type prints through, in this order: an ADL-found `duet_show(const T&)` returning
// std::string, or `operator<<`. A type with neither cannot be a result: duet says so at
// compile time.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <typeinfo>
#include <utility>
#include <variant>
#include <vector>

#include "duet/detail/container_traits.hpp"
#include "duet/detail/declarations.hpp"  // show and type_name, which the templates below call before their definitions

namespace duet {

class Result;

namespace detail {
std::string demangle(const char* mangled);
const std::string& cached_demangle(const std::type_info& type);
std::string show_integer(long long v, bool is_signed, unsigned bits);
std::string show_unsigned(unsigned long long v);
std::string show_floating(double v, bool is_float);
std::string show_char(char c);
std::string show_string(std::string_view s);
/// Throws std::bad_variant_access, as std::visit does for a variant valueless by exception (out
/// of line: a test file compiles no exception class for it).
[[noreturn]] void throw_valueless_variant();
/// The exception being handled, as C++: "std::out_of_range(\"...\")".
std::string describe_current_exception();
/// A result's exception, as C++: "std::out_of_range(\"...\")".
std::string exception_text(const Result& r);
/// "`who` threw std::out_of_range(\"...\")" for the exception being handled.
std::string threw(std::string_view who);

template <class T>
concept HasAdlShow = requires(const T& v) {
  { duet_show(v) } -> std::convertible_to<std::string>;
};
template <class T>
concept Streamable = requires(std::ostream& os, const T& v) {
  os << v;
};

}  // namespace detail

namespace detail {
/// "std::optional<int>", "std::pair<int, bool>": a template's name with its arguments' (`second`
/// empty for one). Out of line, so that each result type's type_name only calls.
std::string template_type_name(const char* name, const std::string& first, const std::string& second = {});
template <class T>
std::string type_name_impl() {
  if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, char>) return "char";
  else if constexpr (std::is_same_v<T, int>) return "int";
  else if constexpr (std::is_same_v<T, unsigned>) return "unsigned";
  else if constexpr (std::is_same_v<T, long>) return "long";
  else if constexpr (std::is_same_v<T, unsigned long>) return "unsigned long";
  else if constexpr (std::is_same_v<T, long long>) return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>) return "unsigned long long";
  else if constexpr (std::is_same_v<T, short>) return "short";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, std::string>) return "std::string";
  else if constexpr (is_optional<T>::value) return template_type_name("std::optional", type_name<typename T::value_type>());
  else if constexpr (is_vector<T>::value) return template_type_name("std::vector", type_name<typename T::value_type>());
  else if constexpr (is_deque<T>::value) return template_type_name("std::deque", type_name<typename T::value_type>());
  else if constexpr (is_pair<T>::value)
    return template_type_name("std::pair", type_name<typename T::first_type>(), type_name<typename T::second_type>());
  else return demangle(typeid(T).name());
}
}  // namespace detail

/// The C++ spelling of a type, as a reader would write it ("int", "std::string",
/// "std::vector<double>"), used in draft tests.
template <class T>
std::string type_name() {
  return detail::type_name_impl<std::remove_cvref_t<T>>();
}

/// True when duet can print T (so T can be a command's result).
template <class T>
constexpr bool printable();

namespace detail {
template <class Tuple, std::size_t... I>
std::string show_elements(const Tuple& t, std::index_sequence<I...>) {
  std::string out;
  ((out += (I == 0 ? "" : ", ") + show(std::get<I>(t))), ...);
  return out;
}
template <class Range>
std::string show_range(const Range& r) {
  std::string out = "{";
  bool first = true;
  for (const auto& x : r) {
    if (!first) out += ", ";
    first = false;
    out += show(x);
  }
  return out + "}";
}
}  // namespace detail

template <class T>
constexpr bool printable() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_arithmetic_v<U> || std::is_enum_v<U> || std::is_convertible_v<U, std::string_view> ||
                std::is_same_v<U, std::monostate> || std::is_same_v<U, std::nullopt_t> || detail::HasAdlShow<U> ||
                detail::Streamable<U>)
    return true;
  else if constexpr (detail::is_optional<U>::value || detail::is_vector<U>::value || detail::is_deque<U>::value)
    return printable<typename U::value_type>();
  else if constexpr (detail::is_pair<U>::value)
    return printable<typename U::first_type>() && printable<typename U::second_type>();
  else if constexpr (detail::is_tuple<U>::value || detail::is_variant<U>::value)
    return []<template <class...> class Tpl, class... Ts>(std::type_identity<Tpl<Ts...>>) {
      return (printable<Ts>() && ...);
    }(std::type_identity<U>{});
  else return false;
}

/// Prints a value as a C++ expression.
template <class T>
std::string show(const T& v) {
  using U = std::remove_cvref_t<T>;
  if constexpr (detail::HasAdlShow<U>) return duet_show(v);
  else if constexpr (std::is_same_v<U, bool>) return v ? "true" : "false";
  else if constexpr (std::is_same_v<U, char>) return detail::show_char(v);
  else if constexpr (std::is_floating_point_v<U>)
    return detail::show_floating(static_cast<double>(v), std::is_same_v<U, float>);
  else if constexpr (std::is_integral_v<U> && std::is_signed_v<U>)
    return detail::show_integer(static_cast<long long>(v), true, sizeof(U) * 8);
  else if constexpr (std::is_integral_v<U>) return detail::show_unsigned(static_cast<unsigned long long>(v));
  else if constexpr (std::is_enum_v<U>)
    return "static_cast<" + type_name<U>() + ">(" + show(static_cast<std::underlying_type_t<U>>(v)) + ")";
  else if constexpr (std::is_convertible_v<const U&, std::string_view>) return detail::show_string(std::string_view(v));
  else if constexpr (std::is_same_v<U, std::monostate>) return "std::monostate{}";
  else if constexpr (std::is_same_v<U, std::nullopt_t>) return "std::nullopt";
  else if constexpr (detail::is_optional<U>::value) return v ? show(*v) : "std::nullopt";
  else if constexpr (detail::is_vector<U>::value || detail::is_deque<U>::value)
    return type_name<U>() + detail::show_range(v);
  else if constexpr (detail::is_pair<U>::value) return "std::pair{" + show(v.first) + ", " + show(v.second) + "}";
  else if constexpr (detail::is_tuple<U>::value)
    return "std::tuple{" + detail::show_elements(v, std::make_index_sequence<std::tuple_size_v<U>>{}) + "}";
  else if constexpr (detail::is_variant<U>::value)  // as std::visit: valueless, std::bad_variant_access
    return detail::on_alternative(
        v, [](const auto& x) { return show(x); }, []() -> std::string { detail::throw_valueless_variant(); });
  else if constexpr (detail::Streamable<U>) {
    std::ostringstream os;
    os << v;
    return os.str();
  } else {
    static_assert(printable<U>(), "duet cannot print this type: define `std::string duet_show(const T&)` in "
                                  "the type's namespace, or operator<<");
    return {};
  }
}

}  // namespace duet
