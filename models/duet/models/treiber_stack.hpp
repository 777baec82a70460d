// Treiber's lock-free stack, correct because it never reuses a node while the stack lives:
// a popper's CAS from A to A->next can succeed only if A is still the node it read. It checks
// as a stack (models/duet/models/stack.hpp).
//
//   duet::models::TreiberStack<int> s;                              // std::atomic: production
//   duet::models::TreiberStack<int, duet::models::FiberSync> t;     // duet::atomic: fiber runs
//   s.push(1);  std::optional<int> x = s.pop();
//
//   duet::check_parallel<duet::models::TreiberStackSpec<>>(...);     // passes
//
// A stack that recycled popped nodes (through a free list, say) would suffer the ABA problem:
// pop reads top = A and A->next = B; meanwhile another thread pops A, pops B and pushes a value
// into the recycled A, with A->next = C; top is A again, so the stale CAS from A to B succeeds
// and installs B, a node no longer on the stack. TreiberStack has no such schedule: a node
// address never returns to top once popped. (duet's own tests check such a stack and find it.)
//
// Memory: every node allocated is kept on a list of the stack's own and freed in the destructor
// (the price of never reusing; a real one would use hazard pointers or epochs). That list is a
// plain std::atomic even with FiberSync: it is bookkeeping outside the algorithm, kept out of
// the schedule and the trace. `next` is a Sync::atomic because a popper reads it while other
// threads may pop; `value` is plain, written before the node is published and read after the
// CAS that unpublishes it. T must be copyable. The atomics are acquire/release (checked under
// the C++ memory model on fibers). Sync: see sync_traits.hpp.
#pragma once

#include <optional>
#include <utility>

#include <duet/models/node_arena.hpp>
#include <duet/models/stack.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

/// Correct: popped nodes are never reused while the stack lives, so a popper's CAS from A to
/// A->next can succeed only if A is still the node it read.
template <class T, SyncTraits Sync = StdSync>
class TreiberStack {
  struct Node {
    explicit Node(T v) : value(std::move(v)) {}
    T value;
    typename Sync::template atomic<Node*> next{nullptr};
    Node* allocated_next = nullptr;
  };

 public:
  // Acquire/release where the algorithm needs it, and no more: a push releases the node (its
  // value and next) with the CAS that publishes it; a pop acquires it with the load or the
  // CAS that reads it. Pops are read-modify-writes, so they continue the release sequence
  // of the pushes below them.
  void push(T value) {
    Node* n = nodes_.make(std::move(value));
    Node* top = top_.load(std::memory_order_relaxed);
    do n->next.store(top, std::memory_order_relaxed);
    while (!top_.compare_exchange_weak(top, n, std::memory_order_release, std::memory_order_relaxed));
  }
  std::optional<T> pop() {
    Node* top = top_.load(std::memory_order_acquire);
    while (top != nullptr && !top_.compare_exchange_weak(top, top->next.load(std::memory_order_relaxed),
                                                         std::memory_order_acquire, std::memory_order_acquire)) {
    }
    if (top == nullptr) return std::nullopt;
    return top->value;
  }

 private:
  typename Sync::template atomic<Node*> top_{nullptr};
  detail::NodeArena<Node> nodes_;
};

/// Binds a stack with push(T) and pop() -> optional to the Stack model.
template <class S>
struct TreiberBinding {
  using Sut = S;
  static void push(Sut& s, int x) { s.push(x); }
  static std::optional<int> pop(Sut& s) { return s.pop(); }
};

/// push(x) and pop() on a TreiberStack<int>: linearizable.
template <SyncTraits Sync = FiberSync>
using TreiberStackSpec = Stack<TreiberBinding<TreiberStack<int, Sync>>>;

}  // namespace duet::models
