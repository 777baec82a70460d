// Watching the running case in process: a watchdog thread for hangs and a crash guard for
// crashes, each printing how to reproduce the case before the process ends. MonitorScope is the
// one way to watch a case: it starts the monitor and stops it whichever way the case ends.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>  // std::this_thread::yield

#include "engine/candidate_fork.hpp"
#include "engine/clock.hpp"
#include "engine/crash.hpp"
#include "execute/hang_clock.hpp"

namespace duet::detail {

// What the watchdog knows of the running case, written by the thread that runs the cases with
// neither a lock nor a clock (the search's hot loop starts and stops one per case): a serial
// number that changes with every start and stop, and the case. A reader gets one consistent
// sighting (a sequence lock: the serial is odd while a write is under way). One writer.
class RunningCase {
 public:
  struct Sighting {
    std::uint64_t serial = 0;  // the same in two sightings: the same case, still running
    bool running = false;
    bool by_seed = false;  // a seeded case (else the one the watchdog's token reproduces)
    std::uint64_t case_seed = 0, index = 0;
  };
  void start_seeded(std::uint64_t case_seed, std::uint64_t index) { write(true, true, case_seed, index); }
  void start_token() { write(true, false, 0, 0); }
  void stop() { write(false, false, 0, 0); }

  Sighting read() const {
    for (;;) {
      Sighting s;
      s.serial = serial_.load(std::memory_order_acquire);
      s.running = running_.load(std::memory_order_relaxed);
      s.by_seed = by_seed_.load(std::memory_order_relaxed);
      s.case_seed = case_seed_.load(std::memory_order_relaxed);
      s.index = index_.load(std::memory_order_relaxed);
      std::atomic_thread_fence(std::memory_order_acquire);
      if (s.serial % 2 == 0 && serial_.load(std::memory_order_relaxed) == s.serial) return s;
      std::this_thread::yield();  // a write was under way: it takes nanoseconds
    }
  }

 private:
  void write(bool running, bool by_seed, std::uint64_t case_seed, std::uint64_t index) {
    const std::uint64_t serial = serial_.load(std::memory_order_relaxed);
    serial_.store(serial + 1, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_release);
    running_.store(running, std::memory_order_relaxed);
    by_seed_.store(by_seed, std::memory_order_relaxed);
    case_seed_.store(case_seed, std::memory_order_relaxed);
    index_.store(index, std::memory_order_relaxed);
    serial_.store(serial + 2, std::memory_order_release);
  }
  std::atomic<std::uint64_t> serial_{0};
  std::atomic<bool> running_{false}, by_seed_{false};
  std::atomic<std::uint64_t> case_seed_{0}, index_{0};
};

// Kills a process whose case runs past the case timeout (a parallel case: one of its trials,
// see TrialBeats): a hang cannot be recovered from in process, but it must not look like a pass
// or a silent CI timeout. It prints how to reproduce the case first. One thread of the process (see monitor.cpp) looks at every live
// watchdog every 100 ms and times a case from the first time it sees it running, so that
// starting a case reads no clock: a hang is reported between the timeout and the timeout plus
// 200 ms after the case began, never before. The time is the HangClock's of the thread that
// runs the cases: the time it waited for a CPU does not count.
class Watchdog {
 public:
  /// Watched from now on, unless `timeout` is 0; the cases run on the calling thread.
  /// `time_scale`: the DUET_TIME_SCALE `timeout` includes (said in the report).
  Watchdog(std::string name, double timeout, double time_scale = 1);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;
  /// A case starts; `token` reproduces it. A shrink starts every replay with the same token:
  /// only a new one is copied, under the lock the watching thread reads it with (this thread
  /// alone writes it, so comparing needs no lock).
  void start(const std::string& token) {
    if (token != token_) {
      std::lock_guard lock(token_mutex_);
      token_ = token;
    }
    running_.start_token();
  }
  /// Hot loop: a case from a seed; its token is made only if it hangs.
  void start_seeded(std::uint64_t case_seed, std::uint64_t index) { running_.start_seeded(case_seed, index); }
  std::function<std::string(std::uint64_t case_seed, std::uint64_t index)> seed_token;
  void stop() { running_.stop(); }

  /// The watching thread's look at the running case (under its own lock: only it calls this).
  void look();

 private:
  // The case seen hangs: how to reproduce it, and the process ends (look() holds token_mutex_).
  [[noreturn]] void hung(const RunningCase::Sighting& seen);

  std::string name_;
  double timeout_;
  double time_scale_;
  RunningCase running_;
  TrialBeats trials_;  // a parallel case's trials so far: its limit is per trial
  std::mutex token_mutex_;
  std::string token_;  // the running case's, when it started with one
  // The watching thread's: the case it last saw running (odd: none) and when it first did.
  std::uint64_t watched_serial_ = 1;
  std::uint64_t watched_trials_ = 0;
  HangClock clock_;  // of the thread that runs the cases, from the first sighting
};

// Watches the running case: for hangs (Watchdog) and for crashes (CrashGuard); and marks the
// check as running, for a fork() the candidate makes (CheckRunning).
struct Monitor {
  Monitor(const std::string& name, double timeout, double time_scale = 1)
      : watchdog(name, timeout, time_scale), crash(name) {}
  void start_seeded(std::uint64_t index, std::uint64_t case_seed) {
    watchdog.start_seeded(case_seed, index);
    crash.seeded_case(index, case_seed);
  }
  void start(const std::string& token) {
    watchdog.start(token);
    crash.token_case(token);
  }
  void stop() {
    watchdog.stop();
    crash.idle();
  }
  CheckRunning running;
  Watchdog watchdog;
  CrashGuard crash;
};

/// Watches one case (or one replay) for as long as it lives; with no monitor (isolation mode,
/// where the parent runs no case, and in its child), only ends a child the candidate forked.
class MonitorScope {
 public:
  /// A case reproduced by `token`.
  MonitorScope(Monitor* monitor, const std::string& token) : monitor_(monitor) {
    if (monitor_) monitor_->start(token);
  }
  /// The search's hot loop: the case of `case_seed`, the `index`th; its token is made only if it dies.
  MonitorScope(Monitor* monitor, std::uint64_t index, std::uint64_t case_seed) : monitor_(monitor) {
    if (monitor_) monitor_->start_seeded(index, case_seed);
  }
  ~MonitorScope() {
    // Whatever the case ran last (the candidate's destructor, say) has returned.
    leave_if_candidates_child();
    if (monitor_) monitor_->stop();
  }
  MonitorScope(const MonitorScope&) = delete;
  MonitorScope& operator=(const MonitorScope&) = delete;

 private:
  Monitor* monitor_;
};

}  // namespace duet::detail
