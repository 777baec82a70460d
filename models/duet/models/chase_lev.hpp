// The Chase–Lev work-stealing deque, with the C11 orders of Lê, Pop, Cohen and Zappa Nardelli
// ("Correct and efficient work-stealing for weak memory models", PPoPP 2013), over a fixed ring
// (push returns false when it is full instead of growing). One owner pushes and pops at the
// bottom; any number of thieves steal at the top. A steal that loses a race for the top item (to
// another thief, or to the owner's pop of the last item) aborts: it returns nullopt although the
// deque was not empty. Correct only with one owner: check it with roles (duet::Role).
//
//   duet::models::ChaseLevDeque<int> d(4);
//   d.push(1);  std::optional<int> mine = d.pop();   // the owner
//   std::optional<int> stolen = d.steal();           // a thief: nullopt when empty or aborted
//
//   using Spec = duet::models::WorkStealingDeque<duet::models::ChaseLevBinding<>>;
//   duet::check_parallel<Spec>({.roles = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}}});
//
// Sync: see sync_traits.hpp (FiberSync for fiber runs, which follow the C++ memory model: the
// orders here are what make it correct, and a weaker one is found).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include <duet/models/relaxed_queue.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

template <class T, SyncTraits Sync = StdSync>
class ChaseLevDeque {
 public:
  explicit ChaseLevDeque(std::size_t capacity) : slots_(capacity) {
    if (capacity == 0) throw std::invalid_argument("ChaseLevDeque: capacity must be at least 1");
  }

  /// The owner's push at the bottom: false when the ring is full.
  bool push(T x) {
    const long b = bottom_.load(std::memory_order_relaxed);
    const long t = top_.load(std::memory_order_acquire);
    if (b - t >= static_cast<long>(slots_.size())) return false;
    slot(b).store(x, std::memory_order_relaxed);
    fence(std::memory_order_release);
    bottom_.store(b + 1, std::memory_order_relaxed);
    return true;
  }

  /// The owner's pop at the bottom: the newest item, or nullopt when empty.
  std::optional<T> pop() {
    const long b = bottom_.load(std::memory_order_relaxed) - 1;
    bottom_.store(b, std::memory_order_relaxed);
    fence(std::memory_order_seq_cst);
    long t = top_.load(std::memory_order_relaxed);
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return std::nullopt;
    }
    std::optional<T> x = slot(b).load(std::memory_order_relaxed);
    if (t == b) {  // the last item: race the thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) x.reset();
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return x;
  }

  /// A thief's steal at the top: the oldest item, or nullopt when empty or when it lost a race.
  std::optional<T> steal() {
    long t = top_.load(std::memory_order_acquire);
    fence(std::memory_order_seq_cst);
    const long b = bottom_.load(std::memory_order_acquire);
    if (t >= b) return std::nullopt;
    const T x = slot(t).load(std::memory_order_relaxed);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed))
      return std::nullopt;  // aborted
    return x;
  }

 private:
  typename Sync::template atomic<T>& slot(long i) { return slots_[static_cast<std::size_t>(i) % slots_.size()]; }
  static void fence(std::memory_order order) {
    if constexpr (std::is_same_v<Sync, StdSync>) std::atomic_thread_fence(order);
    else duet::atomic_thread_fence(order);
  }
  std::vector<typename Sync::template atomic<T>> slots_;
  typename Sync::template atomic<long> top_{0};
  typename Sync::template atomic<long> bottom_{0};
};

/// ChaseLevDeque as a WorkStealingDeque (relaxed_queue.hpp) of capacity `Capacity`.
template <SyncTraits Sync = StdSync, std::size_t Capacity = 4>
struct ChaseLevBinding {
  using Sut = ChaseLevDeque<int, Sync>;
  static constexpr std::size_t capacity = Capacity;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
  static bool push(Sut& d, int x) { return d.push(x); }
  static std::optional<int> pop(Sut& d) { return d.pop(); }
  static std::optional<int> steal(Sut& d) { return d.steal(); }
};

}  // namespace duet::models
