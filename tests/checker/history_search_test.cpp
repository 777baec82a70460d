// The parts of a model's check of one part (duet/detail/history_search.hpp, the oracle-free
// ones in src/check/history_search.cpp), alone: the part's times as the search sees them, the
// short search after a decision, the operation that blocks a violation (from a decision's
// witness or the search's partial order), and the diagnosis along the order.
#include <gtest/gtest.h>

#include <duet/history.hpp>
#include <duet/detail/history_search.hpp>

namespace {

using duet::detail::SearchVerdict;
using duet::detail::TimedOp;
using duet::history::History;
using duet::history::Operation;
using duet::history::Outcome;
using namespace duet::history::detail;

Operation op(std::int64_t process, std::uint64_t invoke, std::uint64_t response, Outcome outcome = Outcome::ok) {
  Operation o;
  o.process = process;
  o.invoke = invoke;
  o.response = response;
  o.outcome = outcome;
  return o;
}

TEST(HistorySearchParts, APartsTimesNumberItsProcessesDenselyAndLeaveInfoPending) {
  History h;
  h.ops = {op(40, 0, 3), op(7, 1, 2), op(40, 4, 6), op(9, 5, 9, Outcome::info), op(7, 7, 8)};
  const std::vector<TimedOp> timed = part_times(h, {1, 2, 3, 4});
  ASSERT_EQ(timed.size(), 4u);
  EXPECT_EQ(timed[0].process, 0u);  // process 7, first seen
  EXPECT_EQ(timed[1].process, 1u);  // 40
  EXPECT_EQ(timed[2].process, 2u);  // 9
  EXPECT_EQ(timed[3].process, 0u);
  EXPECT_EQ(timed[1].invoke, 4u);
  EXPECT_EQ(timed[1].response, 6u);
  EXPECT_EQ(timed[2].response, TimedOp::kPending);
}

TEST(HistorySearchParts, TheBlockingOperationIsTheWitnesssLastToReturnOrTheFirstUnplacedToReturn) {
  const std::vector<TimedOp> timed{{0, 0, 5}, {1, 1, 9}, {2, 2, TimedOp::kPending}, {0, 6, 7}};
  EXPECT_EQ(stuck_in_witness({0, 2, 3}, timed), std::optional<std::size_t>{3});
  EXPECT_EQ(stuck_in_witness({2}, timed), std::nullopt);                    // only a pending one
  EXPECT_EQ(stuck_after_order({0}, timed), std::optional<std::size_t>{3});  // 7 before 9
  EXPECT_EQ(stuck_after_order({0, 1, 3}, timed), std::nullopt);
}

TEST(HistorySearchParts, AShortSearchAfterADecisionShowsItsOrderOnlyWhenItRanToTheEnd) {
  duet::detail::SearchBudget budget;
  EXPECT_EQ(short_search_budget(budget).max_nodes, 50'000u);
  budget.max_nodes = 10;
  EXPECT_EQ(short_search_budget(budget).max_nodes, 10u);

  auto decided = [] {
    PartOutcome out;
    out.search.verdict = SearchVerdict::violation;
    out.search.nodes = 7;
    out.search.witness = {1, 2};
    return out;
  };
  duet::detail::SearchResult searched;
  searched.verdict = SearchVerdict::violation;
  searched.nodes = 5;
  searched.order = {0, 3};
  PartOutcome found = decided();
  take_short_search(searched, found);
  EXPECT_TRUE(found.partial_known);
  EXPECT_EQ(found.search.order, (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(found.search.witness, (std::vector<std::size_t>{1, 2}));  // the decision's, kept
  EXPECT_EQ(found.search.nodes, 12u);

  searched.verdict = SearchVerdict::unknown;
  PartOutcome ran_out = decided();
  take_short_search(searched, ran_out);
  EXPECT_FALSE(ran_out.partial_known);
  EXPECT_TRUE(ran_out.search.order.empty());
  EXPECT_EQ(ran_out.search.verdict, SearchVerdict::violation);
}

// A register of small integers: write v, read v.
struct RegisterOracle {
  using State = int;
  static constexpr bool memo = true;
  std::vector<std::pair<bool, int>> ops;  // (write?, value)
  State initial() const { return 0; }
  bool apply(State& s, std::size_t i) const {
    if (ops[i].first) s = ops[i].second;
    return ops[i].first || s == ops[i].second;
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& a, const State& b) const { return a == b; }
  std::string show(const State& s) const { return "r" + std::to_string(s); }
};

TEST(HistorySearchParts, TheDiagnosisShowsTheStatesAlongTheOrderAndWhereItIsStuck) {
  const RegisterOracle oracle{{{true, 1}, {false, 1}, {false, 2}}};
  const std::vector<TimedOp> timed{{0, 0, 1}, {1, 2, 3}, {0, 4, 5}};
  const std::vector<std::size_t> part{10, 11, 12};
  PartOutcome ok;
  ok.search.verdict = SearchVerdict::ok;
  ok.search.order = {0, 1};
  diagnose_part(timed, part, oracle, true, ok);
  EXPECT_EQ(ok.states, (std::vector<std::string>{"r1", "r1"}));
  EXPECT_FALSE(ok.stuck.has_value());

  PartOutcome searched;
  searched.search.verdict = SearchVerdict::violation;
  searched.search.order = {0, 1};
  diagnose_part(timed, part, oracle, false, searched);
  EXPECT_TRUE(searched.states.empty());
  EXPECT_EQ(searched.stuck, std::optional<std::size_t>{12});  // in the history's indices
  EXPECT_EQ(searched.stuck_state, "r1");

  PartOutcome decided;
  decided.search.verdict = SearchVerdict::violation;
  decided.search.witness = {0, 2};
  decided.partial_known = false;
  diagnose_part(timed, part, oracle, false, decided);
  EXPECT_EQ(decided.stuck, std::optional<std::size_t>{12});
  EXPECT_TRUE(decided.stuck_state.empty());  // no partial order to show a state of
}

}  // namespace
