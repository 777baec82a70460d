// A lock-based bounded queue (the classic bounded buffer): a ring of slots, one mutex, and two
// condition variables, not_full for producers and not_empty for consumers. BoundedBuffer waits
// in a `while` loop, as it must: after a spurious wake-up, or after another consumer (producer)
// took the item (slot) it was woken for before it got the mutex back (a stolen wake-up), it
// waits again. The ring checks that it never pops from an empty buffer (pushes into a full
// one) and throws std::logic_error if it does; a wait that did not check again could trip it
// (duet's own tests check such a buffer, with a Wait policy of their own, and find it). It
// checks as a BoundedQueue (models/duet/models/bounded_queue.hpp), through the timed calls.
//
//   duet::models::BoundedBuffer<int> q(8);                          // std types: production
//   duet::models::BoundedBuffer<int, duet::models::FiberSync> f(2); // duet types: fiber runs
//   q.push(1);  int x = q.pop();                                    // block while full / empty
//   bool ok = q.try_push_for(2, 1ms);  std::optional<int> y = q.try_pop_for(1ms);
//
//   duet::check_parallel<duet::models::BoundedBufferSpec<>>(...);        // passes
//
// In fiber runs condition-variable waits may wake spuriously (drawn from the choice stream) and
// a timed wait times out only when no fiber can proceed, so the specs' timed calls give up only
// when nothing could ever fill (empty) the queue. Sync: see sync_traits.hpp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <duet/models/bounded_queue.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

/// How a bounded buffer waits for room or for an item (BasicBoundedBuffer's Wait policy): in a
/// loop that checks again after every wake-up, spurious or stolen.
struct WaitInLoop {
  /// Waits on `cv` while blocked() (with `lk` held); false when `deadline` passed first.
  template <class Lock, class CondVar, class Blocked, class TimePoint>
  static bool wait_while(Lock& lk, CondVar& cv, Blocked blocked, const TimePoint* deadline) {
    while (blocked()) {
      if (deadline == nullptr) cv.wait(lk);
      else if (cv.wait_until(lk, *deadline) == std::cv_status::timeout) return !blocked();
    }
    return true;
  }
};

template <class T, SyncTraits Sync = StdSync, class Wait = WaitInLoop>
class BasicBoundedBuffer {
  using lock_t = std::unique_lock<typename Sync::mutex>;
  using clock = std::chrono::steady_clock;

 public:
  explicit BasicBoundedBuffer(std::size_t capacity) : slots_(capacity) {
    if (capacity == 0) throw std::invalid_argument("BoundedBuffer: capacity must be at least 1");
  }

  std::size_t capacity() const { return slots_.size(); }

  /// Waits while the buffer is full.
  void push(T value) {
    lock_t lk(m_);
    wait_while(
        lk, not_full_, [&] { return full(); }, nullptr);
    put(std::move(value));
  }
  /// Waits while the buffer is empty.
  T pop() {
    lock_t lk(m_);
    wait_while(
        lk, not_empty_, [&] { return empty(); }, nullptr);
    return take();
  }
  /// Waits while the buffer is full, at most `timeout`; false if it was still full then.
  template <class Rep, class Period>
  bool try_push_for(T value, const std::chrono::duration<Rep, Period>& timeout) {
    const clock::time_point deadline = clock::now() + std::chrono::duration_cast<clock::duration>(timeout);
    lock_t lk(m_);
    if (!wait_while(
            lk, not_full_, [&] { return full(); }, &deadline))
      return false;
    put(std::move(value));
    return true;
  }
  /// Waits while the buffer is empty, at most `timeout`; nullopt if it was still empty then.
  template <class Rep, class Period>
  std::optional<T> try_pop_for(const std::chrono::duration<Rep, Period>& timeout) {
    const clock::time_point deadline = clock::now() + std::chrono::duration_cast<clock::duration>(timeout);
    lock_t lk(m_);
    if (!wait_while(
            lk, not_empty_, [&] { return empty(); }, &deadline))
      return std::nullopt;
    return take();
  }

 private:
  bool full() const { return count_.get() == slots_.size(); }
  bool empty() const { return count_.get() == 0; }

  // Waits on `cv` while blocked() (with `lk` held), as the Wait policy does; false when
  // `deadline` passed first.
  template <class Blocked>
  bool wait_while(lock_t& lk, typename Sync::condition_variable& cv, Blocked blocked, const clock::time_point* deadline) {
    return Wait::wait_while(lk, cv, blocked, deadline);
  }

  // The ring, with the lock held. Its checks are the buffer's own assertions.
  void put(T value) {
    if (full()) throw std::logic_error("BoundedBuffer: push into a full buffer");
    const std::size_t tail = (head_.get() + count_.get()) % slots_.size();
    slots_[tail] = std::move(value);
    count_.set(count_.get() + 1);
    not_empty_.notify_one();
  }
  T take() {
    if (empty()) throw std::logic_error("BoundedBuffer: pop from an empty buffer");
    std::optional<T>& slot = slots_[head_.get()];
    T value = std::move(*slot);
    slot.reset();
    head_.set((head_.get() + 1) % slots_.size());
    count_.set(count_.get() - 1);
    not_full_.notify_one();
    return value;
  }

  typename Sync::mutex m_;
  typename Sync::condition_variable not_full_, not_empty_;
  std::vector<std::optional<T>> slots_;  // guarded by m_, as head_ and count_
  typename Sync::template var<std::size_t> head_{0};
  typename Sync::template var<std::size_t> count_{0};
};

template <class T, SyncTraits Sync = StdSync>
using BoundedBuffer = BasicBoundedBuffer<T, Sync, WaitInLoop>;

/// Binds a bounded buffer of ints, capacity 2, to the BoundedQueue model through its timed
/// calls. The timeout, 100 µs, is how long a call on threads waits for a concurrent one to make
/// room or bring an item (the branches of a trial start together, and calls take microseconds);
/// it bounds what a blocked call costs a trial. In fiber runs time stands still while any fiber
/// can run, so there the length does not matter.
template <class B>
struct BoundedBufferBinding {
  using Sut = B;
  static constexpr std::size_t capacity = 2;
  static constexpr std::chrono::microseconds timeout{100};
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
  static bool push(Sut& q, int x) { return q.try_push_for(x, timeout); }
  static std::optional<int> pop(Sut& q) { return q.try_pop_for(timeout); }
};

/// push(x) and pop() (timed) on a BoundedBuffer<int>: linearizable.
template <SyncTraits Sync = FiberSync>
using BoundedBufferSpec = BoundedQueue<BoundedBufferBinding<BoundedBuffer<int, Sync>>>;

}  // namespace duet::models
