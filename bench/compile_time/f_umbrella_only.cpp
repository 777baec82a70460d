// Case (f): the cost of the umbrella header alone: <duet/duet.hpp> plus GoogleTest, an empty test.
#include <gtest/gtest.h>

#include <duet/duet.hpp>

TEST(Umbrella, Empty) {}
