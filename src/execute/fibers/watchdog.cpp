// The stall watchdog: a fiber that reaches no switch point for SchedulerConfig::stall_seconds
// of real time is blocked in code the scheduler cannot see (an OS-level lock or wait, a loop on
// memory nothing instrumented writes). One thread per process watches every running run; it
// signals the stuck thread, whose handler ends the run there as duet's limit, with where it was
// stuck: a report, never a hang. The stuck fiber is abandoned like any fiber of a failed run.
// The time is the HangClock's of the run's thread (the time it waited for a CPU does not count),
// and the limit is multiplied by the check's DUET_TIME_SCALE.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <dlfcn.h>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <ucontext.h>
#include <vector>

#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/hang_clock.hpp"
#include "execute/trial_process.hpp"

namespace duet::detail::fiber {
namespace {

int stall_signal() { return SIGRTMAX - 3; }

const void* interrupted_pc(void* context) {
  [[maybe_unused]] const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return reinterpret_cast<const void*>(uc->uc_mcontext.pc);
#else
  return nullptr;
#endif
}

// On the stuck thread. Only a run that the watchdog asked to stop is stopped: a signal that
// arrives after the run moved on finds no request and does nothing.
void on_stall(int, siginfo_t*, void* context) {
  Runtime* rt = t_runtime;
  if (rt == nullptr || rt->current == kNoFiber || !rt->stall_requested.exchange(false)) return;
  rt->stalled(interrupted_pc(context));
}

class Watchdog {
 public:
  // On the run's thread, at every run's start: no more than a lock and two cheap calls (the
  // clock reads the thread's accounting at the watching thread's first look).
  void watch(Runtime& rt, double limit) {
    const std::int64_t now = steady_now_ns();
    std::lock_guard<std::mutex> hold(m_);
    if (!started_ && duets_threads_start_here()) start();
    watched_.push_back({&rt, pthread_self(), rt.progress.load(std::memory_order_relaxed),
                        HangClock::of_thread(HangClock::this_thread()), now, static_cast<std::int64_t>(limit * 1e9), false});
  }
  // A child of fork() (isolation's, a worker, a trial's process) has none of the parent's
  // threads: not the watching one, which starts again at its first run, nor the runs of others.
  // The lock is held across fork(), so that the child's copy is not locked by a thread it lacks.
  void before_fork() { m_.lock(); }
  void after_fork_in_parent() { m_.unlock(); }
  void after_fork_in_child() {
    started_ = false;
    watched_.clear();
    m_.unlock();
  }
  void unwatch(Runtime& rt) {
    std::lock_guard<std::mutex> hold(m_);
    std::erase_if(watched_, [&](const Watched& w) { return w.rt == &rt; });
  }

 private:
  struct Watched {
    Runtime* rt;
    pthread_t thread;
    std::uint64_t seen;
    HangClock since;          // since the last progress seen
    std::int64_t started_ns;  // the run's start until the first look (then 0)
    std::int64_t limit_ns;
    bool signalled;
  };

  void start() {
    struct sigaction sa {};
    sa.sa_sigaction = on_stall;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;  // the handler never returns: keep the signal deliverable
    sigemptyset(&sa.sa_mask);
    sigaction(stall_signal(), &sa, nullptr);
    const DuetsOwnThread own;
    std::thread([this] { loop(); }).detach();
    started_ = true;
  }

  void loop() {
    for (;;) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      std::lock_guard<std::mutex> hold(m_);
      for (Watched& w : watched_) {
        const std::uint64_t p = w.rt->progress.load(std::memory_order_relaxed);
        if (w.started_ns != 0) {  // the first look: the time runs from the run's start
          w.since.restart(w.started_ns);
          w.started_ns = 0;
        }
        if (p != w.seen) {
          w.seen = p;
          w.since.restart();
          w.signalled = false;
          continue;
        }
        if (w.signalled || w.since.elapsed_ns() < w.limit_ns) continue;
        w.signalled = true;
        w.rt->stall_requested.store(true);
        pthread_kill(w.thread, stall_signal());
      }
    }
  }

  std::mutex m_;
  std::vector<Watched> watched_;
  bool started_ = false;
};

Watchdog& watchdog() {
  static Watchdog* w = [] {
    auto* made = new Watchdog;  // never destroyed: its thread runs until the process ends
    ::pthread_atfork([] { watchdog().before_fork(); }, [] { watchdog().after_fork_in_parent(); },
                     [] { watchdog().after_fork_in_child(); });
    return made;
  }();
  return *w;
}

}  // namespace

void Runtime::watch(bool on) {
  if (config.stall_seconds <= 0) return;
  if (on) {
    stall_requested.store(false);
    stalled_pc_ = nullptr;
    stall_scale_ = time_scale();
    watchdog().watch(*this, config.stall_seconds * stall_scale_);
  } else {
    watchdog().unwatch(*this);
  }
}

void Runtime::stalled(const void* pc) {
  if (draining_) stop_run();  // the run failed already: that failure is its outcome
  result.outcome = Outcome::limit;
  stalled_pc_ = pc;
  current_at_stall_ = current;
  stop_run();
}

std::string Runtime::stall_text() const {
  const duet::source_location loc = symbolize(stalled_pc_);
  std::string where = loc.line() != 0 ? location(loc) : "";
  Dl_info info{};
  if (where.empty() && stalled_pc_ != nullptr && dladdr(stalled_pc_, &info) != 0)
    where = std::string(info.dli_sname != nullptr ? info.dli_sname : "?") + " in " +
            (info.dli_fname != nullptr ? info.dli_fname : "?");
  if (where.empty()) where = "an unknown place";
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%g", config.stall_seconds);
  return "fiber " + std::to_string(current_at_stall_) + " was blocked outside instrumented code for " + seconds + " s" +
         scale_note(stall_scale_) + ", at " + where +
         ": a call the scheduler cannot see (an OS-level lock or wait, or a loop on memory that no instrumented "
         "operation writes) would hang the run, so it was stopped there. Compile that code with duet_instrument "
         "(docs/instrumented.md), or keep real blocking calls out of fiber runs";
}

}  // namespace duet::detail::fiber
