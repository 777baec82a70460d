// POSIX barriers and semaphores on fibers. glibc's waits on both block in futex calls of its
// own, inside the C library, where duet does not see them: in a run a barrier's arrivals and a
// semaphore's waits are the scheduler's instead (a semaphore's count stays the C library's).
// Outside a run each call is the C library's own. Apart from the other interposed calls
// (interpose.cpp), as only these calls read the barriers' counts and rounds.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <ctime>
#include <mutex>
#include <unordered_map>
#include <pthread.h>
#include <semaphore.h>

#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

using fiber::ObjectKind;
using fiber::Op;

// ---- POSIX barriers ----

// glibc's barrier waits on futex calls of its own that duet does not see; in a run a barrier is
// the scheduler's instead: the count comes from pthread_barrier_init (made inside or before the
// run), the arrivals of this run are counted here, and the last arrival releases the rest.
struct BarrierCounts {
  SpinLock lock;  // never the interposed pthread calls: taken on fibers too
  std::unordered_map<const void*, unsigned> count;
};
BarrierCounts& barrier_counts() {
  static auto* c = new BarrierCounts;  // never destroyed: a late thread may still use a barrier
  return *c;
}
unsigned barrier_count(const void* b) {
  BarrierCounts& c = barrier_counts();
  const std::lock_guard<SpinLock> hold(c.lock);
  const auto it = c.count.find(b);
  return it != c.count.end() ? it->second : 0;
}

struct BarrierRound {
  unsigned arrived = 0;
  std::uint64_t round = 0;
};
struct RunBarriers {
  std::uint64_t run = ~std::uint64_t{0};
  std::unordered_map<const void*, BarrierRound> rounds;  // this run's, shared by its fibers
};
constinit thread_local RunBarriers* t_barriers = nullptr;

BarrierRound& round_of(fiber::Runtime& rt, const void* b) {
  RunBarriers& rb = fiber::host_shared(t_barriers);
  if (rb.run != fiber::run_number(rt)) {
    rb.rounds.clear();
    rb.run = fiber::run_number(rt);
  }
  return rb.rounds[b];
}

int barrier_wait(fiber::Runtime& rt, pthread_barrier_t* b, duet::source_location loc) {
  const unsigned count = barrier_count(b);
  if (count == 0) return EINVAL;  // never initialised (or destroyed)
  BarrierRound& r = round_of(rt, b);
  // The arrival: an update of the barrier, so the last one has every earlier one's writes.
  fiber::enter(rt, Op::rmw, ObjectKind::atomic, b, std::memory_order_seq_cst, loc);
  const std::uint64_t mine = r.round;
  const bool last = ++r.arrived == count;
  if (last) {
    r.arrived = 0;
    ++r.round;
  }
  fiber::leave(rt, Op::rmw, fiber::value_of(mine), fiber::value_of(r.round));
  if (last) {
    fiber::wake_all(rt, b);
    return PTHREAD_BARRIER_SERIAL_THREAD;
  }
  fiber::enter(rt, Op::wait, ObjectKind::atomic, b, std::memory_order_seq_cst, loc);
  while (r.round == mine) fiber::block_for(rt, fiber::kNoTimeout);
  fiber::leave(rt, Op::wait, fiber::value_of(r.round));
  // The departure reads the barrier the last arrival updated: every arrival happens-before it.
  fiber::enter(rt, Op::load, ObjectKind::atomic, b, std::memory_order_seq_cst, loc);
  fiber::leave(rt, Op::load, fiber::value_of(r.round));
  return 0;
}

// ---- POSIX semaphores ----

// The semaphore's count stays the C library's own (so it is right after the run too): a wait
// takes a unit with the non-blocking sem_trywait, and blocks as a fiber while there is none; a
// post adds one with sem_post (which never blocks) and wakes the fibers waiting.
int (*real_sem_trywait())(sem_t*) noexcept {
  static std::atomic<void*> slot{};
  return real<int(sem_t*) noexcept>(slot, "sem_trywait");
}

int sem_take(fiber::Runtime& rt, sem_t* s, std::uint64_t timeout, duet::source_location loc) {
  fiber::enter(rt, Op::wait, ObjectKind::atomic, s, std::memory_order_seq_cst, loc);
  const std::uint64_t deadline = timeout == fiber::kNoTimeout ? timeout : fiber::t_virtual_ns + timeout;
  while (real_sem_trywait()(s) != 0) {
    const std::uint64_t left = deadline == fiber::kNoTimeout    ? deadline
                               : deadline > fiber::t_virtual_ns ? deadline - fiber::t_virtual_ns
                                                                : 0;
    if (fiber::block_for(rt, left) == fiber::WakeReason::timeout && real_sem_trywait()(s) != 0) {
      fiber::leave(rt, Op::wait);
      errno = ETIMEDOUT;
      return -1;
    }
  }
  fiber::leave(rt, Op::wait);
  return 0;
}

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

// ---- POSIX barriers ----
int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr, unsigned count) noexcept {
  DUET_REAL(pthread_barrier_init);
  const int r = next(b, attr, count);
  if (r == 0) {
    BarrierCounts& c = barrier_counts();
    const std::lock_guard<SpinLock> hold(c.lock);
    c.count[b] = count;
  }
  return r;
}
int pthread_barrier_destroy(pthread_barrier_t* b) noexcept {
  {
    BarrierCounts& c = barrier_counts();
    const std::lock_guard<SpinLock> hold(c.lock);
    c.count.erase(b);
  }
  DUET_REAL(pthread_barrier_destroy);
  return next(b);
}
int pthread_barrier_wait(pthread_barrier_t* b) noexcept {
  if (const InRun rt = in_run()) return barrier_wait(*rt, b, DUET_HERE);
  DUET_REAL(pthread_barrier_wait);
  return next(b);
}

// ---- POSIX semaphores ----
int sem_wait(sem_t* s) {
  if (const InRun rt = in_run()) return sem_take(*rt, s, fiber::kNoTimeout, DUET_HERE);
  DUET_REAL(sem_wait);
  return next(s);
}
int sem_timedwait(sem_t* s, const timespec* at) {
  if (const InRun rt = in_run()) return sem_take(*rt, s, until(CLOCK_REALTIME, at), DUET_HERE);
  DUET_REAL(sem_timedwait);
  return next(s, at);
}
int sem_clockwait(sem_t* s, clockid_t clock, const timespec* at) {
  if (const InRun rt = in_run()) return sem_take(*rt, s, until(clock, at), DUET_HERE);
  DUET_REAL(sem_clockwait);
  return next(s, clock, at);
}
int sem_post(sem_t* s) noexcept {
  if (const InRun rt = in_run()) {
    fiber::enter(*rt, Op::rmw, ObjectKind::atomic, s, std::memory_order_seq_cst, DUET_HERE);
    DUET_REAL(sem_post);
    const int r = next(s);
    fiber::leave(*rt, Op::rmw);
    fiber::wake_all(*rt, s);
    return r;
  }
  DUET_REAL(sem_post);
  return next(s);
}

// Kept in the link by duet_instrument (CMakeLists.txt), as interpose.cpp's calls are.
int duet_instrument_barriers_semaphores = 1;

}  // extern "C"
