#include <duet/detail/shrink.hpp>
#include <gtest/gtest.h>

#include <numeric>

namespace {

using duet::detail::Replayed;
using duet::detail::shrink;

// A property over raw choices: fails when the sum of the first values reaches 10.
Replayed sum_property(const std::vector<std::uint64_t>& c) {
  auto s = duet::Source::replay(c);
  std::uint64_t sum = 0;
  const std::size_t n = s.draw(20);
  for (std::size_t i = 0; i < n; ++i) {
    const auto b = s.begin_span();
    sum += s.draw(100);
    s.end_span(b);
  }
  return {sum >= 10, s.choices(), s.spans()};
}

TEST(Shrink, ReachesTheShortlexMinimum) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  ASSERT_TRUE(sum_property(start).fails);
  const auto out = shrink(start, sum_property(start).spans, sum_property, {});
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 10}));
  EXPECT_GT(out.accepted, 0u);
  EXPECT_FALSE(out.budget_exhausted);
}

TEST(Shrink, RespectsTheBudget) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  duet::detail::ShrinkBudget b;
  b.max_tries = 5;
  const auto out = shrink(start, sum_property(start).spans, sum_property, b);
  EXPECT_LE(out.tried, 5u);
  EXPECT_TRUE(out.budget_exhausted);
  EXPECT_TRUE(sum_property(out.choices).fails);
}

TEST(Shrink, ShortlexOrder) {
  using duet::detail::shortlex_less;
  EXPECT_TRUE(shortlex_less({9}, {0, 0}));
  EXPECT_TRUE(shortlex_less({0, 1}, {1, 0}));
  EXPECT_FALSE(shortlex_less({1, 0}, {1, 0}));
}

}  // namespace
