// The unique-value register's decision step by step (src/check/register_decision.hpp): each
// step on a small history made for it. (register_decision_test.cpp checks the whole decision
// against the search.)
#include <gtest/gtest.h>

#include "check/register_decision.hpp"
#include "decision_steps.hpp"

namespace {

using duet::detail::TimedOp;
using duet::history::detail::kNoOp;
using duet::history::detail::Mode;
using duet::history::detail::RegisterOp;
using duet_test::product;
using duet_test::times;
using duet_test::violation;
using namespace duet::history::detail::register_decision;

using Ops = std::vector<std::uint32_t>;

RegisterOp read(std::uint32_t value, Mode mode = Mode::ok) { return {RegisterOp::read, mode, value}; }
RegisterOp write(std::uint32_t value, Mode mode = Mode::ok) { return {RegisterOp::write, mode, value}; }
RegisterOp cas(std::uint32_t from, std::uint32_t to, Mode mode = Mode::ok) { return {RegisterOp::cas, mode, from, to}; }

TEST(RegisterDecisionSteps, UniqueWritersNameEachValuesOneWriterOrRefuse) {
  const std::vector<RegisterOp> ops{write(1), cas(1, 2), cas(5, 6, Mode::fail), write(7, Mode::fail), read(2)};
  const auto timed = times({{0, 1}, {2, 3}, {4, 5}, {6, 7}, {8, 9}});
  const std::optional<Writers> writers = unique_writers({ops, timed, 0});
  ASSERT_TRUE(writers.has_value());
  EXPECT_EQ(*writers, (Writers{{1, 0}, {2, 1}}));  // failed operations write nothing

  const std::vector<RegisterOp> twice{write(1), write(1)};
  EXPECT_FALSE(unique_writers({twice, times({{0, 1}, {2, 3}}), 0}).has_value());
  const std::vector<RegisterOp> initial{write(4)};
  EXPECT_FALSE(unique_writers({initial, times({{0, 1}}), 4}).has_value());  // the initial value again
  const std::vector<RegisterOp> unknown{cas(0, 1, Mode::unknown_result)};
  EXPECT_FALSE(unique_writers({unknown, times({{0, 1}}), 0}).has_value());
}

TEST(RegisterDecisionSteps, PendingWritersTakePartOnlyWhenTheirValueIsObserved) {
  // 0 pending write 1, read by 3; 1 pending cas 1 -> 2, read by 4 (so 0 is needed by it too);
  // 2 pending write 9, never read.
  const std::vector<RegisterOp> ops{write(1, Mode::pending), cas(1, 2, Mode::pending), write(9, Mode::pending), read(1),
                                    read(2)};
  const auto timed = times({{0, TimedOp::kPending}, {1, TimedOp::kPending}, {2, TimedOp::kPending}, {3, 4}, {5, 6}});
  const RegisterHistory history{ops, timed, 0};
  const KeptWriters kept = kept_writers(history, *unique_writers(history));
  EXPECT_EQ(kept.kept, (std::vector<char>{1, 1, 0, 0, 0}));
  EXPECT_EQ(kept.kept_for[0], 3u);  // the first to observe 1
  EXPECT_EQ(kept.kept_for[1], 4u);
  EXPECT_EQ(kept.kept_for[2], kNoOp);
}

TEST(RegisterDecisionSteps, SegmentsHoldEachValuesWriterReadersAndCasLinks) {
  const std::vector<RegisterOp> ops{write(1), read(1), cas(1, 2), read(2)};
  const auto timed = times({{0, 2}, {3, 4}, {5, 6}, {7, 8}});
  const RegisterHistory history{ops, timed, 0};
  const KeptWriters kept = kept_writers(history, *unique_writers(history));
  const Segments segments = product(build_segments(history, kept));
  ASSERT_EQ(segments.list.size(), 3u);  // the initial value's, then 1's and 2's
  EXPECT_EQ(segments.list[0].writer, kNoOp);
  EXPECT_EQ(segments.list[1].writer, 0u);
  EXPECT_EQ(segments.list[1].readers, (Ops{1}));
  EXPECT_EQ(segments.list[1].next, 2u);  // the cas chains 1 to 2
  EXPECT_EQ(segments.list[2].prev, 1u);
  EXPECT_EQ(segments.list[2].readers, (Ops{3}));
  EXPECT_EQ(segments.list[1].lo_op, 0u);  // earliest response: the write's
  EXPECT_EQ(segments.list[1].hi_op, 1u);  // latest invocation: the read (the cas is 2's writer)
  EXPECT_EQ(segments.list[2].lo_op, 2u);
}

TEST(RegisterDecisionSteps, SegmentsStopAtImpossibleObservations) {
  const std::vector<RegisterOp> nobody{read(5)};
  const auto one = times({{0, 1}});
  const RegisterHistory h1{nobody, one, 0};
  EXPECT_EQ(violation(build_segments(h1, kept_writers(h1, *unique_writers(h1)))), (Ops{0}));

  const std::vector<RegisterOp> early{read(1), write(1)};  // read returned before the write began
  const auto t2 = times({{0, 1}, {2, 3}});
  const RegisterHistory h2{early, t2, 0};
  EXPECT_EQ(violation(build_segments(h2, kept_writers(h2, *unique_writers(h2)))), (Ops{1, 0}));

  const std::vector<RegisterOp> forked{cas(0, 1), cas(0, 2)};  // two cas from one value
  const auto t3 = times({{0, 1}, {2, 3}});
  const RegisterHistory h3{forked, t3, 0};
  EXPECT_EQ(violation(build_segments(h3, kept_writers(h3, *unique_writers(h3)))), (Ops{0, 1, 1}));
}

TEST(RegisterDecisionSteps, ChainsBecomeBlocksUnlessTheyRunAgainstRealTime) {
  const std::vector<RegisterOp> ops{cas(0, 1), cas(1, 2), write(3)};
  const auto timed = times({{0, 1}, {2, 3}, {10, 11}});
  const RegisterHistory history{ops, timed, 0};
  const Segments segments = product(build_segments(history, kept_writers(history, *unique_writers(history))));
  const std::vector<Block> blocks = product(chain_blocks(segments.list));
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].segments, (Ops{0, 1, 2}));  // 0 -> 1 -> 2
  EXPECT_EQ(blocks[1].segments, (Ops{3}));

  // The cas from 1 to 2 returned before the write of 1 began.
  const std::vector<RegisterOp> against{write(1), cas(1, 2), read(2)};
  const auto t2 = times({{5, 6}, {0, 7}, {1, 2}});
  const RegisterHistory h2{against, t2, 0};
  const Segments s2 = product(build_segments(h2, kept_writers(h2, *unique_writers(h2))));
  const std::optional<Ops> w = violation(chain_blocks(s2.list));
  ASSERT_TRUE(w.has_value());
  EXPECT_NE(std::find(w->begin(), w->end(), 2u), w->end());  // the read of 2, returned early
  EXPECT_NE(std::find(w->begin(), w->end(), 0u), w->end());  // the write of 1, begun late
}

TEST(RegisterDecisionSteps, BlocksGoInOrderOfRealTimeOrStopWhenEachMustComeFirst) {
  const std::vector<RegisterOp> ops{write(2), write(1)};
  const auto timed = times({{5, 6}, {0, 1}});
  const RegisterHistory history{ops, timed, 0};
  const Segments segments = product(build_segments(history, kept_writers(history, *unique_writers(history))));
  const std::vector<Block> blocks = product(chain_blocks(segments.list));
  const std::vector<std::uint32_t> order = product(order_blocks(blocks, segments.list));
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(blocks[order[0]].segments, (Ops{0}));  // the initial value first
  EXPECT_EQ(segments.list[blocks[order[1]].segments[0]].value, 1u);
  EXPECT_EQ(segments.list[blocks[order[2]].segments[0]].value, 2u);
  const ValueOrder values = block_order(history, blocks, order, segments.list);
  EXPECT_EQ(values.ops, (Ops{1, 0}));
  EXPECT_EQ(values.value_after, (Ops{1, 2}));

  // 1 read after 2 was written and read, 2 read after 1 was: each must come first.
  const std::vector<RegisterOp> crossed_reads{write(1), write(2), read(1), read(2), read(1)};
  const auto t3 = times({{0, 1}, {0, 1}, {2, 3}, {4, 5}, {6, 7}});
  const RegisterHistory h3{crossed_reads, t3, 0};
  const Segments s3 = product(build_segments(h3, kept_writers(h3, *unique_writers(h3))));
  const std::vector<Block> b3 = product(chain_blocks(s3.list));
  EXPECT_TRUE(violation(order_blocks(b3, s3.list)).has_value());
  const std::vector<RegisterOp> in_turn{write(1), read(1), write(2), read(2)};  // 1 read, then 2 written and read
  const auto t2 = times({{0, 1}, {2, 3}, {2, 5}, {6, 7}});
  const RegisterHistory h2{in_turn, t2, 0};
  const Segments s2 = product(build_segments(h2, kept_writers(h2, *unique_writers(h2))));
  EXPECT_FALSE(violation(order_blocks(product(chain_blocks(s2.list)), s2.list)).has_value());
}

TEST(RegisterDecisionSteps, LeftOutOperationsGoWhereRealTimeAllowsAndFailedCasWhereTheValueDiffers) {
  // The order: write 1 [0,1], write 2 [4,5]; a failed cas expecting 1 over [0,9] goes after
  // write 2 (the register holds 1 before it), a failed write over [2,3] between the two.
  const std::vector<RegisterOp> ops{write(1), write(2), cas(1, 7, Mode::fail), write(8, Mode::fail)};
  const auto timed = times({{0, 1}, {4, 5}, {0, 9}, {2, 3}});
  const RegisterHistory history{ops, timed, 0};
  const KeptWriters kept = kept_writers(history, *unique_writers(history));
  EXPECT_EQ(left_out(history, kept), (Ops{2, 3}));  // by invocation
  const ValueOrder values{{0, 1}, {1, 2}};
  const Gaps gaps = gaps_of(history, values);
  ASSERT_EQ(gaps.size(), 3u);
  EXPECT_EQ(gaps.value_at(0), 0u);
  EXPECT_EQ(gaps.value_at(1), 1u);
  EXPECT_EQ(gaps.value_at(2), 2u);
  EXPECT_EQ(gaps.allowed(history, 3), (std::pair<std::size_t, std::size_t>{1, 2}));
  const auto placed = place_left_out(history, gaps, left_out(history, kept));
  ASSERT_TRUE(placed.has_value());
  EXPECT_EQ(*placed, (std::vector<std::pair<std::size_t, std::uint32_t>>{{0, 2}, {1, 3}}));  // 0 holds nil, not 1
  EXPECT_EQ(merge_placed(history, values.ops, *placed), (std::vector<std::size_t>{2, 0, 3, 1}));

  // A failed cas expecting the only value the register holds while it runs: no place.
  const std::vector<RegisterOp> stuck{write(1), cas(1, 7, Mode::fail)};
  const auto t2 = times({{0, 1}, {2, 3}});
  const RegisterHistory h2{stuck, t2, 0};
  const ValueOrder v2{{0}, {1}};
  EXPECT_FALSE(place_left_out(h2, gaps_of(h2, v2), left_out(h2, kept_writers(h2, *unique_writers(h2)))).has_value());
}

TEST(RegisterDecisionSteps, AViolationNamesTheObserverOfEachPendingWriterInIt) {
  KeptWriters kept{{1, 1, 0, 0}, {kNoOp, 3, kNoOp, kNoOp}};
  const duet::detail::SearchResult r = explain_violation({1, kNoOp, 2}, kept, 4);
  EXPECT_EQ(r.verdict, duet::detail::SearchVerdict::violation);
  EXPECT_EQ(r.witness, (std::vector<std::size_t>{1, 2, 3}));
}

}  // namespace
