// Virtual time on fibers: in a run the clocks read the scheduler's virtual time, and
// sched_yield, nanosleep, clock_nanosleep, sleep and usleep are the scheduler's yield and
// virtual-time sleeps, so that deadlines are decided by the scheduler, replay exactly, and never
// wait for real. The timed waits of the other interposed calls (interpose.cpp, threads.cpp,
// barriers_semaphores.cpp) take their timeouts from until() and relative() here. Outside a run
// each call is the C library's own.
#include <atomic>
#include <cstdint>
#include <ctime>
#include <sched.h>
#include <unistd.h>

#include "execute/fibers/determinism.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

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

std::int64_t virtual_now_ns(int clock) noexcept {
  const auto ns = static_cast<std::int64_t>(fiber::t_virtual_ns);
  return (calendar_clock(clock) ? kRealtimeBase : kMonotonicBase) + ns;
}

}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

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

// Kept in the link by duet_instrument (CMakeLists.txt), as interpose.cpp's calls are.
int duet_instrument_virtual_time = 1;

}  // extern "C"
