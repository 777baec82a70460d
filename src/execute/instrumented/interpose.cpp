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
//   POSIX semaphores               a wait blocks the fiber while the count is zero
//   sched_yield, sleeps            duet::yield, virtual-time sleeps
//   (descriptors: read, write, poll, epoll_wait and the others are descriptors.cpp's)
//   clock_gettime                  virtual time (so deadlines are the scheduler's, and replay)
//   free, realloc                  the freed memory's access history is forgotten
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <mutex>
#include <new>
#include <span>
#include <unordered_map>
#include <dlfcn.h>
#include <execinfo.h>
#include <linux/futex.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <semaphore.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "execute/fibers/determinism.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/fibers/thread_locals.hpp"
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

// ---- virtual time ----

constexpr std::int64_t kNs = 1'000'000'000;
// Virtual time starts at a fixed instant: 2026-01-01T00:00:00Z on the calendar clocks, 1000 s
// on the others (code that subtracts a startup time never sees zero).
constexpr std::int64_t kRealtimeBase = 1'767'225'600 * kNs;
constexpr std::int64_t kMonotonicBase = 1'000 * kNs;

bool calendar_clock(clockid_t c) { return c == CLOCK_REALTIME || c == CLOCK_REALTIME_COARSE || c == CLOCK_TAI; }
bool virtual_clock(clockid_t c) {
  return calendar_clock(c) || c == CLOCK_MONOTONIC || c == CLOCK_MONOTONIC_RAW || c == CLOCK_MONOTONIC_COARSE ||
         c == CLOCK_BOOTTIME;
}

std::int64_t ns_of(const timespec& t) { return static_cast<std::int64_t>(t.tv_sec) * kNs + t.tv_nsec; }

}  // namespace

std::uint64_t until(clockid_t clock, const timespec* deadline) {
  if (deadline == nullptr) return fiber::kNoTimeout;
  const std::int64_t left = ns_of(*deadline) - virtual_now_ns(clock);
  return left <= 0 ? 0 : static_cast<std::uint64_t>(left);
}
std::uint64_t relative(const timespec* t) {
  if (t == nullptr) return fiber::kNoTimeout;
  const std::int64_t ns = ns_of(*t);
  return ns <= 0 ? 0 : static_cast<std::uint64_t>(ns);
}

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

// ---- threads started in a run ----

// ---- thread_local destructors of a fiber ----

struct ThreadExit {
  void (*destructor)(void*);
  void* object;
  ThreadExit* next;
};
// In the fiber's own block: its list, newest first.
constinit thread_local ThreadExit* t_thread_exits = nullptr;

int add_thread_exit(void (*destructor)(void*), void* object) noexcept {
  auto* e = static_cast<ThreadExit*>(std::malloc(sizeof(ThreadExit)));
  if (e == nullptr) return -1;
  *e = {destructor, object, t_thread_exits};
  t_thread_exits = e;
  return 0;
}

// Newest first, as the C library does; a destructor may register more. Then, as the C library
// does after them, the destructors of the fiber's thread-specific data (thread_specific.cpp).
void run_thread_exits() noexcept {
  while (ThreadExit* e = t_thread_exits) {
    t_thread_exits = e->next;
    e->destructor(e->object);
    free_block(e);
  }
  run_thread_specific_destructors();
}

// pthread_exit on a fiber: the thread's frames are unwound to its start, as glibc does on a real
// thread (which would find no thread start on a fiber's stack).
struct ThreadExitUnwind {
  void* value;
};

// A thread the subject starts in a run is a fiber of it. Its pthread_t is the fiber's own
// thread pointer (what pthread_self() and std::this_thread::get_id() return on it), or, where
// fibers share their thread's storage, the address of its record tagged so that it is never a
// real thread's.
struct ThreadRecord {
  pthread_t id{};
  void* (*start)(void*) = nullptr;
  void* arg = nullptr;
  void* result = nullptr;
  std::uint32_t fiber = 0;
  bool finished = false;
  bool released = false;  // joined or detached: its pthread_t may name a newer thread of its slot
};
constexpr std::uintptr_t kFiberThreadTag = 1;

// The threads of this thread's latest run, shared by its fibers (read through host_local).
struct Threads {
  std::uint64_t run = ~std::uint64_t{0};
  std::deque<ThreadRecord> records;  // stable addresses; cleared when a new run starts
};
constinit thread_local Threads* t_threads = nullptr;


ThreadRecord* record_of(pthread_t t) {
  Threads* ts = fiber::host_local(t_threads);
  if (ts == nullptr) return nullptr;
  // A slot's thread pointer names a new thread only once the slot's earlier thread was joined
  // or detached (Fiber::awaits_join): the one record of `t` not released is its thread's. (Not
  // simply the newest: a record is made before its fiber, and a thread that another fiber
  // started, ran and joined meanwhile may have had the slot in between.)
  ThreadRecord* released = nullptr;
  for (ThreadRecord& r : ts->records)
    if (pthread_equal(r.id, t)) {
      if (!r.released) return &r;
      released = &r;
    }
  return released;
}

// A thread started outside a run: its start routine, and what it is: duet's own (within
// fiber::DuetsOwnThreads, so are the threads it starts: a pool whose workers start more), a
// trial's, or one started before any trial; the last two are counted while they run (also when
// one ends by pthread_exit, which unwinds this frame).
enum class Origin : unsigned char { duets, duets_lineage, trials, foreign };
struct OutsideStart {
  void* (*start)(void*);
  void* arg;
  Origin origin;
};
void count_ended(Origin origin) noexcept {
  if (origin == Origin::trials) fiber::outside_thread_ended();
  if (origin == Origin::foreign) fiber::foreign_thread_ended();
}
void* outside_thread_main(void* p) {
  const OutsideStart s = *static_cast<OutsideStart*>(p);
  delete static_cast<OutsideStart*>(p);
  if (s.origin == Origin::duets_lineage) fiber::t_duets_lineage = true;
  const struct Ended {
    Origin origin;
    ~Ended() { count_ended(origin); }
  } ended{s.origin};
  return s.start(s.arg);
}
Origin origin_of_new_thread() noexcept {
  if (fiber::t_duets_lineage) return Origin::duets_lineage;
  if (fiber::t_in_runtime != 0) return Origin::duets;
  return fiber::host_local(fiber::t_trial) != 0 ? Origin::trials : Origin::foreign;
}
// Where a thread started before any trial was started from: the calling stack, symbolised
// only when a report names it (the caller is the standard library's std::thread).
void count_foreign_start() noexcept {
  void* stack[fiber::kForeignStack];
  const int frames = backtrace(stack, static_cast<int>(fiber::kForeignStack));
  fiber::foreign_thread_started(std::span<void* const>(stack, frames > 0 ? static_cast<std::size_t>(frames) : 0));
}

int start_thread(fiber::Runtime& rt, pthread_t* thread, void* (*start)(void*), void* arg, bool joinable,
                 duet::source_location loc) {
  Threads& ts = fiber::host_shared(t_threads);
  if (ts.run != fiber::run_number(rt)) {
    ts.records.clear();
    ts.run = fiber::run_number(rt);
  }
  ThreadRecord& r = ts.records.emplace_back();
  r.start = start;
  r.arg = arg;
  // A thread a library starts (oneTBB's workers) runs the library's code from its first step,
  // which may take work another fiber handed to the library after the thread was made.
  const bool library_thread = fiber::in_library_call(rt, __builtin_frame_address(0));
  const std::uint32_t fiber = fiber::spawn(
      rt,
      [&r, &rt, loc, library_thread] {
        if (library_thread) {
          enter_library(rt, __builtin_frame_address(0));
          fiber::acquire_everything_released(rt);
        }
        try {
          r.result = r.start(r.arg);
        } catch (const ThreadExitUnwind& exit) {
          r.result = exit.value;
        }
        run_thread_exits();  // before the thread counts as ended: its joiner sees them done
        // The thread's end happens-before its join.
        const InDuet inside;
        fiber::enter(rt, Op::fulfill, ObjectKind::task, &r, std::memory_order_seq_cst, loc);
        r.finished = true;
        fiber::leave(rt, Op::fulfill);
        fiber::wake_all(rt, &r);
      },
      loc);
  void* const own = fiber::thread_id(rt, fiber);
  r.id = static_cast<pthread_t>(own != nullptr ? reinterpret_cast<std::uintptr_t>(own)
                                               : reinterpret_cast<std::uintptr_t>(&r) | kFiberThreadTag);
  r.fiber = fiber;
  fiber::await_join(rt, fiber, joinable);
  *thread = r.id;
  return 0;
}

// A thread joined or detached: its pthread_t may name the next thread of its slot. Its slot is
// freed only when the record is this run's (an earlier run's slot numbers are not this one's).
void release(fiber::Runtime& rt, ThreadRecord& r) {
  const Threads* ts = fiber::host_local(t_threads);
  if (!r.released && ts != nullptr && ts->run == fiber::run_number(rt)) fiber::await_join(rt, r.fiber, false);
  r.released = true;
}

// Waits for the thread to end, at most `timeout_ns` of virtual time (pthread_timedjoin_np's;
// 0: pthread_tryjoin_np's look): `busy` where it has not ended by then.
int join_thread(fiber::Runtime& rt, ThreadRecord& r, void** result, duet::source_location loc,
                std::uint64_t timeout_ns = fiber::kNoTimeout, int busy = ETIMEDOUT) {
  fiber::enter(rt, Op::await, ObjectKind::task, &r, std::memory_order_seq_cst, loc);
  const std::uint64_t start = fiber::t_virtual_ns;
  while (!r.finished) {
    const std::uint64_t waited = fiber::t_virtual_ns - start;
    if (timeout_ns != fiber::kNoTimeout && waited >= timeout_ns) break;
    fiber::block_for(rt, timeout_ns == fiber::kNoTimeout ? timeout_ns : timeout_ns - waited);
  }
  fiber::leave(rt, Op::await);
  if (!r.finished) return busy;
  release(rt, r);
  if (result != nullptr) *result = r.result;
  return 0;
}

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

std::int64_t virtual_now_ns(int clock) noexcept {
  const auto ns = static_cast<std::int64_t>(fiber::t_virtual_ns);
  return (calendar_clock(clock) ? kRealtimeBase : kMonotonicBase) + ns;
}

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

// ---- once, threads ----
int pthread_create(pthread_t* t, const pthread_attr_t* attr, void* (*start)(void*), void* arg) noexcept {
  if (const InRun rt = in_run()) {
    int detach_state = PTHREAD_CREATE_JOINABLE;
    if (attr != nullptr) pthread_attr_getdetachstate(attr, &detach_state);
    return start_thread(*rt, t, start, arg, detach_state == PTHREAD_CREATE_JOINABLE, DUET_HERE);
  }
  DUET_REAL(pthread_create);
  // Started outside any run: by duet's own code, by a fiber trial's code (a duet::Api prefix
  // call, the oracle's run of the candidate), or before any trial (a library's background
  // thread); the last two are real threads counted while they live (threads_outside.hpp).
  const Origin origin = origin_of_new_thread();
  auto* box = new (std::nothrow) OutsideStart{start, arg, origin};
  if (box == nullptr) return EAGAIN;
  if (origin == Origin::trials) fiber::outside_thread_started(DUET_HERE);
  if (origin == Origin::foreign) count_foreign_start();
  const int rc = next(t, attr, &outside_thread_main, box);
  if (rc != 0) {
    delete box;
    count_ended(origin);
  }
  return rc;
}
int pthread_join(pthread_t t, void** result) {
  if (ThreadRecord* r = record_of(t)) {
    const InRun rt = in_run();
    if (rt) return join_thread(*rt, *r, result, DUET_HERE);
    // A thread of a run joined after it (a library's pool, abandoned with the run that reported
    // it outlived its trial, joined by the library's static destructors at exit): it will never
    // run again, and the check said so. Refused (EINVAL), std::thread::join threw and the
    // process ended in std::terminate.
    if (result != nullptr) *result = r->finished ? r->result : nullptr;
    return 0;
  }
  DUET_REAL(pthread_join);
  return next(t, result);
}
// A fiber's pthread_t is no thread of the C library's: its joins that do not wait forever are
// the run's too (the C library's would read a thread it never made).
int pthread_tryjoin_np(pthread_t t, void** result) noexcept {
  if (ThreadRecord* r = record_of(t)) {
    if (const InRun rt = in_run()) return join_thread(*rt, *r, result, DUET_HERE, 0, EBUSY);
    return r->finished ? pthread_join(t, result) : EBUSY;
  }
  DUET_REAL(pthread_tryjoin_np);
  return next(t, result);
}
int pthread_timedjoin_np(pthread_t t, void** result, const timespec* at) {
  if (ThreadRecord* r = record_of(t)) {
    if (const InRun rt = in_run()) return join_thread(*rt, *r, result, DUET_HERE, until(CLOCK_REALTIME, at));
    return r->finished ? pthread_join(t, result) : ETIMEDOUT;
  }
  DUET_REAL(pthread_timedjoin_np);
  return next(t, result, at);
}
int pthread_clockjoin_np(pthread_t t, void** result, clockid_t clock, const timespec* at) {
  if (ThreadRecord* r = record_of(t)) {
    if (const InRun rt = in_run()) return join_thread(*rt, *r, result, DUET_HERE, until(clock, at));
    return r->finished ? pthread_join(t, result) : ETIMEDOUT;
  }
  DUET_REAL(pthread_clockjoin_np);
  return next(t, result, clock, at);
}
void pthread_exit(void* value) {
  if (active() != nullptr) throw ThreadExitUnwind{value};
  DUET_REAL(pthread_exit);
  next(value);
  __builtin_unreachable();  // the C library's never returns
}
int pthread_detach(pthread_t t) noexcept {
  if (ThreadRecord* r = record_of(t)) {  // the run ends when its fibers do
    if (const InRun rt = in_run()) release(*rt, *r);
    r->released = true;
    return 0;
  }
  DUET_REAL(pthread_detach);
  return next(t);
}

// A thread's name (RocksDB names its pool threads "rocksdb:low"): a fiber's kernel thread is the
// thread that runs the check, whose name stays its own. The length is checked as glibc does.
int pthread_setname_np(pthread_t t, const char* name) noexcept {
  if (const InRun rt = in_run()) return std::strlen(name) >= 16 ? ERANGE : 0;
  DUET_REAL(pthread_setname_np);
  return next(t, name);
}

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

// ---- yield, sleeps, clocks ----
int sched_yield() noexcept {
  if (const InRun rt = in_run()) {
    fiber::yield(*rt, DUET_HERE);
    return 0;
  }
  // In a fiber trial but outside its run (the subject's construction, the prefix and suffix,
  // duet::Lin's replays: all on the calling thread), no other code of the trial runs: a real
  // yield only hands the CPU to other processes, a time slice each on a loaded machine (a pool
  // whose calls yield was checked in 47 s instead of 5.7 beside busy loops). A yield is a hint.
  if (fiber::t_in_runtime == 0 && fiber::host_local(fiber::t_trial) != 0) return 0;
  DUET_REAL(sched_yield);
  return next();
}
int nanosleep(const timespec* t, timespec* rest) {
  if (const InRun rt = in_run()) {
    fiber::sleep(*rt, relative(t), DUET_HERE);
    if (rest != nullptr) *rest = {};
    return 0;
  }
  DUET_REAL(nanosleep);
  return next(t, rest);
}
int clock_nanosleep(clockid_t clock, int flags, const timespec* t, timespec* rest) {
  if (const InRun rt = in_run(); rt && virtual_clock(clock)) {
    fiber::sleep(*rt, (flags & TIMER_ABSTIME) != 0 ? until(clock, t) : relative(t), DUET_HERE);
    if (rest != nullptr) *rest = {};
    return 0;
  }
  DUET_REAL(clock_nanosleep);
  return next(clock, flags, t, rest);
}
// The C library's sleep() calls its own clock_nanosleep, which the one above does not see.
unsigned sleep(unsigned seconds) {
  if (const InRun rt = in_run()) {
    fiber::sleep(*rt, static_cast<std::uint64_t>(seconds) * 1'000'000'000, DUET_HERE);
    return 0;
  }
  DUET_REAL(sleep);
  return next(seconds);
}
int usleep(useconds_t us) {
  if (const InRun rt = in_run()) {
    fiber::sleep(*rt, static_cast<std::uint64_t>(us) * 1000, DUET_HERE);
    return 0;
  }
  DUET_REAL(usleep);
  return next(us);
}
int clock_gettime(clockid_t clock, timespec* t) noexcept {
  if (const InRun rt = in_run(); rt && virtual_clock(clock)) {
    const std::int64_t ns = virtual_now_ns(clock);
    t->tv_sec = static_cast<time_t>(ns / kNs);
    t->tv_nsec = static_cast<long>(ns % kNs);
    return 0;
  }
  DUET_REAL(clock_gettime);
  return next(clock, t);
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

// ---- thread_local destructors ----
// A fiber with thread-local storage of its own is a thread: its thread_locals' destructors run
// when its function returns (not at the scheduling thread's exit, whose list the C library
// would put them on).
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso) noexcept {
  if (fiber::host_thread_pointer() != nullptr) return add_thread_exit(destructor, object);
  static std::atomic<void*> slot{};
  return real<int(void (*)(void*), void*, void*) noexcept>(slot, "__cxa_thread_atexit_impl")(destructor, object, dso);
}

}  // extern "C"

namespace duet::detail::instrumented {
void run_thread_exit_list() noexcept { run_thread_exits(); }
}  // namespace duet::detail::instrumented

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
