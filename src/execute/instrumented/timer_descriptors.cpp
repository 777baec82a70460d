// Timer descriptors (timerfd) on virtual time. Boost.Asio's reactor, for one, arms a timerfd with
// the earliest of its timers and waits in epoll_wait for it: in a run the deadline comes from
// the virtual clock, while the kernel's timer counts real time. A timer armed on a fiber of a run
// is kept here instead: the kernel's is disarmed, a fiber that waits on descriptors waits no
// longer than the earliest deadline (descriptors.cpp), so that virtual time stops there when
// nothing else can go on, and a timer whose deadline has come is made to expire in the kernel
// at once. Polls and reads then see it as they would see a real expiry; a read's count is the
// virtual one.
#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <mutex>

#include <poll.h>
#include <sys/timerfd.h>

#include "execute/fibers/thread_locals.hpp"
#include "execute/instrumented/descriptors.hpp"
#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

struct Timer {
  int fd = -1;  // -1: a free entry
  clockid_t clock = CLOCK_MONOTONIC;
  bool armed = false;                    // a virtual deadline is set
  const std::uint64_t* owner = nullptr;  // the arming thread's virtual clock (fiber::t_virtual_ns)
  std::uint64_t run = 0;                 // and run: a timer left armed by an earlier run never fires
  std::uint64_t deadline = 0;            // virtual nanoseconds
  std::uint64_t interval = 0;
  std::uint64_t expirations = 0;  // expired, not read yet
};
// Timer descriptors of the process; more than this many at once are left to the kernel.
constexpr std::size_t kTimers = 64;
std::array<Timer, kTimers> g_timers;
SpinLock g_lock;
std::atomic<int> g_known{0};  // entries in use: a quick "none" for every close and read

Timer* find(int fd) {
  for (Timer& t : g_timers)
    if (t.fd == fd) return &t;
  return nullptr;
}

// The thread whose runs a timer belongs to: its virtual clock, as the scheduling thread has it
// (a fiber with thread-local storage of its own has a copy of the clock at another address).
const std::uint64_t* this_thread() noexcept { return &fiber::host_local(fiber::t_virtual_ns); }

std::uint64_t current_run() noexcept {
  fiber::Runtime* rt = fiber::t_runtime;
  return rt != nullptr ? fiber::run_number(*rt) : 0;
}

bool mine(const Timer& t) { return t.armed && t.owner == this_thread() && t.run == current_run(); }

std::uint64_t ns_of(const timespec& t) {
  return static_cast<std::uint64_t>(
      std::max<std::int64_t>(0, static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec));
}
timespec timespec_of(std::uint64_t ns) {
  return {static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
}

int real_settime(int fd, int flags, const itimerspec* value, itimerspec* old) noexcept {
  DUET_REAL(timerfd_settime);
  return next(fd, flags, value, old);
}

// The deadline has come: the kernel's timer expires now, and is waited for (it takes a
// microsecond or so) so that the next poll sees it.
void fire(Timer& t) {
  const std::uint64_t now = fiber::t_virtual_ns;
  const std::uint64_t count = 1 + (t.interval != 0 ? (now - t.deadline) / t.interval : 0);
  t.expirations += count;
  if (t.interval != 0) t.deadline += count * t.interval;
  else t.armed = false;
  const itimerspec at_once{{0, 0}, {0, 1}};
  real_settime(t.fd, 0, &at_once, nullptr);
  pollfd p{t.fd, POLLIN, 0};
  DUET_REAL(poll);
  next(&p, 1, 1000);
}

itimerspec remaining(const Timer& t) {
  const std::uint64_t now = fiber::t_virtual_ns;
  return {timespec_of(t.interval), timespec_of(t.armed && t.deadline > now ? t.deadline - now : 0)};
}

// timerfd_settime on a fiber of a run.
int set_virtual(Timer& t, int flags, const itimerspec* value, itimerspec* old) {
  if (old != nullptr) *old = remaining(t);
  const itimerspec disarmed{};
  if (real_settime(t.fd, 0, &disarmed, nullptr) != 0) return -1;
  const std::uint64_t now = fiber::t_virtual_ns;
  const std::uint64_t base = static_cast<std::uint64_t>(virtual_now_ns(t.clock)) - now;
  const std::uint64_t given = ns_of(value->it_value);
  t.expirations = 0;
  t.armed = given != 0;
  t.owner = this_thread();
  t.run = current_run();
  t.interval = ns_of(value->it_interval);
  t.deadline = (flags & TFD_TIMER_ABSTIME) != 0 ? std::max(given, base) - base : now + given;
  if (t.armed && t.deadline <= now) fire(t);
  return 0;
}

}  // namespace

void fire_due_timers() noexcept {
  if (g_known.load(std::memory_order_acquire) == 0) return;
  const std::lock_guard lock(g_lock);
  for (Timer& t : g_timers)
    if (mine(t) && t.deadline <= fiber::t_virtual_ns) fire(t);
}

std::uint64_t next_timer_in() noexcept {
  if (g_known.load(std::memory_order_acquire) == 0) return fiber::kNoTimeout;
  const std::lock_guard lock(g_lock);
  std::uint64_t in = fiber::kNoTimeout;
  for (const Timer& t : g_timers)
    if (mine(t)) in = std::min(in, t.deadline > fiber::t_virtual_ns ? t.deadline - fiber::t_virtual_ns : 0);
  return in;
}

void virtual_expirations(int fd, void* buffer, ssize_t n) noexcept {
  if (n != sizeof(std::uint64_t) || g_known.load(std::memory_order_acquire) == 0) return;
  const std::lock_guard lock(g_lock);
  if (Timer* t = find(fd); t != nullptr && t->owner == this_thread()) {
    std::memcpy(buffer, &t->expirations, sizeof t->expirations);
    t->expirations = 0;
  }
}

void forget_timer(int fd) noexcept {
  if (g_known.load(std::memory_order_acquire) == 0) return;
  const std::lock_guard lock(g_lock);
  if (Timer* t = find(fd)) {
    *t = Timer{};
    g_known.fetch_sub(1, std::memory_order_release);
  }
}

bool virtual_timer(int fd) noexcept {
  if (g_known.load(std::memory_order_acquire) == 0) return false;
  const std::lock_guard lock(g_lock);
  const Timer* t = find(fd);
  return t != nullptr && t->owner == this_thread();
}

}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;
namespace fiber = duet::detail::fiber;

extern "C" {

int timerfd_create(clockid_t clock, int flags) noexcept {
  DUET_REAL(timerfd_create);
  const int fd = next(clock, flags);
  if (fd < 0) return fd;
  const std::lock_guard lock(g_lock);
  Timer* t = find(fd);  // found: a number closed behind duet's back, now a new timer
  if (t == nullptr && (t = find(-1)) != nullptr) g_known.fetch_add(1, std::memory_order_release);
  if (t != nullptr) *t = Timer{.fd = fd, .clock = clock};
  return fd;
}

int timerfd_settime(int fd, int flags, const itimerspec* value, itimerspec* old) noexcept {
  if (const InRun rt = in_run(); rt && value != nullptr && g_known.load(std::memory_order_acquire) != 0) {
    const std::lock_guard lock(g_lock);
    if (Timer* t = find(fd)) {
      const int result = set_virtual(*t, flags, value, old);
      fiber::wake_all(*rt, descriptors_object());
      return result;
    }
  }
  if (g_known.load(std::memory_order_acquire) != 0) {
    const std::lock_guard lock(g_lock);  // set outside a run: the kernel's timer, as it is
    if (Timer* t = find(fd)) *t = Timer{.fd = fd, .clock = t->clock};
  }
  return real_settime(fd, flags, value, old);
}

int timerfd_gettime(int fd, itimerspec* current) noexcept {
  if (g_known.load(std::memory_order_acquire) != 0) {
    const std::lock_guard lock(g_lock);
    if (Timer* t = find(fd); t != nullptr && t->owner == this_thread() && current != nullptr) {
      *current = remaining(*t);
      return 0;
    }
  }
  DUET_REAL(timerfd_gettime);
  return next(fd, current);
}

// Kept in the link by duet_instrument (CMakeLists.txt), as descriptors.cpp's calls are.
int duet_instrument_timer_descriptors = 1;

}  // extern "C"
