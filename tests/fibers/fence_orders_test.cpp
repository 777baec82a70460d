// The orders of the check's seq_cst fences a run's execution allows
// (src/execute/fibers/dpor/fence_orders.hpp): an order in which a call reads a value older than
// one a call that returned before it began stored is ruled out, and nothing else is.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "execute/fibers/dpor/fence_orders.hpp"

namespace {

using duet::detail::ClockRead;
using duet::detail::fiber::kNoStep;
using duet::detail::fiber::ObjectKind;
using duet::detail::fiber::Op;
using duet::detail::fiber::TraceEvent;
using duet::detail::fiber::dpor::fence_conflicts;

// An atomic access of `fiber` on `object`; a load that read `stale` stores older than the newest,
// the oldest one it did not see being the event at `unseen`.
TraceEvent access(std::uint32_t fiber, Op op, std::uint32_t object, std::uint32_t stale = 0,
                  std::uint32_t unseen = kNoStep) {
  TraceEvent e;
  e.fiber = fiber;
  e.event.op = op;
  e.event.kind = ObjectKind::atomic;
  e.event.object = object;
  e.stale = stale;
  e.unseen_step = unseen;
  return e;
}

// A read of the clock after the first `steps` events of the trace, by `fiber`.
ClockRead read_after(std::uint32_t steps, std::uint32_t fiber) {
  return ClockRead{.time = 0, .steps = steps, .fiber = fiber};
}

constexpr std::uint64_t bit(unsigned r) { return std::uint64_t{1} << r; }

// Fiber 0 stores x (read 0 is its response); fiber 1 then begins a call (read 1) that loads x
// and reads the value from before the run. With fiber 0's response before fiber 1's invoke, the
// fences forbid that load ([atomics.order]/4.4): read 1 may not come after read 0. The other
// order is the run's explanation, and allowed.
TEST(FenceOrders, ALoadOfAValueOlderThanAStoreOfACallThatReturnedIsRuledOut) {
  const std::vector<TraceEvent> trace = {access(0, Op::store, 7), access(1, Op::load, 7, 1, 0)};
  const std::vector<ClockRead> reads = {read_after(1, 0), read_after(1, 1)};
  const auto not_after = fence_conflicts(trace, reads);
  ASSERT_EQ(not_after.size(), 2u);
  EXPECT_EQ(not_after[1], bit(0));
  EXPECT_EQ(not_after[0], 0u);
}

// The load read the store (the newest): either order is one C++ allows.
TEST(FenceOrders, ALoadOfTheNewestStoreRulesNothingOut) {
  const std::vector<TraceEvent> trace = {access(0, Op::store, 7), access(1, Op::load, 7)};
  const std::vector<ClockRead> reads = {read_after(1, 0), read_after(1, 1)};
  EXPECT_EQ(fence_conflicts(trace, reads), (std::vector<std::uint64_t>{0, 0}));
}

// Two stores of one object, fiber 0's first in modification order: fiber 1's call (read 1 its
// response) returning before fiber 0's began (read 0 its invoke) is ruled out, since fiber 0's
// store would then have to follow fiber 1's.
TEST(FenceOrders, StoresKeepTheirModificationOrderAcrossTheFences) {
  const std::vector<TraceEvent> trace = {access(0, Op::store, 7), access(1, Op::store, 7)};
  const std::vector<ClockRead> reads = {read_after(0, 0), read_after(2, 1)};
  const auto not_after = fence_conflicts(trace, reads);
  EXPECT_EQ(not_after[0], bit(1));
  EXPECT_EQ(not_after[1], 0u);
}

// Read-read coherence: fiber 0 read the newer store before its read of the clock, fiber 1 the
// older after its own: fiber 1's read of the clock may not come after fiber 0's.
TEST(FenceOrders, AnOlderReadAfterANewerOneIsRuledOut) {
  const std::vector<TraceEvent> trace = {access(2, Op::store, 7), access(0, Op::load, 7), access(1, Op::load, 7, 1, 0)};
  const std::vector<ClockRead> reads = {read_after(2, 0), read_after(2, 1)};
  const auto not_after = fence_conflicts(trace, reads);
  EXPECT_EQ(not_after[1], bit(0));
  EXPECT_EQ(not_after[0], 0u);
}

// Reads of one fiber, objects of their own, and a load whose store the trace does not place
// (its unseen store is not a store of the trace): nothing ruled out.
TEST(FenceOrders, NothingIsRuledOutWithoutACoherenceConflict) {
  const std::vector<TraceEvent> own = {access(0, Op::store, 7), access(0, Op::load, 7, 1, 0)};
  EXPECT_EQ(fence_conflicts(own, std::vector<ClockRead>{read_after(1, 0), read_after(1, 0)}),
            (std::vector<std::uint64_t>{0, 0}));
  const std::vector<TraceEvent> apart = {access(0, Op::store, 7), access(1, Op::load, 8)};
  EXPECT_EQ(fence_conflicts(apart, std::vector<ClockRead>{read_after(1, 0), read_after(1, 1)}),
            (std::vector<std::uint64_t>{0, 0}));
  const std::vector<TraceEvent> unplaced = {access(0, Op::store, 7), access(1, Op::load, 7, 1, kNoStep)};
  EXPECT_EQ(fence_conflicts(unplaced, std::vector<ClockRead>{read_after(1, 0), read_after(1, 1)}),
            (std::vector<std::uint64_t>{0, 0}));
}

// A read-modify-write reads the newest store and writes the next: a load in a later call of
// another fiber that read below what the RMW wrote is ruled out.
TEST(FenceOrders, AReadModifyWriteIsAStoreAndANewestRead) {
  const std::vector<TraceEvent> trace = {access(0, Op::store, 7), access(0, Op::rmw, 7), access(1, Op::load, 7, 1, 1)};
  const std::vector<ClockRead> reads = {read_after(2, 0), read_after(2, 1)};
  const auto not_after = fence_conflicts(trace, reads);
  EXPECT_EQ(not_after[1], bit(0));
  EXPECT_EQ(not_after[0], 0u);
}

}  // namespace
