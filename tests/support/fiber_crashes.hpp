// Subjects that crash on a fiber of duet's scheduler, in one interleaving only: the report of
// the crash shows the crashing fiber's stack, the subject's frames first (docs/isolation.md).
// Their functions are kept out of line, so that an optimised build still has a frame of each.
#pragma once

#include <duet/lin.hpp>
#include <duet/sync.hpp>

#include <cstdlib>

namespace fiber_crashes {

// A slot owning one heap value, released by a check-then-act on its pointer: two releases
// that both read the pointer before either clears it free the value twice (glibc aborts).
struct Slot {
  duet::atomic<int*> value{new int(1)};
  Slot() = default;
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;
  ~Slot() { discard(value.load()); }

  [[gnu::noinline]] static void discard(int* p) {
    delete p;
    asm volatile("" ::: "memory");  // not a tail call: this frame stays on the stack
  }
  [[gnu::noinline]] int release() {
    int* p = value.load();
    if (p == nullptr) return 0;
    const int v = *p;
    value.store(nullptr);  // the bug: a store, not a compare-exchange from p
    discard(p);
    asm volatile("" ::: "memory");
    return v;
  }
};

// Linearisable it would release the value once: 1, then 0.
inline duet::Lin<Slot> slot_spec() {
  return duet::Lin<Slot>("DoubleFreeSlot", "s").op("release", [](Slot& s) { return s.release(); });
}

// A counter whose process-wide count of instances decides a crash: the 40th counter a process
// makes aborts on its first increment. A case that crashes so does not crash again alone in a
// fresh process: what it needs is the earlier cases' state, not its own calls or schedule.
struct CrashesAfterEarlierCases {
  static inline int made = 0;
  duet::atomic<int> n{0};
  const int serial = ++made;
  [[gnu::noinline]] int incr() {
    if (serial == 40) std::abort();
    return n.fetch_add(1) + 1;
  }
};

inline duet::Lin<CrashesAfterEarlierCases> earlier_cases_spec() {
  return duet::Lin<CrashesAfterEarlierCases>("CrashesAfterEarlierCases", "c").op("incr", [](CrashesAfterEarlierCases& c) {
    return c.incr();
  });
}

}  // namespace fiber_crashes
