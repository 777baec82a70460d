// The unique-value queue's decision step by step (src/check/queue_decision.hpp): each step on
// a small history made for it. (queue_decision_test.cpp checks the whole decision against the
// search.)
#include <gtest/gtest.h>

#include <algorithm>

#include "check/queue_decision.hpp"
#include "decision_steps.hpp"

namespace {

using duet::detail::TimedOp;
using duet::history::detail::Mode;
using duet::history::detail::QueueOp;
using duet::history::detail::Step;
using duet::history::detail::Stop;
using duet_test::times;
using namespace duet::history::detail::queue_decision;

using Ops = std::vector<std::uint32_t>;

QueueOp enq(std::uint32_t value, Mode mode = Mode::ok) { return {true, mode, value}; }
QueueOp deq(std::uint32_t value, Mode mode = Mode::ok) { return {false, mode, value}; }

Ops sorted(Ops ops) {
  std::sort(ops.begin(), ops.end());
  return ops;
}

QueueValues gathered(const QueueHistory& history) {
  Step<QueueValues> step = gather_values(history);
  if (!std::holds_alternative<QueueValues>(step)) {
    ADD_FAILURE() << "gathering stopped";
    return {};
  }
  return std::get<QueueValues>(std::move(step));
}

TEST(QueueDecisionSteps, GatheringSaysWhatEachValueDid) {
  // enqueue 1, 2 and a pending 3 nobody dequeues; dequeue 1; an empty dequeue; a failed one.
  const std::vector<QueueOp> ops{enq(1), enq(2), enq(3, Mode::pending), deq(1), deq(0), deq(0, Mode::fail)};
  const auto timed = times({{0, 1}, {2, 3}, {4, TimedOp::kPending}, {5, 6}, {7, 8}, {9, 10}});
  const QueueValues values = gathered({ops, timed});
  EXPECT_EQ(values.enqueue(1), 0u);
  EXPECT_EQ(values.dequeue(1), 3u);
  EXPECT_EQ(values.dequeued, (Ops{1}));
  EXPECT_EQ(values.stayed, (Ops{2}));  // 3 may never have gone in
  EXPECT_EQ(values.empties, (Ops{4}));
  EXPECT_EQ(values.failed, (Ops{5}));
}

TEST(QueueDecisionSteps, GatheringStopsOutsideTheKindAndAtImpossibleDequeues) {
  const auto two = times({{0, 1}, {2, 3}});
  const auto three = times({{0, 1}, {2, 3}, {4, 5}});
  const std::vector<QueueOp> twice{enq(1), enq(1)};
  const std::vector<QueueOp> unknown{enq(1), deq(1, Mode::unknown_result)};
  EXPECT_FALSE(std::get<Stop>(gather_values({twice, two})).witness.has_value());
  EXPECT_FALSE(std::get<Stop>(gather_values({unknown, two})).witness.has_value());

  const std::vector<QueueOp> never{enq(1), deq(2)};
  const std::vector<QueueOp> dequeued_twice{enq(1), deq(1), deq(1)};
  const std::vector<QueueOp> before_enqueue{deq(1), enq(1)};
  EXPECT_EQ(std::get<Stop>(gather_values({never, two})).witness, (Ops{1}));
  EXPECT_EQ(std::get<Stop>(gather_values({dequeued_twice, three})).witness, (Ops{1, 2, 0}));
  EXPECT_EQ(std::get<Stop>(gather_values({before_enqueue, two})).witness, (Ops{1, 0}));  // its enqueue, itself
}

TEST(QueueDecisionSteps, PatternsShowValuesOvertakenAndEmptiesThatWereNot) {
  // 1 in before 2; 2 out before 1 was.
  const std::vector<QueueOp> overtaken{enq(1), enq(2), deq(2), deq(1)};
  const auto t1 = times({{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  const QueueHistory h1{overtaken, t1};
  EXPECT_EQ(sorted(*find_pattern(h1, gathered(h1))), (Ops{0, 1, 2, 3}));
  // 1 in and never out; the queue found empty after.
  const std::vector<QueueOp> not_empty{enq(1), deq(0)};
  const auto t2 = times({{0, 1}, {2, 3}});
  const QueueHistory h2{not_empty, t2};
  EXPECT_EQ(sorted(*find_pattern(h2, gathered(h2))), (Ops{0, 1}));
  // In order: no pattern.
  const std::vector<QueueOp> fifo{enq(1), enq(2), deq(1), deq(2)};
  const QueueHistory h3{fifo, t1};
  EXPECT_FALSE(find_pattern(h3, gathered(h3)).has_value());
}

TEST(QueueDecisionSteps, TheDequeueOrderExtendsBothRealTimeOrders) {
  // 2's enqueue returned first, but 1 was dequeued before 2's dequeue began: 1 goes first.
  const std::vector<QueueOp> ops{enq(1), enq(2), deq(1), deq(2)};
  const auto timed = times({{0, 5}, {0, 1}, {6, 7}, {8, 9}});
  const QueueHistory history{ops, timed};
  EXPECT_EQ(*dequeue_order(history, gathered(history)), (Ops{1, 2}));
  // Overtaken values make a cycle: no order.
  const std::vector<QueueOp> overtaken{enq(1), enq(2), deq(2), deq(1)};
  const auto t2 = times({{0, 1}, {2, 3}, {4, 5}, {6, 7}});
  const QueueHistory h2{overtaken, t2};
  EXPECT_FALSE(dequeue_order(h2, gathered(h2)).has_value());
}

TEST(QueueDecisionSteps, TheMergePlacesEnqueuesJustInTimeAndEmptiesWhileEmpty) {
  // enqueue 1 [0,9] overlaps an empty dequeue [1,2]; dequeue 1 [10,11]; 2 enqueued [3,4] stays.
  const std::vector<QueueOp> ops{enq(1), deq(0), deq(1), enq(2), enq(5, Mode::fail)};
  const auto timed = times({{0, 9}, {1, 2}, {10, 11}, {3, 4}, {12, 13}});
  const QueueHistory history{ops, timed};
  QueueValues values = gathered(history);
  std::vector<std::uint32_t> value_order = *dequeue_order(history, values);
  sort_for_merge(history, values);
  value_order.insert(value_order.end(), values.stayed.begin(), values.stayed.end());
  EXPECT_EQ(value_order, (Ops{1, 2}));
  const std::optional<std::vector<std::size_t>> order = merge_operations(history, values, value_order);
  ASSERT_TRUE(order.has_value());
  EXPECT_EQ(*order, (std::vector<std::size_t>{1, 0, 3, 2, 4}));  // the empty dequeue before 1 goes in

  // A dequeue that found the queue empty while 1 was certainly in it: the merge gets stuck.
  const std::vector<QueueOp> stuck{enq(1), deq(0), deq(1)};
  const auto t2 = times({{0, 1}, {2, 3}, {4, 5}});
  const QueueHistory h2{stuck, t2};
  QueueValues v2 = gathered(h2);
  const std::vector<std::uint32_t> o2 = *dequeue_order(h2, v2);
  sort_for_merge(h2, v2);
  EXPECT_FALSE(merge_operations(h2, v2, o2).has_value());
}

TEST(QueueDecisionSteps, SortingForTheMergeOrdersWhatStayedAndTheChangelessOperations) {
  const std::vector<QueueOp> ops{enq(1), enq(2), deq(0), deq(0), deq(0, Mode::fail), enq(3, Mode::fail)};
  const auto timed = times({{0, 9}, {0, 3}, {6, 7}, {4, 5}, {8, 9}, {1, 2}});
  const QueueHistory history{ops, timed};
  QueueValues values = gathered(history);
  sort_for_merge(history, values);
  EXPECT_EQ(values.stayed, (Ops{2, 1}));   // by their enqueue's response
  EXPECT_EQ(values.empties, (Ops{3, 2}));  // by invocation
  EXPECT_EQ(values.failed, (Ops{5, 4}));
}

}  // namespace
