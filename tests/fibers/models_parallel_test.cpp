// The instrumented subjects of models/ through the parallel runner on fibers: the correct ones
// pass, the buggy ones (support/buggy_subjects.hpp) are found, shrunk and reported with their
// interleaving, and the same seed finds the same counterexample.
#include <duet/models/bounded_buffer.hpp>
#include <duet/models/lazy_list.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/seqlock.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include <regex>

#include "support/buggy_subjects.hpp"
#include "support/emulation.hpp"

namespace {

using namespace duet::models;

duet::ParallelConfig on_fibers() {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  return pc;
}

duet::Config cases(std::uint64_t n, std::uint64_t seed = 1) {
  duet::Config c;
  c.count = n;
  c.seed = seed;
  return c;
}

template <class Spec>
void expect_passes(std::uint64_t programs) {
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(), cases(programs));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_EQ(r.cases, programs);
}

TEST(FiberModelsParallel, CorrectSubjectsPass) {
  expect_passes<TasSpinLockSpec<>>(500);
  expect_passes<TtasSpinLockSpec<>>(500);
  expect_passes<TreiberStackSpec<>>(500);
  expect_passes<MsQueueSpec<>>(500);
  expect_passes<SeqLockSpec<>>(500);
  expect_passes<BoundedBufferSpec<>>(500);
  expect_passes<TicketLockSpec<>>(500);
  expect_passes<LazyListSpec<>>(500);
}

// The correct lock-free stack and queue (acquire/release, under the C++ memory model) under every
// strategy, 10,000 programs each; the exhaustive search 1,000 (10,000 with DUET_SOAK=1: the
// stale-read choices multiply the queue's schedules by 16, to about 10 million, 97 s).
class CorrectUnderStrategy : public testing::TestWithParam<duet::Schedule> {};

template <class Spec>
void expect_passes_under(duet::Schedule schedule) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  const bool fewer = schedule.kind == duet::Schedule::Kind::exhaustive && std::getenv("DUET_SOAK") == nullptr;
  // Where the tests run ten times slower (ThreadSanitizer, an emulator), the exhaustive search
  // of the queue's 1,000 programs outlasts the test's time limit: a tenth of them there.
  const std::uint64_t exhaustive_programs = duet_test::time_scale() > 1 ? 100 : 1'000;
  const std::uint64_t programs = fewer ? exhaustive_programs : 10'000;
  const duet::CheckResult r = duet::check_parallel<Spec>(pc, cases(programs));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_EQ(r.cases, programs);
}

TEST_P(CorrectUnderStrategy, TreiberStackPasses) { expect_passes_under<TreiberStackSpec<>>(GetParam()); }

TEST_P(CorrectUnderStrategy, MsQueuePasses) { expect_passes_under<MsQueueSpec<>>(GetParam()); }

INSTANTIATE_TEST_SUITE_P(Strategies, CorrectUnderStrategy,
                         ::testing::Values(duet::random(), duet::pct(3), duet::exhaustive(2)), [](const auto& info) {
                           return std::string(info.index == 0 ? "random" : info.index == 1 ? "pct3" : "exhaustive2");
                         });

template <class Spec>
duet::CheckResult expect_found(std::uint64_t seed) {
  duet::Config c;
  c.seed = seed;
  c.count = 10'000;  // found within a few programs; a count keeps the test the same on any machine
  const duet::CheckResult r = duet::expect_unsafe<Spec>(on_fibers(), c);
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("interleaving (fiber scheduler"), std::string::npos) << r.report;
  // Deterministic: the same seed gives the same counterexample.
  const duet::CheckResult again = duet::expect_unsafe<Spec>(on_fibers(), c);
  EXPECT_EQ(r.replay_token, again.replay_token);
  return r;
}

// The exhaustive search through check_parallel: every schedule (within 2 preemptions) of every
// program of up to 2 x 3 calls on the correct spin lock, and the pass says how many it explored.
TEST(FiberModelsParallel, ExhaustiveSearchOfTwoByThreeSpinLockProgramsCompletes) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::exhaustive(2));
  pc.branch_length = 3;
  pc.prefix_length = 0;
  testing::internal::CaptureStdout();
  const duet::CheckResult r = duet::check_parallel<TasSpinLockSpec<FiberSync>>(pc, cases(100));
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r.passed()) << r.report;
  // It names the shape it covered, and claims nothing beyond it.
  EXPECT_EQ(r.coverage.rfind("exhaustive(2), complete for programs of 2 branches × up to 3 calls: all ", 0), 0u)
      << r.coverage;
  EXPECT_NE(r.coverage.find("; programs with more branches, longer branches or more preemptions were not explored"),
            std::string::npos)
      << r.coverage;
  // (Programs that drew no call have nothing to run and are not counted.)
  EXPECT_TRUE(std::regex_search(
      r.coverage,
      std::regex(
          " schedules with at most 2 preemptions and at most 2 stale reads of the [0-9]+ programs explored \\(plus ")))
      << r.coverage;
  EXPECT_NE(out.find(r.coverage), std::string::npos) << out;  // on the pass line's next line
  // Each program ran once per schedule explored (and per redundant run): many more trials
  // than programs.
  EXPECT_GT(r.trials, 10 * r.cases);
}

TEST(FiberUnsafeModels, SeqlockWithoutRecheckTearsAPair) { (void)expect_found<NoRecheckSeqLockSpec<>>(1); }

TEST(FiberUnsafeModels, IfInsteadOfWhileAroundWaitIsFound) { (void)expect_found<IfWaitBoundedBufferSpec<>>(1); }

TEST(FiberUnsafeModels, LazyListWithoutValidationIsFound) { (void)expect_found<UnvalidatedLazyListSpec<>>(1); }

// The ticket lock whose unlock is relaxed: a data race on the counter behind it under the C++
// memory model (fibers' default), which runs the orders the code asks for; under sequential
// consistency every atomic synchronises, so there it passes: what MemoryModel::sc cannot see.
TEST(FiberUnsafeModels, TicketLockReleasingNothingRacesUnderTheCppModelOnly) {
  const duet::CheckResult r = expect_found<RelaxedTicketLockSpec<>>(1);
  EXPECT_NE(r.report.find("data race on"), std::string::npos) << r.report;
  duet::ParallelConfig sc;
  sc.executor = duet::fibers(duet::random(), {.memory_model = duet::MemoryModel::sc});
  const duet::CheckResult under_sc = duet::check_parallel<RelaxedTicketLockSpec<>>(sc, cases(500));
  EXPECT_TRUE(under_sc.passed()) << under_sc.report;
}

}  // namespace

namespace {

// The ABA needs a pop preempted between reading top and its CAS while another fiber pops twice
// and pushes a node back: with seed 1, random schedules find it after 22,659 programs, PCT(3)
// after 211, the exhaustive search (2 preemptions) after 2.
class FiberUnsafeAba : public ::testing::TestWithParam<duet::Schedule> {};

TEST_P(FiberUnsafeAba, TreiberStackWithAFreeListIsFound) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(GetParam());
  duet::Config c;
  c.seed = 1;
  c.count = 50'000;  // a count, not a time: the same seed finds it after the same programs on any machine
  const duet::CheckResult r = duet::expect_unsafe<duet::models::AbaTreiberStackSpec<>>(pc, c);
  EXPECT_TRUE(r.passed()) << r.report;
}

INSTANTIATE_TEST_SUITE_P(Strategies, FiberUnsafeAba, ::testing::Values(duet::pct(3), duet::exhaustive(2), duet::random()),
                         [](const auto& info) {
                           return std::string(info.index == 0 ? "pct3" : info.index == 1 ? "exhaustive2" : "random");
                         });

}  // namespace
