// A library built from its sources through duet_instrument, as a shared object
// (tests/CMakeLists.txt): its atomics and plain accesses are seen, so its own synchronisation is
// checked like the test's code (tests/instrumented/uninstrumented_test.cpp). The relaxed put is a
// planted bug: the value is published without ordering.
#include <atomic>
#include <sched.h>

namespace {
long g_value = 0;
std::atomic<int> g_ready{0};
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void mailbox_reset() {
  g_value = 0;
  g_ready.store(0);
}
__attribute__((visibility("default"))) void mailbox_put(long v, bool relaxed) {
  g_value = v;
  g_ready.store(1, relaxed ? std::memory_order_relaxed : std::memory_order_release);
}
__attribute__((visibility("default"))) long mailbox_get() {
  while (g_ready.load(std::memory_order_acquire) == 0) sched_yield();
  return g_value;
}
}
