// The search core on crafted histories.
#include <duet/detail/search.hpp>
#include <duet/hash.hpp>
#include <gtest/gtest.h>

#include <atomic>
#include <optional>
#include <tuple>
#include <vector>

namespace {

using duet::detail::Consistency;
using duet::detail::SearchVerdict;
using duet::detail::TimedOp;

// A register: write(v) or read() -> v.
struct RegOp {
  bool write;
  int value;
};

struct RegisterOracle {
  using State = int;
  static constexpr bool memo = true;
  const std::vector<RegOp>* ops;
  State initial() const { return 0; }
  bool apply(State& s, std::size_t i) const {
    const RegOp& op = (*ops)[i];
    if (op.write) {
      s = op.value;
      return true;
    }
    return op.value == s;
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& a, const State& b) const { return a == b; }
};

struct NoMemo : RegisterOracle {
  static constexpr bool memo = false;
};

// Process 1 writes 1 and returns; only then process 2 reads, and sees the old 0. Sequentially
// consistent (the read may be ordered first: processes are independent), but not
// linearizable (real time says the write came first).
TEST(Search, StaleReadIsSequentiallyConsistentButNotLinearizable) {
  const std::vector<RegOp> ops{{true, 1}, {false, 0}};
  const std::vector<TimedOp> history{{1, 10, 20}, {2, 30, 40}};
  const RegisterOracle oracle{&ops};
  EXPECT_EQ(duet::detail::linearize(history, oracle, Consistency::linearizable).verdict, SearchVerdict::violation);
  const auto sc = duet::detail::linearize(history, oracle, Consistency::sequential);
  EXPECT_EQ(sc.verdict, SearchVerdict::ok);
  EXPECT_EQ(sc.order, (std::vector<std::size_t>{1, 0}));  // the witness: read, then write
}

TEST(Search, OverlappingCallsMayGoEitherWay) {
  const std::vector<RegOp> ops{{true, 1}, {false, 0}, {false, 1}};
  // The write overlaps both reads: read 0 before it, read 1 after it.
  const std::vector<TimedOp> history{{1, 10, 50}, {2, 12, 20}, {3, 30, 60}};
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict, SearchVerdict::ok);
}

TEST(Search, PendingOperationsMayTakeEffectOrNot) {
  const std::vector<RegOp> ops{{true, 1}, {false, 1}, {false, 0}};
  // A write that never returned; a later read sees it, an even later one does not: impossible
  // (once seen, the write took effect).
  std::vector<TimedOp> history{{1, 10, TimedOp::kPending}, {2, 20, 30}, {2, 40, 50}};
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict,
            SearchVerdict::violation);
  // Without the last read it is fine, and also if the pending write is never seen.
  history.pop_back();
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict, SearchVerdict::ok);
  const std::vector<RegOp> unseen{{true, 1}, {false, 0}};
  const std::vector<TimedOp> h2{{1, 10, TimedOp::kPending}, {2, 20, 30}};
  EXPECT_EQ(duet::detail::linearize(h2, RegisterOracle{&unseen}, Consistency::linearizable).verdict, SearchVerdict::ok);
}

TEST(Search, PhasesOrderPrefixAndSuffixEvenUnderSequentialConsistency) {
  const std::vector<RegOp> ops{{true, 1}, {false, 0}};
  // The read is in a later phase than the write, so even SC may not order it first.
  const std::vector<TimedOp> history{{1, 10, 20, 0}, {2, 30, 40, 1}};
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::sequential).verdict,
            SearchVerdict::violation);
}

TEST(Search, BudgetEndsInUnknown) {
  // Many concurrent writes of distinct values and a read of a value nobody wrote: a full search
  // must try everything, which a tiny budget stops.
  std::vector<RegOp> ops;
  std::vector<TimedOp> history;
  for (int i = 0; i < 14; ++i) {
    ops.push_back({true, i + 1});
    history.push_back({static_cast<std::uint32_t>(i), 0, 1000});
  }
  ops.push_back({false, 99});
  history.push_back({99, 0, 1000});
  duet::detail::SearchBudget budget;
  budget.max_nodes = 2048;
  EXPECT_EQ(duet::detail::linearize(history, NoMemo{{&ops}}, Consistency::linearizable, budget).verdict,
            SearchVerdict::unknown);
  // With the memo the same search is quick and certain.
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict,
            SearchVerdict::violation);
}

}  // namespace

namespace {

// Equal clock readings on two cores cannot be ordered: a read invoked at the very time a write
// returned may still see the old value.
TEST(Search, EqualTimestampsOverlap) {
  const std::vector<RegOp> ops{{true, 1}, {false, 0}};
  const std::vector<TimedOp> history{{1, 10, 20}, {2, 20, 30}};
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict, SearchVerdict::ok);
}

// A process's own operations keep their order even when their timestamps tie.
TEST(Search, ProgramOrderHoldsOnTies) {
  const std::vector<RegOp> ops{{true, 1}, {false, 0}};
  const std::vector<TimedOp> history{{1, 10, 10}, {1, 10, 10}};
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable).verdict,
            SearchVerdict::violation);
  EXPECT_EQ(duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::sequential).verdict,
            SearchVerdict::violation);
}

}  // namespace

namespace hash_test {
struct Cart {
  std::vector<int> items;
  int owner = 0;
  bool operator==(const Cart&) const = default;
};
inline std::uint64_t duet_hash(const Cart& c) { return duet::hash_value(std::tie(c.items, c.owner)); }
struct Opaque {
  int x = 0;
};
}  // namespace hash_test

// The memo hashes model states: a user type hashes through its duet_hash, equal values alike
// and (for these) different values differently; a type duet cannot hash hashes to 0.
TEST(Hash, UserTypesHashThroughDuetHash) {
  const hash_test::Cart a{{1, 2}, 7}, b{{1, 2}, 7}, c{{2, 1}, 7}, d{{1, 2}, 8};
  EXPECT_EQ(duet::hash_value(a), duet::hash_value(b));
  EXPECT_NE(duet::hash_value(a), duet::hash_value(c));
  EXPECT_NE(duet::hash_value(a), duet::hash_value(d));
  EXPECT_NE(duet::hash_value(a), 0u);
  EXPECT_EQ(duet::hash_value(std::vector<hash_test::Cart>{a}), duet::hash_value(std::vector<hash_test::Cart>{b}));
  EXPECT_EQ(duet::hash_value(hash_test::Opaque{3}), 0u);
}

namespace {

// Searches on parts of one history share one memory budget (SearchBudget::shared_memory): a
// search whose own memo is small still stops when its siblings hold the rest, and gives back
// what it published when it returns.
TEST(Search, SharedMemoryBudgetCountsTheSiblings) {
  // 40 concurrent writes and a read nobody can satisfy: the search fills its memo.
  std::vector<RegOp> ops;
  std::vector<TimedOp> history;
  for (int i = 0; i < 40; ++i) {
    ops.push_back({true, i % 20 + 1});
    history.push_back({static_cast<std::uint32_t>(i), 0, 100});
  }
  ops.push_back({false, -1});
  history.push_back({40, 0, 100});
  const RegisterOracle oracle{&ops};
  duet::detail::SearchBudget alone;
  alone.max_memo_bytes = std::size_t{64} << 20;
  alone.max_nodes = 300'000;
  const auto own = duet::detail::linearize(history, oracle, Consistency::linearizable, alone);
  EXPECT_EQ(own.stop, duet::detail::SearchStop::nodes);  // 64 MiB is more than it needs here
  ASSERT_LT(own.memo_bytes, std::size_t{32} << 20);

  std::atomic<std::size_t> siblings{(std::size_t{64} << 20) - own.memo_bytes / 2};  // what the others hold
  duet::detail::SearchBudget shared = alone;
  shared.shared_memory = &siblings;
  const auto r = duet::detail::linearize(history, oracle, Consistency::linearizable, shared);
  EXPECT_EQ(r.verdict, SearchVerdict::unknown);
  EXPECT_EQ(r.stop, duet::detail::SearchStop::memory);
  EXPECT_EQ(siblings.load(), (std::size_t{64} << 20) - own.memo_bytes / 2);  // its own share given back
}

}  // namespace
