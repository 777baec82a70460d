// The grow-only set's decision step by step (src/check/set_decision.hpp): each step on a small
// history made for it. (set_decision_test.cpp checks the whole decision against the search.)
#include <gtest/gtest.h>

#include <algorithm>

#include "check/set_decision.hpp"
#include "decision_steps.hpp"

namespace {

using duet::detail::TimedOp;
using duet::history::detail::Mode;
using duet::history::detail::SetOp;
using duet::history::detail::Stop;
using duet_test::product;
using duet_test::times;
using namespace duet::history::detail::set_decision;

using Ops = std::vector<std::uint32_t>;
using Blocks = std::vector<Ops>;

SetOp add(std::uint32_t element, Mode mode = Mode::ok) { return {SetOp::add, mode, element}; }
SetOp read(Ops elements, Mode mode = Mode::ok) { return {SetOp::read, mode, 0, false, std::move(elements)}; }

const Ops kNoStart;

TEST(SetDecisionSteps, GatheringSortsAddsReadsAndTheRest) {
  const std::vector<SetOp> ops{add(1), add(2, Mode::fail), read({1}), read({}, Mode::pending),
                               read({}, Mode::unknown_result)};
  const auto timed = times({{0, 1}, {2, 3}, {4, 5}, {6, TimedOp::kPending}, {7, 8}});
  const std::optional<SetOperations> operations = gather_operations({ops, timed, kNoStart});
  ASSERT_TRUE(operations.has_value());
  EXPECT_EQ(operations->add_of, (std::unordered_map<std::uint32_t, std::uint32_t>{{1, 0}}));
  EXPECT_EQ(operations->reads, (Ops{2}));
  EXPECT_EQ(operations->others, (Ops{1, 4}));  // the failed add, the read nobody saw return

  const auto two = times({{0, 1}, {2, 3}});
  const Ops start{5};
  const std::vector<SetOp> twice{add(1), add(1)};
  const std::vector<SetOp> removes{add(1), {SetOp::remove, Mode::ok, 1}};
  const std::vector<SetOp> initial{add(5), read({5})};
  EXPECT_FALSE(gather_operations({twice, two, kNoStart}).has_value());
  EXPECT_FALSE(gather_operations({removes, two, kNoStart}).has_value());
  EXPECT_FALSE(gather_operations({initial, two, start}).has_value());
}

TEST(SetDecisionSteps, ReadsFormAChainOrShowTheViolation) {
  const std::vector<SetOp> ops{add(1), add(2), read({1, 2}), read({1}), read({})};
  const auto timed = times({{0, 1}, {0, 1}, {2, 3}, {2, 3}, {2, 3}});
  const SetHistory history{ops, timed, kNoStart};
  const SetOperations operations = *gather_operations(history);
  EXPECT_EQ(product(chain_reads(history, operations)), (Ops{4, 3, 2}));

  const std::vector<SetOp> apart{add(1), add(2), read({1}), read({2})};  // neither includes the other
  const SetHistory h2{apart, timed, kNoStart};
  EXPECT_EQ(std::get<Stop>(chain_reads(h2, *gather_operations(h2))).witness, (Ops{2, 3}));
  const std::vector<SetOp> unknown{add(1), read({7})};  // 7 never added
  const SetHistory h3{unknown, timed, kNoStart};
  EXPECT_EQ(std::get<Stop>(chain_reads(h3, *gather_operations(h3))).witness, (Ops{1}));
}

TEST(SetDecisionSteps, BlocksAreEachLevelsAddsThenItsReadsThenTheAddsNobodyRead) {
  const std::vector<SetOp> ops{add(1), add(2), add(3), read({1}), read({1, 2}), read({1}), add(4, Mode::pending)};
  const auto timed = times({{0, 1}, {0, 1}, {0, 1}, {2, 3}, {2, 3}, {2, 3}, {0, TimedOp::kPending}});
  const SetHistory history{ops, timed, kNoStart};
  const SetOperations operations = *gather_operations(history);
  const Blocks blocks = level_blocks(history, operations, product(chain_reads(history, operations)));
  EXPECT_EQ(blocks, (Blocks{{0}, {3, 5}, {1}, {4}, {2}}));  // the pending add nobody read is in none
}

TEST(SetDecisionSteps, BlocksArePlacedAsEarlyAsRealTimeAllowsOrShowTheViolation) {
  // add 1 [0,5], read {1} [2,3]: the read goes at its invocation... after the add's (0), at 2.
  const std::vector<SetOp> ops{add(1), read({1}), add(2)};
  const auto timed = times({{0, 5}, {2, 3}, {1, 9}});
  const SetHistory history{ops, timed, kNoStart};
  const Blocks blocks{{0}, {1}, {2}};
  const Placement placement = product(place_blocks(history, blocks));
  EXPECT_EQ(placement.point, (std::vector<std::uint64_t>{0, 2, 2}));  // add 2 no earlier than the read
  EXPECT_EQ(placement.block_of, (Ops{0, 1, 2}));
  EXPECT_EQ(placed_order(history, blocks, placement, {}), (std::vector<std::size_t>{0, 1, 2}));

  // add 2 returned before add 1 began, yet a read of {1} alone comes between them.
  const std::vector<SetOp> late{add(1), read({1}), add(2)};
  const auto t2 = times({{4, 5}, {3, 7}, {0, 1}});
  const SetHistory h2{late, t2, kNoStart};
  EXPECT_EQ(std::get<Stop>(place_blocks(h2, blocks)).witness, (Ops{0, 2, 1}));
  // add 2 returned before the read of {1} began: the two of them.
  const auto t3 = times({{0, 5}, {6, 7}, {0, 1}});
  const SetHistory h3{late, t3, kNoStart};
  EXPECT_EQ(std::get<Stop>(place_blocks(h3, blocks)).witness, (Ops{1, 2}));
}

TEST(SetDecisionSteps, TheOthersGoAtTheirInvocation) {
  const std::vector<SetOp> ops{add(1), read({1}), add(2, Mode::fail)};
  const auto timed = times({{0, 1}, {4, 5}, {2, 3}});
  const SetHistory history{ops, timed, kNoStart};
  const Blocks blocks{{0}, {1}, {}};
  const Placement placement = product(place_blocks(history, blocks));
  EXPECT_EQ(placed_order(history, blocks, placement, {2}), (std::vector<std::size_t>{0, 2, 1}));
}

TEST(SetDecisionSteps, AViolationNamesTheAddsOfWhatItsReadsReturned) {
  const std::vector<SetOp> ops{add(1), add(2), read({1, 2}), read({3})};
  const auto timed = times({{0, 1}, {0, 1}, {2, 3}, {4, 5}});
  const SetHistory history{ops, timed, kNoStart};
  const SetOperations operations = *gather_operations(history);
  const duet::detail::SearchResult r = explain_violation(history, operations, {3, 2});
  EXPECT_EQ(r.verdict, duet::detail::SearchVerdict::violation);
  EXPECT_EQ(r.witness, (std::vector<std::size_t>{0, 1, 2, 3}));  // 3 read nothing added
}

}  // namespace
