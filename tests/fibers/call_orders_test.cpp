// The calls' real-time orders a run allows (src/execute/fibers/dpor/call_orders.hpp): the order
// of the clock's reads that the run's happens-before keeps, and no more.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "execute/fibers/dpor/call_orders.hpp"

namespace {

using duet::detail::ClockRead;
using duet::detail::fiber::Op;
using duet::detail::fiber::dpor::call_orders;
using duet::detail::fiber::dpor::Step;

// A step of `fiber` on `object`, with the calls' boundaries left to the check.
Step step(std::uint32_t fiber, Op op, std::uint32_t object) {
  Step s;
  s.fiber = fiber;
  s.event.op = op;
  s.event.kind = duet::detail::fiber::ObjectKind::atomic;
  s.event.object = object;
  s.calls = false;
  return s;
}

duet::detail::fiber::dpor::RunOrder order_of(const std::vector<Step>& steps) {
  duet::detail::fiber::dpor::RunOrder o;
  o.assign(steps);
  return o;
}

// Reads of the clock inside steps (1-based positions: the trace's length when read).
ClockRead read_after(std::uint32_t steps, std::uint32_t fiber, std::uint64_t time) {
  return ClockRead{.time = time, .steps = steps, .fiber = fiber};
}

// Two fibers, each a call (invoke, one store, response) on objects of their own: each fiber's
// response comes after its invoke, and nothing else is fixed.
TEST(CallOrders, IndependentCallsKeepOnlyTheirFibersOrder) {
  const std::vector<Step> steps = {step(0, Op::store, 1), step(1, Op::store, 2)};
  const std::vector<ClockRead> reads = {read_after(1, 0, 1), read_after(1, 0, 2), read_after(2, 1, 3), read_after(2, 1, 4)};
  const auto o = call_orders(order_of(steps), reads);
  ASSERT_TRUE(o.complete);
  EXPECT_EQ(o.before, (std::vector<std::uint64_t>{0b0000, 0b0001, 0b0000, 0b0100}));
}

// The same calls on one object: the first store happens before the second, so every read inside
// or after fiber 0's store comes before those inside or after fiber 1's.
TEST(CallOrders, DependentStepsKeepTheirOrder) {
  const std::vector<Step> steps = {step(0, Op::store, 1), step(1, Op::store, 1)};
  const std::vector<ClockRead> reads = {read_after(1, 0, 1), read_after(1, 0, 2), read_after(2, 1, 3), read_after(2, 1, 4)};
  const auto o = call_orders(order_of(steps), reads);
  ASSERT_TRUE(o.complete);
  EXPECT_EQ(o.before, (std::vector<std::uint64_t>{0b0000, 0b0001, 0b0011, 0b0111}));
}

// A read before any step, or one inside another fiber's step: no order is given, so that the
// search orders the calls by running instead.
TEST(CallOrders, AReadOutsideItsFibersStepsGivesNoOrder) {
  const std::vector<Step> steps = {step(0, Op::store, 1), step(1, Op::store, 2)};
  EXPECT_FALSE(call_orders(order_of(steps), std::vector<ClockRead>{read_after(0, 0, 1)}).complete);
  EXPECT_FALSE(call_orders(order_of(steps), std::vector<ClockRead>{read_after(2, 0, 1)}).complete);
}

}  // namespace
