// A counter whose increment is a load then a store: two increments at once can lose one.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>
#include <cstdio>
#include <thread>

namespace {

struct RacyCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) {
    const long v = c.load(std::memory_order_relaxed);
    std::this_thread::yield();  // widens the window a real scheduler opens at random
    c.store(v + 1, std::memory_order_relaxed);
  }
  static long get(Sut& c) { return c.load(); }
};

TEST(NegativeCounter, RacyCounterIsFoundUnsafe) {
  testing::internal::CaptureStdout();
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Counter<RacyCounter>>();
  const std::string out = testing::internal::GetCapturedStdout();
  std::fputs(out.c_str(), stdout);  // the pass line, for the log (tests/soak reads it)
  EXPECT_TRUE(r) << r.report;
  // The check returns its report; it prints one pass line, like every other check.
  EXPECT_NE(out.find(": unsafe, as expected: a counterexample after "), std::string::npos) << out;
  EXPECT_EQ(out.find("replay:"), std::string::npos) << out;
  EXPECT_NE(r.report.find("unsafe, as expected"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("c.incr()"), std::string::npos) << r.report;
}

}  // namespace
