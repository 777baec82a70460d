// One-time initialisation on fibers: pthread_once (std::call_once's) and the guards of
// function-local statics (__cxa_guard_acquire, __cxa_guard_release, __cxa_guard_abort, what
// the compiler calls around a static's first construction). On a fiber of a run the first caller
// runs the initialisation while later callers wait for it in the scheduler, and its end releases
// to every caller that then sees it done: the C library's and libstdc++'s versions wait and
// release on futexes and stores the instrumentation never sees (a static made on one fiber was
// reported as a data race where another read it). Outside a run each is the library's own.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <cxxabi.h>
#include <pthread.h>

#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

using fiber::ObjectKind;
using fiber::Op;

// ---- pthread_once ----

// std::call_once (libstdc++) passes its function to pthread_once's callback through two
// thread-local variables it sets just before the call. Where fibers share their thread's storage
// (every architecture but x86-64), another fiber's call_once, run while this one waits below,
// overwrites them: the callback would then run that fiber's function (a std::promise set twice).
// What the caller set is kept here and put back just before the callback runs.
class OnceCallee {
 public:
#if defined(__GLIBCXX__) && defined(_GLIBCXX_HAVE_TLS)
  OnceCallee() noexcept : callable_(std::__once_callable), call_(std::__once_call) {}
  void restore() const noexcept {
    std::__once_callable = callable_;
    std::__once_call = call_;
  }

 private:
  void* callable_;
  void (*call_)();
#else
  void restore() const noexcept {}
#endif
};

// The glibc encoding of pthread_once_t: 0 not run, 2 done; 1 marks a run in progress here.
int run_once(fiber::Runtime& rt, pthread_once_t* once, void (*init)(), duet::source_location loc) {
  const OnceCallee callee;
  for (;;) {
    fiber::enter(rt, Op::cas, ObjectKind::atomic, once, std::memory_order_seq_cst, loc);
    int expected = 0;
    if (__atomic_compare_exchange_n(once, &expected, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      fiber::leave(rt, Op::cas, fiber::value_of(0), fiber::value_of(1));
      break;
    }
    fiber::leave(rt, Op::cas_fail, fiber::value_of(expected));
    if (expected == 2) return 0;
    futex_wait(rt, once, 1, fiber::kNoTimeout, loc);
  }
  // The subject's code, not duet's: what it does is seen (std::call_once's function joining a
  // thread of the run, as std::async's future does), and one that throws leaves the flag unrun
  // for the next caller, as glibc's does (std::call_once rethrows).
  --fiber::t_in_runtime;
  callee.restore();
  try {
    init();
  } catch (...) {
    ++fiber::t_in_runtime;
    fiber::enter(rt, Op::store, ObjectKind::atomic, once, std::memory_order_seq_cst, loc);
    __atomic_store_n(once, 0, __ATOMIC_SEQ_CST);
    fiber::leave(rt, Op::store, {}, fiber::value_of(0));
    fiber::notify(rt, ObjectKind::atomic, once, true, loc);
    throw;
  }
  ++fiber::t_in_runtime;
  fiber::enter(rt, Op::store, ObjectKind::atomic, once, std::memory_order_seq_cst, loc);
  __atomic_store_n(once, 2, __ATOMIC_SEQ_CST);
  fiber::leave(rt, Op::store, {}, fiber::value_of(2));
  fiber::notify(rt, ObjectKind::atomic, once, true, loc);
  return 0;
}

// ---- the guard of a function-local static ----

// The Itanium C++ ABI's guard: its first byte is nonzero once the static is made; libstdc++
// marks a construction in progress in its second byte and waiters in its third, on every
// architecture.
unsigned char* guard_byte(__cxxabiv1::__guard* guard, int k) { return reinterpret_cast<unsigned char*>(guard) + k; }

// What the compiler's inline check loads (an acquire load the instrumentation sees): GCC on Arm
// tests bit 0 of the whole guard word (the Arm ABIs' guard mask bit; a 64-bit load on AArch64),
// elsewhere its first byte (a char). The guard's steps below record what that load would read,
// in its type: the model keeps one history per object, and a value of another type reads as a
// store it never saw, which releases nothing (a static made on one fiber was then a data race
// where another read it, under qemu-aarch64).
#if defined(__aarch64__) || defined(__arm__)
using GuardCheck = std::conditional_t<sizeof(__cxxabiv1::__guard) == sizeof(long), long, int>;
#else
using GuardCheck = char;
#endif
static_assert(sizeof(GuardCheck) <= sizeof(__cxxabiv1::__guard));

fiber::Value checked_value(const __cxxabiv1::__guard* guard) {
  return fiber::value_of(__atomic_load_n(reinterpret_cast<const GuardCheck*>(guard), __ATOMIC_SEQ_CST));
}

// 1: the caller makes the static (and then releases or aborts the guard); 0: it is made.
int acquire_guard(fiber::Runtime& rt, __cxxabiv1::__guard* guard, duet::source_location loc) {
  unsigned char* const done = guard_byte(guard, 0);
  unsigned char* const pending = guard_byte(guard, 1);
  for (;;) {
    fiber::enter(rt, Op::cas, ObjectKind::atomic, guard, std::memory_order_seq_cst, loc);
    if (__atomic_load_n(done, __ATOMIC_SEQ_CST) != 0) {
      fiber::leave(rt, Op::cas_fail, checked_value(guard));
      return 0;
    }
    const fiber::Value before = checked_value(guard);
    unsigned char expected = 0;
    if (__atomic_compare_exchange_n(pending, &expected, 1, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
      fiber::leave(rt, Op::cas, before, checked_value(guard));
      return 1;
    }
    fiber::leave(rt, Op::cas_fail, checked_value(guard));
    // Another fiber makes it: wait until it releases or aborts the guard.
    fiber::enter(rt, Op::wait, ObjectKind::atomic, guard, std::memory_order_seq_cst, loc);
    if (__atomic_load_n(pending, __ATOMIC_SEQ_CST) != 0) fiber::block_for(rt, fiber::kNoTimeout);
    fiber::leave(rt, Op::wait, checked_value(guard));
  }
}

// The static made (`made`: its first byte becomes 1, what the inline check reads) or its
// construction abandoned by an exception (the next caller tries again); waiters wake either way.
void end_guard(fiber::Runtime& rt, __cxxabiv1::__guard* guard, bool made, duet::source_location loc) {
  fiber::enter(rt, Op::store, ObjectKind::atomic, guard, std::memory_order_seq_cst, loc);
  __atomic_store_n(guard_byte(guard, 2), 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(guard_byte(guard, 1), 0, __ATOMIC_SEQ_CST);
  if (made) __atomic_store_n(guard_byte(guard, 0), 1, __ATOMIC_SEQ_CST);
  fiber::leave(rt, Op::store, {}, checked_value(guard));
  fiber::notify(rt, ObjectKind::atomic, guard, true, loc);
}

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;

extern "C" {

int pthread_once(pthread_once_t* once, void (*init)()) {
  if (const InRun rt = in_run()) return run_once(*rt, once, init, DUET_HERE);
  DUET_REAL(pthread_once);
  return next(once, init);
}

int __cxa_guard_acquire(__cxxabiv1::__guard* guard) {
  if (const InRun rt = in_run()) return acquire_guard(*rt, guard, DUET_HERE);
  DUET_REAL(__cxa_guard_acquire);
  return next(guard);
}
void __cxa_guard_release(__cxxabiv1::__guard* guard) noexcept {
  if (const InRun rt = in_run()) return end_guard(*rt, guard, true, DUET_HERE);
  DUET_REAL(__cxa_guard_release);
  next(guard);
}
void __cxa_guard_abort(__cxxabiv1::__guard* guard) noexcept {
  if (const InRun rt = in_run()) return end_guard(*rt, guard, false, DUET_HERE);
  DUET_REAL(__cxa_guard_abort);
  next(guard);
}

// Kept in the link by duet_instrument (CMakeLists.txt), as the other rooms of interposed calls.
int duet_instrument_one_time = 1;

}  // extern "C"
