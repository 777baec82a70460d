// The search core on crafted histories.
#include <duet/detail/search.hpp>
#include <duet/hash.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
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

// Two keys; an operation on one key commutes with those on the other, a write of every key
// with nothing. Backjumping over placements of other keys must not jump over the latter: it
// touches the key that failed too.
struct TwoKeys {
  using State = std::array<int, 2>;
  static constexpr bool memo = true;
  struct Op {
    int key;   // -1: writes every key
    int a, b;  // write: a; cas: a -> b
  };
  const std::vector<Op>* ops;
  State initial() const { return {0, 0}; }
  bool apply(State& s, std::size_t i) const {
    const Op& op = (*ops)[i];
    if (op.key < 0) return s = {op.a, op.a}, true;
    if (s[op.key] != op.a) return false;
    s[op.key] = op.b;
    return true;
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s[0] * 31 + s[1]); }
  bool equal(const State& x, const State& y) const { return x == y; }
  std::uint64_t footprint(std::size_t i) const {
    return (*ops)[i].key < 0 ? duet::detail::kFootprintAll : static_cast<std::uint64_t>((*ops)[i].key);
  }
};

TEST(Search, BackjumpingDoesNotJumpOverOperationsThatTouchEveryKey) {
  // write-all 1 and cas key0 0->1 overlap: the cas first, then the write, is a linearization.
  const std::vector<TwoKeys::Op> ops{{-1, 1, 0}, {0, 0, 1}};
  const std::vector<TimedOp> history{{1, 1, 2}, {2, 1, 2}};
  EXPECT_EQ(duet::detail::linearize(history, TwoKeys{&ops}, Consistency::linearizable).verdict, SearchVerdict::ok);
  // With more around it: a cas on key 1 after both, from 1.
  const std::vector<TwoKeys::Op> more{{-1, 1, 0}, {0, 0, 1}, {1, 1, 5}, {0, 1, 7}};
  const std::vector<TimedOp> h2{{1, 1, 4}, {2, 1, 4}, {3, 6, 8}, {2, 6, 9}};
  EXPECT_EQ(duet::detail::linearize(h2, TwoKeys{&more}, Consistency::linearizable).verdict, SearchVerdict::ok);
}

// Collecting end states (what a failing window cut at its front starts from): every state some
// linearization ends in, pending operations placed or not.
TEST(Search, EndStatesAreEveryStateALinearizationEndsIn) {
  using States = duet::detail::EndStates<int>;
  auto ends = [](const std::vector<RegOp>& ops, const std::vector<TimedOp>& history, std::size_t cap = 64) {
    States e;
    e.cap = cap;
    const auto r = duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable, {}, &e);
    std::sort(e.states.begin(), e.states.end());
    return std::make_tuple(r.verdict, e.states, e.overflow);
  };
  // Two overlapping writes: either may be last.
  EXPECT_EQ(ends({{true, 1}, {true, 2}}, {{1, 10, 30}, {2, 20, 40}}),
            std::make_tuple(SearchVerdict::ok, std::vector<int>{1, 2}, false));
  // A pending write may also land last, or never.
  EXPECT_EQ(ends({{true, 1}, {true, 2}, {true, 3}}, {{1, 10, 30}, {2, 20, 40}, {3, 5, TimedOp::kPending}}),
            std::make_tuple(SearchVerdict::ok, std::vector<int>{1, 2, 3}, false));
  // A read of 2 after both: 2, unless the pending write lands after it.
  EXPECT_EQ(ends({{true, 1}, {true, 2}, {true, 3}, {false, 2}},
                 {{1, 10, 30}, {2, 20, 40}, {3, 5, TimedOp::kPending}, {4, 50, 60}}),
            std::make_tuple(SearchVerdict::ok, std::vector<int>{2, 3}, false));
  // No linearization: no end state.
  EXPECT_EQ(ends({{true, 1}, {false, 5}}, {{1, 10, 20}, {2, 30, 40}}),
            std::make_tuple(SearchVerdict::violation, std::vector<int>{}, false));
  // Past the cap: unknown, said so.
  EXPECT_EQ(std::get<0>(ends({{true, 1}, {true, 2}}, {{1, 10, 30}, {2, 20, 40}}, 1)), SearchVerdict::unknown);
  EXPECT_TRUE(std::get<2>(ends({{true, 1}, {true, 2}}, {{1, 10, 30}, {2, 20, 40}}, 1)));
}

// Against brute force on random small register histories with pending operations: the same
// set of end states (every order of every subset holding the completed operations, respecting
// real time and program order, applied from 0).
TEST(Search, EndStatesAgreeWithBruteForce) {
  std::uint64_t seed = 42;
  auto next = [&](std::uint64_t n) {
    seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (seed >> 33) % n;
  };
  for (int trial = 0; trial < 400; ++trial) {
    const std::size_t n = 2 + next(5);
    std::vector<RegOp> ops;
    std::vector<TimedOp> history;
    std::vector<std::uint64_t> busy(3, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t p = static_cast<std::uint32_t>(next(3));
      const std::uint64_t invoke = busy[p] + next(4);
      const std::uint64_t response = next(6) == 0 ? TimedOp::kPending : invoke + 1 + next(8);
      busy[p] = response == TimedOp::kPending ? invoke + 100 : response + 1;
      ops.push_back({next(3) != 0, static_cast<int>(next(3))});
      history.push_back({p, invoke, response});
    }
    std::vector<int> expected;
    std::vector<std::size_t> order(n);
    for (std::uint32_t mask = 0; mask < (1u << n); ++mask) {
      bool keeps_completed = true;
      std::vector<std::size_t> chosen;
      for (std::size_t i = 0; i < n; ++i) {
        if ((mask >> i) & 1) chosen.push_back(i);
        else if (history[i].response != TimedOp::kPending) keeps_completed = false;
      }
      if (!keeps_completed) continue;
      std::sort(chosen.begin(), chosen.end());
      do {
        bool ok = true;
        for (std::size_t a = 0; a < chosen.size() && ok; ++a)
          for (std::size_t b = a + 1; b < chosen.size() && ok; ++b) {
            const TimedOp &x = history[chosen[a]], &y = history[chosen[b]];
            if (y.response != TimedOp::kPending && y.response < x.invoke) ok = false;  // y returned before x began
            if (x.process == y.process && y.response != TimedOp::kPending && y.invoke < x.invoke) ok = false;
          }
        int state = 0;
        for (std::size_t k = 0; k < chosen.size() && ok; ++k) {
          const RegOp& op = ops[chosen[k]];
          if (op.write) state = op.value;
          else ok = op.value == state;
        }
        if (ok && std::find(expected.begin(), expected.end(), state) == expected.end()) expected.push_back(state);
      } while (std::next_permutation(chosen.begin(), chosen.end()));
    }
    std::sort(expected.begin(), expected.end());
    duet::detail::EndStates<int> e;
    const auto r = duet::detail::linearize(history, RegisterOracle{&ops}, Consistency::linearizable, {}, &e);
    std::sort(e.states.begin(), e.states.end());
    ASSERT_EQ(e.states, expected) << "trial " << trial;
    ASSERT_EQ(r.verdict, expected.empty() ? SearchVerdict::violation : SearchVerdict::ok) << "trial " << trial;
  }
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
