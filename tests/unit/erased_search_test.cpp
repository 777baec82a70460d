// The search compiled once for every oracle type (include/duet/detail/erased_oracle.hpp) decides
// exactly as the search instantiated for the oracle: same verdict, order and steps.
#include <duet/detail/erased_oracle.hpp>
#include <duet/detail/rng.hpp>
#include <duet/detail/search.hpp>
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

using duet::detail::Consistency;
using duet::detail::SearchResult;
using duet::detail::SearchVerdict;
using duet::detail::TimedOp;

struct RegOp {
  bool write;
  int value;
};

// A register whose state is a vector (a heap-held state, copied on every try).
struct RegisterOracle {
  using State = std::vector<int>;
  static constexpr bool memo = true;
  const std::vector<RegOp>* ops;
  State initial() const { return {0}; }
  bool apply(State& s, std::size_t i) const {
    const RegOp& op = (*ops)[i];
    if (op.write) {
      s[0] = op.value;
      return true;
    }
    return op.value == s[0];
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s[0]); }
  bool equal(const State& a, const State& b) const { return a == b; }
};

struct NoMemo : RegisterOracle {
  static constexpr bool memo = false;
  bool equal(const State&, const State&) const { return false; }
};

// A random history of writes and reads on three processes, some reads of stale values, some
// operations pending.
void random_history(std::uint64_t seed, std::vector<RegOp>& ops, std::vector<TimedOp>& timed) {
  duet::detail::Rng rng(seed);
  std::uint64_t clock[3] = {0, 0, 0};
  const std::size_t n = 4 + rng.next() % 9;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t p = static_cast<std::uint32_t>(rng.next() % 3);
    const std::uint64_t invoke = clock[p] + rng.next() % 5;
    const bool pending = rng.next() % 8 == 0;
    const std::uint64_t response = pending ? TimedOp::kPending : invoke + 1 + rng.next() % 10;
    clock[p] = pending ? invoke + 100 : response + 1;
    ops.push_back({rng.next() % 2 == 0, static_cast<int>(rng.next() % 3)});
    timed.push_back({p, invoke, response});
  }
}

void expect_same(const SearchResult& typed, const SearchResult& erased) {
  EXPECT_EQ(typed.verdict, erased.verdict);
  EXPECT_EQ(typed.order, erased.order);
  EXPECT_EQ(typed.nodes, erased.nodes);
  EXPECT_EQ(typed.memo_hits, erased.memo_hits);
}

TEST(ErasedSearch, DecidesAsTheTypedSearchOnRandomHistories) {
  int violations = 0, linearizable = 0;
  for (std::uint64_t seed = 1; seed <= 400; ++seed) {
    std::vector<RegOp> ops;
    std::vector<TimedOp> timed;
    random_history(seed, ops, timed);
    const RegisterOracle oracle{&ops};
    const NoMemo no_memo{{&ops}};
    for (Consistency c : {Consistency::linearizable, Consistency::sequential}) {
      SCOPED_TRACE(seed);
      const SearchResult typed = duet::detail::linearize(timed, oracle, c);
      expect_same(typed, duet::detail::linearize_short(timed, oracle, c));
      expect_same(duet::detail::linearize(timed, no_memo, c), duet::detail::linearize_short(timed, no_memo, c));
      (typed.verdict == SearchVerdict::ok ? linearizable : violations) += 1;
    }
  }
  // Both kinds of verdict were compared.
  EXPECT_GT(violations, 50);
  EXPECT_GT(linearizable, 50);
}

// The ready-made models' states are assigned in the library, any other state by the template:
// each leaves the target equal to the source, whatever the target held.
TEST(ErasedSearch, StatesAreAssignedByValue) {
  auto expect_assigned = [](auto to, const auto& from) {
    duet::detail::assign_state(to, from);
    EXPECT_EQ(to, from);
  };
  expect_assigned(std::deque<int>{9, 9, 9}, std::deque<int>{1, 2});
  expect_assigned(std::deque<int>{}, std::deque<int>(1000, 7));  // past one deque node
  expect_assigned(std::vector<int>{5}, std::vector<int>{1, 2, 3});
  expect_assigned(std::set<int>{4, 5, 6}, std::set<int>{1});
  expect_assigned(std::map<int, int>{{1, 1}}, std::map<int, int>{{1, 2}, {3, 4}});
  expect_assigned(std::vector<std::string>{"a"}, std::vector<std::string>{"b", "c"});
}

TEST(ErasedSearch, AnOracleThatThrowsThrowsThroughIt) {
  struct Throwing : RegisterOracle {
    bool apply(State&, std::size_t) const { throw std::runtime_error("model bug"); }
  };
  const std::vector<RegOp> ops{{true, 1}};
  const Throwing oracle{{&ops}};
  EXPECT_THROW(duet::detail::linearize_short(std::vector<TimedOp>{{1, 1, 2}}, oracle, Consistency::linearizable),
               std::runtime_error);
}

TEST(ErasedSearch, BudgetsApply) {
  std::vector<RegOp> ops;
  std::vector<TimedOp> timed;
  for (std::uint32_t i = 0; i < 14; ++i) {  // all overlapping, the last read impossible
    ops.push_back({i < 13, i < 13 ? static_cast<int>(i) : 99});
    timed.push_back({i, 0, 100});
  }
  const NoMemo oracle{{&ops}};
  duet::detail::SearchBudget budget;
  budget.max_nodes = 5000;
  const SearchResult r = duet::detail::linearize_short(timed, oracle, Consistency::linearizable, budget);
  EXPECT_EQ(r.verdict, SearchVerdict::unknown);
  EXPECT_EQ(r.stop, duet::detail::SearchStop::nodes);
}

}  // namespace
