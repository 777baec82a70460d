// The synchronisation, thread, time and futex calls that libstdc++ and C libraries make,
// defined in the executable so that they reach duet before the C library (calls from
// libstdc++.so resolve to the executable's definitions too). Outside a fiber run each passes
// through to the C library's own. On a fiber of a run:
//   mutexes, rwlocks, spin locks   duet's fiber locks (deadlock and misuse reports included)
//   condition variables            duet's condition variable, timed waits on virtual time
//   futex (std::atomic::wait,      a wait on the address / a notify of it
//     semaphores, latches, ...)
//   pthread_create / join          a fiber of the run / waiting for it to finish (the try,
//     (try, timed, clock)          timed and clock joins too, on virtual time)
//   (pthread_once and the guards of function-local statics are one_time.cpp's)
//   POSIX barriers                 the scheduler's barrier: the last arrival releases the rest
//   POSIX semaphores               a wait blocks the fiber while the count is zero
//   sched_yield, sleeps            duet::yield, virtual-time sleeps
//   (descriptors: read, write, poll, epoll_wait and the others are descriptors.cpp's)
//   clock_gettime                  virtual time (so deadlines are the scheduler's, and replay)
//   free, realloc                  the freed memory's access history is forgotten
// This file holds the locks, the condition variables, the futex system call and the memory
// calls; the other families are in files of their own, each with its entry points, so that
// little of one family's bookkeeping is seen by another:
//   threads.cpp                    pthread_create, the joins, pthread_exit, pthread_detach,
//                                  pthread_setname_np, and the thread_local destructors of a fiber
//   barriers_semaphores.cpp        POSIX barriers and semaphores
//   virtual_time.cpp               sched_yield, the sleeps, clock_gettime: the virtual clocks
#include <cerrno>
#include <cstdarg>
#include <cstddef>
#include <ctime>
#include <linux/futex.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/syscall.h>

#include "execute/instrumented/instrumented.hpp"
#include "execute/instrumented/trial_heap.hpp"

extern "C" void __libc_free(void*);
extern "C" void* __libc_realloc(void*, std::size_t);

namespace duet::detail::instrumented {
namespace {

using fiber::ObjectKind;
using fiber::Op;

}  // namespace

void free_from(void* p, const void* pc) noexcept {
  if (p != nullptr && fiber::t_runtime != nullptr) [[unlikely]]
    if (!released(p, malloc_usable_size(p), pc)) return;  // kept: a draining run may still use it
  if (p != nullptr) forget_benign_races(p);
  free_block(p);
}

void free_block(void* p) noexcept {
  if (trial_heap_owns(p)) [[unlikely]] {
    trial_heap_free(p);
    return;
  }
  __libc_free(p);
}

bool released(const void* p, std::size_t size, const void* pc) noexcept {
  if (const InRun rt = in_run()) return fiber::memory_freed(*rt, p, size, pc);
  if (fiber::Runtime* const any = fiber::t_runtime) fiber::memory_released(*any, p, size);
  return true;
}

namespace {

ObjectKind mutex_kind(const pthread_mutex_t* m) {
  return (m->__data.__kind & 3) == PTHREAD_MUTEX_RECURSIVE_NP ? ObjectKind::recursive_mutex : ObjectKind::mutex;
}

}  // namespace

// ---- futex ----

long futex_wait(fiber::Runtime& rt, int* address, int expected, std::uint64_t timeout, duet::source_location loc) {
  fiber::enter(rt, Op::wait, ObjectKind::atomic, address, std::memory_order_seq_cst, loc);
  const int now = __atomic_load_n(address, __ATOMIC_SEQ_CST);
  if (now != expected) {
    fiber::leave(rt, Op::wait, fiber::value_of(now));
    errno = EAGAIN;
    return -1;
  }
  const fiber::WakeReason why = fiber::block_for(rt, timeout);
  fiber::leave(rt, Op::wait, fiber::value_of(__atomic_load_n(address, __ATOMIC_SEQ_CST)));
  if (why == fiber::WakeReason::timeout) {
    errno = ETIMEDOUT;
    return -1;
  }
  return 0;
}

namespace {

long futex(fiber::Runtime& rt, long a[6], duet::source_location loc) {
  int* address = reinterpret_cast<int*>(a[0]);
  const int op = static_cast<int>(a[1]);
  const int command = op & FUTEX_CMD_MASK;
  const auto* timeout = reinterpret_cast<const timespec*>(a[3]);
  switch (command) {
    case FUTEX_WAIT: return futex_wait(rt, address, static_cast<int>(a[2]), relative(timeout), loc);
    case FUTEX_WAIT_BITSET:
      return futex_wait(rt, address, static_cast<int>(a[2]),
                        until((op & FUTEX_CLOCK_REALTIME) != 0 ? CLOCK_REALTIME : CLOCK_MONOTONIC, timeout), loc);
    case FUTEX_WAKE:
    case FUTEX_WAKE_BITSET: fiber::notify(rt, ObjectKind::atomic, address, a[2] > 1, loc); return 0;
    default:
      errno = ENOSYS;  // requeue, priority inheritance: not used by the standard library
      return -1;
  }
}

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

// ---- mutexes ----
int pthread_mutex_lock(pthread_mutex_t* m) noexcept {
  if (const InRun rt = in_run()) {
    fiber::lock(*rt, mutex_kind(m), m, false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_mutex_lock);
  return next(m);
}
int pthread_mutex_trylock(pthread_mutex_t* m) noexcept {
  if (const InRun rt = in_run()) return fiber::try_lock(*rt, mutex_kind(m), m, false, DUET_HERE) ? 0 : EBUSY;
  DUET_REAL(pthread_mutex_trylock);
  return next(m);
}
int pthread_mutex_timedlock(pthread_mutex_t* m, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, mutex_kind(m), m, false, until(CLOCK_REALTIME, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_mutex_timedlock);
  return next(m, at);
}
int pthread_mutex_clocklock(pthread_mutex_t* m, clockid_t clock, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, mutex_kind(m), m, false, until(clock, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_mutex_clocklock);
  return next(m, clock, at);
}
int pthread_mutex_unlock(pthread_mutex_t* m) noexcept {
  if (const InRun rt = in_run()) {
    fiber::unlock(*rt, mutex_kind(m), m, false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_mutex_unlock);
  return next(m);
}

// ---- reader-writer locks ----
int pthread_rwlock_rdlock(pthread_rwlock_t* l) noexcept {
  if (const InRun rt = in_run()) {
    fiber::lock(*rt, ObjectKind::shared_mutex, l, true, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_rwlock_rdlock);
  return next(l);
}
int pthread_rwlock_wrlock(pthread_rwlock_t* l) noexcept {
  if (const InRun rt = in_run()) {
    fiber::lock(*rt, ObjectKind::shared_mutex, l, false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_rwlock_wrlock);
  return next(l);
}
int pthread_rwlock_tryrdlock(pthread_rwlock_t* l) noexcept {
  if (const InRun rt = in_run()) return fiber::try_lock(*rt, ObjectKind::shared_mutex, l, true, DUET_HERE) ? 0 : EBUSY;
  DUET_REAL(pthread_rwlock_tryrdlock);
  return next(l);
}
int pthread_rwlock_trywrlock(pthread_rwlock_t* l) noexcept {
  if (const InRun rt = in_run()) return fiber::try_lock(*rt, ObjectKind::shared_mutex, l, false, DUET_HERE) ? 0 : EBUSY;
  DUET_REAL(pthread_rwlock_trywrlock);
  return next(l);
}
int pthread_rwlock_timedrdlock(pthread_rwlock_t* l, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, ObjectKind::shared_mutex, l, true, until(CLOCK_REALTIME, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_rwlock_timedrdlock);
  return next(l, at);
}
int pthread_rwlock_timedwrlock(pthread_rwlock_t* l, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, ObjectKind::shared_mutex, l, false, until(CLOCK_REALTIME, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_rwlock_timedwrlock);
  return next(l, at);
}
int pthread_rwlock_clockrdlock(pthread_rwlock_t* l, clockid_t clock, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, ObjectKind::shared_mutex, l, true, until(clock, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_rwlock_clockrdlock);
  return next(l, clock, at);
}
int pthread_rwlock_clockwrlock(pthread_rwlock_t* l, clockid_t clock, const timespec* at) noexcept {
  if (const InRun rt = in_run())
    return fiber::timed_lock(*rt, ObjectKind::shared_mutex, l, false, until(clock, at), DUET_HERE) ? 0 : ETIMEDOUT;
  DUET_REAL(pthread_rwlock_clockwrlock);
  return next(l, clock, at);
}
int pthread_rwlock_unlock(pthread_rwlock_t* l) noexcept {
  if (const InRun rt = in_run()) {
    fiber::unlock(*rt, ObjectKind::shared_mutex, l, !fiber::owns(*rt, l), DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_rwlock_unlock);
  return next(l);
}

// ---- spin locks ----
int pthread_spin_lock(pthread_spinlock_t* l) noexcept {
  if (const InRun rt = in_run()) {
    fiber::lock(*rt, ObjectKind::mutex, const_cast<int*>(l), false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_spin_lock);
  return next(l);
}
int pthread_spin_trylock(pthread_spinlock_t* l) noexcept {
  if (const InRun rt = in_run())
    return fiber::try_lock(*rt, ObjectKind::mutex, const_cast<int*>(l), false, DUET_HERE) ? 0 : EBUSY;
  DUET_REAL(pthread_spin_trylock);
  return next(l);
}
int pthread_spin_unlock(pthread_spinlock_t* l) noexcept {
  if (const InRun rt = in_run()) {
    fiber::unlock(*rt, ObjectKind::mutex, const_cast<int*>(l), false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_spin_unlock);
  return next(l);
}

// ---- condition variables (the GLIBC_2.3.2 versions are today's) ----
int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  if (const InRun rt = in_run()) {
    fiber::cv_wait(*rt, c, m, fiber::kNoTimeout, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_cond_wait, "GLIBC_2.3.2");
  return next(c, m);
}
int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const timespec* at) {
  if (const InRun rt = in_run())
    return fiber::cv_wait(*rt, c, m, until(CLOCK_REALTIME, at), DUET_HERE) == fiber::WakeReason::timeout ? ETIMEDOUT : 0;
  DUET_REAL(pthread_cond_timedwait, "GLIBC_2.3.2");
  return next(c, m, at);
}
int pthread_cond_clockwait(pthread_cond_t* c, pthread_mutex_t* m, clockid_t clock, const timespec* at) {
  if (const InRun rt = in_run())
    return fiber::cv_wait(*rt, c, m, until(clock, at), DUET_HERE) == fiber::WakeReason::timeout ? ETIMEDOUT : 0;
  DUET_REAL(pthread_cond_clockwait);
  return next(c, m, clock, at);
}
int pthread_cond_signal(pthread_cond_t* c) noexcept {
  if (const InRun rt = in_run()) {
    fiber::notify(*rt, ObjectKind::condition_variable, c, false, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_cond_signal, "GLIBC_2.3.2");
  return next(c);
}
int pthread_cond_broadcast(pthread_cond_t* c) noexcept {
  if (const InRun rt = in_run()) {
    fiber::notify(*rt, ObjectKind::condition_variable, c, true, DUET_HERE);
    return 0;
  }
  DUET_REAL(pthread_cond_broadcast, "GLIBC_2.3.2");
  return next(c);
}

// ---- system calls: the futex ----
long syscall(long number, ...) noexcept {
  va_list ap;
  va_start(ap, number);
  long a[6];
  for (long& x : a) x = va_arg(ap, long);  // the kernel takes at most six
  va_end(ap);
  if (number == SYS_futex)
    if (const InRun rt = in_run()) return futex(*rt, a, DUET_HERE);
  DUET_REAL(syscall);
  return next(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

// ---- memory ----
// A free in a run races, as a write, with what other fibers did to the memory unordered before it.
void free(void* p) noexcept { free_from(p, __builtin_return_address(0)); }
void* realloc(void* p, std::size_t n) noexcept {
  const bool in_a_run = fiber::t_runtime != nullptr;
  const std::size_t old = in_a_run && p != nullptr ? malloc_usable_size(p) : 0;
  void* q = trial_heap_active() ? trial_heap_realloc(p, n) : __libc_realloc(p, n);
  if (in_a_run && p != nullptr && q != p && q != nullptr) released(p, old, __builtin_return_address(0));
  return q;
}

}  // extern "C"

// operator delete is replaced (as the standard allows) only so that a use-after-free report
// names the delete expression's line rather than a line inside the C++ runtime.
void operator delete(void* p) noexcept { duet::detail::instrumented::free_from(p, __builtin_return_address(0)); }
void operator delete[](void* p) noexcept { duet::detail::instrumented::free_from(p, __builtin_return_address(0)); }
void operator delete(void* p, std::size_t) noexcept {
  duet::detail::instrumented::free_from(p, __builtin_return_address(0));
}
void operator delete[](void* p, std::size_t) noexcept {
  duet::detail::instrumented::free_from(p, __builtin_return_address(0));
}

// Referenced by duet::instrument's link options: keeps this object in every instrumented link.
extern "C" {
int duet_instrument_interpose = 1;
}
