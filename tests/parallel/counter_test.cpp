// Counters on threads: an atomic one is linearizable, a load-then-store one is not.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>

namespace {

struct AtomicCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load(); }
};

TEST(ParallelCounter, AtomicCounterIsLinearizable) {
  const duet::CheckResult r = duet::check_parallel<duet::models::Counter<AtomicCounter>>({}, {.count = 2000});
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 2000u);
  EXPECT_GE(r.trials, 2000u);
}

}  // namespace
