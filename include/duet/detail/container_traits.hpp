// Which standard container or wrapper a type is, for the code that spells or encodes values by
// their shape (duet::show, type_name, a draft test's command values, the wire codec).
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace duet::detail {

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};
template <class T>
struct is_vector : std::false_type {};
template <class T, class A>
struct is_vector<std::vector<T, A>> : std::true_type {};
template <class T>
struct is_deque : std::false_type {};
template <class T, class A>
struct is_deque<std::deque<T, A>> : std::true_type {};
template <class T>
struct is_pair : std::false_type {};
template <class A, class B>
struct is_pair<std::pair<A, B>> : std::true_type {};
template <class T>
struct is_tuple : std::false_type {};
template <class... Ts>
struct is_tuple<std::tuple<Ts...>> : std::true_type {};
template <class T>
struct is_variant : std::false_type {};
template <class... Ts>
struct is_variant<std::variant<Ts...>> : std::true_type {};

/// `f` applied to the alternative `v` holds, found by testing the index once per alternative
/// rather than through std::visit, whose dispatch tables every test file printing a command
/// compiled; `valueless()` when `v` is valueless by exception.
///
///   on_alternative(cmd, [](const auto& c) { return show(c); }, [] { return std::string(); });
template <std::size_t I = 0, class Variant, class F, class Valueless>
auto on_alternative(const Variant& v, const F& f, const Valueless& valueless) -> decltype(f(*std::get_if<0>(&v))) {
  if constexpr (I + 1 < std::variant_size_v<Variant>) {
    if (v.index() != I) return on_alternative<I + 1>(v, f, valueless);
  } else {
    if (v.index() != I) return valueless();
  }
  return f(*std::get_if<I>(&v));
}

}  // namespace duet::detail
