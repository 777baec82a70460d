// ParallelConfig::every_program: every program of a scope, once each, on the fiber scheduler.
// With duet::exhaustive(duet::unbounded), a pass says every execution of every program of the
// scope was explored; a racy structure fails with a token that replays; a budget that ends the
// walk is inconclusive; settings that cannot apply are errors.
#include <duet/gtest.hpp>

#include <duet/models/lazy_list.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/treiber_stack.hpp>

#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include "support/buggy_subjects.hpp"
#include "support/fiber_subjects.hpp"
#include "walks.hpp"

namespace {

using RacySpec = fiber_subjects::CounterSpec<true>;
using FixedSpec = fiber_subjects::CounterSpec<false>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using walks::counter_scope;

TEST(EveryProgram, ACorrectCounterIsCorrectForEveryProgramOfTheScope) {
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 27u);
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed: 27 programs of 2 branches × up to 2 calls (like "
                              "branches that only swap counted once), each searched to its end"))
      << r.coverage;
  EXPECT_TRUE(has(r.coverage, "exhaustive(unbounded), complete for programs of 2 branches × up to 2 calls: every execution "
                              "of the 27 programs explored"))
      << r.coverage;
}

TEST(EveryProgram, TheWalkIsTheSameWhateverTheSeed) {
  const duet::CheckResult a = duet::check_parallel<FixedSpec>(counter_scope(), {.seed = 1, .verbose = -1});
  const duet::CheckResult b = duet::check_parallel<FixedSpec>(counter_scope(), {.seed = 2, .verbose = -1});
  ASSERT_TRUE(a) << a.report;
  ASSERT_TRUE(b) << b.report;
  EXPECT_EQ(a.trials, b.trials);
  EXPECT_EQ(a.coverage, b.coverage);
}

TEST(EveryProgram, ARacyCounterFailsAndItsTokenReplays) {
  const duet::CheckResult r = duet::check_parallel<RacySpec>(counter_scope(), {.verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "c.incr() : 1 | c.incr() : 1")) << r.report;
  const duet::CheckResult again = duet::check_parallel<RacySpec>(counter_scope(), {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(has(again.report, "c.incr() : 1 | c.incr() : 1")) << again.report;
}

TEST(EveryProgram, ANegativeTestFindsTheRaceInTheScope) {
  const duet::CheckResult r = duet::expect_unsafe<RacySpec>(counter_scope(), {.verbose = -1});
  EXPECT_TRUE(r) << r.report;
}

TEST(EveryProgram, AWalkItsBudgetEndsIsInconclusiveNotAPass) {
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.count = 5, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "inconclusive: the walk over every program of the scope stopped at its budget, after"))
      << r.report;
  EXPECT_TRUE(has(r.report, "this is not a pass")) << r.report;
}

// Random schedules: every program runs, but its executions are not all explored, and the pass
// does not say they were.
TEST(EveryProgram, WithRandomSchedulesEveryProgramRunsAndThePassSaysNoMore) {
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(duet::random()), {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 27u);
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed: 27 programs of 2 branches")) << r.coverage;
  EXPECT_FALSE(has(r.coverage, "searched to its end")) << r.coverage;
}

TEST(EveryProgram, SettingsThatCannotApplyAreErrors) {
  duet::ParallelConfig pc = counter_scope();
  pc.every_program->values = 0;
  const duet::CheckResult zero = duet::check_parallel<FixedSpec>(pc, {.verbose = -1});
  EXPECT_EQ(zero.status, duet::CheckResult::Status::error);
  EXPECT_TRUE(has(zero.report, "every_program's values must be at least 1")) << zero.report;
  const duet::Scenario<RacySpec::Cmd> s{.branches = {{fiber_subjects::Incr{}}, {fiber_subjects::Incr{}}}};
  const duet::CheckResult scenario = duet::check_scenario<FixedSpec>(s, counter_scope(), {.verbose = -1});
  EXPECT_EQ(scenario.status, duet::CheckResult::Status::error);
  EXPECT_TRUE(has(scenario.report, "a scenario is one program of its own")) << scenario.report;
}

// A models/ structure under the C++ memory model: push(0), push(1) and pop() in 2 branches of
// up to 2 calls after a prefix of up to 1: 4 prefixes × 91 pairs of branches, less the empty one.
TEST(EveryProgram, TheTreiberStackIsCorrectForEveryProgramOfTheScope) {
  const duet::ParallelConfig pc{.branch_length = 2,
                                .prefix_length = 1,
                                .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                                .every_program = duet::EveryProgram{.values = 2}};
  const duet::CheckResult r = duet::check_parallel<duet::models::TreiberStackSpec<>>(pc, {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 363u);
  EXPECT_TRUE(has(r.coverage,
                  "every program of the scope passed: 363 programs of 2 branches × up to 2 calls after a "
                  "prefix of up to 1 call (like branches that only swap counted once), each searched to its end"))
      << r.coverage;
  EXPECT_TRUE(has(r.coverage, "the calls drew the first 2 values of each argument's generator (values 0..9)")) << r.coverage;
}

// The stack treats its elements alike: with symmetric values, a program's values are taken in
// the order of their first use (push(1) | push(0) runs as push(0) | push(1)). The 363 programs
// fall into 192 classes of renamings (counted apart by renaming the programs' texts); the walk
// runs 212: every class, and 20 twice, where swapping like branches changes which value comes
// first ([push(0)] | [push(1), push(0)] and [push(0), push(1)] | [push(1)]).
TEST(EveryProgram, SymmetricValuesWalkOneProgramPerRenaming) {
  duet::ParallelConfig pc{.branch_length = 2,
                          .prefix_length = 1,
                          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                          .every_program = duet::EveryProgram{.values = 2, .symmetric_values = true}};
  const duet::CheckResult r = duet::check_parallel<duet::models::TreiberStackSpec<>>(pc, {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 212u);
  EXPECT_TRUE(has(r.coverage, "(like branches that only swap counted once; values in the order of their first use), "
                              "each searched to its end"))
      << r.coverage;
  EXPECT_TRUE(has(r.coverage, "the first 2 values of each argument's generator (values 0..9), alike up to renaming"))
      << r.coverage;
  std::printf("[ measured ] Treiber stack, 2 × up to 2 calls, prefix <= 1, values {0, 1} up to renaming: %llu programs\n",
              static_cast<unsigned long long>(r.cases));
}

// The Lin front end walks its programs the same way.
TEST(EveryProgram, ALinSpecWalksTheSamePrograms) {
  auto lin = duet::Lin<fiber_subjects::Counter<false>>("Counter", "c")
                 .op("incr", [](fiber_subjects::Counter<false>& c) { return c.incr(); })
                 .op("get", [](fiber_subjects::Counter<false>& c) { return c.get(); });
  const duet::CheckResult r = duet::check_parallel(lin, counter_scope(), {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 27u);
}

// ---- the buggy variants, found in the scope the correct ones pass ----

duet::ParallelConfig stack_scope(std::size_t branch_length, std::size_t prefix_length) {
  return {.branch_length = branch_length,
          .prefix_length = prefix_length,
          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
          .every_program = duet::EveryProgram{.values = 2}};
}

// The ABA needs a popper's reads on one side and three calls on the other: the wide scope,
// minutes (--gtest_also_run_disabled_tests).
TEST(EveryProgram, DISABLED_TheAbaStackIsFoundInTheWideScope) {
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::expect_unsafe<duet::models::AbaTreiberStackSpec<>>(stack_scope(3, 1), {.verbose = -1});
  EXPECT_TRUE(r) << r.report;
  std::printf("[ measured ] ABA stack: found after %llu programs, %llu executions, %.1f s\n",
              static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.trials),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// Treiber's stack whose push publishes its node with a relaxed CAS: a popper that reads the node
// may read its `next` as it was before the push wrote it.
template <class T>
class RelaxedPushStack {
  struct Node {
    explicit Node(T v) : value(std::move(v)) {}
    T value;
    duet::atomic<Node*> next{nullptr};
    Node* allocated_next = nullptr;
  };

 public:
  void push(T value) {
    Node* n = nodes_.make(std::move(value));
    Node* top = top_.load(std::memory_order_relaxed);
    do n->next.store(top, std::memory_order_relaxed);
    while (!top_.compare_exchange_weak(top, n, std::memory_order_relaxed, std::memory_order_relaxed));
  }
  std::optional<T> pop() {
    Node* top = top_.load(std::memory_order_acquire);
    while (top != nullptr && !top_.compare_exchange_weak(top, top->next.load(std::memory_order_relaxed),
                                                         std::memory_order_acquire, std::memory_order_acquire)) {
    }
    if (top == nullptr) return std::nullopt;
    return top->value;
  }

 private:
  duet::atomic<Node*> top_{nullptr};
  duet::models::detail::NodeArena<Node> nodes_;
};
using RelaxedPushStackSpec = duet::models::Stack<duet::models::TreiberBinding<RelaxedPushStack<int>>>;

TEST(EveryProgram, ARelaxedPublicationIsFoundInTheScope) {
  const duet::CheckResult r = duet::expect_unsafe<RelaxedPushStackSpec>(stack_scope(2, 1), {.verbose = -1});
  EXPECT_TRUE(r) << r.report;
}

// A bug is still found up to renaming: the relaxed publication needs no particular value.
TEST(EveryProgram, ARelaxedPublicationIsFoundWithSymmetricValues) {
  duet::ParallelConfig pc = stack_scope(2, 1);
  pc.every_program->symmetric_values = true;
  const duet::CheckResult r = duet::expect_unsafe<RelaxedPushStackSpec>(pc, {.verbose = -1});
  EXPECT_TRUE(r) << r.report;
}

// A lock and a set with locks per node, under the C++ memory model: correct for every program
// of the small scope, and their buggy twins found in it (a data race, a lost insert).
template <class Spec>
void passes_the_small_scope(const char* name, std::uint64_t programs, std::size_t prefix_length = 1) {
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_parallel<Spec>(stack_scope(2, prefix_length), {.verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, programs);
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed")) << r.coverage;
  std::printf("[ measured ] %s, prefix up to %zu: %llu programs, %llu executions, %.1f s\n", name, prefix_length,
              static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.trials), seconds);
}

TEST(EveryProgram, TheTicketLockAndTheLazyListAreCorrectForEveryProgramOfTheScope) {
  passes_the_small_scope<duet::models::TicketLockSpec<>>("ticket lock", 83);
  passes_the_small_scope<duet::models::LazyListSpec<>>("lazy list", 945, 0);  // with a prefix: 6,621, 30 s (below)
}

TEST(EveryProgram, TheirBuggyTwinsAreFoundInTheScope) {
  const duet::CheckResult lock =
      duet::expect_unsafe<duet::models::RelaxedTicketLockSpec<>>(stack_scope(2, 1), {.verbose = -1});
  EXPECT_TRUE(lock) << lock.report;
  EXPECT_TRUE(has(lock.report, "data race on")) << lock.report;
  const duet::CheckResult list =
      duet::expect_unsafe<duet::models::UnvalidatedLazyListSpec<>>(stack_scope(2, 1), {.verbose = -1});
  EXPECT_TRUE(list) << list.report;
}

// The scope: 2 branches × up to 3 calls after a prefix of up to 1, values {0, 1}, under
// the C++ memory model. Minutes: run with --gtest_also_run_disabled_tests.
// With `symmetric_values`, programs equal up to renaming the values are one program (the
// structures never look at the values they hold).
template <class Spec>
void verify_in_the_wide_scope(const char* name, bool symmetric_values = false) {
  const auto t0 = std::chrono::steady_clock::now();
  duet::ParallelConfig pc = stack_scope(3, 1);
  pc.every_program->symmetric_values = symmetric_values;
  const duet::CheckResult r = duet::check_parallel<Spec>(pc, {.verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed")) << r.coverage;
  std::printf("[ measured ] %s: %llu programs, %llu executions, %.1f s\n%s\n", name,
              static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.trials), seconds,
              r.coverage.c_str());
}

TEST(EveryProgram, DISABLED_TheTreiberStackIsCorrectForEveryProgramOfTwoBranchesOfThreeCalls) {
  verify_in_the_wide_scope<duet::models::TreiberStackSpec<>>("Treiber stack");
}

TEST(EveryProgram, DISABLED_TheMsQueueIsCorrectForEveryProgramOfTwoBranchesOfThreeCalls) {
  verify_in_the_wide_scope<duet::models::MsQueueSpec<>>("Michael-Scott queue");
}

TEST(EveryProgram, DISABLED_TheTicketLockIsCorrectForEveryProgramOfTwoBranchesOfThreeCalls) {
  verify_in_the_wide_scope<duet::models::TicketLockSpec<>>("ticket lock");
}

// The lazy list's three operations make many more programs: 6,621 in the small scope with its prefix.
TEST(EveryProgram, DISABLED_TheLazyListIsCorrectForEveryProgramOfTheScopeWithAPrefix) {
  passes_the_small_scope<duet::models::LazyListSpec<>>("lazy list", 6'621, 1);
}

TEST(EveryProgram, DISABLED_UpToRenamingTheStructuresAreCorrectForEveryProgramOfTwoBranchesOfThreeCalls) {
  verify_in_the_wide_scope<duet::models::TreiberStackSpec<>>("Treiber stack, values alike up to renaming", true);
  verify_in_the_wide_scope<duet::models::MsQueueSpec<>>("Michael-Scott queue, values alike up to renaming", true);
}

// The scope of 2 branches × up to 2 calls (prefix up to 1, values {0, 1}): the executions the
// search runs, where the check judges each run's history in every real-time order of its calls
// that the run allows (under the C++ memory model, with its seq_cst fences placed in each;
// docs/verifying.md has the counts when the search ran each order instead). Seconds:
// --gtest_also_run_disabled_tests.
template <class Spec>
void count_in_the_small_scope(const char* name, duet::MemoryModel model) {
  duet::ParallelConfig pc = stack_scope(2, 1);
  pc.executor = duet::fibers(duet::exhaustive(duet::unbounded), {.memory_model = model});
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_parallel<Spec>(pc, {.verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "each schedule's history judged in every real-time order")) << r.coverage;
  std::printf("[ measured ] %s, %s: %llu programs, %llu executions, %.1f s\n", name,
              model == duet::MemoryModel::sc ? "sc" : "cpp", static_cast<unsigned long long>(r.cases),
              static_cast<unsigned long long>(r.trials), seconds);
}

TEST(EveryProgram, DISABLED_UnderScTheStructuresOfTheSmallScopeRunEachExecutionOnce) {
  count_in_the_small_scope<duet::models::TreiberStackSpec<>>("Treiber stack", duet::MemoryModel::sc);
  count_in_the_small_scope<duet::models::MsQueueSpec<>>("Michael-Scott queue", duet::MemoryModel::sc);
}

TEST(EveryProgram, DISABLED_UnderCppTheStructuresOfTheSmallScopeRunEachExecutionOnce) {
  count_in_the_small_scope<duet::models::TreiberStackSpec<>>("Treiber stack", duet::MemoryModel::cpp);
  count_in_the_small_scope<duet::models::MsQueueSpec<>>("Michael-Scott queue", duet::MemoryModel::cpp);
}

}  // namespace
