// Verdicts without evidence: a check that ran no command never passes, whatever its settings
// and front end, and a check that did not pass prints one line at DUET_VERBOSE=0.
#include <duet/gtest.hpp>

#include <algorithm>
#include <filesystem>
#include <string>

#include "engine/verdicts.hpp"
#include "report/report.hpp"
#include "ring_buffer.hpp"
#include "support/fiber_subjects.hpp"

namespace {

using duet::CheckResult;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string temp_dir(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("duet_verdicts_" + name)).string();
}

// The tests below choose seeds whose first case (or program) is empty; a seed given by DUET_SEED
// or --duet_seed (the Config tests leave one set for the rest of the binary) draws other cases.
bool seed_overridden(const CheckResult& r, std::uint64_t seed) { return r.seed != seed; }
constexpr const char* kSeedOverridden = "DUET_SEED or --duet_seed overrides the test's seed";

// A check whose search ran no command is an error saying so, not "N cases passed, 0 commands".
void expect_no_command_error(const CheckResult& r, const std::string& remedy) {
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "no case ran a command in ")) << r.report;
  EXPECT_TRUE(has(r.report, "the candidate was never called, so this is not a pass")) << r.report;
  EXPECT_TRUE(has(r.report, remedy)) << r.report;
}

// Seed 5's first case ends before its first command (the length is drawn first, whatever the
// front end): one empty case is no pass.
TEST(NoCommandVerdict, OneCaseThatRanNoCommand) {
  const CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 5, .count = 1, .verbose = -1});
  if (seed_overridden(r, 5)) GTEST_SKIP() << kSeedOverridden;
  expect_no_command_error(r, "run more cases (DUET_COUNT, DUET_TIME) or longer ones (DUET_MEAN_LENGTH)");
  EXPECT_TRUE(has(r.report, "in 1 case (0 attempts rejected)")) << r.report;
}

// Ten cases of no command each (or the setting refused, if the settings refuse it): an error.
TEST(NoCommandVerdict, SequentialSearchWithMaxLengthZero) {
  const CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>({.count = 10, .max_length = 0, .verbose = -1});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "max_length")) << r.report;
}

struct Counter {
  long value = 0;
  long incr() { return ++value; }
};

TEST(NoCommandVerdict, LinStressCaseThatRanNoCommand) {
  const auto lin = duet::Lin<Counter>("Counter", "c").op("incr", [](Counter& c) { return c.incr(); });
  const CheckResult r = lin.check_stress({.seed = 5, .count = 1, .verbose = -1});
  if (seed_overridden(r, 5)) GTEST_SKIP() << kSeedOverridden;
  expect_no_command_error(r, "run more cases");
}

long make_counter() { return 0; }
long next_value(long& c) { return ++c; }

TEST(NoCommandVerdict, ApiCaseThatRanNoCommand) {
  duet::Api api("Counter");
  auto counter = api.abstract<long, long>("c");
  api.op("make", duet::args(), counter, make_counter, make_counter);
  api.op("next", duet::args(counter), duet::value<long>(), next_value, next_value);
  const CheckResult r = api.check({.seed = 5, .count = 1, .verbose = -1});
  if (seed_overridden(r, 5)) GTEST_SKIP() << kSeedOverridden;
  expect_no_command_error(r, "run more cases");
}

// A parallel program may be drawn empty (no prefix call, every branch stopping at once): seed
// 73's first program is, and a check of that one program ran nothing.
TEST(NoCommandVerdict, ParallelProgramWithNoCall) {
  const CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<false>>(
      {.prefix_length = 0, .executor = duet::fibers()}, {.seed = 73, .count = 1, .verbose = -1});
  if (seed_overridden(r, 73)) GTEST_SKIP() << kSeedOverridden;
  expect_no_command_error(r, "every program drawn was empty");
}

// A negative test that ran nothing is an error too, not a failure to find a race.
TEST(NoCommandVerdict, NegativeTestThatRanNoCommand) {
  const CheckResult r = duet::expect_unsafe<fiber_subjects::CounterSpec<true>>(
      {.prefix_length = 0, .executor = duet::fibers()}, {.seed = 73, .count = 1, .verbose = -1});
  if (seed_overridden(r, 73)) GTEST_SKIP() << kSeedOverridden;
  expect_no_command_error(r, "every program drawn was empty");
}

// A few cases, some of them empty, are a pass when the others ran commands.
TEST(NoCommandVerdict, ACheckThatRanCommandsStillPasses) {
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.seed = 1, .count = 20, .verbose = -1});
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.commands, 0u);
}

// ---- the one line a check that did not pass prints at DUET_VERBOSE=0 ----

TEST(VerdictLine, AFailureNamesItselfItsTokenAndItsDraft) {
  CheckResult r;
  r.status = CheckResult::Status::failed;
  r.name = "Queue";
  r.report = "duet: Queue: failed after 3 cases (seed 0x0000000000000001); shrunk to 2 steps in 9 shrink steps\n\n  ...\n";
  r.replay_token = "duet1.abc";
  r.draft_path = "duet-output/Queue_repro.cpp";
  EXPECT_EQ(duet::detail::verdict_line(r),
            "duet: Queue: FAILED after 3 cases (seed 0x0000000000000001); shrunk to 2 steps in 9 shrink steps; "
            "replay: DUET_REPLAY=duet1.abc; draft test: duet-output/Queue_repro.cpp (the report: "
            "CheckResult::report, or DUET_VERBOSE=1)");
}

TEST(VerdictLine, AnErrorSaysWhatItsReportSaysFirst) {
  const CheckResult r = duet::detail::nothing_tested("Queue", "bad setting: DUET_COUNT: not a number\n  more");
  EXPECT_EQ(duet::detail::verdict_line(r),
            "duet: Queue: ERROR: bad setting: DUET_COUNT: not a number (the report: CheckResult::report, or "
            "DUET_VERBOSE=1)");
}

TEST(VerdictLine, AFailureNobodyReadsIsPrintedAtVerboseZero) {
  testing::internal::CaptureStderr();
  const CheckResult r =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 1, .output_dir = temp_dir("verbose0"), .verbose = 0});
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(err, ": FAILED after ")) << err;
  EXPECT_TRUE(has(err, "; replay: DUET_REPLAY=" + r.replay_token + "; draft test: " + r.draft_path)) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;  // the line, not the report
}

TEST(VerdictLine, AnErrorNobodyReadsIsPrintedAtVerboseZero) {
  testing::internal::CaptureStderr();
  const CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>({.count = 0, .verbose = 0});
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(err, ": ERROR: ")) << err;
}

TEST(VerdictLine, VerboseMinusOnePrintsNothing) {
  testing::internal::CaptureStderr();
  const CheckResult r =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 1, .output_dir = temp_dir("quiet"), .verbose = -1});
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_EQ(err, "");
}

// A negative test on threads with the default budget searches for an amount of work (trials
// whose branches overlapped) within a time limit. When the work is done and nothing was found,
// the test failed; when the limit ended the search first (a loaded machine runs trials tens of
// times slower), the search did not do what its budget says, and the verdict is inconclusive.
CheckResult negative_found_none(std::uint64_t overlapped, bool budget_given) {
  duet::detail::Property property;
  property.expect_failure = true;
  property.max_overlapped_trials = 1000;
  duet::detail::RunContext context(property);
  context.settings.time = 600;
  context.settings.budget_given = budget_given;
  CheckResult searched;
  searched.status = CheckResult::Status::passed;
  searched.name = "Map";
  searched.cases = 40;
  searched.trials = 2 * overlapped + 1;
  searched.overlapped_trials = overlapped;
  searched.cpus = 2;
  return duet::detail::expected_failure_verdict(searched, context);
}

TEST(NegativeVerdict, TheDefaultBudgetsWorkDoneWithNothingFoundIsAFailure) {
  const CheckResult r = negative_found_none(1000, false);
  EXPECT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "duet: Map: expected a counterexample (unsafe under concurrency), found none in 40 programs"))
      << r.report;
  EXPECT_TRUE(has(r.report, "the default budget ends after 1000 trials with overlapping branches")) << r.report;
}

TEST(NegativeVerdict, TheDefaultBudgetCutShortByItsTimeLimitIsInconclusive) {
  const CheckResult r = negative_found_none(999, false);
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "duet: Map: inconclusive: expected a counterexample (unsafe under concurrency), found none"))
      << r.report;
  EXPECT_TRUE(has(r.report, "the search did not do its work: the default budget is 1000 trials with overlapping"))
      << r.report;
  EXPECT_TRUE(has(r.report, "its 600 s limit ended the search after 999 (the machine ran the trials slowly")) << r.report;
}

TEST(NegativeVerdict, ABudgetTheUserGaveIsTheirsWhateverTheOverlap) {
  const CheckResult r = negative_found_none(10, true);
  EXPECT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "; give it more time (DUET_TIME) or more trials")) << r.report;
}

}  // namespace
