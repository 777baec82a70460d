// What duet::atomic and the assignments of duet's types build on (duet/sync.hpp): the located
// value operator= takes, the member types std::atomic has for arithmetic types, arithmetic as
// std::atomic defines it, and registering an object with the running fiber scheduler.
#pragma once

#include <concepts>
#include <cstddef>
#include <type_traits>
#include <utility>

#include "duet/detail/fiber_hooks.hpp"
#include "duet/detail/source_location.hpp"

namespace duet::detail {

/// A value and where it came from: the parameter type of operator= and the compound
/// assignments, whose converting constructor's default argument captures the caller's line.
template <class T>
struct Located {
  T value;
  duet::source_location loc;
  Located(T v, duet::source_location l = duet::source_location::current()) : value(std::move(v)), loc(l) {}
};

template <class T>
concept atomic_integral = std::integral<T> && !std::same_as<T, bool>;
template <class T>
concept atomic_pointer = std::is_pointer_v<T> && std::is_object_v<std::remove_pointer_t<T>>;
template <class T>
concept atomic_arithmetic = atomic_integral<T> || std::floating_point<T> || atomic_pointer<T>;

template <class T>
struct atomic_difference {
  using type = T;
};
template <class T>
struct atomic_difference<T*> {
  using type = std::ptrdiff_t;
};
template <class T, bool = atomic_arithmetic<T>>
struct atomic_types {
  using value_type = T;
};
template <class T>
struct atomic_types<T, true> {
  using value_type = T;
  using difference_type = typename atomic_difference<T>::type;
};

// Arithmetic as std::atomic defines it: integers wrap around (no signed overflow).
template <class T, class D>
T atomic_add(T a, D b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) + static_cast<std::make_unsigned_t<T>>(b));
  else return a + b;
}
template <class T, class D>
T atomic_sub(T a, D b) {
  if constexpr (std::is_integral_v<T>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) - static_cast<std::make_unsigned_t<T>>(b));
  else return a - b;
}

inline void register_object(fiber::ObjectKind kind, const void* object, duet::source_location loc) noexcept {
  if (auto* rt = fiber::current()) [[unlikely]]
    fiber::created(*rt, kind, object, loc);
}

}  // namespace duet::detail
