// Draft reproducer written by duet for CappedStack.
// s.push(1): the invariant fails
// Replay the case that produced it: DUET_REPLAY=duet1.ud_juQ0BAQ5kCgAMAQAAAAEAAAABAAAAZ0FVkA
// Add the #include lines for your types, then move the TEST into your suite.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

// duet's check, as a function: define it with the check you gave duet.
bool duet_invariant(const draft_subjects::CappedStack& s);

TEST(CappedStack, DuetRepro) {
  draft_subjects::CappedStack s;
  s.push(1);
  s.push(1);
  s.push(1);
  EXPECT_TRUE(duet_invariant(s)) << "the invariant fails";
}
