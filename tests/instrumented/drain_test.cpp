// A failing run ends cleanly: after a data race the fibers end their calls (unrecorded, and with
// no choice drawn), so that the subject's state that outlives the run (here a library's global
// spin lock) is left as a real execution leaves it. Abandoned mid-call, a fiber holding the lock
// left it held, and every later trial, replay and shrink step spun on it.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <sched.h>
#include <string>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "instrumented/checks.hpp"

namespace {

namespace fb = duet::detail::fiber;

// A library's global state: a spin lock and the counter it guards. Never reset between runs.
std::atomic<bool> g_lock{false};
long g_count = 0;

void locked_add() {
  while (g_lock.exchange(true, std::memory_order_acquire)) sched_yield();
  ++g_count;
  g_lock.store(false, std::memory_order_release);
}
void racy_add() { ++g_count; }  // the bug: the counter written without the lock

TEST(InstrumentedDrain, AFailingRunLeavesTheGlobalLockReleased) {
  fb::Scheduler sched;
  int races = 0;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const std::vector<std::function<void()>> branches{locked_add, racy_add, locked_add};
    duet::Source src = duet::Source::from_seed(seed);
    fb::RandomPicker picker(src);
    const fb::RunResult& r = sched.run(branches, picker);
    ASSERT_TRUE(r.outcome == fb::Outcome::completed || r.outcome == fb::Outcome::data_race)
        << "seed " << seed << ": " << fb::describe(r, sched.trace());
    races += r.outcome == fb::Outcome::data_race;
    ASSERT_FALSE(g_lock.load()) << "seed " << seed << ": the run left the library's lock held";
    if (r.outcome == fb::Outcome::data_race) {
      // The trace ends at the race: the drain is no part of the run's result.
      const std::string last = fb::format_trace(sched.trace()).back();
      EXPECT_EQ(last.find("exit"), std::string::npos) << last;
    }
  }
  EXPECT_GT(races, 0);
}

struct Counter {
  long add() {
    locked_add();
    return 0;
  }
  long racy() {
    racy_add();
    return 0;
  }
};

// The check finds the race and shrinks it: no trial after the first failure spins on a lock an
// abandoned fiber held (before, the shrinker's replays met a livelock or nondeterminism).
TEST(InstrumentedDrain, TheRaceIsReportedAndShrunkAsARace) {
  auto lin = duet::Lin<Counter>("global_lock_counter", "c")
                 .op("add", [](Counter& c) { return c.add(); })
                 .op("racy", [](Counter& c) { return c.racy(); });
  duet::Config config = instrumented_test::seeded(1, 500);
  config.verbose = -1;
  const duet::CheckResult r = duet::check_parallel(lin, instrumented_test::on_fibers(), config);
  ASSERT_FALSE(r.passed());
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
  EXPECT_FALSE(g_lock.load());
  const duet::CheckResult again = duet::check_parallel(
      duet::Lin<Counter>("global_lock_counter_correct", "c").op("add", [](Counter& c) { return c.add(); }),
      instrumented_test::on_fibers(), instrumented_test::seeded(1, 200));
  EXPECT_TRUE(again.passed()) << again.report;
}

}  // namespace
