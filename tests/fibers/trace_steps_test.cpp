// How much of a fiber interleaving a failure report shows (DUET_TRACE_STEPS, Config::trace_steps):
// by default a long run's first and last 40 steps; 0 shows every step, and N the first and last
// halves of N. Long runs are what real libraries give (hundreds of steps per call), and the
// steps left out can be the ones that explain the failure.
#include <duet/api.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>
#include <string>

namespace {

// A lost update after a long walk: each incr() loads the counter 60 times before its racy
// load and store, so two concurrent increments take over a hundred steps.
class LongWalkCounter {
 public:
  int incr() {
    for (int i = 0; i < 60; ++i) (void)value_.load();
    const int x = value_.load();
    value_.store(x + 1);
    return x + 1;
  }

 private:
  duet::atomic<int> value_{0};
};

duet::CheckResult lost_update(duet::Config config) {
  auto lin = duet::Lin<LongWalkCounter>("LongWalkCounter", "c").op("incr", [](LongWalkCounter& c) { return c.incr(); });
  config.seed = 3;
  config.count = 2000;
  config.verbose = -1;
  config.shrink_steps = 100;  // the interleaving's length is what is tested, not how short it gets
  config.output_dir = testing::TempDir() + "duet_trace_steps";
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  pc.branch_length = 1;  // two concurrent increments and nothing else: little to shrink
  pc.prefix_length = 0;
  return duet::expect_unsafe(lin, pc, config);
}

// The number of steps the interleaving's header announces ("..., 171 steps:") and the step rows
// the report prints (in the table layout, "  NNN | ...").
struct Shown {
  std::size_t announced = 0, rows = 0;
  bool elided = false;
};
Shown shown(const std::string& report) {
  Shown s;
  std::smatch m;
  if (std::regex_search(report, m, std::regex(R"(interleaving \(fiber scheduler, [a-z0-9() ]+\), (\d+) steps:)")))
    s.announced = std::stoul(m[1]);
  const std::regex row(R"(^ +\d+ +(\||f\d))");
  std::size_t at = 0;
  while (at < report.size()) {
    const std::size_t end = report.find('\n', at);
    const std::string line = report.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (std::regex_search(line, row)) ++s.rows;
    at = end == std::string::npos ? report.size() : end + 1;
  }
  s.elided = report.find(" not shown ...") != std::string::npos;
  return s;
}

TEST(TraceSteps, ByDefaultALongRunShowsItsFirstAndLast40Steps) {
  const duet::CheckResult r = lost_update({});
  ASSERT_TRUE(r.passed()) << r.report;
  const Shown s = shown(r.report);
  ASSERT_GT(s.announced, 80u) << r.report;
  EXPECT_EQ(s.rows, 80u) << r.report;
  EXPECT_NE(r.report.find("... " + std::to_string(s.announced - 80) + " steps not shown ..."), std::string::npos)
      << r.report;
}

TEST(TraceSteps, ZeroInCodeShowsEveryStep) {
  const duet::CheckResult r = lost_update({.trace_steps = 0});
  ASSERT_TRUE(r.passed()) << r.report;
  const Shown s = shown(r.report);
  ASSERT_GT(s.announced, 80u) << r.report;
  EXPECT_EQ(s.rows, s.announced) << r.report;
  EXPECT_FALSE(s.elided) << r.report;
}

TEST(TraceSteps, TheVariableZeroShowsEveryStep) {
  ::setenv("DUET_TRACE_STEPS", "0", 1);
  const duet::CheckResult r = lost_update({});
  ::unsetenv("DUET_TRACE_STEPS");
  ASSERT_TRUE(r.passed()) << r.report;
  const Shown s = shown(r.report);
  ASSERT_GT(s.announced, 80u) << r.report;
  EXPECT_EQ(s.rows, s.announced) << r.report;
  EXPECT_FALSE(s.elided) << r.report;
}

// N shows the first N/2 steps and the last N - N/2; the variable wins over the code.
TEST(TraceSteps, NShowsTheHalvesOfN) {
  ::setenv("DUET_TRACE_STEPS", "11", 1);
  const duet::CheckResult r = lost_update({.trace_steps = 0});
  ::unsetenv("DUET_TRACE_STEPS");
  ASSERT_TRUE(r.passed()) << r.report;
  const Shown s = shown(r.report);
  EXPECT_EQ(s.rows, 11u) << r.report;
  EXPECT_NE(r.report.find("... " + std::to_string(s.announced - 11) + " steps not shown ..."), std::string::npos)
      << r.report;
}

// A failure first seen cut is replayed whole: the token re-runs the same interleaving, and the
// replay's report shows what the setting asks for.
TEST(TraceSteps, AReplayShowsTheWholeInterleavingOfAFailureFirstSeenCut) {
  const duet::CheckResult first = lost_update({});
  ASSERT_TRUE(first.passed()) << first.report;
  ASSERT_TRUE(shown(first.report).elided) << first.report;
  const duet::CheckResult replay = lost_update({.replay = first.replay_token, .trace_steps = 0});
  const Shown s = shown(replay.report);
  EXPECT_EQ(s.announced, shown(first.report).announced) << replay.report;
  EXPECT_EQ(s.rows, s.announced) << replay.report;
  EXPECT_FALSE(s.elided) << replay.report;
}

}  // namespace
