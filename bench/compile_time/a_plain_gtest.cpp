// Case (a), the baseline: a plain GoogleTest test, no duet.
#include <gtest/gtest.h>

#include <vector>

TEST(Plain, VectorPushBack) {
  std::vector<int> v;
  for (int i = 0; i < 4; ++i) v.push_back(i * i);
  EXPECT_EQ(v, (std::vector<int>{0, 1, 4, 9}));
}
