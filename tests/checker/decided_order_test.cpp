// What the three deciders share (src/check/decided_order.hpp): the one certification of an
// order a decision built (every step legal, the history's orders respected), and the result a
// violation or a stop makes.
#include <gtest/gtest.h>

#include "check/decided_order.hpp"

namespace {

using duet::detail::SearchVerdict;
using duet::detail::TimedOp;
using duet::history::detail::certify_order;
using duet::history::detail::decided_violation;
using duet::history::detail::kNoOp;
using duet::history::detail::order_fits_history;
using duet::history::detail::Stop;
using duet::history::detail::stopped;

// Two processes: 0 runs [0,2] then [5,6]; 1 runs [1,3]; [4,...] never returned.
const std::vector<TimedOp> kTimed{{0, 0, 2}, {1, 1, 3}, {0, 5, 6}, {1, 4, TimedOp::kPending}};

TEST(DecidedOrder, FitsTheHistoryOnlyInAnOrderItsTimesAndProcessesAllow) {
  EXPECT_TRUE(order_fits_history({0, 1, 2}, kTimed));      // the pending one left out
  EXPECT_TRUE(order_fits_history({1, 0, 3, 2}, kTimed));   // overlapping ones either way
  EXPECT_FALSE(order_fits_history({2, 0, 1}, kTimed));     // 2 began after 0 returned
  EXPECT_FALSE(order_fits_history({0, 1}, kTimed));        // a completed one missing
  EXPECT_FALSE(order_fits_history({0, 1, 1, 2}, kTimed));  // one placed twice
  EXPECT_FALSE(order_fits_history({0, 1, 7}, kTimed));     // no such operation
}

TEST(DecidedOrder, CertifiesOnlyAnOrderEveryStepOfWhichIsLegal) {
  std::vector<std::size_t> applied;
  const auto legal_all = [&](std::size_t op) {
    applied.push_back(op);
    return true;
  };
  const std::optional<duet::detail::SearchResult> ok = certify_order({0, 1, 2}, kTimed, legal_all);
  ASSERT_TRUE(ok.has_value());
  EXPECT_EQ(ok->verdict, SearchVerdict::ok);
  EXPECT_EQ(ok->order, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(ok->nodes, kTimed.size());
  EXPECT_EQ(applied, (std::vector<std::size_t>{0, 1, 2}));  // in the order's order

  applied.clear();
  const auto illegal_1 = [&](std::size_t op) {
    applied.push_back(op);
    return op != 1;
  };
  EXPECT_FALSE(certify_order({0, 1, 2}, kTimed, illegal_1).has_value());
  EXPECT_EQ(applied, (std::vector<std::size_t>{0, 1}));                   // stops at the first illegal step
  EXPECT_FALSE(certify_order({2, 0, 1}, kTimed, legal_all).has_value());  // legal, against real time
}

TEST(DecidedOrder, AViolationsWitnessIsSortedWithoutRepeatsOrBeforeEverything) {
  const duet::detail::SearchResult r = decided_violation(9, {5, kNoOp, 2, 5, 0});
  EXPECT_EQ(r.verdict, SearchVerdict::violation);
  EXPECT_EQ(r.nodes, 9u);
  EXPECT_EQ(r.witness, (std::vector<std::size_t>{0, 2, 5}));
  EXPECT_TRUE(r.order.empty());
}

TEST(DecidedOrder, AStopIsAViolationOnlyWithAWitness) {
  EXPECT_FALSE(stopped(3, Stop::undecided()).has_value());
  const std::optional<duet::detail::SearchResult> r = stopped(3, Stop::violation({2, 1}));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->verdict, SearchVerdict::violation);
  EXPECT_EQ(r->witness, (std::vector<std::size_t>{1, 2}));
}

}  // namespace
