// Hashing model states for the search core's memo: integers, strings, containers, pairs,
// tuples, optionals, and anything with std::hash. Types it cannot hash hash to 0, which is
// still correct (the memo then compares states in one bucket).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/detail/rng.hpp"

namespace duet::detail {

template <class T>
std::uint64_t hash_value(const T& v);

template <class T>
concept StdHashable = requires(const T& v) {
  { std::hash<T>{}(v) } -> std::convertible_to<std::size_t>;
};
template <class T>
concept Iterable = requires(const T& v) {
  v.begin();
  v.end();
};

inline std::uint64_t hash_combine(std::uint64_t seed, std::uint64_t h) { return mix64(seed ^ (h + 0x9e3779b97f4a7c15ULL)); }

template <class T>
std::uint64_t hash_value(const T& v) {
  if constexpr (StdHashable<T>) return mix64(static_cast<std::uint64_t>(std::hash<T>{}(v)));
  else if constexpr (requires { v.first; v.second; })
    return hash_combine(hash_value(v.first), hash_value(v.second));
  else if constexpr (requires { typename std::tuple_size<T>::type; })
    return std::apply([](const auto&... x) {
      std::uint64_t h = 0x7u;
      ((h = hash_combine(h, hash_value(x))), ...);
      return h;
    }, v);
  else if constexpr (requires { v.has_value(); *v; }) return v ? hash_combine(1, hash_value(*v)) : 0;
  else if constexpr (Iterable<T>) {
    std::uint64_t h = 0x1234u;
    for (const auto& x : v) h = hash_combine(h, hash_value(x));
    return h;
  } else return 0;
}

}  // namespace duet::detail
