// A counter whose increment is a load then a store: two increments at once can lose one.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>
#include <cstdio>
#include <thread>

#include "support/negative_subjects.hpp"

namespace {

using negative_subjects::RacyCounter;

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
