// A branch running on one of duet's worker threads ends the process with exit(0): the test
// fails with a replay token. See hostile_test.cpp.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <string>

namespace {

TEST(ExitGuard, ParallelBranchCallingExitFails) {
  const std::string command = std::string(DUET_HOSTILE_BIN) + " --gtest_filter=Hostile.ParallelBranchExits 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) output.append(buf, n);
  const int raw = pclose(pipe);
  ASSERT_TRUE(WIFEXITED(raw)) << output;
  EXPECT_EQ(WEXITSTATUS(raw), 4) << output;
  EXPECT_NE(output.find("duet: ExitingCounter: error: the process was ended by exit()"), std::string::npos) << output;
  EXPECT_NE(output.find("DUET_REPLAY=duet1."), std::string::npos) << output;
  EXPECT_EQ(output.find("[  PASSED  ]"), std::string::npos) << output;
}

}  // namespace
