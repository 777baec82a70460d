// The negative tests' thread subjects written with plain std:: types, shared by
// tests/negative (on threads) and tests/instrumented (on fibers through duet_instrument).
#pragma once

#include <atomic>
#include <thread>

namespace negative_subjects {

// A counter whose increment is a load then a store: two increments at once can lose one.
struct RacyCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) {
    const long v = c.load(std::memory_order_relaxed);
    std::this_thread::yield();  // widens the window on threads; on fibers one more switch point
    c.store(v + 1, std::memory_order_relaxed);
  }
  static long get(Sut& c) { return c.load(); }
};

// A register whose compare-and-set checks, then writes, under no lock.
struct RacyCasRegister {
  using Sut = std::atomic<int>;
  static void write(Sut& r, int v) { r.store(v); }
  static int read(Sut& r) { return r.load(); }
  static bool cas(Sut& r, int expected, int v) {
    if (r.load() != expected) return false;
    std::this_thread::yield();
    r.store(v);
    return true;
  }
};

}  // namespace negative_subjects
