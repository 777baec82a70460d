// Where the branches run, and what a check says about it: overlap accounting, pinning, and the
// inconclusive verdict of a check whose branches never ran at once.
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <cstdio>
#include <string>

#include <duet/gtest.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/counter.hpp>

#include "support/verdicts.hpp"

namespace {

using duet::models::AtomicCounter;
using Spec = duet::models::Counter<AtomicCounter>;

cpu_set_t own_mask() {
  cpu_set_t m;
  CPU_ZERO(&m);
  pthread_getaffinity_np(pthread_self(), sizeof m, &m);
  return m;
}

// Restricts the calling thread (and the threads it creates) to one CPU for its lifetime.
struct OneCpu {
  cpu_set_t saved = own_mask();
  OneCpu() {
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &saved)) {
        CPU_SET(c, &one);
        break;
      }
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  }
  ~OneCpu() { pthread_setaffinity_np(pthread_self(), sizeof saved, &saved); }
};

// A load then a store: two increments at once can lose one, but only if they overlap.
struct LoadStoreCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  static long get(Sut& c) { return c.load(); }
};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Placement, APassSaysHowManyTrialsOverlappedAndOnHowManyCpus) {
  const cpu_set_t mask = own_mask();
  if (CPU_COUNT(&mask) < 2) GTEST_SKIP() << "needs 2 CPUs";
  const duet::CheckResult r = duet::check_parallel<Spec>({}, {.count = 500});
  // On a machine busy with other work the branches may (almost) never overlap: the honest
  // inconclusive, which says so with the same counts.
  ASSERT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
  EXPECT_GT(r.trials, 0u);
  if (r.passed()) EXPECT_GT(r.overlapped_trials * 100, r.trials) << "under 1% of the trials overlapped";
  else EXPECT_TRUE(has(r.report, "overlap")) << r.report;
  EXPECT_EQ(r.cpus, 2u);
  EXPECT_TRUE(has(r.coverage, "branches pinned to CPUs ")) << r.coverage;
}

TEST(Placement, TheCallersAffinityIsRestoredAfterTheCheck) {
  const cpu_set_t before = own_mask();
  if (CPU_COUNT(&before) < 2) GTEST_SKIP() << "needs 2 CPUs";
  const duet::CheckResult r = duet::check_parallel<Spec>({}, {.count = 50});
  ASSERT_TRUE(r) << r.report;
  ASSERT_TRUE(has(r.coverage, "branches pinned to CPUs ")) << r.coverage;  // the caller was pinned
  const cpu_set_t after = own_mask();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

// The acceptance line: a positive check whose branches are forced onto one CPU is inconclusive,
// not passed, and says what to do.
TEST(Placement, BranchesForcedOntoOneCpuAreInconclusiveNotAPass) {
  const OneCpu one;
  const duet::CheckResult r = duet::check_parallel<Spec>({}, {.count = 300});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_FALSE(r);
  EXPECT_TRUE(has(r.report, "inconclusive: the branches' calls (almost) never overlapped in time")) << r.report;
  EXPECT_TRUE(has(r.report, "branches on 1 CPU")) << r.report;
  EXPECT_TRUE(has(r.report, "branches not pinned: 1 CPU available for 2 branches")) << r.report;
  EXPECT_TRUE(has(r.report, "this is not a pass")) << r.report;
  std::printf("%s", r.report.c_str());
}

// A negative test that cannot find its race because the branches never overlap says so too.
TEST(Placement, ANegativeTestOnOneCpuSaysTheBranchesNeverRanAtOnce) {
  const OneCpu one;
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Counter<LoadStoreCounter>>({}, {.count = 200});
  if (r) GTEST_SKIP() << "found the race on one CPU (a preemption inside a call): " << r.report;
  EXPECT_TRUE(has(r.report, "never ran at once")) << r.report;
}

}  // namespace
