// Config::jobs (DUET_JOBS): a walk over every program run in several processes gives what the
// walk in one process gives: the verdict, the counts, the pass line's coverage, the certificate,
// and the first counterexample with its token; checks it cannot split say so; a worker that dies
// is an error, never a pass.
#include <duet/gtest.hpp>

#include <duet/models/treiber_stack.hpp>

#include <csignal>
#include <string>

#include "support/emulation.hpp"
#include "support/fiber_subjects.hpp"
#include "walks.hpp"

// Under ThreadSanitizer a walk runs in one process (a forked worker may not start threads).
#if defined(__SANITIZE_THREAD__)
#define SKIP_UNDER_TSAN() GTEST_SKIP() << "a walk runs in one process under ThreadSanitizer"
#else
#define SKIP_UNDER_TSAN() (void)0
#endif

// A walk's workers are children of fork() that start threads (each check's watchdog) while the
// parent's live: where the emulator aborts such a child (tests/support/emulation.hpp), the
// tests that run workers skip and say why.
#define SKIP_WHERE_WORKERS_CANNOT_START_THREADS() \
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason

namespace {

using RacySpec = fiber_subjects::CounterSpec<true>;
using FixedSpec = fiber_subjects::CounterSpec<false>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

duet::ParallelConfig treiber_scope() {
  return {.branch_length = 2,
          .prefix_length = 1,
          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
          .every_program = duet::EveryProgram{.values = 2}};
}

using walks::CertificateDir;
using walks::counter_scope;

// The certificate of check `name`, unsharded.
duet::detail::Certificate certificate(const CertificateDir& dir, const std::string& name) {
  return dir.read(name + ".shard-0-of-1.cert");
}

TEST(WalkJobs, TheTreiberWalkInSeveralProcessesIsTheWalkInOne) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  const CertificateDir dir;
  const duet::CheckResult one =
      duet::check_parallel<duet::models::TreiberStackSpec<>>(treiber_scope(), {.verbose = -1, .name = "one"});
  ASSERT_TRUE(one) << one.report;
  const duet::detail::Certificate c1 = certificate(dir, "one");
  for (std::uint32_t jobs : {2u, 3u}) {
    const std::string name = "jobs" + std::to_string(jobs);
    const duet::CheckResult r =
        duet::check_parallel<duet::models::TreiberStackSpec<>>(treiber_scope(), {.verbose = -1, .jobs = jobs, .name = name});
    ASSERT_TRUE(r) << r.report;
    EXPECT_EQ(r.cases, one.cases) << jobs;
    EXPECT_EQ(r.commands, one.commands) << jobs;
    EXPECT_EQ(r.discarded, one.discarded) << jobs;
    EXPECT_EQ(r.trials, one.trials) << jobs;
    EXPECT_EQ(r.coverage, one.coverage) << jobs;
    const duet::detail::Certificate c = certificate(dir, name);
    EXPECT_EQ(c.verdict, "passed");
    EXPECT_EQ(c.fingerprint, c1.fingerprint);
    EXPECT_EQ(c.scope_programs, c1.scope_programs);
    EXPECT_EQ(c.programs, c1.programs);
    EXPECT_EQ(c.searched, c1.searched);
    EXPECT_EQ(c.trials, c1.trials);
    EXPECT_EQ(c.last_program, c1.last_program);
    EXPECT_TRUE(c.walk_done);
    EXPECT_EQ(c.shards, 1u);
  }
  EXPECT_EQ(one.cases, 363u);
}

// Every worker of the racy counter's walk meets a failing program; the report is the one the
// walk in one process makes: the same program first in the walk's order, shrunk the same, its
// counts up to it, its token the same.
TEST(WalkJobs, TheFirstCounterexampleIsTheWalkInOnesWhateverTheProcesses) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  const CertificateDir dir;  // each run's certificate replaces the one before
  const duet::CheckResult one = duet::check_parallel<RacySpec>(counter_scope(), {.seed = 1, .verbose = -1, .name = "racy"});
  ASSERT_EQ(one.status, duet::CheckResult::Status::failed) << one.report;
  const duet::detail::Certificate c1 = certificate(dir, "racy");
  for (std::uint32_t jobs : {2u, 3u, 5u}) {
    const duet::CheckResult r =
        duet::check_parallel<RacySpec>(counter_scope(), {.seed = 1, .verbose = -1, .jobs = jobs, .name = "racy"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.replay_token, one.replay_token) << jobs;
    EXPECT_EQ(r.cases, one.cases) << jobs;
    EXPECT_EQ(r.trials, one.trials) << jobs;
    EXPECT_EQ(r.failing_length, one.failing_length) << jobs;
    const duet::detail::Certificate c = certificate(dir, "racy");
    EXPECT_EQ(c.verdict, "failed");
    EXPECT_EQ(c.replay, one.replay_token) << jobs;
    EXPECT_EQ(c.last_program, c1.last_program) << jobs;
    EXPECT_EQ(c.programs, c1.programs) << jobs;
    EXPECT_EQ(c.trials, c1.trials) << jobs;
  }
  const duet::CheckResult again =
      duet::check_parallel<RacySpec>(counter_scope(), {.replay = one.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
}

TEST(WalkJobs, ANegativeTestInSeveralProcessesFindsTheRace) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  const duet::CheckResult r = duet::expect_unsafe<RacySpec>(counter_scope(), {.verbose = -1, .jobs = 2});
  EXPECT_TRUE(r) << r.report;
}

// Random schedules: each program's case seed is the one-process walk's, so its runs are too.
TEST(WalkJobs, RandomSchedulesRunAsInOneProcess) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  const duet::CheckResult one = duet::check_parallel<FixedSpec>(counter_scope(duet::random()), {.verbose = -1});
  const duet::CheckResult two = duet::check_parallel<FixedSpec>(counter_scope(duet::random()), {.verbose = -1, .jobs = 2});
  ASSERT_TRUE(one) << one.report;
  ASSERT_TRUE(two) << two.report;
  EXPECT_EQ(two.cases, one.cases);
  EXPECT_EQ(two.trials, one.trials);
  EXPECT_EQ(two.coverage, one.coverage);
}

TEST(WalkJobs, ABudgetEndsTheWalkAsInOneProcess) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  const duet::CheckResult one = duet::check_parallel<FixedSpec>(counter_scope(), {.count = 5, .verbose = -1});
  const duet::CheckResult two = duet::check_parallel<FixedSpec>(counter_scope(), {.count = 5, .verbose = -1, .jobs = 2});
  ASSERT_EQ(one.status, duet::CheckResult::Status::error) << one.report;
  ASSERT_EQ(two.status, duet::CheckResult::Status::error) << two.report;
  EXPECT_TRUE(has(two.report, "inconclusive: the walk over every program of the scope stopped at its budget, after 5 "
                              "programs of the scope's 27"))
      << two.report;
  EXPECT_EQ(two.report, one.report);
}

TEST(WalkJobs, APassSaysHowManyProcessesItRanIn) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  SKIP_UNDER_TSAN();
  testing::internal::CaptureStdout();
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.jobs = 2, .name = "split"});
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(out, "duet: split: 27 programs passed")) << out;
  EXPECT_TRUE(has(out, ", in 2 processes")) << out;
}

// A check that is not a walk on fibers runs in one process, and its pass says so.
TEST(WalkJobs, ACheckThatIsNoWalkSaysItRanInOneProcess) {
  testing::internal::CaptureStdout();
  const duet::CheckResult r =
      duet::check_parallel<FixedSpec>({.executor = duet::fibers()}, {.count = 5, .jobs = 2, .name = "one_process"});
  const std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(out, "jobs: 1 process, not 2: only a walk over every program on fibers "
                       "(ParallelConfig::every_program) runs in several"))
      << out;
}

TEST(WalkJobs, TooManyJobsIsABadSetting) {
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.verbose = -1, .jobs = 1000});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "bad setting")) << r.report;
  EXPECT_TRUE(has(r.report, "0 (one per CPU) to 256 processes")) << r.report;
}

// A subject that kills its process in some program: the walk in one process would die with it;
// split, the worker dies, and the check is an error that says so, never a pass.
struct Crashing {
  duet::atomic<int> value{0};
  int put(int v) {
    if (v == 1) std::raise(SIGKILL);  // no report of its own: the worker just ends
    value.store(v);
    return v;
  }
};

TEST(WalkJobs, AWorkerThatDiesIsAnErrorNotAPass) {
  SKIP_WHERE_WORKERS_CANNOT_START_THREADS();
  SKIP_UNDER_TSAN();
  auto lin = duet::Lin<Crashing>("crashing", "c")
                 .op(
                     "put", [](Crashing& c, int v) { return c.put(v); }, duet::integers(0, 1));
  const duet::CheckResult r = duet::check_parallel(lin,
                                                   {.branch_length = 1,
                                                    .prefix_length = 0,
                                                    .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                                                    .every_program = duet::EveryProgram{.values = 2}},
                                                   {.verbose = -1, .jobs = 2});
  ASSERT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "of the walk's 2 processes (DUET_JOBS) was killed by signal 9 before it answered")) << r.report;
  EXPECT_TRUE(has(r.report, "run with DUET_JOBS=1 to see the walk in this process")) << r.report;
}

}  // namespace
