// Draft reproducer written by duet for FlakyCounter.
// candidate returned 4; the model allows 3
// Replay the case that produced it: DUET_REPLAY=duet1.jpnMxQoBAQBkCgAOAgEGAQUBBAAIAAMABwF68Dlv
// Add the #include lines for your types, then move the TEST into your suite.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

TEST(FlakyCounter, DuetRepro) {
  flaky::FlakyCounter c;
  EXPECT_EQ(c.get(), 0);
  EXPECT_EQ(c.get(), 0);
  EXPECT_EQ(c.get(), 0);
  c.incr();
  c.incr();
  c.incr();
  EXPECT_EQ(c.get(), 3);  // candidate returned 4; the model allows 3
}
