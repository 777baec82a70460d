// A single-producer single-consumer ring (Lamport's queue, with C++11 orders): the producer
// alone writes `tail_`, the consumer alone writes `head_`, and each publishes its index with a
// release store that the other reads with acquire. Correct with one producer and one consumer
// at a time, and only then: two producers read the same tail, write the same slot and publish
// the same next index, so one push is lost (two consumers pop the same item). A check states
// that with roles (duet::Role, ParallelConfig::roles).
//
//   duet::models::SpscRing<int> q(4);                          // std types: production
//   bool ok = q.push(1);  std::optional<int> x = q.try_pop();  // push: false when full
//
//   using Spec = duet::models::BoundedQueue<duet::models::SpscRingBinding<>>;
//   duet::check_parallel<Spec>({.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}});  // passes
//   duet::expect_unsafe<Spec>({.roles = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}}});   // lost push
//
// Sync: see sync_traits.hpp (FiberSync for fiber runs, where the two producers' writes to one
// slot are also a data race).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <duet/models/bounded_queue.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

template <class T, SyncTraits Sync = StdSync>
class SpscRing {
 public:
  /// Holds up to `capacity` items (one slot more, so that full and empty differ).
  explicit SpscRing(std::size_t capacity) : slots_(capacity + 1) {
    if (capacity == 0) throw std::invalid_argument("SpscRing: capacity must be at least 1");
  }

  /// The producer's call: false when the ring is full.
  bool push(T value) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    const std::size_t next = (tail + 1) % slots_.size();
    if (next == head_.load(std::memory_order_acquire)) return false;
    slots_[tail].set(std::move(value));
    tail_.store(next, std::memory_order_release);
    return true;
  }

  /// The consumer's call: the oldest item, or nullopt when the ring is empty.
  std::optional<T> try_pop() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) return std::nullopt;
    T value = slots_[head].get();
    head_.store((head + 1) % slots_.size(), std::memory_order_release);
    return value;
  }

 private:
  std::vector<typename Sync::template var<T>> slots_;
  typename Sync::template atomic<std::size_t> head_{0};
  typename Sync::template atomic<std::size_t> tail_{0};
};

/// SpscRing as a BoundedQueue (bounded_queue.hpp) of capacity `Capacity`: push -> bool, pop ->
/// optional, neither waits.
template <SyncTraits Sync = StdSync, std::size_t Capacity = 2>
struct SpscRingBinding {
  using Sut = SpscRing<int, Sync>;
  static constexpr std::size_t capacity = Capacity;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
  static bool push(Sut& q, int x) { return q.push(x); }
  static std::optional<int> pop(Sut& q) { return q.try_pop(); }
};

}  // namespace duet::models
