// Draft reproducer written by duet for BadBounds.
// candidate threw std::out_of_range("BadBoundsArray::at"); the model allows 0
// Replay the case that produced it: DUET_REPLAY=duet1._arbvgEDAQhkCgAHAQAAAQEAAC6sXr4
// Add the #include lines for your types, then move the TEST into your suite.
#include <gtest/gtest.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

TEST(BadBounds, DuetRepro) {
  duet_test::BadBoundsArray a;
  a.push_back(0);
  EXPECT_EQ(a.at(0), 0);  // candidate threw std::out_of_range("BadBoundsArray::at"); the model allows 0
}
