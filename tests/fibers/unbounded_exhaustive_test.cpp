// duet::exhaustive(duet::unbounded): the optimal partial-order reduction behind a check. A
// correct program passes with "every execution ... explored" and one schedule per class; a racy
// one fails and its token replays the failure; a program that blocks on a mutex is searched with
// sleep sets and the pass says why; the schedule prints as the call that makes it.
#include <duet/gtest.hpp>

#include <string>

#include "support/fiber_subjects.hpp"

namespace {

using fiber_subjects::Get;
using fiber_subjects::Incr;
using RacySpec = fiber_subjects::CounterSpec<true>;
using FixedSpec = fiber_subjects::CounterSpec<false>;
using Cmd = RacySpec::Cmd;

// One executor for every check of the file, as a suite's shared config would: each check's pass
// still speaks of its own programs.
const duet::ParallelConfig kUnbounded{.executor = duet::fibers(duet::exhaustive(duet::unbounded))};

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(UnboundedExhaustive, ACorrectProgramHasEveryExecutionExplored) {
  const duet::Scenario<Cmd> s{.prefix = {Incr{}}, .branches = {{Incr{}, Get{}}, {Incr{}}}, .suffix = {Get{}}};
  const duet::CheckResult r = duet::check_scenario<FixedSpec>(s, kUnbounded, {.seed = 1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 1u);
  // As docs/parallel.md shows it.
  EXPECT_EQ(r.coverage,
            "exhaustive(unbounded), complete for programs of 2 branches × up to 2 calls: every execution of the program "
            "explored, 3 schedules, one per class of schedules equal up to the order of independent steps; programs with "
            "more branches or longer branches were not explored");
}

TEST(UnboundedExhaustive, ARacyProgramFailsAndItsTokenReplays) {
  const duet::Scenario<Cmd> s{.branches = {{Incr{}}, {Incr{}}}};
  const duet::CheckResult r = duet::check_scenario<RacySpec>(s, kUnbounded, {.seed = 1, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "c.incr() : 1 | c.incr() : 1")) << r.report;
  const duet::CheckResult again = duet::check_scenario<RacySpec>(s, kUnbounded, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
}

// Generated programs too: every program the check draws, each searched to its end.
TEST(UnboundedExhaustive, GeneratedProgramsAreEachSearchedToTheirEnd) {
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(kUnbounded, {.seed = 3, .count = 5});
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "every execution of the 5 programs explored")) << r.coverage;
}

TEST(UnboundedExhaustive, AProgramThatBlocksIsSearchedWithSleepSetsAndSaysSo) {
  using fiber_subjects::Ab;
  const duet::Scenario<fiber_subjects::AccountsSpec::Cmd> s{.branches = {{Ab{}}, {Ab{}}}};
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::AccountsSpec>(s, kUnbounded, {.seed = 1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "every execution of the program explored")) << r.coverage;
  EXPECT_TRUE(has(r.coverage, "(sleep sets: a fiber blocked on a mutex (fiber_subjects.hpp:69)")) << r.coverage;
}

TEST(UnboundedExhaustive, PrintsAsTheCallThatMakesIt) {
  EXPECT_EQ(::testing::PrintToString(duet::exhaustive(duet::unbounded)), "duet::exhaustive(duet::unbounded, 2)");
}

}  // namespace
