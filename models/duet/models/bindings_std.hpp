// Bindings of the C++ standard library's subjects to duet's models: std::atomic as a counter
// and a register, a std::deque behind a std::mutex as a queue, a std::priority_queue behind a
// std::mutex as a priority queue. No dependency beyond duet (CMake: duet::models).
//
//   duet::check_parallel<duet::models::Counter<duet::models::AtomicCounter>>();
#pragma once

#include <atomic>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <queue>
#include <vector>

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

/// PriorityQueue: a std::priority_queue behind a std::mutex; std::less<int> (the default) pops
/// the largest first (PriorityQueue<MutexPriorityQueue<>>), std::greater<int> the smallest
/// (PriorityQueue<MutexPriorityQueue<std::greater<int>>, Priority::min>).
template <class Compare = std::less<int>>
struct LockedHeap {
  std::mutex m;
  std::priority_queue<int, std::vector<int>, Compare> q;
};
template <class Compare = std::less<int>>
struct MutexPriorityQueue {
  using Sut = LockedHeap<Compare>;
  static void push(Sut& h, int x) {
    std::lock_guard lock(h.m);
    h.q.push(x);
  }
  static std::optional<int> try_pop(Sut& h) {
    std::lock_guard lock(h.m);
    if (h.q.empty()) return std::nullopt;
    const int x = h.q.top();
    h.q.pop();
    return x;
  }
  static std::optional<int> top(Sut& h) {
    std::lock_guard lock(h.m);
    return h.q.empty() ? std::nullopt : std::optional<int>(h.q.top());
  }
  static std::size_t size(Sut& h) {
    std::lock_guard lock(h.m);
    return h.q.size();
  }
  static bool empty(Sut& h) {
    std::lock_guard lock(h.m);
    return h.q.empty();
  }
};

}  // namespace duet::models
