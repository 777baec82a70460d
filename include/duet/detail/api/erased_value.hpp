// duet::Api's machinery: a value of any type that a call holds (an argument drawn, what a side
// returned). Its storage and its destruction are the same for every operation, so that what a
// call keeps is compiled once (src/frontends/api_call.cpp) rather than once per operation; only
// the value's construction and its destructor are compiled per type.
// Included by duet/api.hpp's machinery; not a public header.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>
#include <variant>

namespace duet {
namespace detail {

/// What a call's result is kept as (void becomes std::monostate).
template <class T>
using stored_t = std::conditional_t<std::is_void_v<T>, std::monostate, std::remove_cvref_t<T>>;

/// Marks duet's own handling of a value while it lasts (copying one in, destroying one): on a
/// fiber run what that does (a reference count's update, a free) is not the subject's work, so it
/// is no step of the schedule and no line of the trace, and a run and its replay agree however
/// the handling falls between the subject's steps. Defined with the fiber runtime.
class OwnWork {
 public:
  OwnWork() noexcept;
  ~OwnWork();
  OwnWork(const OwnWork&) = delete;
  OwnWork& operator=(const OwnWork&) = delete;
};

/// A value of a type known only where it is made: in place when it is small (an int, a string,
/// a vector, a map), else on the heap. Empty until made; reset() (or the destructor) ends it.
class ErasedValue {
 public:
  ErasedValue() noexcept {}  // the buffer is left uninitialised (= default would zero it in a new[])
  ~ErasedValue() { reset(); }
  ErasedValue(const ErasedValue&) = delete;
  ErasedValue& operator=(const ErasedValue&) = delete;

  /// Holds T(args...), ending the value held before.
  template <class T, class... A>
  T& emplace(A&&... args) {
    const OwnWork own;
    return make<T>([&] { return T(std::forward<A>(args)...); });
  }
  /// Holds what f() returns (std::monostate when it returns void), ending the value held before;
  /// holds nothing when f throws.
  template <class T, class F>
  T& emplace_result(F&& f) {
    if constexpr (std::is_void_v<decltype(f())>) {
      reset();
      f();
      return emplace<T>();
    } else {
      return make<T>([&]() -> T { return f(); });
    }
  }
  void reset() noexcept {
    if (!value_) return;
    void* value = value_;
    value_ = nullptr;
    if (destroy_) {  // none: trivially destructible, in place
      const OwnWork own;
      destroy_(value);
    }
  }
  bool engaged() const noexcept { return value_ != nullptr; }
  /// The value (engaged() only).
  void* get() const noexcept { return value_; }

 private:
  static constexpr std::size_t inline_size = 48;
  template <class T>
  static constexpr bool fits_inline = sizeof(T) <= inline_size && alignof(T) <= alignof(std::max_align_t);

  template <class T>
  static void destroy_in_place(void* value) noexcept {
    static_cast<T*>(value)->~T();
  }
  template <class T>
  static void destroy_on_heap(void* value) noexcept {
    delete static_cast<T*>(value);
  }

  // Constructs make()'s value (copy elision: no move of the result) and only then records it.
  template <class T, class Make>
  T& make(Make&& make) {
    reset();
    T* made;
    if constexpr (fits_inline<T>) {
      made = ::new (static_cast<void*>(buffer_)) T(make());
      if constexpr (std::is_trivially_destructible_v<T>) destroy_ = nullptr;
      else destroy_ = &destroy_in_place<T>;
    } else {
      made = new T(make());
      destroy_ = &destroy_on_heap<T>;
    }
    value_ = made;
    return *made;
  }

  alignas(std::max_align_t) unsigned char buffer_[inline_size];
  void* value_ = nullptr;
  void (*destroy_)(void*) noexcept = nullptr;
};

}  // namespace detail
}  // namespace duet
