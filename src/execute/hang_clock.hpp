// The clock duet's own wall-clock limits are measured with: the case hang limit (in process and
// isolated) and the fiber stall watchdog. A limit is a verdict about the user's code, so it
// counts only time the watched code could use: wall time minus the time the watched threads
// were runnable but waited for a CPU (the scheduler's run-queue wait, Linux's
// /proc/.../schedstat). A case starved by other work on the machine is not called hung; a case
// that sleeps (blocked forever) or runs (spins forever) accrues its limit at wall-clock speed.
// Where the scheduler's accounting cannot be read, the clock is the wall clock.
//
// Every such limit is also multiplied by DUET_TIME_SCALE (Config::time_scale), for emulators
// and sanitizers under which code runs that many times slower for real.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

namespace duet::detail {

/// Nanoseconds of the steady clock.
std::int64_t steady_now_ns();

/// The running check's DUET_TIME_SCALE, on the thread that runs it (1 elsewhere).
double time_scale();
/// Sets time_scale() on this thread for its lifetime (a check's).
class TimeScaleScope {
 public:
  explicit TimeScaleScope(double scale);
  ~TimeScaleScope();
  TimeScaleScope(const TimeScaleScope&) = delete;
  TimeScaleScope& operator=(const TimeScaleScope&) = delete;

 private:
  double saved_;
};
/// "" at scale 1, else " × 10 (DUET_TIME_SCALE)": what follows a limit given unscaled in a report.
std::string scale_note(double scale);

/// A parallel case is many trials (an exhaustive search runs one program thousands of times, for
/// minutes): its hang limit is per trial. The trial loop calls this as each trial starts, on the
/// thread that runs the case; the watchdog of that thread times the case from the last trial's
/// start (isolation's child tells its parent the same through CaseObserver::trial_starts).
void trial_starts_here();
/// Counts trial_starts_here() on the thread that makes it, while it lives (a watchdog's):
///
///   TrialBeats beats;              // on the thread that runs the cases
///   ... beats.count() changed: a trial started since the last look
class TrialBeats {
 public:
  TrialBeats();
  ~TrialBeats();
  TrialBeats(const TrialBeats&) = delete;
  TrialBeats& operator=(const TrialBeats&) = delete;
  std::uint64_t count() const { return beats_.load(std::memory_order_relaxed); }
  void beat() { beats_.fetch_add(1, std::memory_order_relaxed); }

 private:
  std::atomic<std::uint64_t> beats_{0};
  TrialBeats* saved_;
};

/// Times a limit on watched threads, leaving out the time they waited for a CPU:
///
///   HangClock clock = HangClock::of_thread(HangClock::this_thread());
///   clock.restart();                                  // the case starts
///   if (clock.elapsed_ns() > limit_ns) report_hang();  // at each look, from any thread
class HangClock {
 public:
  /// Every thread of process `pid` but the one with id `except`. `born_now`: the process has
  /// just been made (a child), so its threads' waits so far are all its own.
  static HangClock of_process(pid_t pid, pid_t except = 0, bool born_now = false);
  /// One thread of this process, by its kernel thread id.
  static HangClock of_thread(pid_t tid);
  /// The calling thread's kernel id.
  static pid_t this_thread();

  /// Starts over: the time runs from `wall_start_ns` (steady_now_ns(), not in the future). The
  /// starvation counts from the clock's last look if it had one (at most since the start), else
  /// from now.
  void restart(std::int64_t wall_start_ns);
  void restart() { restart(steady_now_ns()); }
  /// The time since the start, not counting the time the watched threads waited for a CPU
  /// (looked up now: look several times per limit while it runs).
  std::int64_t elapsed_ns();
  /// The part of the wall time since the start not counted, as of the last elapsed_ns().
  std::int64_t starved_ns() const { return starved_ns_; }

  static constexpr std::uint64_t kUnknown = ~std::uint64_t{0};
  /// A watched thread's accounting, as a look saw it.
  struct Task {
    pid_t tid = 0;
    std::uint64_t ran_ns = 0, waited_ns = 0;  // on a CPU; runnable, waiting for one (as schedstat shows it)
    std::uint64_t credit_ns = 0;              // waiting counted before schedstat showed it (hang_clock.cpp)
    std::uint64_t overrun_ns = 0;             // run time read beyond the last interval, taken from the next
    std::uint64_t ticks = 0;                  // CPU time in clock ticks (read while runnable only)
    std::uint64_t blocked = 0;                // times it blocked (kUnknown where it cannot be read)
    bool runnable = false;
  };

 private:
  HangClock(pid_t pid, pid_t tid, pid_t except);
  // The watched threads' accounting now; false where it cannot be read.
  bool sample(std::vector<Task>& out) const;
  // How long the watched code was starved since the last look, which is now.
  std::int64_t look(std::int64_t now);
  // A thread's wait for a CPU since its last look `old` not counted before (hang_clock.cpp).
  static std::uint64_t new_wait(const Task& old, Task& t, bool seen, std::int64_t interval);

  pid_t pid_, tid_, except_;
  int cpus_;  // the CPUs the watched threads may run on, at most
  std::int64_t wall_start_ns_ = 0, sampled_ns_ = 0, starved_ns_ = 0;
  std::vector<Task> last_, now_;
  bool accounting_ = false;
};

}  // namespace duet::detail
