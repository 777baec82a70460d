// A candidate (or a model, or a branch on a worker thread) that ends the process with exit(0)
// must fail its test, with a replay token that ends it the same way; memory that runs out in
// the middle of a case is a reported, shrunk failure; a candidate's child of fork() does not run
// the check again. Each case runs hostile_subjects.cpp in a child process.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "child_process.hpp"

namespace {

using duet_test::ChildRun;

ChildRun run_subject(const std::string& test, const std::string& env = "") {
  return duet_test::run_child(env + " " + DUET_HOSTILE_BIN + " --gtest_filter=Hostile." + test);
}

std::string token_in(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex("DUET_REPLAY=(duet1\\.[A-Za-z0-9_-]+)"))) return "";
  return m[1];
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// The subject ends through exit(): status 4, duet's report naming the check, no GoogleTest
// "PASSED" line; the token replays the case, which exits again.
void expect_exit_reported(const std::string& test, const std::string& check_name) {
  const ChildRun first = run_subject(test);
  EXPECT_EQ(first.status, 4) << first.output;
  EXPECT_TRUE(has(first.output, "duet: " + check_name + ": error: the process was ended by exit() or quick_exit()"))
      << first.output;
  EXPECT_TRUE(has(first.output, "The case is not shrunk")) << first.output;
  EXPECT_FALSE(has(first.output, "[  PASSED  ]")) << first.output;
  const std::string token = token_in(first.output);
  ASSERT_FALSE(token.empty()) << first.output;

  const ChildRun replay = run_subject(test, "DUET_REPLAY=" + token);
  EXPECT_EQ(replay.status, 4) << replay.output;
  EXPECT_TRUE(has(replay.output, "ended by exit()")) << replay.output;
  EXPECT_EQ(token_in(replay.output), token) << replay.output;
}

// A crash on a fiber, in process: after the token, the report shows the crashing fiber's stack,
// the subject's frames first (the C library's under the abort folded into one line).
TEST(CrashStack, AFiberCrashInProcessShowsTheFibersStack) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "under a sanitizer its own report shows the stack";
#endif
  const ChildRun r = run_subject("FiberDoubleFree");
  EXPECT_TRUE(has(r.output, "error: the candidate (or the spec) crashed with an abort (SIGABRT)")) << r.output;
  EXPECT_FALSE(token_in(r.output).empty()) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("The crashing fiber's stack, innermost call first:\n"
                                                     "    #0-#[0-9]+  in the system's libraries: [^\n]*abort[^\n]*\n"
                                                     "(    #[0-9]+  [^\n]*operator delete[^\n]*\n)?"
                                                     "    #[0-9]+  fiber_crashes::Slot::discard\\(int\\*\\)")))
      << r.output;
  EXPECT_TRUE(has(r.output, "fiber_crashes::Slot::release()")) << r.output;
  EXPECT_TRUE(has(r.output, "duet's fiber runtime, which started the fiber: not shown")) << r.output;
}

// Settings and replay files reach a test binary from outside (issue 26): a near miss of a flag
// ends the binary before any test (duet::gtest_main), a near miss of a variable and a replay
// file that never ends are errors of the check, never a hang, a run with a random seed, or a
// process that grows without bound. The subject would end the process if its check ran.
TEST(OutsideInput, NearMissesAndEndlessReplayFilesAreErrors) {
  ChildRun r =
      duet_test::run_child(std::string(DUET_HOSTILE_BIN) + " --gtest_filter=Hostile.SequentialCandidateExits --duet-seed=3");
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(has(r.output, "duet: unknown flag --duet-seed: did you mean --duet_seed?")) << r.output;
  r = run_subject("SequentialCandidateExits", "DUET_SED=3");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "DUET_SED is not a duet setting: did you mean DUET_SEED?")) << r.output;
  r = run_subject("SequentialCandidateExits", "DUET_REPLAY_FILE=/dev/zero");
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "/dev/zero (a character device) holds more than 16 MiB")) << r.output;
}

TEST(ExitGuard, SequentialCandidateCallingExitFails) {
  expect_exit_reported("SequentialCandidateExits", "hostile::CounterSpec");
}

TEST(ExitGuard, SequentialCandidateCallingQuickExitFails) {
  expect_exit_reported("SequentialCandidateQuickExits", "hostile::CounterSpec");
}

TEST(ExitGuard, ModelCallingExitFails) {
  const ChildRun r = run_subject("ModelExits");
  EXPECT_EQ(r.status, 4) << r.output;
  EXPECT_TRUE(has(r.output, "ended by exit()")) << r.output;
  EXPECT_FALSE(token_in(r.output).empty()) << r.output;
}

TEST(ExitGuard, ApiCandidateCallingExitFails) { expect_exit_reported("ApiCandidateExits", "Box"); }

// Without duet's guard the same binary passes: the guard is what makes these tests fail.
TEST(ExitGuard, NoCaseRunningMeansNoGuard) {
  const ChildRun r = run_subject("DoesNotExist");
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST(OutOfMemory, IsAFailureWithAShrunkReport) {
  const ChildRun r = run_subject("CandidateRunsOutOfMemory");
  EXPECT_EQ(r.status, 1) << r.output;  // GoogleTest's failure, not an escaped exception
  EXPECT_FALSE(has(r.output, "thrown in the test body")) << r.output;
  EXPECT_TRUE(has(r.output, "out of memory: std::bad_alloc")) << r.output;
  EXPECT_TRUE(has(r.output, "shrunk to 2 steps")) << r.output;  // the third ran out of memory
  EXPECT_TRUE(has(r.output, "  then: out of memory")) << r.output;
  EXPECT_FALSE(token_in(r.output).empty()) << r.output;
}

// A candidate that forks during a check: a child that returns into the check is ended there, with
// one line on stderr (the subject checks its status, 5), so the test runs once; a child that execs
// or calls _exit is left alone. In a process group of its own: a child that went on is killed.
constexpr const char* kChildEndedLine = "duet: the candidate called fork() during a check and its child process";

std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + part.size())) ++n;
  return n;
}

ChildRun run_forking_subject(const std::string& test) {
  return duet_test::run_child_group(std::string(DUET_HOSTILE_BIN) + " --gtest_filter=Hostile." + test, 60);
}

TEST(CandidateFork, ChildReturningIntoTheCheckIsEnded) {
  const ChildRun r = run_forking_subject("SequentialCandidateForks");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(count_of(r.output, "[  PASSED  ] 1 test"), 1u) << r.output;
  EXPECT_EQ(count_of(r.output, kChildEndedLine), 1u) << r.output;
}

TEST(CandidateFork, ChildThatExecsOrExitsIsLeftAlone) {
  for (const char* test : {"SequentialCandidateForksAndExecs", "SequentialCandidateForksAndExits"}) {
    const ChildRun r = run_forking_subject(test);
    EXPECT_EQ(r.status, 0) << test << "\n" << r.output;
    EXPECT_EQ(count_of(r.output, "[  PASSED  ] 1 test"), 1u) << test << "\n" << r.output;
    EXPECT_EQ(count_of(r.output, kChildEndedLine), 0u) << test << "\n" << r.output;
  }
}

// A check run by a static initialiser, before main and before the library's own statics are
// made, runs as any other (the crash guard's state is made at its first use).
TEST(CheckBeforeMain, RunsAndPasses) {
  const ChildRun r = run_subject("DoesNotExist", "HOSTILE_CHECK_BEFORE_MAIN=1");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "check before main: passed, 20 cases")) << r.output;
}

}  // namespace
