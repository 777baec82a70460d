#include "engine/monitor.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "execute/fibers/threads_outside.hpp"
#include "execute/trial_process.hpp"

namespace duet::detail {
namespace {

constexpr auto kLookEvery = std::chrono::milliseconds(100);

// The one thread that watches every live Watchdog of the process. A check has a watchdog, and a
// thread of its own per check (started, then woken and joined at its end) cost a tenth of the
// ring-buffer benchmark's CPU time, which runs a short check per iteration. It looks every
// 100 ms, and ends at a look that finds no watchdog (the next watchdog starts another): checks
// one after another share it, and an idle process has none. A child made by fork() has no such
// thread and no other thread's checks: it starts its own at its next watchdog.
class Watchers {
 public:
  static Watchers& instance() {
    // Never destroyed: its thread may still sleep while the process's statics go.
    static Watchers* const watchers = new Watchers;
    return *watchers;
  }

  void add(Watchdog* watchdog) {
    const std::lock_guard lock(mutex_);
    watched_.push_back({watchdog, std::this_thread::get_id()});
    if (!thread_running_ && duets_threads_start_here()) {
      const fiber::DuetsOwnThread own;
      std::thread([this] { watch(); }).detach();
      thread_running_ = true;
    }
  }

  void remove(Watchdog* watchdog) {
    const std::lock_guard lock(mutex_);
    std::erase_if(watched_, [&](const Entry& e) { return e.watchdog == watchdog; });
  }

  // Held across fork(), so that the child's copy is not locked by a thread it does not have.
  void before_fork() { mutex_.lock(); }
  void after_fork_in_parent() { mutex_.unlock(); }
  // In a child of fork(): only the thread that forked came along.
  void after_fork_in_child() {
    thread_running_ = false;
    const std::thread::id self = std::this_thread::get_id();
    std::erase_if(watched_, [&](const Entry& e) { return e.owner != self; });
    mutex_.unlock();
  }

 private:
  struct Entry {
    Watchdog* watchdog;
    std::thread::id owner;  // the thread whose check it watches
  };

  Watchers() = default;

  // Sleeps without the lock: starting and ending a check never waits for a look.
  void watch() {
    for (;;) {
      std::this_thread::sleep_for(kLookEvery);
      const std::lock_guard lock(mutex_);
      if (watched_.empty()) {
        thread_running_ = false;
        return;
      }
      for (const Entry& e : watched_) e.watchdog->look();
    }
  }

  std::mutex mutex_;
  std::vector<Entry> watched_;
  bool thread_running_ = false;
};

std::atomic<int> checks_running{0};
constinit thread_local bool forking_own_child = false;

// The process's one set of fork handlers: the watchers' lock is held across fork(), and a child
// made while a check ran, by anyone but duet, is marked as the candidate's.
void before_fork() { Watchers::instance().before_fork(); }
void after_fork_in_parent() { Watchers::instance().after_fork_in_parent(); }
void after_fork_in_child() {
  if (checks_running.load(std::memory_order_relaxed) > 0 && !forking_own_child) in_candidates_child = true;
  Watchers::instance().after_fork_in_child();
}

// By the first watchdog or check of the process.
void register_fork_handlers() {
  static const bool registered = [] {
    Watchers::instance();  // made before a handler looks for it
    return ::pthread_atfork(&before_fork, &after_fork_in_parent, &after_fork_in_child) == 0;
  }();
  (void)registered;
}

}  // namespace

bool in_candidates_child = false;

void end_candidates_child() noexcept {
  char line[320];
  const int n = std::snprintf(line, sizeof line,
                              "duet: the candidate called fork() during a check and its child process (pid %d) returned "
                              "into the check: duet ends that child with status %d\n",
                              static_cast<int>(::getpid()), kCandidateChildReturned);
  if (n > 0) (void)!::write(2, line, std::min(static_cast<std::size_t>(n), sizeof line - 1));
  ::_exit(kCandidateChildReturned);
}

CheckRunning::CheckRunning() {
  register_fork_handlers();
  checks_running.fetch_add(1, std::memory_order_relaxed);
}
CheckRunning::~CheckRunning() { checks_running.fetch_sub(1, std::memory_order_relaxed); }

OwnFork::OwnFork() {
  // Known before duet's first child is made, which inherits the answer (a child that asked would
  // start the probe's thread where that thread may be what ends it). Not in a fork handler: the
  // probe forks too, and other handlers hold their locks by then.
  (void)forked_processes_start_threads();
  forking_own_child = true;
}
OwnFork::~OwnFork() { forking_own_child = false; }

Watchdog::Watchdog(std::string name, double timeout, double time_scale)
    : name_(std::move(name)),
      timeout_(timeout),
      time_scale_(time_scale),
      clock_(HangClock::of_thread(HangClock::this_thread())) {
  if (timeout_ <= 0) return;
  register_fork_handlers();
  Watchers::instance().add(this);
}

Watchdog::~Watchdog() {
  if (timeout_ > 0) Watchers::instance().remove(this);
}

void Watchdog::look() {
  // Held through the sighting and a hang's report: a case that hangs is named by the token it
  // started with, not by one a later case brought.
  std::lock_guard lock(token_mutex_);
  const RunningCase::Sighting now = running_.read();
  if (!now.running) return;
  const std::uint64_t trials = trials_.count();
  if (now.serial != watched_serial_ || trials != watched_trials_) {
    watched_serial_ = now.serial;
    watched_trials_ = trials;
    clock_.restart();
  } else if (static_cast<double>(clock_.elapsed_ns()) / 1e9 > timeout_) {
    hung(now);
  }
}

void Watchdog::hung(const RunningCase::Sighting& seen) {
  const std::string token = !seen.by_seed ? token_ : seed_token ? seed_token(seen.case_seed, seen.index) : std::string();
  std::fprintf(
      stderr,
      "\nduet: %s: error: a case has run for more than %.1f s%s: the candidate (or the spec) hangs.\n"
      "  replay:     DUET_REPLAY=%s\n  (raise the limit with DUET_CASE_TIMEOUT; with DUET_FORK=1 the case runs in a child\n"
      "  process, and a hang is shrunk and shown)\n",
      name_.c_str(), timeout_ / time_scale_, scale_note(time_scale_).c_str(), token.c_str());
  std::fflush(stderr);
  std::_Exit(3);
}

}  // namespace duet::detail
