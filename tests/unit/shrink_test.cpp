#include "shrink/shrink.hpp"
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <thread>

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

// The budget's clock is a coarse one (a tick behind at most): a budget smaller than the
// shrink still stops it, within a tick of its end.
TEST(Shrink, StopsSoonAfterTheTimeBudget) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  const auto slow = [](const std::vector<std::uint64_t>& c) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return sum_property(c);
  };
  const auto unbounded = shrink(start, sum_property(start).spans, sum_property, {});
  duet::detail::ShrinkBudget b;
  b.max_time = std::chrono::milliseconds(20);
  const auto began = std::chrono::steady_clock::now();
  const auto out = shrink(start, sum_property(start).spans, slow, b);
  EXPECT_EQ(out.stop, duet::detail::ShrinkStop::time_budget);
  EXPECT_LT(out.tried, unbounded.tried);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(2));
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

// Local minima of the one-choice-at-a-time passes (issue 8, item 5).
namespace {

using duet::detail::ShrinkStop;

// Commands of one key each (0..63) until a 0; fails when two keys are equal, nonzero and a
// multiple of 8 (keys that collide with key 0's slot). Lowering one copy alone passes, and
// so does every value between 8 and 24 but 16: only both copies lowered together, and not by
// a binary search, reach the minimum {1, 8, 1, 8, 0}.
Replayed equal_keys(const std::vector<std::uint64_t>& c) {
  auto s = duet::Source::replay(c);
  std::vector<std::uint64_t> keys;
  for (;;) {
    const auto b = s.begin_span();
    if (s.draw(1) == 0) break;
    keys.push_back(s.draw(63));
    s.end_span(b);
  }
  bool fails = false;
  for (std::size_t i = 0; i < keys.size(); ++i)
    for (std::size_t j = i + 1; j < keys.size(); ++j) fails |= keys[i] == keys[j] && keys[i] != 0 && keys[i] % 8 == 0;
  return {fails, s.choices(), s.spans()};
}

TEST(Shrink, LowersEqualValuesTogether) {
  const std::vector<std::uint64_t> start{1, 24, 1, 5, 1, 24, 0};
  ASSERT_TRUE(equal_keys(start).fails);
  const auto out = shrink(start, equal_keys(start).spans, equal_keys, {});
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 8, 1, 8, 0}));
  EXPECT_EQ(out.stop, ShrinkStop::fixed_point);
}

// One integer drawn as integers() draws it: a mode (0: small, 1: anywhere, 2: an edge), then
// the value read that way. Fails when the integer is at least 40. From the edge 63 ({2, 1}),
// lowering the mode alone re-reads 1 as a small value or as 1: only the mode lowered with the
// next choice re-aimed reaches {1, 40}.
Replayed large_integer(const std::vector<std::uint64_t>& c) {
  auto s = duet::Source::replay(c);
  const auto b = s.begin_span();
  const std::uint64_t mode = s.draw(2);
  const std::uint64_t x = mode == 0 ? s.draw(7) : mode == 1 ? s.draw(63) : (s.draw(1) == 0 ? 0 : 63);
  s.end_span(b);
  return {x >= 40, s.choices(), s.spans()};
}

TEST(Shrink, ReaimsTheChoiceAValueIsReadThrough) {
  const std::vector<std::uint64_t> start{2, 1};
  ASSERT_TRUE(large_integer(start).fails);
  const auto out = shrink(start, large_integer(start).spans, large_integer, {});
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 40}));
}

// A stack whose menu depends on it: empty, only push (the choice of command is draw(0));
// otherwise pop (0) or push (1). Each push draws a value. Fails with two pushes of at least 5
// each. From push(5) pop push(5), deleting the pop turns the last command's choice 0 into a
// pop: the deletion keeps failing only with that choice raised to 1.
Replayed menu_stack(const std::vector<std::uint64_t>& c) {
  auto s = duet::Source::replay(c);
  std::size_t depth = 0, big_pushes = 0;
  for (;;) {
    const auto b = s.begin_span();
    if (s.draw(1) == 0) break;
    const bool push = s.draw(depth == 0 ? 0 : 1) == (depth == 0 ? 0 : 1);
    if (push) {
      ++depth;
      big_pushes += s.draw(9) >= 5;
    } else {
      --depth;
    }
    s.end_span(b);
  }
  return {big_pushes >= 2, s.choices(), s.spans()};
}

TEST(Shrink, DeletesACommandAndRaisesTheChoiceItReaimed) {
  const std::vector<std::uint64_t> start{1, 0, 5, 1, 0, 1, 0, 5, 0};
  ASSERT_TRUE(menu_stack(start).fails);
  const auto out = shrink(start, menu_stack(start).spans, menu_stack, {});
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 0, 5, 1, 1, 5, 0}));
}

// Every budget cut short is reported as such, never as a fixed point, and the case kept still
// fails: the new passes count their replays like the others.
TEST(Shrink, EveryStepBudgetIsRespected) {
  const std::vector<std::uint64_t> start{1, 24, 1, 5, 1, 24, 1, 9, 0};
  const auto full = shrink(start, equal_keys(start).spans, equal_keys, {});
  ASSERT_EQ(full.stop, ShrinkStop::fixed_point);
  for (std::uint64_t tries = 1; tries < full.tried; ++tries) {
    duet::detail::ShrinkBudget b;
    b.max_tries = tries;
    const auto out = shrink(start, equal_keys(start).spans, equal_keys, b);
    ASSERT_EQ(out.tried, tries);
    ASSERT_EQ(out.stop, ShrinkStop::step_budget) << tries;
    ASSERT_TRUE(equal_keys(out.choices).fails);
  }
}

// A candidate met again is judged from memory, not replayed: each is replayed once, counted
// as tried each time it is met, and the case reached is the same. Programs run in trials
// (threads, where a replay may fail where it passed before) are replayed every time.
TEST(Shrink, ReplaysEachCandidateOnceUnlessItRunsTrials) {
  const std::vector<std::uint64_t> start{15, 3, 50, 7, 99, 0, 12, 8, 1, 40, 2, 3, 4, 5, 6, 7};
  // Keyed element by element: GCC 12's std::less of vectors of unsigned integers compares too few
  // bytes on big-endian targets (docs/multiarch.md), which merged candidates on s390x.
  std::map<std::vector<std::uint64_t>, int, duet::detail::ChoicesLess> replays;
  std::uint64_t trials = 0;
  const duet::detail::Replay counted = [&](const std::vector<std::uint64_t>& c) {
    ++replays[c];
    Replayed r = sum_property(c);
    r.trials = trials;
    return r;
  };
  const auto out = shrink(start, sum_property(start).spans, counted, {});
  EXPECT_EQ(out.choices, (std::vector<std::uint64_t>{1, 10}));
  std::uint64_t replayed = 0;
  for (const auto& [candidate, count] : replays) {
    EXPECT_EQ(count, 1);
    replayed += static_cast<std::uint64_t>(count);
  }
  EXPECT_LT(replayed, out.tried);  // some were met again
  replays.clear();
  trials = 1;
  const auto in_trials = shrink(start, sum_property(start).spans, counted, {});
  EXPECT_EQ(in_trials.choices, out.choices);
  EXPECT_EQ(in_trials.tried, out.tried);
  std::uint64_t replayed_in_trials = 0;
  for (const auto& [candidate, count] : replays) replayed_in_trials += static_cast<std::uint64_t>(count);
  EXPECT_EQ(replayed_in_trials, in_trials.tried);
}

}  // namespace
