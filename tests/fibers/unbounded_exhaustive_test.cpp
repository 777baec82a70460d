// duet::exhaustive(duet::unbounded): the optimal partial-order reduction behind a check. A
// correct program passes with "every execution ... explored" and one schedule per class; a racy
// one fails and its token replays the failure; a program that blocks on a mutex is searched with
// sleep sets and the pass says why; the schedule prints as the call that makes it.
#include <duet/gtest.hpp>

#include <duet/models/ms_queue.hpp>
#include <duet/models/treiber_stack.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>

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

std::string detail_name(const duet::Schedule& s) { return ::testing::PrintToString(s); }

TEST(UnboundedExhaustive, ACorrectProgramHasEveryExecutionExplored) {
  const duet::Scenario<Cmd> s{.prefix = {Incr{}}, .branches = {{Incr{}, Get{}}, {Incr{}}}, .suffix = {Get{}}};
  const duet::CheckResult r = duet::check_scenario<FixedSpec>(s, kUnbounded, {.seed = 1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 1u);
  // As docs/parallel.md shows it: the 3 orders of the counter's three operations, each judged in
  // every order in which a call of one branch may return before a call of the other begins (run
  // as schedules of their own, they were 10).
  EXPECT_EQ(r.coverage,
            "exhaustive(unbounded), complete for programs of 2 branches × up to 2 calls: every execution of the program "
            "explored, 3 schedules, one per class of schedules equal up to the order of independent steps; each "
            "schedule's history judged in every real-time order of the calls its execution allows; programs with more "
            "branches or longer branches were not explored");
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

// The same generated programs of a models/ structure, searched to their end by the optimal
// reduction and by the sleep-set search with a bound no schedule reaches (sequential
// consistency: the models' acquire/release orders would give loads a choice of store). The
// runs are deterministic; the times are whatever the machine gives.
template <class Spec>
std::size_t runs_to_exhaust(const char* name, duet::Schedule schedule, std::size_t programs) {
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r =
      duet::check_parallel<Spec>({.executor = duet::fibers(schedule, {.memory_model = duet::MemoryModel::sc})},
                                 {.seed = 7, .count = programs, .verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "complete for")) << r.coverage;
  std::printf("[ measured ] %s, %s: %llu runs, %.2f s\n", name, detail_name(schedule).c_str(),
              static_cast<unsigned long long>(r.trials), seconds);
  return r.trials;
}

TEST(UnboundedExhaustive, TreiberStackProgramsTakeFewerRunsThanWithSleepSets) {
  using Spec = duet::models::TreiberStackSpec<>;
  const std::size_t optimal = runs_to_exhaust<Spec>("Treiber stack, 20 programs", duet::exhaustive(duet::unbounded), 20);
  const std::size_t sleep_sets = runs_to_exhaust<Spec>("Treiber stack, 20 programs", duet::exhaustive(1000), 20);
  EXPECT_LT(optimal * 3, sleep_sets);
}

// Minutes: run with --gtest_also_run_disabled_tests. Most of both searches' runs are orders of
// the calls' invocations and returns (docs/parallel.md), where the optimal search gains less.
TEST(UnboundedExhaustive, DISABLED_MsQueueProgramsTakeFewerRunsThanWithSleepSets) {
  using Spec = duet::models::MsQueueSpec<>;
  const std::size_t optimal =
      runs_to_exhaust<Spec>("Michael-Scott queue, 20 programs", duet::exhaustive(duet::unbounded), 20);
  const std::size_t sleep_sets = runs_to_exhaust<Spec>("Michael-Scott queue, 20 programs", duet::exhaustive(1000), 20);
  EXPECT_LT(optimal * 3, sleep_sets * 2);
}

// Under the C++ memory model (the default), the models' acquire/release orders give a load a
// choice of store: the reduction explores those choices too, and the pass says what it took.
TEST(UnboundedExhaustive, UnderTheCppModelTheReductionExploresTheStoresLoadsRead) {
  const duet::ParallelConfig pc{
      .branch_length = 2, .prefix_length = 1, .executor = duet::fibers(duet::exhaustive(duet::unbounded))};
  const duet::CheckResult r =
      duet::check_parallel<duet::models::TreiberStackSpec<>>(pc, {.seed = 7, .count = 3, .verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "every execution of the 3 programs explored")) << r.coverage;
  EXPECT_TRUE(has(
      r.coverage,
      "each class of schedules equal up to the order of independent steps and the stores the loads read; within 2 stale reads per schedule"))
      << r.coverage;
  EXPECT_FALSE(has(r.coverage, "sleep sets")) << r.coverage;
}

// The same programs under the C++ memory model: the reduction against the sleep-set search with
// the same stale-read bound.
TEST(UnboundedExhaustive, UnderTheCppModelTreiberStackProgramsTakeFewerRunsThanWithSleepSets) {
  using Spec = duet::models::TreiberStackSpec<>;
  const auto runs = [](duet::Schedule schedule) {
    const duet::CheckResult r =
        duet::check_parallel<Spec>({.branch_length = 2, .prefix_length = 1, .executor = duet::fibers(schedule)},
                                   {.seed = 7, .count = 10, .verbose = -1});
    EXPECT_TRUE(r) << r.report;
    EXPECT_TRUE(has(r.coverage, "complete for")) << r.coverage;
    std::printf("[ measured ] Treiber stack, C++ model, 10 programs, %s: %llu runs\n", detail_name(schedule).c_str(),
                static_cast<unsigned long long>(r.trials));
    return r.trials;
  };
  EXPECT_LT(runs(duet::exhaustive(duet::unbounded)) * 2, runs(duet::exhaustive(1000)));
}

// The models' Michael-Scott queue whose calls each take at least 300 µs of real time: a search
// whose length in seconds is known from below however fast runs become (the tests below are
// about searches that take seconds; the queue's own runs take microseconds).
struct SlowMsQueueBinding {
  using Sut = duet::models::MsQueue<int, duet::models::FiberSync>;
  static void push(Sut& q, int x) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    q.push(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    std::this_thread::sleep_for(std::chrono::microseconds(300));
    return q.try_pop();
  }
};
using SlowMsQueueSpec = duet::models::Queue<SlowMsQueueBinding>;

// A case's hang limit is per trial: a search of one program's executions that takes many times
// the limit is not a hang (in process, the watchdog timed the whole case before).
TEST(UnboundedExhaustive, ASearchLongerThanTheCaseLimitIsNoHang) {
  using duet::models::Push;
  using duet::models::TryPop;
  using Spec = SlowMsQueueSpec;
  const duet::Scenario<Spec::Cmd> s{.prefix = {Push{0}}, .branches = {{Push{1}, TryPop{}, Push{2}}, {TryPop{}, Push{3}}}};
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_scenario<Spec>(s, kUnbounded, {.seed = 1, .verbose = -1, .case_timeout = 0.1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "exhaustive(unbounded), complete for")) << r.coverage;
  EXPECT_GT(seconds, 0.3);  // 3 times the case limit at least: 414 runs of 5 calls of 300 µs
  std::printf("[ measured ] %llu runs in %.2f s with a case limit of 0.1 s\n", static_cast<unsigned long long>(r.trials),
              seconds);
}

// A case of many trials shows its own progress (the search loop's lines come between cases):
// its trials, its runs of about how many, and the time left in it at the rate so far.
TEST(UnboundedExhaustive, ALongSearchOfOneProgramShowsItsProgress) {
  using duet::models::Push;
  using duet::models::TryPop;
  using Spec = SlowMsQueueSpec;  // its progress line comes after 2 s: 2,097 runs of 7 slow calls
  const duet::Scenario<Spec::Cmd> s{.prefix = {Push{0}},
                                    .branches = {{Push{1}, TryPop{}, Push{2}}, {TryPop{}, Push{3}, TryPop{}}}};
  ::testing::internal::CaptureStderr();
  const duet::CheckResult r = duet::check_scenario<Spec>(s, kUnbounded, {.seed = 1});
  const std::string err = ::testing::internal::GetCapturedStderr();
  ASSERT_TRUE(r) << r.report;
  std::printf("[ measured ] %llu runs\n%s", static_cast<unsigned long long>(r.trials), err.c_str());
  EXPECT_TRUE(has(err, ": searching: program 1: ")) << err;
  EXPECT_TRUE(has(err, " runs of about ")) << err;
  EXPECT_TRUE(has(err, " s left in it at this rate")) << err;
}

TEST(UnboundedExhaustive, PrintsAsTheCallThatMakesIt) {
  EXPECT_EQ(::testing::PrintToString(duet::exhaustive(duet::unbounded)), "duet::exhaustive(duet::unbounded, 2)");
}

}  // namespace
