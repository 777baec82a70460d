// A library compiled WITHOUT duet_instrument, loaded as a shared object: its atomics are
// invisible to duet. It hands a pointer from one thread to another with a release store and an
// acquire exchange, the synchronisation a library's runtime provides (tests/instrumented/
// uninstrumented_test.cpp).
#include <atomic>
#include <cstdint>

namespace {
std::atomic<void*> g_slot{nullptr};
std::atomic<long> g_calls{0};
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void handoff_publish(void* p) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  g_slot.store(p, std::memory_order_release);
}
__attribute__((visibility("default"))) void* handoff_take() {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return g_slot.exchange(nullptr, std::memory_order_acquire);
}
__attribute__((visibility("default"))) void* handoff_swap(void* p) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  return g_slot.exchange(p, std::memory_order_acq_rel);
}
// Many arguments, some on the stack, and a floating-point result: the call's arguments and result
// pass through duet's stub unchanged.
__attribute__((visibility("default"))) double handoff_mix(long a, long b, long c, long d, long e, long f, long g, long h,
                                                          double x, double y, long i) {
  return static_cast<double>(a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i) + x * y;
}
// An exception thrown inside the library unwinds through the stub to the caller.
__attribute__((visibility("default"))) void handoff_throw(int v) { throw v; }
__attribute__((visibility("default"))) long handoff_calls() { return g_calls.load(); }
// A hazard-pointer collector's scan, as a library's runtime runs it: `node` is disposed of only
// if the hazard slot (the caller's atomic, set and cleared by instrumented code) does not
// protect it. The slot is read here, where duet cannot see it.
__attribute__((visibility("default"))) int handoff_reclaim(std::atomic<void*>* hazard, void* node, void (*dispose)(void*)) {
  g_calls.fetch_add(1, std::memory_order_relaxed);
  if (hazard->load(std::memory_order_seq_cst) == node) return 0;
  dispose(node);
  return 1;
}
}
