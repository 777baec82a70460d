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
  EXPECT_EQ(out.stop, duet::detail::ShrinkStop::fixed_point);
}

TEST(Shrink, RespectsTheBudget) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  duet::detail::ShrinkBudget b;
  b.max_tries = 5;
  const auto out = shrink(start, sum_property(start).spans, sum_property, b);
  EXPECT_LE(out.tried, 5u);
  EXPECT_EQ(out.stop, duet::detail::ShrinkStop::step_budget);
  EXPECT_TRUE(sum_property(out.choices).fails);
}

TEST(Shrink, SaysWhenTheTimeBudgetStoppedIt) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  duet::detail::ShrinkBudget b;
  b.max_time = std::chrono::steady_clock::duration::zero();
  const auto out = shrink(start, sum_property(start).spans, sum_property, b);
  EXPECT_EQ(out.tried, 0u);
  EXPECT_EQ(out.stop, duet::detail::ShrinkStop::time_budget);
  EXPECT_EQ(out.choices, start);
}

TEST(Shrink, ShortlexOrder) {
  using duet::detail::shortlex_less;
  EXPECT_TRUE(shortlex_less({9}, {0, 0}));
  EXPECT_TRUE(shortlex_less({0, 1}, {1, 0}));
  EXPECT_FALSE(shortlex_less({1, 0}, {1, 0}));
}

}  // namespace

namespace {

// A case of two lists of calls, marked as a sequential part and a concurrent part: fails when
// there are two calls in all. The shrinker prefers the calls in the sequential part.
Replayed two_calls(const std::vector<std::uint64_t>& c) {
  auto s = duet::Source::replay(c);
  auto list = [&](std::size_t& stop) {
    std::size_t n = 0;
    stop = duet::Source::kNoMark;
    for (; n < 4; ++n) {
      const auto span = s.begin_span();
      stop = s.position();
      if (s.draw(3) == 0) break;
      stop = duet::Source::kNoMark;
      s.draw(9);  // the call's argument
      s.end_span(span);
    }
    return n;
  };
  std::size_t stop;
  const std::size_t prefix = list(stop);
  if (stop != duet::Source::kNoMark) s.mark_concurrent_start(stop);
  const std::size_t branch = list(stop);
  return {prefix + branch >= 2, s.choices(), s.spans(), s.concurrent_start()};
}

TEST(Shrink, MovesCallsIntoTheSequentialPart) {
  // No prefix; a branch of three calls.
  const std::vector<std::uint64_t> start{0, 2, 5, 3, 7, 1, 4, 0};
  const Replayed first = two_calls(start);
  ASSERT_TRUE(first.fails);
  const auto out = duet::detail::shrink(start, first.spans, two_calls, {}, first.concurrent_start);
  // Two calls, both in the prefix: prefix {1, 0}, {1, 0}, stop 0; branch stop 0.
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 0, 1, 0, 0, 0}));
}

}  // namespace
