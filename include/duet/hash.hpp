// Hashing model states for the search core's memo (the parallel runner and the history
// checker remember which states they have seen): integers, strings, containers, pairs, tuples,
// optionals, anything with std::hash, and your own types through `duet_hash`. Types it cannot
// hash hash to 0, which is still correct but slow (the memo then compares states in one
// bucket), so give a model state made of your own types a hash:
//
//   namespace shop {
//   struct Cart { std::vector<int> items; int owner; bool operator==(const Cart&) const = default; };
//   inline std::uint64_t duet_hash(const Cart& c) { return duet::hash_value(std::tie(c.items, c.owner)); }
//   }
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/detail/rng.hpp"

namespace duet {

/// A 64-bit hash of v, equal for equal values (see the top of this header).
template <class T>
std::uint64_t hash_value(const T& v);

namespace detail {
template <class T>
concept HasAdlHash = requires(const T& v) {
  { duet_hash(v) } -> std::convertible_to<std::uint64_t>;
};

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
}  // namespace detail

template <class T>
std::uint64_t hash_value(const T& v) {
  using detail::hash_combine;
  using detail::mix64;
  if constexpr (detail::HasAdlHash<T>) return static_cast<std::uint64_t>(duet_hash(v));
  else if constexpr (detail::StdHashable<T>) return mix64(static_cast<std::uint64_t>(std::hash<T>{}(v)));
  else if constexpr (requires {
                       v.first;
                       v.second;
                     })
    return hash_combine(hash_value(v.first), hash_value(v.second));
  else if constexpr (requires { typename std::tuple_size<T>::type; })
    return std::apply(
        [](const auto&... x) {
          std::uint64_t h = 0x7u;
          ((h = hash_combine(h, hash_value(x))), ...);
          return h;
        },
        v);
  else if constexpr (requires {
                       v.has_value();
                       *v;
                     })
    return v ? hash_combine(1, hash_value(*v)) : 0;
  else if constexpr (detail::Iterable<T>) {
    std::uint64_t h = 0x1234u;
    for (const auto& x : v) h = hash_combine(h, hash_value(x));
    return h;
  } else return 0;
}

}  // namespace duet
