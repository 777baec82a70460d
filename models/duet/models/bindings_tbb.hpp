// Bindings of oneTBB's concurrent containers to duet's models: tbb::concurrent_queue as a
// queue, tbb::concurrent_priority_queue as a priority queue, tbb::concurrent_hash_map and
// tbb::concurrent_unordered_map as maps, tbb::concurrent_set as a set (CMake: duet::models_tbb,
// which links oneTBB).
//
//   duet::check_parallel<duet::models::Queue<duet::models::TbbQueue>>();
#pragma once

#include <functional>
#include <optional>

#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/concurrent_priority_queue.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/concurrent_set.h>
#include <oneapi/tbb/concurrent_unordered_map.h>

namespace duet::models {

/// Queue: tbb::concurrent_queue (push, try_pop).
struct TbbQueue {
  using Sut = tbb::concurrent_queue<int>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

/// PriorityQueue: tbb::concurrent_priority_queue (push, try_pop; its size() and empty() are not
/// safe under concurrent calls, so they are left out). std::less<int> pops the largest first.
template <class Compare = std::less<int>>
struct TbbPriorityQueue {
  using Sut = tbb::concurrent_priority_queue<int, Compare>;
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

}  // namespace duet::models
