// Draft reproducer written by duet for crashing::NullStackSpec.
// the process died of a segmentation fault (SIGSEGV) while running the case
// Replay the case that produced it: DUET_REPLAY=duet1.9MPw6gsBARBkCgALAQAAAQAAAAEBAQEyFZAm
// Add the #include lines for your types, then move the TEST into your suite.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

TEST(crashing_NullStackSpec, DuetRepro) {
  crashing::NullStack s;
  s.push(0);
  s.push(0);
  s.pop();
  // duet: the process died here: a segmentation fault (SIGSEGV).
  EXPECT_EXIT(
      {
        alarm(10);  // a hang ends the child (SIGALRM)
        s.pop();
        std::_Exit(42);  // the call returned
      },
      ::testing::ExitedWithCode(42), "")
      << "duet saw this call end the process: a segmentation fault (SIGSEGV)";
}
