// The correct versions of the six racy subjects of tests/support/racy_subjects.hpp, written the
// same way (plain std::atomic and std::mutex): what each bug's fix looks like. On fibers through
// duet_instrument they must pass every program; the racy ones must be found on every seed.
#pragma once

#include <duet/gen.hpp>
#include <duet/lin.hpp>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace twins {

// The size counter is updated inside the lock.
class CountedQueue {
 public:
  void push(int x) {
    std::lock_guard lock(m_);
    items_.push_back(x);
    count_.store(count_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  int pop() {
    std::lock_guard lock(m_);
    if (items_.empty()) return -1;
    const int x = items_.front();
    items_.pop_front();
    count_.store(count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    return x;
  }
  int size() const { return count_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  std::deque<int> items_;
  std::atomic<int> count_{0};
};

// Both fields under one lock.
class TornPair {
 public:
  void set(int v) {
    std::lock_guard lock(m_);
    first_ = v;
    second_ = v;
  }
  std::pair<int, int> get() {
    std::lock_guard lock(m_);
    return {first_, second_};
  }

 private:
  std::mutex m_;
  int first_ = 0, second_ = 0;
};

// The second check, inside the lock.
class LazyInstance {
 public:
  int get() {
    if (!ready_.load(std::memory_order_acquire)) {
      std::lock_guard lock(m_);
      if (!ready_.load(std::memory_order_relaxed)) {
        instance_.store(built_.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_relaxed);
        ready_.store(true, std::memory_order_release);
      }
    }
    return instance_.load(std::memory_order_relaxed);
  }
  int instances() const { return built_.load(std::memory_order_relaxed); }

 private:
  std::mutex m_;
  std::atomic<bool> ready_{false};
  std::atomic<int> built_{0}, instance_{0};
};

// Both accounts locked for the whole transfer.
class Bank {
 public:
  void transfer(int from, int amount) {
    std::scoped_lock lock(accounts_[0].m, accounts_[1].m);
    accounts_[from].balance -= amount;
    accounts_[1 - from].balance += amount;
  }
  int total() {
    std::scoped_lock lock(accounts_[0].m, accounts_[1].m);
    return accounts_[0].balance + accounts_[1].balance;
  }

 private:
  struct Account {
    std::mutex m;
    int balance = 100;
  };
  Account accounts_[2];
};

// pop is a compare-exchange loop too.
class CasStack {
 public:
  void push(int x) {
    Node* n = make_node(x);
    Node* top = head_.load(std::memory_order_acquire);
    do n->next = top;
    while (!head_.compare_exchange_weak(top, n, std::memory_order_acq_rel, std::memory_order_acquire));
  }
  int pop() {
    Node* top = head_.load(std::memory_order_acquire);
    while (top != nullptr &&
           !head_.compare_exchange_weak(top, top->next, std::memory_order_acq_rel, std::memory_order_acquire)) {
    }
    return top == nullptr ? -1 : top->value;
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

// One compare-exchange decides both the value handed out and the next one.
class WrapCounter {
 public:
  static constexpr int kWrap = 4;
  int next() {
    int v = value_.load(std::memory_order_relaxed);
    while (!value_.compare_exchange_weak(v, (v + 1) % kWrap, std::memory_order_relaxed)) {
    }
    return v;
  }

 private:
  std::atomic<int> value_{0};
};

inline duet::Lin<CountedQueue> counted_queue() {
  return duet::Lin<CountedQueue>("CountedQueue", "q")
      .op(
          "push", [](CountedQueue& q, int x) { q.push(x); }, duet::integers(1, 9))
      .op("pop", [](CountedQueue& q) { return q.pop(); })
      .op("size", [](CountedQueue& q) { return q.size(); });
}
inline duet::Lin<TornPair> torn_pair() {
  return duet::Lin<TornPair>("TornPair", "p")
      .op(
          "set", [](TornPair& p, int v) { p.set(v); }, duet::integers(1, 9))
      .op("get", [](TornPair& p) { return p.get(); });
}
inline duet::Lin<LazyInstance> lazy_instance() {
  return duet::Lin<LazyInstance>("LazyInstance", "l")
      .op("get", [](LazyInstance& l) { return l.get(); })
      .op("instances", [](LazyInstance& l) { return l.instances(); });
}
inline duet::Lin<Bank> bank() {
  return duet::Lin<Bank>("Bank", "bank")
      .op(
          "transfer", [](Bank& b, int from, int amount) { b.transfer(from, amount); }, duet::integers(0, 1),
          duet::integers(1, 9))
      .op("total", [](Bank& b) { return b.total(); });
}
inline duet::Lin<CasStack> cas_stack() {
  return duet::Lin<CasStack>("CasStack", "s")
      .op(
          "push", [](CasStack& s, int x) { s.push(x); }, duet::integers(1, 9))
      .op("pop", [](CasStack& s) { return s.pop(); });
}
inline duet::Lin<WrapCounter> wrap_counter() {
  return duet::Lin<WrapCounter>("WrapCounter", "w").op("next", [](WrapCounter& w) { return w.next(); });
}

}  // namespace twins
