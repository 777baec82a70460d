// What a process of duet's sends another it forked (isolation's child, a walk's worker, a trial's
// process): messages of numbers, strings and lists, as length-prefixed fields. Both ends are the
// same binary, so the format needs no versioning; a reader that runs out of bytes, finds a value
// out of range or bytes left over throws std::runtime_error.
//
// A message is a struct that lists its fields once, in wire order, as `wire_fields`:
//
//   template <WireSelf<Knot> Self, class Visit>
//   auto wire_fields(Self& k, Visit&& visit) { return visit(k.name, k.turns, not_sent(k.cache)); }
//
// encode(), decode() and the round-trip test (tests/engine/wire_test.cpp) walk that list, and
// the test checks that it names every member of the struct (not_sent: a member the wire leaves
// out, named so that the list stays whole). Members are numbers (unsigned, an enum with a
// `wire_last` overload saying its last value, double, a code address), bool, std::string,
// std::vector, std::optional, std::pair, a duration, a time point, or structs that list theirs.
#pragma once

#include <bit>
#include <chrono>
#include <concepts>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/container_traits.hpp"
#include "duet/source.hpp"

namespace duet::detail {

class WireWriter {
 public:
  void u64(std::uint64_t v) {
    do {
      unsigned char byte = v & 0x7f;
      v >>= 7;
      if (v) byte |= 0x80;
      out_ += static_cast<char>(byte);
    } while (v);
  }
  void boolean(bool b) { u64(b ? 1 : 0); }
  void str(const std::string& s) {
    u64(s.size());
    out_ += s;
  }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class WireReader {
 public:
  explicit WireReader(const std::string& in) : p_(in.data()), end_(in.data() + in.size()) {}
  std::uint64_t u64() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) malformed("ends early");
      const auto byte = static_cast<unsigned char>(*p_++);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    malformed("holds a malformed number");
  }
  bool boolean() { return u64() != 0; }
  std::string str() {
    const std::size_t n = count();
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  /// A whole message has been read: bytes left over mean it was not the message expected.
  void expect_end() const {
    if (p_ != end_) malformed("is longer than expected");
  }
  /// A count of items that each take at least one byte: no more than the bytes left.
  std::size_t count() {
    const std::uint64_t n = u64();
    if (n > static_cast<std::uint64_t>(end_ - p_)) malformed("ends early");
    return static_cast<std::size_t>(n);
  }
  [[noreturn]] static void malformed(const char* what) {
    throw std::runtime_error(std::string("a message from another process of duet's ") + what);
  }

 private:
  const char* p_;
  const char* end_;
};

/// `Self` is T, or a const T (wire_fields serves writing and reading alike).
template <class Self, class T>
concept WireSelf = std::same_as<std::remove_const_t<Self>, T>;

/// A member the wire leaves out, named in a field list so that the list names every member.
template <class T>
struct NotSent {
  T& member;
};
template <class T>
NotSent<T> not_sent(T& member) {
  return {member};
}

template <WireSelf<Source::Span> Self, class Visit>
auto wire_fields(Self& s, Visit&& visit) {
  return visit(s.begin, s.end);
}
template <WireSelf<Source::Drawn> Self, class Visit>
auto wire_fields(Self& d, Visit&& visit) {
  return visit(d.choices, d.rng, d.pos, d.byte_pos);
}

namespace wire {

template <class T>
struct IsDuration : std::false_type {};
template <class R, class P>
struct IsDuration<std::chrono::duration<R, P>> : std::true_type {};
template <class T>
struct IsTimePoint : std::false_type {};
template <class C, class D>
struct IsTimePoint<std::chrono::time_point<C, D>> : std::true_type {};

template <class T>
struct IsNotSent : std::false_type {};
template <class T>
struct IsNotSent<NotSent<T>> : std::true_type {};

template <class T>
void write(WireWriter& w, const T& v) {
  if constexpr (IsNotSent<T>::value) return;
  else if constexpr (std::is_same_v<T, bool>) w.boolean(v);
  else if constexpr (std::is_enum_v<T> || std::is_unsigned_v<T>) w.u64(static_cast<std::uint64_t>(v));
  else if constexpr (std::is_same_v<T, double>) w.u64(std::bit_cast<std::uint64_t>(v));
  else if constexpr (std::is_same_v<T, const void*>) w.u64(reinterpret_cast<std::uintptr_t>(v));
  else if constexpr (std::is_same_v<T, std::string>) w.str(v);
  else if constexpr (IsDuration<T>::value) w.u64(static_cast<std::uint64_t>(v.count()));
  else if constexpr (IsTimePoint<T>::value) write(w, v.time_since_epoch());
  else if constexpr (is_pair<T>::value) {
    write(w, v.first);
    write(w, v.second);
  } else if constexpr (is_optional<T>::value) {
    w.boolean(v.has_value());
    if (v) write(w, *v);
  } else if constexpr (is_vector<T>::value) {
    w.u64(v.size());
    for (const auto& x : v) write(w, x);
  } else {
    wire_fields(v, [&w](const auto&... field) { (write(w, field), ...); });
  }
}

template <class T>
void read(WireReader& r, T& v) {
  if constexpr (IsNotSent<T>::value) return;
  else if constexpr (std::is_same_v<T, bool>) v = r.boolean();
  else if constexpr (std::is_enum_v<T>) {
    const std::uint64_t n = r.u64();
    if (n > static_cast<std::uint64_t>(wire_last(v))) WireReader::malformed("holds a value out of range");
    v = static_cast<T>(n);
  } else if constexpr (std::is_unsigned_v<T>) {
    const std::uint64_t n = r.u64();
    if (n > std::numeric_limits<T>::max()) WireReader::malformed("holds a number out of range");
    v = static_cast<T>(n);
  } else if constexpr (std::is_same_v<T, double>) v = std::bit_cast<double>(r.u64());
  else if constexpr (std::is_same_v<T, const void*>) v = reinterpret_cast<const void*>(static_cast<std::uintptr_t>(r.u64()));
  else if constexpr (std::is_same_v<T, std::string>) v = r.str();
  else if constexpr (IsDuration<T>::value) v = T(static_cast<typename T::rep>(r.u64()));
  else if constexpr (IsTimePoint<T>::value) {
    typename T::duration since{};
    read(r, since);
    v = T(since);
  } else if constexpr (is_pair<T>::value) {
    read(r, v.first);
    read(r, v.second);
  } else if constexpr (is_optional<T>::value) {
    v.reset();
    if (r.boolean()) read(r, v.emplace());
  } else if constexpr (is_vector<T>::value) {
    // One at a time: each item takes a byte at least, so what is made is bounded by what came.
    const std::size_t n = r.count();
    v.clear();
    for (std::size_t i = 0; i < n; ++i) read(r, v.emplace_back());
  } else {
    wire_fields(v, [&r](auto&&... field) { (read(r, field), ...); });
  }
}

}  // namespace wire

/// A message's bytes.
template <class Message>
std::string encode(const Message& m) {
  WireWriter out;
  wire::write(out, m);
  return out.take();
}
/// The message again; throws std::runtime_error on bytes that are not one (short, long, out of range).
template <class Message>
Message decode(const std::string& bytes) {
  WireReader in(bytes);
  Message m{};
  wire::read(in, m);
  in.expect_end();
  return m;
}

}  // namespace duet::detail
