// What isolation mode sends between the test process and the child that runs its cases: case
// outcomes, traces and choices, as length-prefixed fields. Both ends are the same binary, so
// the format needs no versioning; a reader that runs out of bytes throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "duet/detail/engine.hpp"

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
  void strings(const std::vector<std::string>& v) {
    u64(v.size());
    for (const auto& s : v) str(s);
  }
  void u64s(const std::vector<std::uint64_t>& v) {
    u64(v.size());
    for (std::uint64_t x : v) u64(x);
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
      if (p_ == end_) throw std::runtime_error("isolation: a message from the child process ends early");
      const auto byte = static_cast<unsigned char>(*p_++);
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    throw std::runtime_error("isolation: a malformed number in a message from the child process");
  }
  bool boolean() { return u64() != 0; }
  std::string str() {
    const std::uint64_t n = u64();
    if (n > static_cast<std::uint64_t>(end_ - p_))
      throw std::runtime_error("isolation: a message from the child process ends early");
    std::string s(p_, static_cast<std::size_t>(n));
    p_ += n;
    return s;
  }
  std::vector<std::string> strings() {
    std::vector<std::string> v(count());
    for (auto& s : v) s = str();
    return v;
  }
  std::vector<std::uint64_t> u64s() {
    std::vector<std::uint64_t> v(count());
    for (auto& x : v) x = u64();
    return v;
  }
  bool done() const { return p_ == end_; }
  /// A whole message has been read: bytes left over mean it was not the message expected.
  void expect_end() const {
    if (p_ != end_) throw std::runtime_error("isolation: a message from the child process is longer than expected");
  }
  // A count of items that each take at least one byte: no more than the bytes left.
  std::size_t count() {
    const std::uint64_t n = u64();
    if (n > static_cast<std::uint64_t>(end_ - p_))
      throw std::runtime_error("isolation: a message from the child process ends early");
    return static_cast<std::size_t>(n);
  }

 private:
  const char* p_;
  const char* end_;
};

void write_trace(WireWriter& w, const Trace& t);
Trace read_trace(WireReader& r);
void write_outcome(WireWriter& w, const CaseOutcome& o);
CaseOutcome read_outcome(WireReader& r);
void write_spans(WireWriter& w, const std::vector<Source::Span>& spans);
std::vector<Source::Span> read_spans(WireReader& r);

}  // namespace duet::detail
