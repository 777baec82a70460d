#include "execute/hang_clock.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#if defined(__linux__)
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace duet::detail {
namespace {

constinit thread_local double t_time_scale = 1;
constinit thread_local TrialBeats* t_trial_beats = nullptr;

#if defined(__linux__)
// The text of a small /proc file, or "".
template <std::size_t N>
std::string_view read_small(const char* path, char (&text)[N]) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  const ssize_t n = ::read(fd, text, N - 1);
  ::close(fd);
  if (n <= 0) return {};
  text[n] = '\0';
  return {text, static_cast<std::size_t>(n)};
}

// The number after `key` in `text`, or HangClock::kUnknown.
std::uint64_t number_after(std::string_view text, std::string_view key) {
  const std::size_t at = text.find(key);
  if (at == std::string_view::npos) return HangClock::kUnknown;
  return std::strtoull(text.data() + at + key.size(), nullptr, 10);
}

// CPU time in clock ticks, the 14th and 15th fields of stat after the state (the 3rd).
std::uint64_t stat_ticks(const char* state) {
  const char* p = state;
  for (int field = 3; field < 14 && p != nullptr; ++field) {
    p = std::strchr(p, ' ');
    if (p != nullptr) ++p;
  }
  if (p == nullptr) return 0;
  char* next = nullptr;
  const std::uint64_t user = std::strtoull(p, &next, 10);
  return user + std::strtoull(next, nullptr, 10);
}

// A thread's accounting from /proc/<pid>/task/<tid>/: schedstat is "<ns on a CPU> <ns runnable,
// waiting on a run queue> <time slices>"; status counts the times it blocked
// (voluntary_ctxt_switches; a preemption or a yield is involuntary), read before its state: a
// thread that blocks between the two reads is then not seen runnable with the count from before
// it blocked. In stat, after the name in parentheses, the third field is the state (R: running
// or runnable) and the 14th and 15th its CPU time in clock ticks.
bool read_task(const char* dir, HangClock::Task& t) {
  char path[128], text[512];
  std::snprintf(path, sizeof path, "%s/schedstat", dir);
  if (read_small(path, text).empty()) return false;
  char* end = nullptr;
  t.ran_ns = std::strtoull(text, &end, 10);
  if (end == text) return false;
  char* after = nullptr;
  t.waited_ns = std::strtoull(end, &after, 10);
  if (after == end) return false;
  {
    char status[8192];  // its CPU and memory masks grow with the machine
    std::snprintf(path, sizeof path, "%s/status", dir);
    t.blocked = number_after(read_small(path, status), "\nvoluntary_ctxt_switches:");
  }
  std::snprintf(path, sizeof path, "%s/stat", dir);
  const std::string_view stat = read_small(path, text);
  const std::size_t paren = stat.rfind(')');  // the name may hold anything
  t.runnable = paren != std::string_view::npos && paren + 2 < stat.size() && stat[paren + 2] == 'R';
  t.ticks = t.runnable ? stat_ticks(stat.data() + paren + 2) : 0;
  return true;
}

int allowed_cpus() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}
#endif

}  // namespace

std::int64_t steady_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double time_scale() { return t_time_scale; }
TimeScaleScope::TimeScaleScope(double scale) : saved_(t_time_scale) { t_time_scale = scale; }
TimeScaleScope::~TimeScaleScope() { t_time_scale = saved_; }

void trial_starts_here() {
  if (TrialBeats* beats = t_trial_beats) beats->beat();
}
TrialBeats::TrialBeats() : saved_(t_trial_beats) { t_trial_beats = this; }
TrialBeats::~TrialBeats() { t_trial_beats = saved_; }

std::string scale_note(double scale) {
  if (scale == 1) return {};
  char text[64];
  std::snprintf(text, sizeof text, " \xC3\x97 %g (DUET_TIME_SCALE)", scale);
  return text;
}

// One thread has no CPUs to share with itself: only a process's clock asks how many it may use.
HangClock::HangClock(pid_t pid, pid_t tid, pid_t except) : pid_(pid), tid_(tid), except_(except), cpus_(1) {
#if defined(__linux__)
  if (tid_ == 0) cpus_ = allowed_cpus();
#endif
}

HangClock HangClock::of_process(pid_t pid, pid_t except, bool born_now) {
  HangClock clock(pid, 0, except);
  if (born_now) {  // its threads' accounting starts at 0 with them: a look before them all
    clock.sampled_ns_ = steady_now_ns();
    clock.accounting_ = true;
  }
  return clock;
}
HangClock HangClock::of_thread(pid_t tid) { return HangClock(0, tid, 0); }

#if defined(__linux__)
namespace {
// Bumped in the child of each fork(): its one thread has another id than the thread it was.
std::atomic<unsigned> forks_seen{0};
void forked() { forks_seen.fetch_add(1, std::memory_order_relaxed); }
}  // namespace
#endif

pid_t HangClock::this_thread() {
#if defined(__linux__)
  // Asked once per thread (each fiber run's watch asks): again in a child of fork().
  [[maybe_unused]] static const int registered = pthread_atfork(nullptr, nullptr, forked);
  thread_local unsigned asked_after = ~0u;
  thread_local pid_t tid = 0;
  const unsigned forks = forks_seen.load(std::memory_order_relaxed);
  if (asked_after != forks) {
    tid = static_cast<pid_t>(::syscall(SYS_gettid));
    asked_after = forks;
  }
  return tid;
#else
  return 0;
#endif
}

bool HangClock::sample(std::vector<Task>& out) const {
  out.clear();
#if defined(__linux__)
  char dir[96];
  Task t{};
  if (tid_ != 0) {
    std::snprintf(dir, sizeof dir, "/proc/self/task/%d", static_cast<int>(tid_));
    t.tid = tid_;
    if (!read_task(dir, t)) return false;
    out.push_back(t);
    return true;
  }
  std::snprintf(dir, sizeof dir, "/proc/%d/task", static_cast<int>(pid_));
  DIR* tasks = ::opendir(dir);
  if (tasks == nullptr) return false;
  while (const dirent* e = ::readdir(tasks)) {
    const int tid = std::atoi(e->d_name);
    if (tid <= 0 || tid == except_) continue;
    std::snprintf(dir, sizeof dir, "/proc/%d/task/%d", static_cast<int>(pid_), tid);
    t.tid = tid;
    if (read_task(dir, t)) out.push_back(t);  // else it just ended
  }
  ::closedir(tasks);
  std::sort(out.begin(), out.end(), [](const Task& a, const Task& b) { return a.tid < b.tid; });
  return !out.empty();
#else
  return false;
#endif
}

void HangClock::restart(std::int64_t wall_start_ns) {
  const std::int64_t now = steady_now_ns();
  wall_start_ns_ = wall_start_ns;
  starved_ns_ = 0;
  if (sampled_ns_ != 0 && accounting_) {
    starved_ns_ = std::min(look(now), std::max<std::int64_t>(0, now - wall_start_ns));
  } else {
    accounting_ = sample(last_);
    sampled_ns_ = now;
  }
}

std::int64_t HangClock::elapsed_ns() {
  const std::int64_t now = steady_now_ns();
  if (accounting_) starved_ns_ += look(now);
  return std::max<std::int64_t>(0, now - wall_start_ns_ - starved_ns_);
}

namespace {
// Nanoseconds per clock tick of stat's CPU times.
std::uint64_t tick_ns() {
#if defined(__linux__)
  static const std::uint64_t ns = [] {
    const long hz = ::sysconf(_SC_CLK_TCK);
    return hz > 0 ? static_cast<std::uint64_t>(1000000000 / hz) : std::uint64_t{10000000};
  }();
  return ns;
#else
  return 10000000;
#endif
}
}  // namespace

// A thread's wait for a CPU is added to its schedstat only when it gets one: a thread waiting
// now shows none of this wait yet. A thread runnable at two looks that did not block in between
// (its count of blocking switches did not move) was on a CPU or waiting for one all that time:
// it waited for the interval less the time it ran. That is counted now, and the part its
// schedstat does not show yet is kept as credit, which its schedstat's wait repays when it
// shows. The time it ran is the larger of schedstat's and its CPU ticks' (a thread alone on a
// tickless CPU runs without its schedstat moving, but its ticks are counted when read).
// A thread starved to a trickle of CPU (a low priority on a busy machine) runs a little between
// most looks: counting only what schedstat shows, each look lost the wait since its last run.
std::uint64_t HangClock::new_wait(const Task& old, Task& t, bool seen, std::int64_t interval) {
  std::uint64_t wait = t.waited_ns - old.waited_ns;
  const std::uint64_t repaid = std::min(wait, old.credit_ns);
  wait -= repaid;
  // A thread that ran since the last look shows every wait before its run: credit its schedstat
  // did not repay was counted for no wait (a run time read a tick late), and must not absorb
  // the waits of later cases.
  const bool unmoved = t.ran_ns == old.ran_ns && t.waited_ns == old.waited_ns && t.ticks == old.ticks;
  t.credit_ns = unmoved ? old.credit_ns - repaid : 0;
  t.overrun_ns = 0;
  // Where the count of blocking switches cannot be read, only a thread that did not run at all.
  const bool did_not_block = t.blocked != kUnknown && old.blocked != kUnknown ? t.blocked == old.blocked : unmoved;
  if (!seen || !old.runnable || !t.runnable || !did_not_block) return wait;
  // A running thread's run time is read up to a tick late: what one interval's reading lacks,
  // the next one's has in excess, carried so that the two cancel (a thread spinning alone on a
  // CPU waited for none of it). No more than that lag is carried: the two readings' larger one
  // errs high, and an excess built up over many intervals would hide real waits later.
  const std::uint64_t ran =
      std::max(t.ran_ns - old.ran_ns, (t.ticks - std::min(t.ticks, old.ticks)) * tick_ns()) + old.overrun_ns;
  const auto span = static_cast<std::uint64_t>(interval);
  if (ran >= span) {
    t.overrun_ns = std::min(ran - span, 2 * tick_ns());
    return wait;
  }
  if (const std::uint64_t waited = span - ran; waited > wait) {
    t.credit_ns += waited - wait;
    wait = waited;
  }
  return wait;
}

// Between two looks, the watched code was starved for as long as its most starved thread waited
// (a sum would count one wait once per thread), but never for longer than the CPUs were not
// busy with the watched threads themselves: more threads than CPUs starve each other, and that
// is the code's own doing, not the machine's.
std::int64_t HangClock::look(std::int64_t now) {
  if (!sample(now_)) return 0;  // the threads ended (a child that died): nothing more to count
  const std::int64_t interval = std::max<std::int64_t>(0, now - sampled_ns_);
  std::uint64_t waited = 0, ran = 0;
  auto before = last_.begin();
  for (Task& t : now_) {
    while (before != last_.end() && before->tid < t.tid) ++before;
    // Else a new thread (perhaps with an old one's id), whose accounting started at 0.
    const bool seen =
        before != last_.end() && before->tid == t.tid && before->waited_ns <= t.waited_ns && before->ran_ns <= t.ran_ns;
    const Task old = seen ? *before : Task{.tid = t.tid};
    waited = std::max(waited, new_wait(old, t, seen, interval));
    ran += t.ran_ns - old.ran_ns;
  }
  last_.swap(now_);
  sampled_ns_ = now;
  const auto busy = static_cast<std::int64_t>(ran / static_cast<std::uint64_t>(cpus_));
  const auto starved =
      std::min({static_cast<std::int64_t>(std::min<std::uint64_t>(waited, INT64_MAX)), interval - busy, interval});
  return std::max<std::int64_t>(0, starved);
}

}  // namespace duet::detail
