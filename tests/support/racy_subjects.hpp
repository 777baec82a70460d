// Six racy subjects on plain threads, one per class of bug the parallel runner is measured on
// (tests/negative/bug_classes_test.cpp proves each unsafe; bench/parallel_bench.cpp measures how
// fast, with and without noise). Each race is as narrow as the bug makes it: nothing widens the
// window (no yield, no sleep). Shared data are atomics (relaxed where the bug reads or writes
// without synchronisation), so a race gives a wrong result, never undefined behaviour.
//
//   unlocked size counter   a queue that updates its size counter outside the lock
//   torn pair               a pair written field by field, read field by field
//   double-checked init     a lazy instance whose second check is missing
//   two-lock transfer       money moved between accounts one lock at a time
//   Treiber pop             a lock-free stack whose pop is a load then a store, not a CAS
//   check-then-act wrap     a counter that wraps by testing, then acting
#pragma once

#include <duet/gen.hpp>
#include <duet/lin.hpp>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace racy {

// --- a queue whose size counter is updated outside the lock ----------------------------------
// The critical section was "shortened": the counter's load-then-store runs after the unlock, so
// two pushes (or a push and a pop) can lose an update and size() is wrong from then on.
class CountedQueue {
 public:
  void push(int x) {
    {
      std::lock_guard lock(m_);
      items_.push_back(x);
    }
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  int pop() {
    {
      std::lock_guard lock(m_);
      if (items_.empty()) return -1;
      const int x = items_.front();
      items_.pop_front();
      count_.store(count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
      return x;
    }
  }
  int size() const { return count_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex m_;
  std::deque<int> items_;
  std::atomic<int> count_{0};
};

inline duet::Lin<CountedQueue> counted_queue() {
  return duet::Lin<CountedQueue>("CountedQueue", "q")
      .op(
          "push", [](CountedQueue& q, int x) { q.push(x); }, duet::integers(1, 9))
      .op("pop", [](CountedQueue& q) { return q.pop(); })
      .op("size", [](CountedQueue& q) { return q.size(); });
}

// --- a pair written and read one field at a time ----------------------------------------------
// Every set writes the same value to both fields, so a sequential get always sees them equal;
// a get between the two stores of a set sees one old and one new field.
class TornPair {
 public:
  void set(int v) {
    first_.store(v, std::memory_order_relaxed);
    second_.store(v, std::memory_order_relaxed);
  }
  std::pair<int, int> get() const {
    const int a = first_.load(std::memory_order_relaxed);
    const int b = second_.load(std::memory_order_relaxed);
    return {a, b};
  }

 private:
  std::atomic<int> first_{0}, second_{0};
};

inline duet::Lin<TornPair> torn_pair() {
  return duet::Lin<TornPair>("TornPair", "p")
      .op(
          "set", [](TornPair& p, int v) { p.set(v); }, duet::integers(1, 9))
      .op("get", [](TornPair& p) { return p.get(); });
}

// --- double-checked lazy initialisation without the second check -------------------------------
// The first check is outside the lock; the one inside was dropped, so two first calls at once
// both build an instance, and they return different instances.
class LazyInstance {
 public:
  int get() {
    if (!ready_.load(std::memory_order_acquire)) {
      std::lock_guard lock(m_);
      instance_.store(built_.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
      ready_.store(true, std::memory_order_release);
    }
    return instance_.load(std::memory_order_relaxed);
  }
  int instances() const { return built_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  std::atomic<bool> ready_{false};
  std::atomic<int> built_{0}, instance_{0};
};

inline duet::Lin<LazyInstance> lazy_instance() {
  return duet::Lin<LazyInstance>("LazyInstance", "l")
      .op("get", [](LazyInstance& l) { return l.get(); })
      .op("instances", [](LazyInstance& l) { return l.instances(); });
}

// --- a transfer between two accounts, one lock at a time -----------------------------------------
// Each account has its own lock; a transfer takes the source's, debits, releases it, then
// takes the destination's and credits. A total read in between misses the money in flight.
class Bank {
 public:
  void transfer(int from, int amount) {
    Account& a = accounts_[from];
    Account& b = accounts_[1 - from];
    {
      std::lock_guard lock(a.m);
      a.balance.store(a.balance.load(std::memory_order_relaxed) - amount, std::memory_order_relaxed);
    }
    {
      std::lock_guard lock(b.m);
      b.balance.store(b.balance.load(std::memory_order_relaxed) + amount, std::memory_order_relaxed);
    }
  }
  int total() {
    std::scoped_lock lock(accounts_[0].m, accounts_[1].m);
    return accounts_[0].balance.load(std::memory_order_relaxed) + accounts_[1].balance.load(std::memory_order_relaxed);
  }

 private:
  struct Account {
    std::mutex m;
    std::atomic<int> balance{100};
  };
  Account accounts_[2];
};

inline duet::Lin<Bank> bank() {
  return duet::Lin<Bank>("Bank", "bank")
      .op(
          "transfer", [](Bank& b, int from, int amount) { b.transfer(from, amount); }, duet::integers(0, 1),
          duet::integers(1, 9))
      .op("total", [](Bank& b) { return b.total(); });
}

// --- a Treiber stack whose pop is a load then a store --------------------------------------------
// push is a correct CAS loop; pop reads the top and stores its successor without a CAS, so two
// pops can return the same node, or a pop can drop a node pushed meanwhile. Nodes live as long
// as the stack (no reclamation problem to hide behind).
class LoadStoreStack {
 public:
  void push(int x) {
    Node* n = make_node(x);
    Node* top = head_.load(std::memory_order_acquire);
    do n->next = top;
    while (!head_.compare_exchange_weak(top, n, std::memory_order_acq_rel, std::memory_order_acquire));
  }
  int pop() {
    Node* top = head_.load(std::memory_order_acquire);
    if (top == nullptr) return -1;
    head_.store(top->next, std::memory_order_release);
    return top->value;
  }

 private:
  struct Node {
    int value;
    Node* next = nullptr;
  };
  Node* make_node(int x) {
    std::lock_guard lock(nodes_m_);
    nodes_.push_back(std::make_unique<Node>(Node{x}));
    return nodes_.back().get();
  }
  std::atomic<Node*> head_{nullptr};
  std::mutex nodes_m_;
  std::vector<std::unique_ptr<Node>> nodes_;
};

inline duet::Lin<LoadStoreStack> load_store_stack() {
  return duet::Lin<LoadStoreStack>("LoadStoreStack", "s")
      .op(
          "push", [](LoadStoreStack& s, int x) { s.push(x); }, duet::integers(1, 9))
      .op("pop", [](LoadStoreStack& s) { return s.pop(); });
}

// --- a counter that wraps by checking, then acting ---------------------------------------------
// next() hands out 0, 1, 2, 3, 0, ...: it reads the value, and either resets it or adds one.
// Two calls at once can both add (handing out 4) or both hand out the same number.
class WrapCounter {
 public:
  static constexpr int kWrap = 4;
  int next() {
    const int v = value_.load(std::memory_order_relaxed);
    if (v + 1 == kWrap) value_.store(0, std::memory_order_relaxed);
    else value_.fetch_add(1, std::memory_order_relaxed);
    return v;
  }

 private:
  std::atomic<int> value_{0};
};

inline duet::Lin<WrapCounter> wrap_counter() {
  return duet::Lin<WrapCounter>("WrapCounter", "w").op("next", [](WrapCounter& w) { return w.next(); });
}

}  // namespace racy
