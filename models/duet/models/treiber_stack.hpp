// Treiber's lock-free stack, twice: TreiberStack, correct because it never reuses a node while
// the stack lives, and AbaTreiberStack, which recycles popped nodes through a free list and so
// suffers the ABA problem. Both check as stacks (models/duet/models/stack.hpp).
//
//   duet::models::TreiberStack<int> s;                              // std::atomic: production
//   duet::models::TreiberStack<int, duet::models::FiberSync> t;     // duet::atomic: fiber runs
//   s.push(1);  std::optional<int> x = s.pop();
//
//   duet::check_parallel<duet::models::TreiberStackSpec<>>(...);     // passes
//   duet::expect_unsafe<duet::models::AbaTreiberStackSpec<>>(...);   // finds the ABA
//
// The ABA: pop reads top = A and A->next = B, then CASes top from A to B. Meanwhile another
// thread pops A, pops B, and pushes a new value, which takes A back from the free list (first
// in, first out) with A->next = C. top is A again, so the stale CAS succeeds and installs B, a
// node that is on the free list: B's old value is popped a second time, and a later push that
// takes B from the free list rewrites a node still on the stack (a value lost, or B linked to
// itself).
// TreiberStack has no such schedule: a node address never returns to top once popped.
//
// Memory: both keep every node they allocate on a list of their own and free them all in the
// destructor (TreiberStack: the price of never reusing; a real one would use hazard pointers
// or epochs). That list is a plain std::atomic even with FiberSync: it is bookkeeping outside
// the algorithm, kept out of the schedule and the trace. `next` is a Sync::atomic because a
// popper reads it while other threads may pop and (in AbaTreiberStack) rewrite it; `value` is
// plain, written before the node is published and read after the CAS that unpublishes it.
// T must be copyable. TreiberStack's atomics are acquire/release (checked under the C++ memory
// model on fibers); AbaTreiberStack's are seq_cst (see spin_lock.hpp). Sync: see sync_traits.hpp.
#pragma once

#include <mutex>
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

/// BUGGY: recycles popped nodes through a free list, first in, first out, so the same address
/// returns to top while a slow popper still holds its old `next` (see the top of the header).
template <class T, SyncTraits Sync = StdSync>
class AbaTreiberStack {
  struct Node {
    explicit Node(T v) : value(std::move(v)) {}
    T value;
    typename Sync::template atomic<Node*> next{nullptr};
    Node* free_next = nullptr;  // guarded by free_lock_
    Node* allocated_next = nullptr;
  };

 public:
  void push(T value) {
    Node* n = reuse();
    if (n == nullptr) n = nodes_.make(std::move(value));
    else n->value = std::move(value);
    Node* top = top_.load();
    do n->next.store(top);
    while (!top_.compare_exchange_weak(top, n));
  }
  std::optional<T> pop() {
    Node* top = top_.load();
    // The ABA window: between reading top->next and the CAS, top may be popped, recycled and
    // pushed again with a different next.
    while (top != nullptr && !top_.compare_exchange_weak(top, top->next.load())) {
    }
    if (top == nullptr) return std::nullopt;
    T v = top->value;
    recycle(top);
    return v;
  }

 private:
  Node* reuse() {
    std::lock_guard g(free_lock_);
    Node* n = free_head_;
    if (n != nullptr) {
      free_head_ = n->free_next;
      if (free_head_ == nullptr) free_tail_ = nullptr;
    }
    return n;
  }
  void recycle(Node* n) {
    std::lock_guard g(free_lock_);
    n->free_next = nullptr;
    if (free_tail_ != nullptr) free_tail_->free_next = n;
    else free_head_ = n;
    free_tail_ = n;
  }

  typename Sync::template atomic<Node*> top_{nullptr};
  typename Sync::mutex free_lock_;
  Node* free_head_ = nullptr;  // guarded by free_lock_
  Node* free_tail_ = nullptr;  // guarded by free_lock_
  detail::NodeArena<Node> nodes_;
};

/// Binds a stack with push(T) and pop() -> optional to the Stack model.
template <class S>
struct TreiberBinding {
  using Sut = S;
  static void push(Sut& s, int x) { s.push(x); }
  static std::optional<int> pop(Sut& s) { return s.pop(); }
};

/// push(x) and pop() on a TreiberStack<int> (linearizable) / an AbaTreiberStack<int> (not).
template <SyncTraits Sync = FiberSync>
using TreiberStackSpec = Stack<TreiberBinding<TreiberStack<int, Sync>>>;
template <SyncTraits Sync = FiberSync>
using AbaTreiberStackSpec = Stack<TreiberBinding<AbaTreiberStack<int, Sync>>>;

}  // namespace duet::models
