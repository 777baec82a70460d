// Histories recorded from live runs on duet's thread pool, checked like recorded files: a
// correct store is linearizable (whole and per key, and after a round trip through duet's
// format); a store whose append loses updates is caught.
#include <gtest/gtest.h>

#include <duet/history.hpp>

#include "kv_stress.hpp"

namespace {

using namespace duet::history;

TEST(CheckerRecord, LockedStoreIsLinearizable) {
  const History h = record_kv_stress<LockedKv>({.clients = 10, .ops_per_client = 40, .keys = 4, .seed = 3});
  ASSERT_EQ(h.ops.size(), 400u);
  for (const Operation& op : h.ops) {
    EXPECT_EQ(op.outcome, Outcome::ok);
    EXPECT_LE(op.invoke, op.response);
  }
  for (bool partition : {true, false}) {
    CheckOptions options;
    options.partition = partition;
    options.timeout_seconds = 60;
    const CheckReport r = check_history(h, options);
    EXPECT_EQ(r.verdict, Verdict::linearizable) << r.explanation;
  }
  // Through duet's own format and back: same operations, same verdict.
  const History again = parse_history(write_duet_history(h), Format::automatic, "round trip");
  ASSERT_EQ(again.ops.size(), h.ops.size());
  EXPECT_EQ(again.default_model, "kv");
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    EXPECT_EQ(again.ops[i].invoke, h.ops[i].invoke);
    EXPECT_EQ(again.ops[i].response, h.ops[i].response);
    EXPECT_EQ(again.ops[i].output, h.ops[i].output);
  }
  EXPECT_EQ(check_history(again).verdict, Verdict::linearizable);
}

TEST(CheckerRecord, LostAppendIsFound) {
  // The race needs two appends to the same key to overlap; a few runs are enough.
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const History h = record_kv_stress<RacyAppendKv>({.clients = 8, .ops_per_client = 30, .keys = 2, .seed = seed});
    CheckOptions options;
    options.timeout_seconds = 30;
    const CheckReport r = check_history(h, options);
    ASSERT_NE(r.verdict, Verdict::unknown) << r.explanation;
    if (r.verdict == Verdict::not_linearizable) {
      ASSERT_TRUE(r.stuck.has_value());
      EXPECT_EQ(h.ops[*r.stuck].f, "get") << "only a read can expose a lost append";
      return;
    }
  }
  FAIL() << "50 recorded runs of a store that loses appends all looked linearizable";
}

TEST(CheckerRecord, IncompleteOperationsArePending) {
  Recorder rec(2, "cas-register-0");
  const auto w = rec.invoke(0, "write", std::nullopt, Value::integer(5));
  const auto r = rec.invoke(1, "read", std::nullopt, Value::nil());
  rec.complete(1, r, Value::integer(5));
  (void)w;  // never completes: the client crashed
  const History h = rec.history();
  ASSERT_EQ(h.ops.size(), 2u);
  EXPECT_EQ(h.ops[0].outcome, Outcome::info);
  EXPECT_EQ(h.ops[0].response, Operation::kPending);
  EXPECT_EQ(check_history(h).verdict, Verdict::linearizable);
  EXPECT_THROW(rec.invoke(2, "read", std::nullopt, Value::nil()), std::out_of_range);
  // A client runs one operation at a time.
  Recorder twice(1);
  twice.invoke(0, "read", std::nullopt, Value::nil());
  EXPECT_THROW(twice.invoke(0, "read", std::nullopt, Value::nil()), std::logic_error);
}

}  // namespace
