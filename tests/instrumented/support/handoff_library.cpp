// A library compiled WITHOUT duet_instrument, loaded as a shared object: its atomics are
// invisible to duet. It hands a pointer from one thread to another with a release store and an
// acquire exchange, the synchronisation a library's runtime provides (tests/instrumented/
// uninstrumented_test.cpp).
#include <atomic>
#include <climits>
#include <cstdint>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "shared_inline.hpp"

// Its instance is libduet_test_inline_base.so's, as std::string's are libstdc++'s.
extern template void shared_inline::tally_add(shared_inline::Tally&);

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

// A lock whose lock_when runs the caller's condition (instrumented code, called back) with the
// lock held and, while it is false, releases the lock and waits on a futex for the next unlock:
// absl::Mutex::LockWhen's shape, its atomics invisible to duet. gate[0]: held; gate[1]: unlocks.
namespace {
long futex(int* word, int op, int value) { return syscall(SYS_futex, word, op, value, nullptr, nullptr, 0); }
void gate_lock(int* gate) {
  for (;;) {
    const int seen = __atomic_load_n(&gate[1], __ATOMIC_ACQUIRE);
    if (__atomic_exchange_n(&gate[0], 1, __ATOMIC_ACQUIRE) == 0) return;
    futex(&gate[1], FUTEX_WAIT_PRIVATE, seen);
  }
}
int gate_release(int* gate) {
  __atomic_store_n(&gate[0], 0, __ATOMIC_RELEASE);
  const int unlocks = __atomic_add_fetch(&gate[1], 1, __ATOMIC_RELEASE);
  futex(&gate[1], FUTEX_WAKE_PRIVATE, INT_MAX);
  return unlocks;
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void handoff_gate_lock(int* gate) { gate_lock(gate); }
__attribute__((visibility("default"))) void handoff_gate_unlock(int* gate) { gate_release(gate); }
__attribute__((visibility("default"))) void handoff_gate_lock_when(int* gate, int (*condition)(void*), void* arg) {
  for (;;) {
    gate_lock(gate);
    if (condition(arg) != 0) return;
    futex(&gate[1], FUTEX_WAIT_PRIVATE, gate_release(gate));
  }
}
}

// A worker the library starts on the first submit, which polls for a task with sched_yield and
// runs it (the caller's code, called back): a library's thread pool (oneTBB's workers).
namespace {
struct Pool {
  void (*task)(void*) = nullptr;
  void* arg = nullptr;
  int state = 0;  // 0 idle, 1 queued, 2 done, 3 stopping
  bool started = false;
  pthread_t worker{};
} g_pool;
void* pool_worker(void*) {
  for (;;) {
    const int s = __atomic_load_n(&g_pool.state, __ATOMIC_ACQUIRE);
    if (s == 3) return nullptr;
    if (s == 1) {
      g_pool.task(g_pool.arg);
      __atomic_store_n(&g_pool.state, 2, __ATOMIC_RELEASE);
    } else {
      sched_yield();
    }
  }
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) void handoff_pool_submit(void (*task)(void*), void* arg) {
  if (!g_pool.started) {
    g_pool.started = pthread_create(&g_pool.worker, nullptr, pool_worker, nullptr) == 0;
  }
  g_pool.task = task;
  g_pool.arg = arg;
  __atomic_store_n(&g_pool.state, 1, __ATOMIC_RELEASE);
}
__attribute__((visibility("default"))) void handoff_pool_wait() {
  while (__atomic_load_n(&g_pool.state, __ATOMIC_ACQUIRE) != 2) sched_yield();
  __atomic_store_n(&g_pool.state, 0, __ATOMIC_RELAXED);
}
__attribute__((visibility("default"))) void handoff_pool_stop() {
  if (!g_pool.started) return;
  __atomic_store_n(&g_pool.state, 3, __ATOMIC_RELEASE);
  pthread_join(g_pool.worker, nullptr);
  g_pool = Pool{};
}
}

// A counter under a spin lock of the library's own (an atomic exchange duet does not see), that
// adds with the shared tally_add. Its users call it through virtual functions.
namespace {
class LockedCounter final : public shared_inline::Counter {
 public:
  void add() override {
    while (__atomic_exchange_n(&locked_, 1, __ATOMIC_ACQUIRE) != 0) sched_yield();
    shared_inline::tally_add(tally_);
    __atomic_store_n(&locked_, 0, __ATOMIC_RELEASE);
  }
  long get() override {
    while (__atomic_exchange_n(&locked_, 1, __ATOMIC_ACQUIRE) != 0) sched_yield();
    const long n = tally_.n;
    __atomic_store_n(&locked_, 0, __ATOMIC_RELEASE);
    return n;
  }

 private:
  int locked_ = 0;
  shared_inline::Tally tally_;
};
}  // namespace

extern "C" __attribute__((visibility("default"))) shared_inline::Counter* handoff_make_counter() {
  return new LockedCounter;
}

// A count of the process's "databases", as RocksDB keeps one (its session ids), which a fiber
// run cannot reset: each call returns the next.
namespace {
std::atomic<long> g_next_id{0};
}
extern "C" __attribute__((visibility("default"))) long handoff_next_id() { return g_next_id.fetch_add(1); }
