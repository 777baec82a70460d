// Subjects of the progress-guarantee tests (tests/fibers/progress_test.cpp), written with
// duet/sync.hpp's types: a queue behind a mutex, and Vyukov's bounded MPMC queue (1024cores.net)
// with its try_pop and a pop that waits for a slot a producer has claimed but not yet filled.
// The lock-free ones (Treiber's stack, the Michael–Scott queue) and the spin lock come from
// duet::models.
#pragma once

#include <duet/models/queue.hpp>
#include <duet/models/relaxed_queue.hpp>
#include <duet/sync.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace progress_subjects {

/// A FIFO queue behind a duet::mutex: linearizable, and blocking (not obstruction-free): a
/// caller suspended inside holds the lock.
class MutexQueue {
 public:
  void push(int x) {
    std::lock_guard<duet::mutex> g(m_);
    items_.push_back(x);
  }
  std::optional<int> try_pop() {
    std::lock_guard<duet::mutex> g(m_);
    if (items_.empty()) return std::nullopt;
    const int x = items_.front();
    items_.pop_front();
    return x;
  }

 private:
  duet::mutex m_;
  std::deque<int> items_;
};

struct MutexQueueBinding {
  using Sut = MutexQueue;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

/// Vyukov's bounded MPMC queue: each cell has a sequence number that says whose turn it is. A
/// producer claims a cell by a CAS on the enqueue position, then writes the value and publishes
/// the cell by its sequence; a consumer does the same on the dequeue position.
class VyukovQueue {
 public:
  static constexpr std::size_t kCapacity = 16;  // more than a program pushes: push never fails

  VyukovQueue() {
    for (std::size_t i = 0; i < kCapacity; ++i) cells_[i].seq.store(i);
  }
  bool push(int x) {
    std::size_t pos = enqueue_.load();
    Cell* cell = nullptr;
    for (;;) {
      cell = &cells_[pos % kCapacity];
      const auto dif = static_cast<std::intptr_t>(cell->seq.load()) - static_cast<std::intptr_t>(pos);
      if (dif == 0) {
        if (enqueue_.compare_exchange_weak(pos, pos + 1)) break;
      } else if (dif < 0) {
        return false;  // full
      } else {
        pos = enqueue_.load();
      }
    }
    cell->value.store(x);      // claimed, not yet filled: a consumer that waits for it waits here
    cell->seq.store(pos + 1);  // filled
    return true;
  }
  /// Empty when the next cell is not filled yet, even if a producer has claimed it: lock-free,
  /// but not a strict FIFO (a later push may have completed).
  std::optional<int> try_pop() { return take(false); }
  /// Empty only when no producer has claimed the next cell; otherwise waits until the producer
  /// fills it. Linearizable, but not lock-free: a producer stopped between its claim and its fill
  /// stops every consumer.
  std::optional<int> pop() { return take(true); }

 private:
  struct Cell {
    duet::atomic<std::size_t> seq{0};
    duet::atomic<int> value{0};
  };
  std::optional<int> take(bool wait_for_claimed) {
    std::size_t pos = dequeue_.load();
    Cell* cell = nullptr;
    for (;;) {
      cell = &cells_[pos % kCapacity];
      const auto dif = static_cast<std::intptr_t>(cell->seq.load()) - static_cast<std::intptr_t>(pos + 1);
      if (dif == 0) {
        if (dequeue_.compare_exchange_weak(pos, pos + 1)) break;
      } else if (dif < 0) {
        if (!wait_for_claimed || enqueue_.load() == pos) return std::nullopt;
        // A producer claimed this cell: wait for its value (spin on the cell's sequence).
      } else {
        pos = dequeue_.load();
      }
    }
    const int x = cell->value.load();
    cell->seq.store(pos + kCapacity);
    return x;
  }
  std::array<Cell, kCapacity> cells_;
  duet::atomic<std::size_t> enqueue_{0};
  duet::atomic<std::size_t> dequeue_{0};
};

/// push and try_pop, against a strict FIFO (Queue) or one whose try_pop may come back empty
/// while items are there (SpuriousEmptyQueue).
struct VyukovTryPopBinding {
  using Sut = VyukovQueue;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

}  // namespace progress_subjects
