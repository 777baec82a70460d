// Threads on fibers: a thread the subject starts in a run (pthread_create) is a fiber of the run,
// joined (pthread_join and the try, timed and clock joins, on virtual time), detached and ended
// (pthread_exit) as the scheduler's; its thread_local destructors run when its function returns.
// Outside a run each call is the C library's own, and a real thread is counted while it lives
// when a trial or code before any trial started it (threads_outside.hpp). Apart from the other
// interposed calls (interpose.cpp), as only these calls read a run's threads.
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <new>
#include <span>
#include <execinfo.h>
#include <pthread.h>

#include "execute/fibers/determinism.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"
#include "execute/instrumented/trial_heap.hpp"

namespace duet::detail::instrumented {
namespace {

using fiber::ObjectKind;
using fiber::Op;

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

// ---- threads started in a run ----

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

}  // namespace
}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

// ---- threads ----
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

// ---- thread_local destructors ----
// A fiber with thread-local storage of its own is a thread: its thread_locals' destructors run
// when its function returns (not at the scheduling thread's exit, whose list the C library
// would put them on).
int __cxa_thread_atexit_impl(void (*destructor)(void*), void* object, void* dso) noexcept {
  if (fiber::host_thread_pointer() != nullptr) return add_thread_exit(destructor, object);
  static std::atomic<void*> slot{};
  return real<int(void (*)(void*), void*, void*) noexcept>(slot, "__cxa_thread_atexit_impl")(destructor, object, dso);
}

// Kept in the link by duet_instrument (CMakeLists.txt), as interpose.cpp's calls are.
int duet_instrument_threads = 1;

}  // extern "C"

namespace duet::detail::instrumented {
void run_thread_exit_list() noexcept { run_thread_exits(); }
}  // namespace duet::detail::instrumented
