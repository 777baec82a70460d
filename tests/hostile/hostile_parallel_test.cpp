// A branch running on one of duet's worker threads ends the process with exit(0): the test
// fails with a replay token. See hostile_test.cpp.
#include <gtest/gtest.h>

#include <string>

#include "child_process.hpp"

namespace {

TEST(ExitGuard, ParallelBranchCallingExitFails) {
  const duet_test::ChildRun r = duet_test::run_child(std::string(DUET_HOSTILE_BIN) + " --gtest_filter=Hostile.ParallelBranchExits");
  const std::string& output = r.output;
  EXPECT_EQ(r.status, 4) << output;
  EXPECT_NE(output.find("duet: ExitingCounter: error: the process was ended by exit()"), std::string::npos) << output;
  EXPECT_NE(output.find("DUET_REPLAY=duet1."), std::string::npos) << output;
  EXPECT_EQ(output.find("[  PASSED  ]"), std::string::npos) << output;
}

}  // namespace
