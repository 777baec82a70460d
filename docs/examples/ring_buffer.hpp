// The tutorial's first subject: a bounded FIFO queue on a ring buffer, and its model.
//
// RingBuffer<Buggy> has an off-by-one at wrap-around: when the read index reaches the end
// of the storage it wraps to 1 instead of 0. Nothing goes wrong until the queue has been
// emptied across the wrap once and refilled, which hand-written tests rarely do.
#pragma once

#include <cstddef>
#include <deque>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <duet/duet.hpp>

namespace ring {

template <bool Buggy>
class RingBuffer {
 public:
  explicit RingBuffer(std::size_t capacity) : slots_(capacity) {}

  /// Appends x; false when full.
  bool push(int x) {
    if (count_ == slots_.size()) return false;
    slots_[tail_] = x;
    tail_ = (tail_ + 1) % slots_.size();
    ++count_;
    return true;
  }
  /// Removes the oldest element; nullopt when empty.
  std::optional<int> pop() {
    if (count_ == 0) return std::nullopt;
    const int x = slots_[head_];
    if constexpr (Buggy) head_ = head_ + 1 == slots_.size() ? 1 : head_ + 1;  // the bug
    else head_ = (head_ + 1) % slots_.size();
    --count_;
    return x;
  }
  std::size_t size() const { return count_; }

 private:
  std::vector<int> slots_;
  std::size_t head_ = 0, tail_ = 0, count_ = 0;
};

// Commands: what a scenario can do, and how each prints as C++.
struct Push {
  int x;
};
struct Pop {};
struct Size {};
inline std::string duet_show(const Push& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const Pop&) { return "pop()"; }
inline std::string duet_show(const Size&) { return "size()"; }

template <class Queue>
struct RingBufferSpec {
  static constexpr std::size_t capacity = 3;
  using Sut = Queue;
  using State = std::deque<int>;  // the model: a deque that refuses to grow past capacity
  using Cmd = std::variant<Push, Pop, Size>;

  static constexpr const char* sut_name = "q";
  static Sut init_sut() { return Sut(capacity); }
  static std::string setup_cpp() { return duet::type_name<Sut>() + " q(" + std::to_string(capacity) + ");"; }

  static duet::Gen<Cmd> command(const State&) {
    static const duet::Gen<Cmd> gen = duet::one_of(
        duet::construct<Push>(duet::integers(-100, 100)).map([](Push p) { return Cmd(p); }),
        duet::just(Cmd(Pop{})), duet::just(Cmd(Size{})));
    return gen;
  }

  static duet::Result run(const Cmd& cmd, Sut& q) {
    if (auto* p = std::get_if<Push>(&cmd)) return q.push(p->x);
    if (std::holds_alternative<Pop>(cmd)) return q.pop();
    return q.size();
  }

  static duet::Result expected(const Cmd& cmd, const State& s) {
    if (std::holds_alternative<Push>(cmd)) return s.size() < capacity;
    if (std::holds_alternative<Pop>(cmd)) return s.empty() ? std::optional<int>() : std::optional<int>(s.front());
    return s.size();
  }

  static void next(const Cmd& cmd, State& s) {
    if (auto* p = std::get_if<Push>(&cmd)) {
      if (s.size() < capacity) s.push_back(p->x);
    } else if (std::holds_alternative<Pop>(cmd)) {
      if (!s.empty()) s.pop_front();
    }
  }
};

using BuggyRingBuffer = RingBuffer<true>;
using CorrectRingBuffer = RingBuffer<false>;
using BuggyRingBufferSpec = RingBufferSpec<BuggyRingBuffer>;
using CorrectRingBufferSpec = RingBufferSpec<CorrectRingBuffer>;

}  // namespace ring
