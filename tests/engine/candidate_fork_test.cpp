// A child of fork() made while a check runs, by anyone but duet, is the candidate's
// (src/engine/monitor.cpp): where it comes back to duet, it ends with status 5 after one line on
// stderr. A fork with no check running, or duet's own (isolation's), is left alone.
#include "engine/candidate_fork.hpp"
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace duet::detail;

// A child that comes straight back to duet: its exit status (0: it went on).
int status_of_a_child_coming_back() {
  const pid_t child = ::fork();
  if (child == 0) {
    leave_if_candidates_child();
    ::_exit(0);
  }
  int status = 0;
  if (child < 0 || ::waitpid(child, &status, 0) != child || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

TEST(CandidateFork, OnlyAForkDuringACheckByTheCandidateIsEnded) {
  EXPECT_EQ(status_of_a_child_coming_back(), 0);  // no check running
  {
    const CheckRunning check;
    EXPECT_EQ(status_of_a_child_coming_back(), kCandidateChildReturned);
    {
      const CheckRunning inner;  // a check inside a check
      EXPECT_EQ(status_of_a_child_coming_back(), kCandidateChildReturned);
    }
    EXPECT_EQ(status_of_a_child_coming_back(), kCandidateChildReturned);
    const OwnFork own;
    EXPECT_EQ(status_of_a_child_coming_back(), 0);
  }
  EXPECT_EQ(status_of_a_child_coming_back(), 0);
  EXPECT_FALSE(in_candidates_child);  // the parent is never marked
}

}  // namespace
