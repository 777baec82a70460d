// The grow-only set's decision (src/check/set_decision.cpp) against the search: on random small
// set histories (elements added once; reads of the whole set; failed and pending adds; pending
// reads; some reads corrupted) the set model, which decides them, must agree with a set model
// that only searches, and its witness of a violation must have no linearization on its own; on
// the set family, where the search alone runs out at 20 clients, it decides.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include <duet/history.hpp>
#include <duet/history_model.hpp>

#include "support/decision_cases.hpp"
#include "support/history_families.hpp"

namespace {

using duet::history::CheckOptions;
using duet::history::CheckReport;
using duet::history::History;
using duet::history::Operation;
using duet::history::Outcome;
using duet::history::Value;
using duet::history::Verdict;

// The same set for the search alone (no decision).
struct SearchedSet {
  using State = std::vector<std::int64_t>;  // sorted
  State init() const { return {}; }
  bool step(State& s, const Operation& op) const {
    if (op.f == "add") {
      if (op.outcome == Outcome::fail) return true;
      auto it = std::lower_bound(s.begin(), s.end(), op.input.number);
      if (it == s.end() || *it != op.input.number) s.insert(it, op.input.number);
      return true;
    }
    if (op.outcome != Outcome::ok) return true;
    State seen;
    for (const Value& v : op.output.items) seen.push_back(v.number);
    std::sort(seen.begin(), seen.end());
    seen.erase(std::unique(seen.begin(), seen.end()), seen.end());  // as duet's set reads them
    return seen == s;
  }
  bool read_only(const Operation& op) const { return op.f == "read" || op.outcome == Outcome::fail; }
};

const duet::history::Models& models() {
  static const duet::history::Models m = [] {
    duet::history::Models ms;
    ms.add("searched-set", "a set with no decision", SearchedSet{});
    return ms;
  }();
  return m;
}

CheckReport check(const History& h, const std::string& model) {
  CheckOptions options;
  options.model = model;
  options.models = &models();
  options.timeout_seconds = 60;
  return duet::history::check_history(h, options);
}

Value contents(const std::vector<std::int64_t>& s) {
  std::vector<Value> items;
  for (std::int64_t x : s) items.push_back(Value::integer(x));
  return Value::vector(std::move(items));
}

History random_set_history(std::mt19937_64& rng, int n, int processes, bool corrupt) {
  std::vector<std::size_t> by_point;
  const std::vector<duet_test::PlannedCall> plan = duet_test::random_execution(rng, n, processes, by_point);
  History h;
  h.default_model = "set";
  h.ops.resize(plan.size());
  std::vector<std::int64_t> set;
  std::int64_t next = 1;
  for (std::size_t k : by_point) {
    Operation& op = h.ops[k];
    op.process = plan[k].process;
    op.invoke = plan[k].invoke;
    op.response = plan[k].response;
    if (rng() % 10 < 6) {
      op.f = "add";
      op.input = Value::integer(next++);
      const std::uint64_t dice = rng() % 12;
      if (dice == 0) {
        op.outcome = Outcome::fail;  // completed without effect
      } else {
        if (dice == 1) op.outcome = Outcome::info, op.response = Operation::kPending;
        if (dice != 2) set.insert(std::lower_bound(set.begin(), set.end(), op.input.number), op.input.number);
        // dice 2: a pending add that never took effect
        if (dice == 2) op.outcome = Outcome::info, op.response = Operation::kPending;
      }
    } else {
      op.f = "read";
      op.output = contents(set);
      if (rng() % 10 == 0) op.outcome = Outcome::info, op.output = Value::nil(), op.response = Operation::kPending;
    }
  }
  std::sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
  if (corrupt)
    for (Operation& op : h.ops) {
      if (op.f != "read" || op.outcome != Outcome::ok || rng() % 3 != 0) continue;
      std::vector<Value>& items = op.output.items;
      const std::uint64_t how = rng() % 3;
      if (how == 0 && !items.empty()) items.erase(items.begin() + static_cast<std::ptrdiff_t>(rng() % items.size()));
      else if (how == 1)
        items.push_back(Value::integer(static_cast<std::int64_t>(1 + rng() % static_cast<std::uint64_t>(next))));
      else std::reverse(items.begin(), items.end());  // the same set: still right
      break;
    }
  return h;
}

TEST(SetDecision, AgreesWithTheSearchAndItsWitnessFailsAlone) {
  std::mt19937_64 rng(99);
  const int rounds = std::getenv("DUET_SOAK") ? 200000 : 4000;
  int violations = 0, linearizable = 0, witnessed = 0;
  for (int round = 0; round < rounds; ++round) {
    const History h =
        random_set_history(rng, 3 + static_cast<int>(rng() % 14), 2 + static_cast<int>(rng() % 3), round % 2 == 1);
    const CheckReport decided = check(h, "set");
    const CheckReport searched = check(h, "searched-set");
    ASSERT_NE(searched.verdict, Verdict::unknown);
    ASSERT_EQ(decided.verdict, searched.verdict) << "round " << round << "\n" << duet::history::write_duet_history(h);
    if (decided.verdict == Verdict::linearizable) {
      ++linearizable;
      continue;
    }
    ++violations;
    // The decision's witness (a failing window of the search's would be cut or open).
    if (decided.witness.empty() || !decided.witness_open.empty() || !decided.witness_start.empty()) continue;
    ++witnessed;
    EXPECT_EQ(check(duet_test::sub_history(h, decided.witness), "searched-set").verdict, Verdict::not_linearizable)
        << "round " << round << ": the witness alone is linearizable\n"
        << duet::history::write_duet_history(h);
  }
  std::printf("%d linearizable, %d violations (%d with a decision's witness)\n", linearizable, violations, witnessed);
  EXPECT_GT(linearizable, rounds / 4);
  EXPECT_GT(violations, rounds / 10);
  EXPECT_GT(witnessed, violations / 2);
}

// Removes and contains are the search's: the decision keeps out, and the verdicts still hold.
TEST(SetDecision, RemovesAndContainsGoToTheSearch) {
  History h;
  h.default_model = "set";
  auto add = [&](std::int64_t p, std::uint64_t t0, std::uint64_t t1, const char* f, Value in, Value out = Value::nil()) {
    Operation op;
    op.process = p, op.invoke = t0, op.response = t1, op.f = f, op.input = std::move(in), op.output = std::move(out);
    h.ops.push_back(op);
  };
  add(0, 1, 2, "add", Value::integer(1));
  add(1, 3, 4, "remove", Value::integer(1));
  add(0, 5, 6, "contains", Value::integer(1), Value::boolean(false));
  add(1, 7, 8, "read", Value::nil(), contents({}));
  EXPECT_EQ(duet::history::check_history(h).verdict, Verdict::linearizable);
  h.ops[2].output = Value::boolean(true);
  const CheckReport r = duet::history::check_history(h);
  EXPECT_EQ(r.verdict, Verdict::not_linearizable);
  EXPECT_TRUE(r.partial_linearization) << "the search's report";
}

// The family, where the search alone is unknown from 20 clients on (20 s): decided, both
// verdicts, with a witness made of the reads that disagree and the adds of what they returned.
TEST(SetDecision, DecidesFortyClientHistories) {
  for (duet_test::Bug bug : {duet_test::Bug::none, duet_test::Bug::stale_read, duet_test::Bug::lost_write}) {
    const duet_test::Family f{.object = duet_test::Object::set, .clients = 40, .ops_per_client = 100, .bug = bug};
    const History h = duet_test::generate(f);
    CheckOptions options;
    options.timeout_seconds = 10;
    const CheckReport r = duet::history::check_history(h, options);
    ASSERT_EQ(r.verdict, bug == duet_test::Bug::none ? Verdict::linearizable : Verdict::not_linearizable)
        << duet_test::bug_name(bug) << ": " << r.explanation.substr(0, 2000);
    if (bug == duet_test::Bug::none) continue;
    ASSERT_FALSE(r.witness.empty());
    EXPECT_LT(r.witness.size(), h.ops.size());
    // (Re-checked by the decision: the search alone cannot take thousands of concurrent adds.)
    EXPECT_EQ(check(duet_test::sub_history(h, r.witness), "set").verdict, Verdict::not_linearizable)
        << duet_test::bug_name(bug);
  }
}

}  // namespace
