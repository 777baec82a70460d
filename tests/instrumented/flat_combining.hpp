// A flat-combining counter as libraries write them, shared by the tests of per-thread state on
// fibers: each thread publishes its request in a record of its own, found through a per-thread
// slot and linked into a list once; whoever takes the combiner lock applies every pending
// request. The records are per thread: shared by two fibers, their plain fields race.
//   Slot: how a thread finds its record (a pthread key, a boost::thread_specific_ptr):
//         Record* get(); void set(Record*).
#pragma once

#include <duet/lin.hpp>

#include <atomic>
#include <memory>
#include <thread>
#include <utility>

namespace instrumented_test {

struct CombiningRecord {
  std::atomic<int> state{0};  // idle, pending, done
  int argument = 0;
  long result = 0;
  CombiningRecord* next = nullptr;
};

/// kPublishesResult false is the planted bug: the result published with a relaxed store, so the
/// caller's read of it is not ordered after the combiner's write.
template <class Slot, bool kPublishesResult>
class FlatCombiningCounter {
 public:
  FlatCombiningCounter() = default;
  ~FlatCombiningCounter() {
    for (CombiningRecord* r = head_.load(); r != nullptr;) delete std::exchange(r, r->next);
  }
  FlatCombiningCounter(const FlatCombiningCounter&) = delete;
  FlatCombiningCounter& operator=(const FlatCombiningCounter&) = delete;

  long add(int x) {
    CombiningRecord* r = mine();
    r->argument = x;
    r->state.store(kPending, std::memory_order_release);
    for (;;) {
      if (!lock_.exchange(true, std::memory_order_acquire)) {
        combine();
        lock_.store(false, std::memory_order_release);
      }
      if (r->state.load(std::memory_order_acquire) == kDone) {
        r->state.store(kIdle, std::memory_order_relaxed);
        return r->result;
      }
      std::this_thread::yield();
    }
  }

 private:
  enum : int { kIdle, kPending, kDone };
  CombiningRecord* mine() {
    if (CombiningRecord* r = slot_.get()) return r;
    auto* r = new CombiningRecord;
    r->next = head_.load(std::memory_order_relaxed);
    while (!head_.compare_exchange_weak(r->next, r, std::memory_order_release, std::memory_order_relaxed)) {
    }
    slot_.set(r);
    return r;
  }
  void combine() {
    for (CombiningRecord* p = head_.load(std::memory_order_acquire); p != nullptr; p = p->next) {
      if (p->state.load(std::memory_order_acquire) != kPending) continue;
      p->result = value_;
      value_ += p->argument;
      p->state.store(kDone, kPublishesResult ? std::memory_order_release : std::memory_order_relaxed);
    }
  }
  Slot slot_;  // the records stay in the list, which owns them
  std::atomic<CombiningRecord*> head_{nullptr};
  std::atomic<bool> lock_{false};
  long value_ = 0;
};

/// The counter as a duet::Lin, made on the checking thread, which uses it once: its record is in
/// the slot there.
template <class Counter>
duet::Lin<Counter> flat_combining_lin(const char* name) {
  return duet::Lin<Counter>(name, "c")
      .init(
          [] {
            auto c = std::make_unique<Counter>();
            c->add(0);
            return c;
          },
          "auto c = std::make_unique<Counter>(); c->add(0);")
      .op(
          "add", [](Counter& c, int x) { return c.add(x); }, duet::integers(1, 3));
}

}  // namespace instrumented_test
