// Bindings of real concurrent subjects to duet's models: the C++ standard library, oneTBB and
// Boost.Lockfree. Each is a type name plus the few calls its model needs.
//
//   duet::check_parallel<duet::models::Queue<duet::models::TbbQueue>>();
#pragma once

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>
#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/concurrent_set.h>
#include <oneapi/tbb/concurrent_unordered_map.h>

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

/// Queue: tbb::concurrent_queue (push, try_pop).
struct TbbQueue {
  using Sut = tbb::concurrent_queue<int>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

/// Map: tbb::concurrent_hash_map (insert, find, erase).
struct TbbHashMap {
  using Sut = tbb::concurrent_hash_map<int, int>;
  static bool insert(Sut& m, int k, int v) { return m.insert({k, v}); }
  static std::optional<int> find(Sut& m, int k) {
    Sut::const_accessor a;
    return m.find(a, k) ? std::optional<int>(a->second) : std::nullopt;
  }
  static bool erase(Sut& m, int k) { return m.erase(k); }
};

/// Map: tbb::concurrent_unordered_map (insert, find, count; no concurrent erase).
struct TbbUnorderedMap {
  using Sut = tbb::concurrent_unordered_map<int, int>;
  static bool insert(Sut& m, int k, int v) { return m.insert({k, v}).second; }
  static std::optional<int> find(Sut& m, int k) {
    auto it = m.find(k);
    return it == m.end() ? std::nullopt : std::optional<int>(it->second);
  }
  static std::size_t count(Sut& m, int k) { return m.count(k); }
};

/// Set: tbb::concurrent_set (insert, contains).
struct TbbSet {
  using Sut = tbb::concurrent_set<int>;
  static bool insert(Sut& s, int x) { return s.insert(x).second; }
  static bool contains(Sut& s, int x) { return s.contains(x); }
};

/// Queue: boost::lockfree::queue (push, pop), 64 nodes preallocated.
struct LockfreeQueue {
  using Sut = boost::lockfree::queue<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

/// Stack: boost::lockfree::stack (push, pop), 64 nodes preallocated.
struct LockfreeStack {
  using Sut = boost::lockfree::stack<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& s, int x) { s.push(x); }
  static std::optional<int> pop(Sut& s) {
    int x;
    return s.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

}  // namespace duet::models
