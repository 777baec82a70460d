// Draft reproducer written by duet for BuggyRingBuffer.
// candidate returned 0; the model allows 1
// Replay the case that produced it: DUET_REPLAY=duet1.9tOP7QcBBC1kCgAYAQAAAAEAAAABAAAAAQEBAAABAQEBAQEBqEB9uQ
// Add the #include lines for your types, then move the TEST into your suite.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

TEST(BuggyRingBuffer, DuetRepro) {
  ring::RingBuffer<true> q(3);
  EXPECT_EQ(q.push(0), true);
  EXPECT_EQ(q.push(0), true);
  EXPECT_EQ(q.push(0), true);
  EXPECT_EQ(q.pop(), 0);
  EXPECT_EQ(q.push(1), true);
  EXPECT_EQ(q.pop(), 0);
  EXPECT_EQ(q.pop(), 0);
  EXPECT_EQ(q.pop(), 1);  // candidate returned 0; the model allows 1
}
