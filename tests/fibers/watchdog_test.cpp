// The stall watchdog: a fiber stuck in code the scheduler cannot see (a real blocking call, a
// spin on memory nothing instrumented writes) ends its run as duet's limit, naming where it was
// stuck, instead of hanging the process.
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>
#include <string>
#include <unistd.h>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "execute/hang_clock.hpp"
#include "support/cpu_starvation.hpp"

namespace {

namespace fb = duet::detail::fiber;

// ThreadSanitizer delivers signals only at its own interception points, which a spinning or
// blocked fiber may never reach: the watchdog is not tested under it.
#if defined(__SANITIZE_THREAD__)
#define DUET_SKIP_UNDER_TSAN() GTEST_SKIP() << "signals are deferred by ThreadSanitizer"
#else
#define DUET_SKIP_UNDER_TSAN() (void)0
#endif

fb::SchedulerConfig quick_watchdog() {
  fb::SchedulerConfig c;
  c.stall_seconds = 0.3;
  return c;
}

// A spin on a std::atomic of uninstrumented code that nothing in the run will end.
TEST(FiberWatchdog, SpinOutsideInstrumentedCodeIsStopped) {
  DUET_SKIP_UNDER_TSAN();
  fb::Scheduler sched(quick_watchdog());
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  std::atomic<bool> go{false};
  const std::vector<std::function<void()>> branches = {[&] {
    while (!go.load(std::memory_order_relaxed)) {
    }
  }};
  const auto start = std::chrono::steady_clock::now();
  const fb::RunResult& r = sched.run(branches, picker);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.outcome, fb::Outcome::limit) << fb::describe(r, sched.trace());
  EXPECT_NE(r.limit.find("fiber 0 was blocked outside instrumented code for 0.3 s"), std::string::npos) << r.limit;
  EXPECT_LT(seconds, 5.0);
  // The scheduler is usable again: the next run completes.
  go = true;
  EXPECT_EQ(sched.run(branches, picker).outcome, fb::Outcome::completed);
}

// A fiber that waits a second for a CPU, and needs 20 ms of it between two switch points, is
// not stuck under a 300 ms limit: the watchdog counts the time of the run's thread.
TEST(FiberWatchdog, TheTimeAFiberWaitedForACpuIsNotCounted) {
  DUET_SKIP_UNDER_TSAN();
  fb::Outcome outcome = fb::Outcome::limit;
  std::string limit;
  {
    const duet_test::StarvedCpu starved(2, 1.0);
    std::thread run([&] {  // the run's thread ends at idle priority
      fb::Scheduler sched(quick_watchdog());
      duet::Source src = duet::Source::from_seed(1);
      fb::RandomPicker picker(src);
      const std::vector<std::function<void()>> branches = {[] { duet_test::work_at_idle_priority(20); }};
      const fb::RunResult& r = sched.run(branches, picker);
      outcome = r.outcome;
      limit = r.limit;
    });
    run.join();
  }
  EXPECT_EQ(outcome, fb::Outcome::completed) << limit;
}

// The limit is multiplied by the check's DUET_TIME_SCALE, and the report says so.
TEST(FiberWatchdog, TheLimitIsMultipliedByTheTimeScale) {
  DUET_SKIP_UNDER_TSAN();
  const duet::detail::TimeScaleScope scale(3);
  fb::SchedulerConfig config;
  config.stall_seconds = 0.1;
  fb::Scheduler sched(config);
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  std::atomic<bool> go{false};
  const std::vector<std::function<void()>> branches = {[&] {
    while (!go.load(std::memory_order_relaxed)) {
    }
  }};
  const auto start = std::chrono::steady_clock::now();
  const fb::RunResult& r = sched.run(branches, picker);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_EQ(r.outcome, fb::Outcome::limit) << fb::describe(r, sched.trace());
  EXPECT_NE(r.limit.find("blocked outside instrumented code for 0.1 s \xC3\x97 3 (DUET_TIME_SCALE), at "), std::string::npos)
      << r.limit;
  EXPECT_GE(seconds, 0.3);
}

// A real blocking read: a pipe nobody writes to.
TEST(FiberWatchdog, RealBlockingCallIsStopped) {
  DUET_SKIP_UNDER_TSAN();
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  fb::Scheduler sched(quick_watchdog());
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  const std::vector<std::function<void()>> branches = {[&] {
    char c;
    [[maybe_unused]] const ssize_t n = read(fds[0], &c, 1);
  }};
  const fb::RunResult& r = sched.run(branches, picker);
  EXPECT_EQ(r.outcome, fb::Outcome::limit);
  EXPECT_NE(r.limit.find("blocked outside instrumented code"), std::string::npos) << r.limit;
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
