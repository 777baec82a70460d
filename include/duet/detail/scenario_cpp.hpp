// A state-machine spec's command value as C++ (`Push{3}`), for the scenario a draft test writes:
// an alternative of a std::variant command type (or the command type itself) that is an aggregate
// of up to 4 fields, each a number, a bool, a char or a std::string. Anything else (a class with
// constructors, a field of another type, an array) has no spelling here: the draft then replays
// the program without a scenario.
// Included by duet/detail/model_y_steps.hpp; not a public header.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "duet/detail/container_traits.hpp"
#include "duet/detail/declarations.hpp"

namespace duet::detail {

/// Converts to any type but T's bases, to count T's fields (a base would take the first one).
template <class T>
struct AnyField {
  template <class U>
    requires(!std::is_base_of_v<std::remove_cvref_t<U>, T>)
  operator U() const;  // NOLINT: implicit, declared only (unevaluated)
};

template <class T, std::size_t... I>
constexpr bool braced_with(std::index_sequence<I...>) {
  return requires { T{(static_cast<void>(I), AnyField<T>{})...}; };
}
// One more field after those: `{}` initializes a field of any default-constructible type.
template <class T, std::size_t... I>
constexpr bool braced_with_one_more(std::index_sequence<I...>) {
  return requires { T{(static_cast<void>(I), AnyField<T>{})..., {}}; };
}
template <class T, std::size_t... I>
constexpr bool parenthesized_with(std::index_sequence<I...>) {
  if constexpr (sizeof...(I) == 0) return true;
  else return requires {
      T((static_cast<void>(I), AnyField<T>{})...);
    };
}

/// T's fields, or -1 when they cannot be told apart safely: T is no aggregate; a field is an
/// array (braces elide into its elements, parentheses do not, so the counts disagree); a field
/// does not convert from AnyField (a field follows the count); or there are more than 4.
template <class T>
constexpr int aggregate_fields() {
  if constexpr (!std::is_aggregate_v<T>) {
    return -1;
  } else {
    int n = -1;
    [&]<std::size_t... N>(std::index_sequence<N...>) {
      ((n = braced_with<T>(std::make_index_sequence<N>{}) ? static_cast<int>(N) : n), ...);
    }
    (std::make_index_sequence<6>{});
    bool exact = false;
    [&]<std::size_t... N>(std::index_sequence<N...>) {
      ((exact = exact || (static_cast<int>(N) == n && parenthesized_with<T>(std::make_index_sequence<N>{}) &&
                          !braced_with_one_more<T>(std::make_index_sequence<N>{}))),
       ...);
    }
    (std::make_index_sequence<6>{});
    return exact && n <= 4 ? n : -1;
  }
}

/// A field as C++, if its type has a literal spelling.
template <class F>
std::optional<std::string> field_cpp(const F& f) {
  using U = std::remove_cvref_t<F>;
  if constexpr (std::is_arithmetic_v<U> || std::is_same_v<U, std::string>) return duet::show(f);
  else return std::nullopt;
}

/// `type{field, ...}` from the fields' spellings, or empty when one has none. Out of line: each
/// command type compiles only its fields' spellings.
std::optional<std::string> aggregate_text(const std::string& type, std::span<const std::optional<std::string>> fields);

template <class T, class... F>
std::optional<std::string> fields_cpp(const F&... f) {
  const std::optional<std::string> texts[sizeof...(F) + 1] = {field_cpp(f)..., std::nullopt};  // + 1: none
  return aggregate_text(type_name<T>(), std::span<const std::optional<std::string>>(texts, sizeof...(F)));
}

/// An aggregate value as C++ (`Push{3}`), or empty.
template <class T>
std::optional<std::string> aggregate_cpp(const T& v) {
  (void)v;  // no field: not read
  constexpr int n = aggregate_fields<T>();
  if constexpr (n == 0) {
    return fields_cpp<T>();
  } else if constexpr (n == 1) {
    const auto& [a] = v;
    return fields_cpp<T>(a);
  } else if constexpr (n == 2) {
    const auto& [a, b] = v;
    return fields_cpp<T>(a, b);
  } else if constexpr (n == 3) {
    const auto& [a, b, c] = v;
    return fields_cpp<T>(a, b, c);
  } else if constexpr (n == 4) {
    const auto& [a, b, c, d] = v;
    return fields_cpp<T>(a, b, c, d);
  } else {
    return std::nullopt;
  }
}

/// A command value as C++: its variant's alternative, or itself; empty when it has no spelling
/// (a variant valueless by exception has none).
template <class Cmd>
std::optional<std::string> command_cpp(const Cmd& cmd) {
  if constexpr (is_variant<Cmd>::value)
    return on_alternative(
        cmd, [](const auto& c) { return aggregate_cpp(c); }, [] { return std::optional<std::string>(); });
  else return aggregate_cpp(cmd);
}

}  // namespace duet::detail
