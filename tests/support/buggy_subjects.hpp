// The deliberately buggy concurrent subjects: each is a correct subject of models/ with one
// classic mistake, for the tests that prove duet finds it (tests/fibers, tests/instrumented).
// They are not installed: a user of the models gets the correct ones only.
//
//   AbaTreiberStack       Treiber's stack recycling popped nodes: the ABA problem
//   NoRecheckSeqLock      a seqlock whose reader does not read the counter again: torn pairs
//   IfWaitBoundedBuffer   a bounded buffer waiting under `if`, not `while`: after a spurious
//                         or stolen wake-up it pops from an empty buffer (pushes into a full one)
//   UnvalidatedLazyList   a lazy list whose updates do not validate under their locks: two
//                         inserts of one key both link a node (and an insert after a node being
//                         erased links its node to the unlinked one)
//   RelaxedTicketLock     a ticket lock whose unlock releases nothing: the next holder races
//                         with the last one's writes (under the C++ memory model only)
//
// Each has its spec, as the correct one has (AbaTreiberStackSpec, NoRecheckSeqLockSpec,
// IfWaitBoundedBufferSpec, UnvalidatedLazyListSpec, RelaxedTicketLockSpec), in namespace duet::models beside the correct subjects, so that
// reports name both alike.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <utility>

#include <duet/models/bounded_buffer.hpp>
#include <duet/models/lazy_list.hpp>
#include <duet/models/node_arena.hpp>
#include <duet/models/seqlock.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/stack.hpp>
#include <duet/models/sync_traits.hpp>
#include <duet/models/treiber_stack.hpp>

namespace duet::models {

/// Treiber's stack recycling popped nodes through a free list, first in, first out, so the same
/// address returns to top while a slow popper still holds its old `next`. The ABA: pop reads
/// top = A and A->next = B, then CASes top from A to B. Meanwhile another thread pops A, pops B,
/// and pushes a new value, which takes A back from the free list with A->next = C. top is A
/// again, so the stale CAS succeeds and installs B, a node that is on the free list: B's old
/// value is popped a second time, and a later push that takes B from the free list rewrites a
/// node still on the stack (a value lost, or B linked to itself). Every node is also kept on
/// a list of the stack's own (as TreiberStack does) and freed in the destructor. Its atomics are
/// seq_cst (see spin_lock.hpp).
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

/// push(x) and pop() on an AbaTreiberStack<int>: not linearizable.
template <SyncTraits Sync = FiberSync>
using AbaTreiberStackSpec = Stack<TreiberBinding<AbaTreiberStack<int, Sync>>>;

/// A seqlock reader that does not read the counter again after the fields: a write may have
/// begun after `before` was read, and the pair is torn.
struct SeqLockNoRecheck {
  template <class Counter>
  static bool unchanged(const Counter&, unsigned) {
    return true;
  }
};
template <class T, SyncTraits Sync = StdSync>
using NoRecheckSeqLock = BasicSeqLock<T, Sync, SeqLockNoRecheck>;

/// write(a, b) and read() on a NoRecheckSeqLock<int>: not linearizable.
template <SyncTraits Sync = FiberSync>
using NoRecheckSeqLockSpec = PairRegister<SeqLockBinding<NoRecheckSeqLock<int, Sync>>>;

/// A bounded buffer's wait under `if`: it waits once and does not check again.
struct WaitOnce {
  template <class Lock, class CondVar, class Blocked, class TimePoint>
  static bool wait_while(Lock& lk, CondVar& cv, Blocked blocked, const TimePoint* deadline) {
    if (blocked()) {
      if (deadline == nullptr) cv.wait(lk);
      else if (cv.wait_until(lk, *deadline) == std::cv_status::timeout) return false;
    }
    return true;
  }
};
template <class T, SyncTraits Sync = StdSync>
using IfWaitBoundedBuffer = BasicBoundedBuffer<T, Sync, WaitOnce>;

/// push(x) and pop() (timed) on an IfWaitBoundedBuffer<int>: pops from an empty buffer, a
/// std::logic_error no order explains.
template <SyncTraits Sync = FiberSync>
using IfWaitBoundedBufferSpec = BoundedQueue<BoundedBufferBinding<IfWaitBoundedBuffer<int, Sync>>>;

/// A lazy list's update that trusts the nodes it found: no check that they are unmarked and
/// adjacent once locked. Two inserts of one key that found the same place both link a node and
/// both return true; an insert whose `pred` was erased meanwhile links its node after the
/// unlinked one, and returns true for a key that is not in the list.
struct LazyListNoValidation {
  template <class Node>
  static bool ok(Node*, Node*) {
    return true;
  }
};
template <SyncTraits Sync = StdSync>
using UnvalidatedLazyList = BasicLazyList<Sync, LazyListNoValidation>;

/// insert, erase and contains on an UnvalidatedLazyList: not linearizable.
template <SyncTraits Sync = FiberSync>
using UnvalidatedLazyListSpec = Set<LazyListBinding<UnvalidatedLazyList<Sync>>>;

/// A ticket lock whose unlock is a relaxed store: the next holder's acquiring load reads it but
/// synchronises with nothing, so its access to the counter races with the last holder's.
template <SyncTraits Sync = StdSync>
using RelaxedTicketLock = BasicTicketLock<Sync, std::memory_order_relaxed>;

/// incr() and get() on a counter behind a RelaxedTicketLock: a data race under MemoryModel::cpp.
template <SyncTraits Sync = FiberSync>
using RelaxedTicketLockSpec = Counter<LockedCounterBinding<RelaxedTicketLock<Sync>, Sync>>;

}  // namespace duet::models
