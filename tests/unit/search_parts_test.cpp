// The search core's parts, each alone (include/duet/detail/search_parts.hpp, search_memo.hpp).
#include <duet/detail/search_memo.hpp>
#include <duet/detail/search_parts.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

namespace {

using duet::detail::Consistency;
using duet::detail::kFootprintAll;
using duet::detail::SearchBudget;
using duet::detail::SearchStop;
using duet::detail::TimedOp;
namespace search = duet::detail::search;

// The calls before the first return, in list order.
std::vector<std::uint32_t> window(const search::EventList& events) {
  std::vector<std::uint32_t> calls;
  for (std::uint32_t e = events.first(); e != search::kNone && events.is_call(e); e = events.next(e))
    calls.push_back(events.op(e));
  return calls;
}

TEST(SearchParts, TheEventListsWindowIsTheCallsBeforeTheFirstReturn) {
  // op 0 [10, 20], op 1 [15, 30], op 2 [25, 40]: 2 is invoked after 0 returned.
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 15, 30}, {3, 25, 40}};
  search::EventList events(ops, Consistency::linearizable);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{0, 1}));
  events.lift(0);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{1, 2}));
  events.lift(1);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{2}));
  events.unlift(1);
  events.unlift(0);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{0, 1}));
}

TEST(SearchParts, UnderSequentialConsistencyEveryCallOfAPhaseIsInTheWindow) {
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 25, 40}, {1, 50, 60, 1}};
  const search::EventList events(ops, Consistency::sequential);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{0, 1}));  // op 2 is of a later phase
}

TEST(SearchParts, EqualClockReadingsOverlapAndPendingOperationsReturnLast) {
  // op 0 returns at 20, when op 1 is invoked: they overlap. op 2 never returns.
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 20, 30}, {3, 5}};
  search::EventList events(ops, Consistency::linearizable);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{2, 0, 1}));
  events.lift(0);
  events.lift(1);
  EXPECT_EQ(window(events), (std::vector<std::uint32_t>{2}));
}

TEST(SearchParts, AProcessKeepsTheOrderOfItsCompletedOperations) {
  // Process 1: op 0, then op 2 (which never returns), then op 3; process 2: op 1.
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 10, 20}, {1, 30}, {1, 40, 50}};
  const std::vector<std::uint32_t> pred = search::process_predecessors(ops);
  EXPECT_EQ(pred, (std::vector<std::uint32_t>{search::kNone, search::kNone, 0, 0}));
}

TEST(SearchParts, UrgencyIsByResponseWithPendingOperationsLast) {
  const std::vector<TimedOp> ops{{1, 10, 50}, {2, 12}, {3, 14, 30}};
  const search::EventList events(ops, Consistency::linearizable);
  const std::vector<std::uint64_t> urgency = search::urgency_ranks(ops, Consistency::linearizable, events);
  EXPECT_EQ(urgency[2], 0u);
  EXPECT_EQ(urgency[0], 1u);
  EXPECT_GE(urgency[1], ops.size());
}

TEST(SearchParts, ThePlacedSetKeepsPendingOperationsApart) {
  std::vector<TimedOp> ops(130);
  for (std::uint32_t i = 0; i < ops.size(); ++i) ops[i] = {i, i, i == 3 ? TimedOp::kPending : i + 1000};
  search::PlacedSet placed(ops);
  EXPECT_EQ(placed.pending_count(), 1u);
  EXPECT_TRUE(placed.is_pending(3));
  EXPECT_EQ(placed.done()[0], std::uint64_t{1} << 3);  // a pending operation's bit is set for good
  for (std::uint32_t i = 0; i < 64; ++i)
    if (i != 3) placed.toggle(i);
  EXPECT_EQ(placed.window_low(), 1u);  // the first word is full
  placed.toggle(3);
  EXPECT_TRUE(placed.is_placed(3));
  EXPECT_EQ(placed.pending_placed()[0], 1u);
  placed.toggle(5);
  EXPECT_EQ(placed.window_low(), 0u);  // no longer full
}

TEST(SearchParts, PendingSetsStayMinimal) {
  std::vector<std::uint64_t> sets;
  EXPECT_FALSE(search::includes_a_pending_set(sets, {0b0110}));
  EXPECT_EQ(search::add_pending_set(sets, {0b0110}), 8);
  EXPECT_TRUE(search::includes_a_pending_set(sets, {0b0111}));  // a superset: pruned
  EXPECT_FALSE(search::includes_a_pending_set(sets, {0b0011}));
  EXPECT_EQ(search::add_pending_set(sets, {0b0010}), 0);  // replaces {0b0110}, its superset
  EXPECT_EQ(sets, (std::vector<std::uint64_t>{0b0010}));
}

TEST(SearchParts, TheReductionKeepsOnlyTheFirstResponsesClass) {
  // Three overlapping operations; op 1 returns first. Footprints: ops 0 and 1 one key, op 2 another.
  const std::vector<TimedOp> ops{{1, 10, 50}, {2, 11, 20}, {3, 12, 60}};
  const search::EventList events(ops, Consistency::linearizable);
  const search::PlacedSet placed(ops);
  const std::vector<std::uint32_t> pred = search::process_predecessors(ops);
  const std::vector<std::uint64_t> urgency = search::urgency_ranks(ops, Consistency::linearizable, events);
  std::vector<std::uint32_t> candidates;
  std::uint64_t node_class = 0;
  search::OperationTraits plain;
  search::gather_window(events, placed, pred, ops, plain, urgency, Consistency::linearizable, candidates, node_class);
  EXPECT_EQ(candidates, (std::vector<std::uint32_t>{1, 0, 2}));
  EXPECT_EQ(node_class, kFootprintAll);
  search::OperationTraits keyed{{7, 7, 9}};
  search::gather_window(events, placed, pred, ops, keyed, urgency, Consistency::linearizable, candidates, node_class);
  EXPECT_EQ(candidates, (std::vector<std::uint32_t>{1, 0}));
  EXPECT_EQ(node_class, 7u);
  search::OperationTraits one_commutes_with_nothing{{7, 7, kFootprintAll}};
  search::gather_window(events, placed, pred, ops, one_commutes_with_nothing, urgency, Consistency::linearizable, candidates,
                        node_class);
  EXPECT_EQ(candidates.size(), 3u);
}

TEST(SearchParts, BackjumpingNeedsFootprintsNoPendingAndRealTimeProgramOrder) {
  const std::vector<TimedOp> ops{{1, 10, 20}, {1, 30, 40}, {2, 10, 40}};
  const std::vector<std::uint32_t> pred = search::process_predecessors(ops);
  const search::OperationTraits keyed{{1, 2, 1}};
  EXPECT_TRUE(search::backjumping_applies(ops, pred, keyed, 0, Consistency::linearizable, false));
  EXPECT_FALSE(search::backjumping_applies(ops, pred, search::OperationTraits{}, 0, Consistency::linearizable, false));
  EXPECT_FALSE(search::backjumping_applies(ops, pred, keyed, 1, Consistency::linearizable, false));
  EXPECT_FALSE(search::backjumping_applies(ops, pred, keyed, 0, Consistency::sequential, false));
  EXPECT_FALSE(search::backjumping_applies(ops, pred, keyed, 0, Consistency::linearizable, true));
  EXPECT_FALSE(search::backjumping_applies(ops, pred, search::OperationTraits{{1, kFootprintAll, 1}}, 0,
                                           Consistency::linearizable, false));
  // Process 1's second operation invoked at the very time its first returned: program order links classes.
  const std::vector<TimedOp> touching{{1, 10, 20}, {1, 20, 40}, {2, 10, 40}};
  EXPECT_FALSE(search::backjumping_applies(touching, search::process_predecessors(touching), keyed, 0,
                                           Consistency::linearizable, false));
}

TEST(SearchParts, TheClassPartitionHashesEachClasssPlacedSet) {
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 10, 20}, {3, 10, 20}};
  const search::PlacedSet placed(ops);
  search::ClassPartition classes(search::OperationTraits{{5, 6, 5}});
  ASSERT_TRUE(classes.on());
  EXPECT_EQ(classes.class_of(0), classes.class_of(2));
  EXPECT_NE(classes.class_of(0), classes.class_of(1));
  EXPECT_EQ(classes.class_of_footprint(6), classes.class_of(1));
  const std::uint32_t c = classes.class_of(0);
  classes.toggle(2, placed);
  EXPECT_EQ(classes.hash(c), placed.key(2));
  EXPECT_EQ(classes.bits(c)[0], 0b10u);  // op 2 is the class's second operation
  classes.toggle(2, placed);
  EXPECT_EQ(classes.hash(c), 0u);
  EXPECT_FALSE(search::ClassPartition(search::OperationTraits{{5, kFootprintAll, 5}}).on());
}

TEST(SearchParts, TheWorkBudgetChecksEvery1024UnitsAndNamesWhy) {
  SearchBudget budget;
  budget.max_nodes = 100;
  search::WorkBudget work(budget);
  int due = 0;
  for (int i = 0; i < 2048; ++i) due += work.due();
  EXPECT_EQ(due, 2);
  EXPECT_EQ(work.check(99, {}), SearchStop::none);
  EXPECT_EQ(work.check(100, {}), SearchStop::nodes);
  std::atomic<bool> cancel{true};
  budget.cancel = &cancel;
  EXPECT_EQ(work.check(0, {}), SearchStop::cancelled);
  budget.cancel = nullptr;
  budget.max_seconds = 1;
  search::WorkBudget timed(budget);
  EXPECT_EQ(timed.check(0, std::chrono::seconds(2)), SearchStop::time);  // freeing would pass the deadline
  EXPECT_EQ(timed.check(0, {}), SearchStop::none);
}

TEST(SearchParts, SearchesSideBySideShareOneMemoryBudget) {
  std::atomic<std::size_t> total{0};
  SearchBudget budget;
  budget.max_memo_bytes = 1 << 20;
  budget.shared_memory = &total;
  {
    search::MemoryMeter a(budget), b(budget);
    a.memo_bytes = 600 << 10;
    EXPECT_FALSE(a.over(0));
    b.memo_bytes = 600 << 10;
    EXPECT_TRUE(b.over(0));  // the sum is past the budget
    EXPECT_EQ(total.load(), std::size_t{1200} << 10);
  }
  EXPECT_EQ(total.load(), 0u);  // given back
}

struct IntOracle {
  using State = int;
  static constexpr bool memo = true;
  std::uint64_t hash(int s) const { return static_cast<std::uint64_t>(s); }
  bool equal(int a, int b) const { return a == b; }
};

TEST(SearchParts, TheMemoPrunesAConfigurationSeenWithFewerPendingOperationsPlaced) {
  // Ops 0 and 1 complete, 2 and 3 pending.
  const std::vector<TimedOp> ops{{1, 10, 20}, {2, 10, 20}, {3, 10}, {4, 10}};
  search::PlacedSet placed(ops);
  search::MemoryMeter memory(SearchBudget{});
  search::Memo<IntOracle> memo;
  const IntOracle oracle;
  placed.toggle(0);
  EXPECT_FALSE(memo.seen_or_record(oracle, placed.key(0), 5, 1, placed, memory));
  EXPECT_TRUE(memo.seen_or_record(oracle, placed.key(0), 5, 1, placed, memory));
  EXPECT_FALSE(memo.seen_or_record(oracle, placed.key(0), 6, 1, placed, memory));  // another state
  placed.toggle(2);
  EXPECT_TRUE(memo.seen_or_record(oracle, placed.key(0), 5, 1, placed, memory));  // a pending one more: pruned
  placed.toggle(2);
  placed.toggle(1);
  EXPECT_FALSE(memo.seen_or_record(oracle, placed.key(0) ^ placed.key(1), 5, 1, placed, memory));
  EXPECT_EQ(memo.size(), 3u);
  EXPECT_GT(memory.memo_bytes, 0u);
}

TEST(SearchParts, TheSlotIndexFindsEntriesAfterGrowing) {
  search::SlotIndex index(4);
  std::vector<std::uint64_t> hashes;
  for (std::uint32_t i = 0; i < 40; ++i) {
    const std::uint64_t h = i * 0x9e3779b97f4a7c15ULL;
    std::size_t slot = 0;
    ASSERT_EQ(index.find(
                  h, [&](std::uint32_t e) { return hashes[e] == h; }, slot),
              search::SlotIndex::kEmpty);
    hashes.push_back(h);
    index.put(slot, i, hashes.size(), [&](std::uint32_t e) { return hashes[e]; });
  }
  for (std::uint32_t i = 0; i < 40; ++i) {
    std::size_t slot = 0;
    EXPECT_EQ(index.find(
                  hashes[i], [&](std::uint32_t e) { return hashes[e] == hashes[i]; }, slot),
              i);
  }
  EXPECT_GE(index.bytes(), 80 * sizeof(std::uint32_t));
}

}  // namespace
