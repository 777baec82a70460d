// Livelock verdicts are the subject's: a run past its step bound gets a fair schedule (each
// runnable fiber in turn) before it is called a livelock, so a spin-wait whose fiber a strategy
// starved (PCT runs its highest priority fiber while it can) finishes, and only a spin that no
// schedule ends is reported, saying the fair schedule was tried. The fair phase replays exactly.
#include <gtest/gtest.h>

#include <duet/models/counter.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include <string>

#include "fiber_support.hpp"

namespace {

using namespace duet::fibertest;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

constexpr const char* kFairTried = "switch points on a fair schedule (each runnable fiber in turn)";

// Always runs the lowest-numbered candidate: fiber 0 is never preempted while it can run, as
// PCT never preempts the fiber of highest priority.
class LowestFirstPicker final : public fb::Picker {
 public:
  std::size_t pick(const fb::PickContext& ctx) override {
    std::size_t best = 0;
    for (std::size_t i = 1; i < ctx.candidates.size(); ++i)
      if (ctx.candidates[i] < ctx.candidates[best]) best = i;
    return best;
  }
};

// A spin-wait that writes on every retry: spin detection (which looks for re-reads of values
// already seen) does not take it for a spin, so nothing makes fiber 0 yield to fiber 1.
TEST(FiberFairness, SpinWaitThatWritesFinishesWhenTheStrategyStarvesTheFiberItWaitsFor) {
  fb::Scheduler s(fb::SchedulerConfig{.max_steps = 500});
  duet::atomic<bool> flag{false};
  duet::atomic<int> retries{0};
  const Branches br = {[&] {
                         while (!flag.load()) retries.fetch_add(1);
                       },
                       [&] { flag.store(true); }};
  LowestFirstPicker starving;
  const fb::RunResult& r = s.run(br, starving);
  EXPECT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
  EXPECT_GE(retries.load(), 250);  // it did spin through the picker's steps first
  // The fair phase draws nothing: a second run makes the same steps.
  const std::string first = joined(fb::format_trace(s.trace()));
  flag.store(false);
  retries.store(0);
  const fb::RunResult& again = s.run(br, starving);
  EXPECT_EQ(again.outcome, fb::Outcome::completed);
  EXPECT_EQ(joined(fb::format_trace(s.trace())), first);
}

// Two fibers each spin (writing as they go) until the other has finished its spin: no schedule
// ends that, the fair one included.
TEST(FiberFairness, TwoFibersWaitingForEachOtherAreStillALivelock) {
  fb::Scheduler s(fb::SchedulerConfig{.max_steps = 500});
  duet::atomic<bool> done[2] = {false, false};
  duet::atomic<int> retries{0};
  const auto waits_for = [&](int self, int other) {
    return [&, self, other] {
      while (!done[other].load()) retries.fetch_add(1);
      done[self].store(true);
    };
  };
  const Branches br = {waits_for(0, 1), waits_for(1, 0)};
  LowestFirstPicker starving;
  const fb::RunResult& r = s.run(br, starving);
  ASSERT_EQ(r.outcome, fb::Outcome::livelock);
  const std::string d = fb::describe(r, s.trace(), 4);
  EXPECT_TRUE(contains(d, "livelock or spin loop: 1001 steps without finishing, the last 500 ")) << d;
  EXPECT_TRUE(contains(d, kFairTried)) << d;
  // Both fibers ran in the fair phase: its last steps are theirs in turn.
  EXPECT_NE(s.trace()[s.trace().size() - 1].fiber, s.trace()[s.trace().size() - 2].fiber) << d;
}

// A counter guarded by a spin lock whose lock() counts its retries: correct, yet under PCT the
// fiber of highest priority spins while the one holding the lock (lowered at a change point)
// waits. Reported as "livelock or spin loop: 10001 steps without finishing" before the fair phase.
struct SpinLockedCounter {
  struct Sut {
    duet::atomic<bool> locked{false};
    duet::atomic<long> retries{0};
    duet::atomic<long> count{0};
  };
  static void lock(Sut& c) {
    while (c.locked.exchange(true)) c.retries.fetch_add(1);
  }
  static void incr(Sut& c) {
    lock(c);
    c.count.store(c.count.load() + 1);
    c.locked.store(false);
  }
  static long get(Sut& c) {
    lock(c);
    const long v = c.count.load();
    c.locked.store(false);
    return v;
  }
};

TEST(FiberFairness, SpinLockThatWritesOnEveryRetryPassesUnderPct) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::pct(3));
  const duet::CheckResult r =
      duet::check_parallel<duet::models::Counter<SpinLockedCounter>>(pc, {.seed = 1, .count = 300, .verbose = -1});
  EXPECT_TRUE(r.passed()) << r.report;
}

// A counter whose get() waits, writing on every retry, until the count is above 0. A program
// whose get() has no incr() beside it waits forever: a livelock of the subject,
// reported with the fair schedule tried, and replayed to the same interleaving (the report
// comes from a replay, which must agree with the failing run).
struct WaitingCounter {
  struct Sut {
    duet::atomic<long> count{0};
    duet::atomic<long> retries{0};
  };
  static void incr(Sut& c) { c.count.fetch_add(1); }
  static long get(Sut& c) {
    while (c.count.load() == 0) c.retries.fetch_add(1);
    return c.count.load();
  }
};

TEST(FiberFairness, WaitNobodyEndsIsALivelockUnderEveryStrategy) {
  for (const duet::Schedule& schedule : {duet::random(), duet::pct(3)}) {
    duet::ParallelConfig pc;
    pc.executor = duet::fibers(schedule, {.max_steps = 300});
    pc.prefix_length = 0;  // a get() there would wait on the calling thread, outside the fibers
    const duet::CheckResult r =
        duet::check_parallel<duet::models::Counter<WaitingCounter>>(pc, {.seed = 1, .count = 200, .verbose = -1});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_TRUE(contains(r.report, "livelock or spin loop")) << r.report;
    EXPECT_TRUE(contains(r.report, kFairTried)) << r.report;
    EXPECT_FALSE(contains(r.report, "nondeterministic")) << r.report;
  }
}

}  // namespace
