// What one call returned: nothing, a typed value, or an exception, all comparable and
// printable, so "threw std::out_of_range" against "returned 3" is an ordinary disagreement.
//
//   duet::Result a = 3;                                   // a value
//   duet::Result b;                                       // void
//   duet::Result c = duet::Result::threw<std::out_of_range>();
//   a == duet::Result(3);   a.show() == "3";   c.show() == "throws std::out_of_range"
//
// Small trivially copyable values live inline (no allocation on the engine's hot path).
#pragma once

#include <cstddef>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "duet/detail/engine_signal.hpp"
#include "duet/show.hpp"

namespace duet {

namespace detail {
struct ValueOps {
  const std::type_info& type;
  bool inline_storage;
  // An integer: == is equality of its bytes, and held inline (where every byte past the value
  // is zero) two of the same type are equal when their whole inline buffers are.
  bool bytewise_equal;
  bool (*equal)(const void*, const void*);
  std::string (*show)(const void*);
  std::string (*type_name)();
  void (*copy)(void* dst, const void* src);  // placement into dst (inline) or new (heap)
  void (*destroy)(void*);
};

template <class T>
concept EqualityComparable = requires(const T& a, const T& b) {
  { a == b } -> std::convertible_to<bool>;
};

inline constexpr std::size_t kInlineResultSize = 16;

template <class T>
constexpr bool stored_inline = sizeof(T) <= kInlineResultSize &&
                               alignof(T) <= alignof(std::max_align_t) && std::is_trivially_copyable_v<T>;

/// A type's table, as value_ops gives it.
template <class T>
constexpr ValueOps make_value_ops() {
  return {
      typeid(T),
      stored_inline<T>,
      stored_inline<T> && std::is_integral_v<T>,
      [](const void* a, const void* b) { return static_cast<bool>(*static_cast<const T*>(a) == *static_cast<const T*>(b)); },
      [](const void* a) { return duet::show(*static_cast<const T*>(a)); },
      [] { return duet::type_name<T>(); },
      [](void* dst, const void* src) {
        if constexpr (stored_inline<T>) new (dst) T(*static_cast<const T*>(src));
        else *static_cast<T**>(dst) = new T(**static_cast<T* const*>(src));
      },
      [](void* p) {
        if constexpr (stored_inline<T>) static_cast<T*>(p)->~T();
        else delete *static_cast<T**>(p);
      }};
}

template <class... Ts>
struct TypeList {};
/// The result types whose tables the library compiles once (src/show/show.cpp): a test file
/// whose results are of these types compiles none of their table's functions.
using LibraryValueTypes =
    TypeList<bool, char, signed char, unsigned char, short, unsigned short, int, unsigned, long, unsigned long, long long,
             unsigned long long, float, double, std::string, std::optional<bool>, std::optional<char>, std::optional<int>,
             std::optional<unsigned>, std::optional<long>, std::optional<unsigned long>, std::optional<long long>,
             std::optional<unsigned long long>, std::optional<double>, std::optional<std::string>>;
template <class T, class... Ts>
constexpr int type_index(TypeList<Ts...>) {
  int i = 0, found = -1;
  ((std::is_same_v<T, Ts> ? (found = i, ++i) : ++i), ...);
  return found;
}
/// The tables of LibraryValueTypes, in its order.
extern const ValueOps library_value_ops[];

/// One table per type: the library's for LibraryValueTypes, else a static of the test file's.
template <class T>
const ValueOps* value_ops() {
  constexpr int library_index = type_index<T>(LibraryValueTypes{});
  if constexpr (library_index >= 0) {
    return &library_value_ops[library_index];
  } else {
    static const ValueOps ops = make_value_ops<T>();
    return &ops;
  }
}
}  // namespace detail

class Result {
 public:
  enum class Kind : unsigned char { none, value, exception };

  /// A call that returned nothing.
  Result() noexcept = default;

  /// A call that returned v. T must be comparable with == and printable (see show.hpp).
  template <class T>
    requires(!std::is_same_v<std::remove_cvref_t<T>, Result>)
  Result(T&& v) {  // NOLINT: implicit on purpose, `return sut.pop();` is the common case
    using U = std::conditional_t<std::is_convertible_v<T, std::string_view> &&
                                     !std::is_same_v<std::remove_cvref_t<T>, std::string>,
                                 std::string, std::remove_cvref_t<T>>;
    static_assert(detail::EqualityComparable<U>, "duet: a result type needs operator== so the candidate's result can be "
                                                 "compared with the model's");
    static_assert(printable<U>(), "duet: a result type needs a printer: define `std::string duet_show(const T&)` "
                                  "in its namespace, or operator<<");
    kind_ = Kind::value;
    ops_ = detail::value_ops<U>();
    if constexpr (detail::stored_inline<U>) new (buf_) U(std::forward<T>(v));
    else *reinterpret_cast<U**>(buf_) = new U(std::forward<T>(v));
  }

  /// A call that threw. An empty message matches any message of the same type, so a model
  /// can say "throws std::out_of_range" without knowing the library's wording.
  static Result exception(std::string type, std::string message = {}) {
    Result r;
    r.kind_ = Kind::exception;
    r.exc_ = std::make_shared<const Exc>(Exc{std::move(type), std::move(message)});
    return r;
  }
  template <class E>
  static Result threw(std::string message = {}) {
    static const std::string name = type_name<E>();  // demangled once per type
    return exception(name, std::move(message));
  }
  /// The exception being handled, as a Result (call inside a catch block).
  static Result current_exception();

  Result(const Result& o) : kind_(o.kind_), ops_(o.ops_), exc_(o.exc_) {
    if (ops_) copy_value_from(o);
  }
  Result(Result&& o) noexcept : kind_(o.kind_), ops_(o.ops_), exc_(std::move(o.exc_)) {
    std::memcpy(buf_, o.buf_, sizeof buf_);  // inline values are trivially copyable; heap is a pointer
    o.ops_ = nullptr;
    o.kind_ = Kind::none;
  }
  Result& operator=(const Result& o) {
    if (this != &o) *this = Result(o);
    return *this;
  }
  Result& operator=(Result&& o) noexcept {
    if (this == &o) return *this;
    reset();
    kind_ = o.kind_;
    ops_ = o.ops_;
    exc_ = std::move(o.exc_);
    std::memcpy(buf_, o.buf_, sizeof buf_);
    o.ops_ = nullptr;
    o.kind_ = Kind::none;
    return *this;
  }
  ~Result() { reset(); }

  Kind kind() const { return kind_; }
  bool is_void() const { return kind_ == Kind::none; }
  bool is_value() const { return kind_ == Kind::value; }
  bool is_exception() const { return kind_ == Kind::exception; }

  /// The value if this holds a T, else nullptr.
  template <class T>
  const T* get_if() const {
    if (kind_ != Kind::value || ops_->type != typeid(T)) return nullptr;
    if (ops_->inline_storage) return std::launder(reinterpret_cast<const T*>(buf_));
    return *reinterpret_cast<T* const*>(buf_);
  }
  const std::string& exception_type() const { return exc_ ? exc_->type : empty_(); }
  const std::string& exception_message() const { return exc_ ? exc_->message : empty_(); }

  /// C++ spelling of the value ("3", "std::nullopt"), "void", or "throws T(\"message\")".
  std::string show() const;
  /// The value's type as C++ ("int"), empty for void and exceptions.
  std::string value_type_name() const { return ops_ ? ops_->type_name() : std::string(); }

  /// Inline for what a sequential check compares on every command (two voids, two integers of
  /// one type), out of line for the rest.
  friend bool operator==(const Result& a, const Result& b) {
    if (a.ops_ == b.ops_) {  // one table per type: the same table is the same type
      if (!a.ops_) return (a.kind_ == Kind::none && b.kind_ == Kind::none) || equal_otherwise(a, b);
      if (a.ops_->bytewise_equal) return std::memcmp(a.buf_, b.buf_, sizeof a.buf_) == 0;
    }
    return equal_otherwise(a, b);
  }

 private:
  struct Exc {
    std::string type, message;
  };
  // operator== past its inline cases.
  static bool equal_otherwise(const Result& a, const Result& b);
  const void* data() const {
    return ops_->inline_storage ? static_cast<const void*>(buf_) : *reinterpret_cast<void* const*>(buf_);
  }
  // Inline values are trivially copyable: no call through the table to copy or destroy them
  // (the hot path assigns a Result per command). The whole buffer is copied, so that the bytes
  // past an inline value stay zero (operator== compares integers by the whole buffer).
  void copy_value_from(const Result& o) {
    if (ops_->inline_storage) std::memcpy(buf_, o.buf_, sizeof buf_);
    else ops_->copy(buf_, o.buf_);
  }
  void reset() {
    if (ops_ && !ops_->inline_storage) ops_->destroy(buf_);
    ops_ = nullptr;
  }
  static const std::string& empty_() {
    static const std::string e;
    return e;
  }

  Kind kind_ = Kind::none;
  const detail::ValueOps* ops_ = nullptr;
  std::shared_ptr<const Exc> exc_;
  alignas(std::max_align_t) unsigned char buf_[detail::kInlineResultSize] = {};
};

namespace detail {
/// Replaces `slot` with what `make()` returns, constructed in place: a Result returned by value
/// and then moved is re-read right after its value was written narrower than it is read (a
/// store-forwarding stall, the largest cost of a sequential check's step). If `make` throws,
/// `slot` is void and the exception goes on.
template <class Make>
void emplace_result(Result& slot, Make&& make) {
  slot.~Result();
  try {
    ::new (static_cast<void*>(&slot)) Result(std::forward<Make>(make)());
  } catch (...) {
    ::new (static_cast<void*>(&slot)) Result();
    throw;
  }
}
}  // namespace detail

/// Runs f and captures what it did as a Result: its value, void, or the exception it threw.
///
///   duet::Result r = duet::capture([&] { return v.at(7); });   // "throws std::out_of_range(...)"
template <class F>
Result capture(F&& f) {
  try {
    if constexpr (std::is_void_v<std::invoke_result_t<F>>) {
      std::forward<F>(f)();
      return Result();
    } else {
      return Result(std::forward<F>(f)());
    }
  } catch (const detail::EngineSignal&) {
    throw;  // the engine's own (an injected crash, the end of the input): not the call's result
  } catch (...) {
    return Result::current_exception();
  }
}

}  // namespace duet
