// Watching the running case in process: a watchdog thread for hangs and a crash guard for
// crashes, each printing how to reproduce the case before the process ends. MonitorScope is the
// one way to watch a case: it starts the monitor and stops it whichever way the case ends.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "engine/clock.hpp"
#include "engine/crash.hpp"

namespace duet::detail {

// Kills a process whose case runs past the case timeout: a hang cannot be recovered from in
// process, but it must not look like a pass or a silent CI timeout. It prints how to
// reproduce the case first.
class Watchdog {
 public:
  Watchdog(std::string name, double timeout) : name_(std::move(name)), timeout_(timeout) {
    if (timeout_ > 0) thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  /// A case starts; `token` reproduces it.
  void start(std::string token) {
    std::lock_guard lock(mutex_);
    token_ = std::move(token);
    started_ = Clock::now();
    running_ = true;
  }
  /// Hot loop: a case from a seed; its token is made only if it hangs.
  void start_seeded(std::uint64_t case_seed, std::uint64_t index) {
    std::lock_guard lock(mutex_);
    token_.clear();
    case_seed_ = case_seed;
    index_ = index;
    started_ = Clock::now();
    running_ = true;
  }
  std::function<std::string(std::uint64_t case_seed, std::uint64_t index)> seed_token;
  void stop() {
    std::lock_guard lock(mutex_);
    running_ = false;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (running_ && since(started_) > timeout_) {
        std::string token = token_.empty() && seed_token ? seed_token(case_seed_, index_) : token_;
        std::fprintf(
            stderr,
            "\nduet: %s: error: a case has run for more than %.1f s: the candidate (or the spec) hangs.\n"
            "  replay:     DUET_REPLAY=%s\n  (raise the limit with DUET_CASE_TIMEOUT; with DUET_FORK=1 the case runs in a child\n"
            "  process, and a hang is shrunk and shown)\n",
            name_.c_str(), timeout_, token.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }
  std::string name_;
  double timeout_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false, running_ = false;
  Clock::time_point started_;
  std::string token_;
  std::uint64_t case_seed_ = 0, index_ = 0;
  std::thread thread_;
};

// Watches the running case: for hangs (Watchdog) and for crashes (CrashGuard).
struct Monitor {
  Monitor(const std::string& name, double timeout) : watchdog(name, timeout), crash(name) {}
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
  Watchdog watchdog;
  CrashGuard crash;
};

/// Watches one case (or one replay) for as long as it lives; with no monitor (isolation mode,
/// where the parent runs no case, and in its child), nothing.
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
    if (monitor_) monitor_->stop();
  }
  MonitorScope(const MonitorScope&) = delete;
  MonitorScope& operator=(const MonitorScope&) = delete;

 private:
  Monitor* monitor_;
};

}  // namespace duet::detail
