// The Michael–Scott lock-free queue (PODC 1996): a linked list with a dummy head node, an
// atomic head and tail, enqueuers that help a lagging tail along. Checks as a queue
// (models/duet/models/queue.hpp).
//
//   duet::models::MsQueue<int> q;                              // std::atomic: production
//   duet::models::MsQueue<int, duet::models::FiberSync> f;     // duet::atomic: fiber runs
//   q.push(1);  std::optional<int> x = q.try_pop();
//
//   duet::check_parallel<duet::models::MsQueueSpec<>>(...);
//
// Nodes are never reused while the queue lives (all are freed by its destructor, as in
// TreiberStack; see treiber_stack.hpp): the paper's counted pointers, which guard against ABA
// on reused nodes, are not needed. As in the paper, a dequeuer copies the value out before its
// CAS on head. T must be copyable. Atomics are acquire/release where the algorithm allows:
// the CAS that links a node releases it (value and next), every load that finds a node
// acquires, the CASes that move tail release what they publish (checked under the C++ memory
// model on fibers).
#pragma once

#include <atomic>
#include <optional>
#include <utility>

#include <duet/models/node_arena.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

template <class T, SyncTraits Sync = StdSync>
class MsQueue {
  struct Node {
    explicit Node(std::optional<T> v) : value(std::move(v)) {}
    std::optional<T> value;  // empty in the first dummy
    typename Sync::template atomic<Node*> next{nullptr};
    Node* allocated_next = nullptr;
  };

 public:
  MsQueue() {
    Node* dummy = nodes_.make(std::nullopt);
    head_.store(dummy);
    tail_.store(dummy);
  }

  void push(T value) {
    Node* n = nodes_.make(std::optional<T>(std::move(value)));
    for (;;) {
      Node* tail = tail_.load(acquire);
      Node* next = tail->next.load(acquire);
      if (tail != tail_.load(acquire)) continue;  // tail moved under us: read again
      if (next == nullptr) {
        if (tail->next.compare_exchange_weak(next, n, release, relaxed)) {  // linked: the enqueue's linearization point
          tail_.compare_exchange_strong(tail, n, release, relaxed);         // swing tail; someone may have helped
          return;
        }
      } else {
        tail_.compare_exchange_strong(tail, next, release, relaxed);  // help the enqueuer that linked `next`
      }
    }
  }

  std::optional<T> try_pop() {
    for (;;) {
      Node* head = head_.load(acquire);
      Node* tail = tail_.load(acquire);
      Node* next = head->next.load(acquire);
      if (head != head_.load(acquire)) continue;
      if (head == tail) {
        if (next == nullptr) return std::nullopt;                     // empty
        tail_.compare_exchange_strong(tail, next, release, relaxed);  // tail lags behind an enqueue: help it
        continue;
      }
      std::optional<T> value = next->value;
      if (head_.compare_exchange_weak(head, next, acq_rel, relaxed)) return value;  // next becomes the dummy
    }
  }

 private:
  static constexpr auto acquire = std::memory_order_acquire;
  static constexpr auto release = std::memory_order_release;
  static constexpr auto acq_rel = std::memory_order_acq_rel;
  static constexpr auto relaxed = std::memory_order_relaxed;
  detail::NodeArena<Node> nodes_;
  typename Sync::template atomic<Node*> head_{nullptr};
  typename Sync::template atomic<Node*> tail_{nullptr};
};

/// Binds an MsQueue<int> to the Queue model.
template <SyncTraits Sync>
struct MsQueueBinding {
  using Sut = MsQueue<int, Sync>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

/// push(x) and try_pop() on an MsQueue<int>.
template <SyncTraits Sync = FiberSync>
using MsQueueSpec = Queue<MsQueueBinding<Sync>>;

}  // namespace duet::models
