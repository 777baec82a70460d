// Bindings of the C++ standard library's subjects to duet's models: std::atomic as a counter
// and a register, a std::deque behind a std::mutex as a queue. No dependency beyond duet
// (CMake: duet::models).
//
//   duet::check_parallel<duet::models::Counter<duet::models::AtomicCounter>>();
#pragma once

#include <atomic>
#include <deque>
#include <mutex>
#include <optional>

namespace duet::models {

/// Counter: std::atomic<long> with fetch_add.
struct AtomicCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load(); }
};

/// Register: std::atomic<int> with compare_exchange_strong.
struct AtomicRegister {
  using Sut = std::atomic<int>;
  static void write(Sut& r, int v) { r.store(v); }
  static int read(Sut& r) { return r.load(); }
  static bool cas(Sut& r, int expected, int v) { return r.compare_exchange_strong(expected, v); }
};

/// Queue: a std::deque behind a std::mutex.
struct LockedDeque {
  std::mutex m;
  std::deque<int> d;
};
struct MutexQueue {
  using Sut = LockedDeque;
  static void push(Sut& q, int x) {
    std::lock_guard lock(q.m);
    q.d.push_back(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    std::lock_guard lock(q.m);
    if (q.d.empty()) return std::nullopt;
    const int x = q.d.front();
    q.d.pop_front();
    return x;
  }
  static std::size_t size(Sut& q) {
    std::lock_guard lock(q.m);
    return q.d.size();
  }
};

}  // namespace duet::models
