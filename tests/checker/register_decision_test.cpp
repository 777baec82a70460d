// The unique-value register's decision (src/check/register_decision.cpp), and the kv keys that
// translate onto it, against the search:
// on random small register histories with unique values (reads, writes, cas that succeed and
// fail, pending and failed operations, some results corrupted), whenever the decision speaks it
// must agree with the search; its witness of a violation must have no linearization on its own;
// and on the family histories at many clients, where the search alone runs out of time, it
// decides both verdicts.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "check/model.hpp"
#include "support/decision_cases.hpp"
#include "support/history_families.hpp"

namespace {

using duet::detail::SearchVerdict;
using duet::detail::TimedOp;
using duet::history::detail::Mode;
using duet::history::detail::RegisterOp;

struct Oracle {  // the register for the search, from the same step function
  using State = std::uint32_t;
  static constexpr bool memo = true;
  const std::vector<RegisterOp>* ops;
  std::uint32_t start = 0;
  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const { return duet::history::detail::register_apply((*ops)[i], s); }
  std::uint64_t hash(const State& s) const { return s; }
  bool equal(const State& a, const State& b) const { return a == b; }
};

struct Case {
  std::vector<RegisterOp> ops;
  std::vector<TimedOp> timed;
  std::uint32_t start = 0;
};

// A real execution on a register (each operation takes effect at a random point of its
// interval), values unique; then, sometimes, one result changed.
Case random_case(std::mt19937_64& rng, int n, int processes) {
  std::vector<std::size_t> by_point;
  const std::vector<duet_test::PlannedCall> plan = duet_test::random_execution(rng, n, processes, by_point);
  Case c;
  c.start = rng() % 2 == 0 ? 0u : 1000u;  // nil, or a value of its own
  c.ops.resize(plan.size());
  c.timed.resize(plan.size());
  std::uint32_t reg = c.start, next_value = 1;
  std::vector<std::uint32_t> seen;  // values written so far, for cas that fail
  for (std::size_t i : by_point) {
    RegisterOp& op = c.ops[i];
    const auto r = rng() % 100;
    if (r < 40) {
      op = {RegisterOp::read, Mode::ok, reg};
    } else if (r < 70) {
      op = {RegisterOp::write, Mode::ok, next_value++};
      reg = op.a;
    } else if (r < 85) {
      op = {RegisterOp::cas, Mode::ok, reg, next_value++};
      reg = op.b;
    } else {
      std::uint32_t expected = seen.empty() || rng() % 4 == 0 ? 999u : seen[rng() % seen.size()];
      if (expected == reg) expected = 998u;
      op = {RegisterOp::cas, Mode::fail, expected, next_value++};
    }
    seen.push_back(reg);
    c.timed[i] = {plan[i].process, plan[i].invoke, plan[i].response};
  }
  // Outcomes the recorder did not see: a pending operation (it took effect, as planned, or a
  // write that never did), a failed write (it did not happen: make it the last write of a
  // value nobody reads).
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const auto r = rng() % 100;
    if (r < 6) {
      c.timed[i].response = TimedOp::kPending;
      c.ops[i].mode = Mode::pending;
    } else if (r < 8 && c.ops[i].kind == RegisterOp::read) {
      c.ops[i].mode = Mode::unknown_result;
    }
  }
  if (rng() % 2 == 0) {  // corrupt one result
    RegisterOp& op = c.ops[rng() % c.ops.size()];
    if (op.kind == RegisterOp::read) op.a = static_cast<std::uint32_t>(rng() % next_value);
    else if (op.kind == RegisterOp::cas) op.a = static_cast<std::uint32_t>(rng() % next_value);
  }
  return c;
}

SearchVerdict search(const Case& c, const std::vector<std::size_t>& only = {}) {
  Oracle oracle{&c.ops, c.start};
  if (only.empty()) return duet::detail::linearize(c.timed, oracle, duet::detail::Consistency::linearizable).verdict;
  Case sub;
  sub.start = c.start;
  for (std::size_t i : only) {
    sub.ops.push_back(c.ops[i]);
    sub.timed.push_back(c.timed[i]);
  }
  Oracle sub_oracle{&sub.ops, sub.start};
  return duet::detail::linearize(sub.timed, sub_oracle, duet::detail::Consistency::linearizable).verdict;
}

TEST(RegisterDecision, AgreesWithTheSearchOnRandomHistories) {
  std::mt19937_64 rng(20261125);
  int decided = 0, violations = 0, witnesses_checked = 0;
  const int rounds = std::getenv("DUET_SOAK") != nullptr ? 200'000 : 4000;  // make soak: 50 times more
  for (int round = 0; round < rounds; ++round) {
    const Case c = random_case(rng, 4 + static_cast<int>(rng() % 22), 2 + static_cast<int>(rng() % 4));
    const std::optional<duet::detail::SearchResult> d =
        duet::history::detail::decide_unique_register(c.ops, c.timed, c.start);
    const SearchVerdict expected = search(c);
    ASSERT_NE(expected, SearchVerdict::unknown);
    if (!d) continue;
    ++decided;
    ASSERT_EQ(d->verdict, expected) << "round " << round;
    if (d->verdict == SearchVerdict::violation) {
      ++violations;
      ASSERT_FALSE(d->witness.empty()) << "round " << round;
      EXPECT_EQ(search(c, d->witness), SearchVerdict::violation)
          << "round " << round << ": the witness alone is linearizable";
      ++witnesses_checked;
    }
  }
  // The decision must speak on most of these (values are unique), both ways.
  EXPECT_GT(decided, rounds * 3 / 4);
  EXPECT_GT(violations, rounds / 8);
  EXPECT_EQ(witnesses_checked, violations);
}

TEST(RegisterDecision, StaysOutOfHistoriesWithRepeatedValues) {
  std::vector<RegisterOp> ops{
      {RegisterOp::write, Mode::ok, 1}, {RegisterOp::write, Mode::ok, 1}, {RegisterOp::read, Mode::ok, 1}};
  std::vector<TimedOp> timed{{0, 0, 2}, {1, 1, 3}, {2, 4, 5}};
  EXPECT_FALSE(duet::history::detail::decide_unique_register(ops, timed, 0).has_value());
}

// The acceptance figure: single-register histories at 80 clients x 100 operations, both
// verdicts, unpartitioned (a register cannot be partitioned), well inside 10 s each.
TEST(RegisterDecision, DecidesEightyClientHistories) {
  using duet_test::Bug;
  // (A lost write cannot be planted where it certainly shows at 80 clients: some other write
  // always lands before a later read.)
  for (Bug bug : {Bug::none, Bug::stale_read}) {
    const duet_test::Family f{.object = duet_test::Object::cas_register, .clients = 80, .ops_per_client = 100, .bug = bug};
    const duet::history::History h = duet_test::generate(f);
    duet::history::CheckOptions options;
    options.timeout_seconds = 10;
    const duet::history::CheckReport r = duet::history::check_history(h, options);
    EXPECT_EQ(r.verdict, bug == Bug::none ? duet::history::Verdict::linearizable : duet::history::Verdict::not_linearizable)
        << duet_test::bug_name(bug) << ": " << r.explanation;
  }
}

// A violation in a long history is shown by a handful of operations that are not linearizable
// on their own: checked by checking them again as a history of their own.
TEST(RegisterDecision, ViolationsComeWithASmallWitness) {
  for (std::size_t clients : {20u, 80u})
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const duet_test::Family f{.object = duet_test::Object::cas_register,
                                .clients = clients,
                                .ops_per_client = 100,
                                .seed = seed,
                                .bug = duet_test::Bug::stale_read};
      const duet::history::History h = duet_test::generate(f);
      const duet::history::CheckReport r = duet::history::check_history(h);
      ASSERT_EQ(r.verdict, duet::history::Verdict::not_linearizable) << h.source;
      ASSERT_FALSE(r.witness.empty()) << h.source;
      EXPECT_LE(r.witness.size(), 20u) << h.source;
      EXPECT_NE(r.explanation.find("operations alone have no linearization"), std::string::npos) << r.explanation;
      // The short search for a partial linearization cannot finish here: none is claimed.
      EXPECT_FALSE(r.partial_linearization);
      EXPECT_TRUE(r.order.empty());
      EXPECT_EQ(r.explanation.find("longest partial linearization"), std::string::npos) << r.explanation;
      ASSERT_TRUE(r.stuck.has_value());
      EXPECT_NE(std::find(r.witness.begin(), r.witness.end(), *r.stuck), r.witness.end());
      const duet::history::History window = duet_test::sub_history(h, r.witness);
      EXPECT_EQ(duet::history::check_history(window).verdict, duet::history::Verdict::not_linearizable) << h.source;
    }
}

// On a small history the short search runs to its end: the report has both the longest partial
// linearization (with the state where it is stuck) and the witness.
TEST(RegisterDecision, SmallViolationsKeepTheirPartialLinearization) {
  const duet_test::Family f{
      .object = duet_test::Object::cas_register, .clients = 5, .ops_per_client = 40, .bug = duet_test::Bug::stale_read};
  const duet::history::CheckReport r = duet::history::check_history(duet_test::generate(f));
  ASSERT_EQ(r.verdict, duet::history::Verdict::not_linearizable);
  EXPECT_TRUE(r.partial_linearization);
  EXPECT_FALSE(r.stuck_state.empty());
  EXPECT_FALSE(r.witness.empty());
  EXPECT_NE(r.explanation.find("after the longest partial linearization found"), std::string::npos) << r.explanation;
}

// kv keys translate onto the register's decision (models_register_kv.cpp, KvOracle::decide): 80
// clients over 10 keys, partitioned, every verdict, with a witness that is not linearizable on its
// own.
TEST(RegisterDecision, DecidesEightyClientKvHistoriesPerKey) {
  using duet_test::Bug;
  for (Bug bug : {Bug::none, Bug::stale_read, Bug::lost_write}) {
    const duet_test::Family f{.object = duet_test::Object::kv, .clients = 80, .ops_per_client = 100, .bug = bug};
    const duet::history::History h = duet_test::generate(f);
    duet::history::CheckOptions options;
    options.timeout_seconds = 10;
    const duet::history::CheckReport r = duet::history::check_history(h, options);
    ASSERT_EQ(r.verdict, bug == Bug::none ? duet::history::Verdict::linearizable : duet::history::Verdict::not_linearizable)
        << duet_test::bug_name(bug) << ": " << r.explanation;
    if (bug == Bug::none) continue;
    ASSERT_FALSE(r.witness.empty());
    EXPECT_LE(r.witness.size(), 20u);
    const duet::history::History window = duet_test::sub_history(h, r.witness);
    EXPECT_EQ(duet::history::check_history(window).verdict, duet::history::Verdict::not_linearizable)
        << duet_test::bug_name(bug);
  }
}

}  // namespace
