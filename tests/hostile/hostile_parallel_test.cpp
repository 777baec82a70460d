// Parallel checks on threads whose candidate takes the process down: a branch calling exit(0),
// a lock that spins forever, a deque that segfaults when misused. Each runs hostile_subjects.cpp
// in a child process, under a hard time limit (`timeout`): a check that hung or ended the test
// process used to be the symptom.
#include <gtest/gtest.h>

#include <string>

#include "child_process.hpp"
#include "support/emulation.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Under ThreadSanitizer checks on threads run in process (a child starting threads after a
// fork is ended by it), and the tsan preset leaves isolation out.
#if defined(__SANITIZE_THREAD__)
#define DUET_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DUET_TSAN 1
#endif
#endif
#ifdef DUET_TSAN
#define SKIP_UNDER_TSAN() GTEST_SKIP() << "isolation is off under ThreadSanitizer"
#else
#define SKIP_UNDER_TSAN() (void)0
#endif

// The subject test, killed after `limit` seconds (status 137 then). `env`: variables for it.
// `limit`: seconds before the child is killed, times DUET_TEST_TIME_SCALE (under make multiarch
// duet's own limits in the child are multiplied by DUET_TIME_SCALE too).
duet_test::ChildRun run_subject(const std::string& test, int limit, const std::string& env = "") {
  const int seconds = static_cast<int>(limit * duet_test::time_scale());
  return duet_test::run_child(env + " timeout -s KILL " + std::to_string(seconds) + " " + DUET_HOSTILE_BIN +
                              " --gtest_filter=Hostile." + test);
}

// In process (DUET_FORK=0), the exit guard still stops a branch's exit(0) from passing.
TEST(ExitGuard, ParallelBranchCallingExitFails) {
  const duet_test::ChildRun r = run_subject("ParallelBranchExits", 60, "DUET_FORK=0");
  const std::string& output = r.output;
  EXPECT_EQ(r.status, 4) << output;
  EXPECT_NE(output.find("duet: ExitingCounter: error: the process was ended by exit()"), std::string::npos) << output;
  EXPECT_NE(output.find("DUET_REPLAY=duet1."), std::string::npos) << output;
  EXPECT_EQ(output.find("[  PASSED  ]"), std::string::npos) << output;
}

// By default a check on threads runs in a child process: the same exit(0) is a shrunk failure.
TEST(ThreadsIsolatedByDefault, BranchCallingExitIsAShrunkFailure) {
  SKIP_UNDER_TSAN();
  const duet_test::ChildRun r = run_subject("ParallelBranchExits", 60, "DUET_CASE_TIMEOUT=1");
  EXPECT_EQ(r.status, 1) << r.output;  // the test failed, with a report: not the exit guard's 4
  EXPECT_TRUE(has(r.output, "a call of exit(0)")) << r.output;
  EXPECT_TRUE(has(r.output, "in a trial of this program")) << r.output;
  // The replay is isolated by default too: the replay line needs no DUET_FORK=1.
  EXPECT_TRUE(has(r.output, "\n  replay:     DUET_REPLAY=duet1.")) << r.output;
}

// A ticket lock whose grab is a load and a store spins forever: at the default settings, a
// shrunk report of the program that hangs, not the watchdog ending the process with status 3
// after 60 s. The time limits are shortened to keep the test short (at the defaults it shrinks
// to the 2 calls `c.incr() | c.incr()` in about 20 s).
TEST(ThreadsIsolatedByDefault, SpinningLockIsAShrunkHang) {
  SKIP_UNDER_TSAN();
  // The search stops at the hang, within a second on an idle machine; on a loaded one (a busy
  // loop on each core) a spinning grab slows the trials to a few hundred a second, and one in ten
  // default 1 s searches met no hang. Emulated, it runs 10 to 40 times fewer programs again.
  const double scale = duet_test::time_scale();
  const std::string search = " DUET_TIME=" + std::to_string(10 * scale);
  const duet_test::ChildRun r =
      run_subject("TicketLockSpinsForever", 50, "DUET_CASE_TIMEOUT=0.25 DUET_SHRINK_TIME=3" + search);
  EXPECT_EQ(r.status, 1) << r.output;
  // (Under make multiarch, "hang after 250 ms × 10 (DUET_TIME_SCALE): the case ...".)
  EXPECT_TRUE(has(r.output, "hang after 250 ms")) << r.output;
  EXPECT_TRUE(has(r.output, ": the case was still running at the time limit")) << r.output;
  EXPECT_TRUE(has(r.output, "in a trial of this program")) << r.output;
  EXPECT_TRUE(has(r.output, "calls in ")) << r.output;  // "shrunk to N calls in K shrink steps"
  EXPECT_TRUE(has(r.output, "c.incr()")) << r.output;
  EXPECT_TRUE(has(r.output, "DUET_REPLAY=duet1.")) << r.output;
  EXPECT_FALSE(has(r.output, "a case has run for more than")) << r.output;  // the in-process watchdog's words
}

// A negative test whose subject segfaults when the race shows: the crash is the counterexample
// (a pass), shrunk to the two pops, instead of the test process dying.
TEST(ThreadsIsolatedByDefault, NegativeTestPassesOnTheCrashThatProvesIt) {
  SKIP_UNDER_TSAN();
  const duet_test::ChildRun r = run_subject("TwoOwnerDequeCrashes", 50, "DUET_SHRINK_TIME=5");
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(has(r.output, "[  PASSED  ] 1 test")) << r.output;
  EXPECT_TRUE(has(r.output, "unsafe, as expected")) << r.output;
  EXPECT_TRUE(has(r.output, "d.pop()  | d.pop()")) << r.output;
  // The death in the words of whoever saw it: the kernel, ASan, or UBSan (the asan preset's
  // UBSan stops at the null load before it faults).
  EXPECT_TRUE(has(r.output, "segmentation fault (SIGSEGV)") || has(r.output, "AddressSanitizer") ||
              has(r.output, "runtime error: load of null pointer"))
      << r.output;
}

// Isolated, a candidate that closes every descriptor (its socket to the parent included) and
// then blocks is still a hang at the time limit: the parent's wait does not end with a read.
TEST(IsolationHang, ClosingEveryDescriptorThenBlockingIsAShrunkHang) {
  SKIP_UNDER_TSAN();
  const duet_test::ChildRun r = run_subject("ClosingServiceBlocks", 30);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(has(r.output, "service.start();  // <-- still running here: hang after 200 ms")) << r.output;
  EXPECT_TRUE(has(r.output, "shrunk to 2 steps")) << r.output;
}

// A branch call that forks: the child comes back at the call's response and is ended there, on
// threads (isolated by default, and in process) and on fibers; the test runs once. The subject
// waits for its child: a child that went on would hold it until the time limit.
void expect_child_ended(const std::string& test, const std::string& env) {
  const duet_test::ChildRun r =
      duet_test::run_child_group(env + " " + DUET_HOSTILE_BIN + " --gtest_filter=Hostile." + test, 60);
  const std::string where = test + " " + env + "\n" + r.output;
  EXPECT_EQ(r.status, 0) << where;
  EXPECT_TRUE(has(r.output, "[  PASSED  ] 1 test")) << where;
  EXPECT_EQ(r.output.find("[  PASSED  ]"), r.output.rfind("[  PASSED  ]")) << where;  // once
  EXPECT_TRUE(has(r.output, "duet: the candidate called fork() during a check and its child process")) << where;
}

TEST(CandidateFork, ChildOfABranchCallIsEnded) {
  expect_child_ended("ParallelBranchForks", "DUET_FORK=0");
  expect_child_ended("FiberBranchForks", "");
}

TEST(CandidateFork, ChildOfABranchCallInIsolationsChildIsEnded) {
  SKIP_UNDER_TSAN();
  expect_child_ended("ParallelBranchForks", "");
}

}  // namespace
