// The unique-value queue's decision (src/check/queue_decision.cpp) against the search: on random
// small queue histories (values unique; empty dequeues; pending enqueues; failed operations;
// some results corrupted) and on small members of the queue family, whenever the decision
// speaks it must agree with the search, and its witness of a violation must have no
// linearization on its own; at many clients, where the search alone runs out of time, it decides.
#include <gtest/gtest.h>

#include <cstdlib>
#include <deque>
#include <random>

#include "check/model.hpp"
#include "support/decision_cases.hpp"
#include "support/history_families.hpp"

namespace {

using duet::detail::SearchVerdict;
using duet::detail::TimedOp;
using duet::history::detail::Mode;
using duet::history::detail::QueueOp;

struct Oracle {  // the queue for the search, from the same step function
  using State = std::vector<std::uint32_t>;
  static constexpr bool memo = true;
  const std::vector<QueueOp>* ops;
  State initial() const { return {}; }
  bool apply(State& s, std::size_t i) const { return duet::history::detail::queue_apply((*ops)[i], s); }
  std::uint64_t hash(const State& s) const {
    std::uint64_t h = s.size();
    for (std::uint32_t v : s) h = h * 0x9e3779b97f4a7c15ULL + v;
    return h;
  }
  bool equal(const State& a, const State& b) const { return a == b; }
};

struct Case {
  std::vector<QueueOp> ops;
  std::vector<TimedOp> timed;
};

Case random_case(std::mt19937_64& rng, int n, int processes) {
  std::vector<std::size_t> by_point;
  const std::vector<duet_test::PlannedCall> plan = duet_test::random_execution(rng, n, processes, by_point);
  Case c;
  c.ops.resize(plan.size());
  c.timed.resize(plan.size());
  std::deque<std::uint32_t> queue;
  std::uint32_t next_value = 1;
  for (std::size_t i : by_point) {
    if (rng() % 2 == 0) {
      c.ops[i] = {true, Mode::ok, next_value};
      queue.push_back(next_value++);
    } else if (queue.empty()) {
      c.ops[i] = {false, Mode::ok, 0};
    } else {
      c.ops[i] = {false, Mode::ok, queue.front()};
      queue.pop_front();
    }
    c.timed[i] = {plan[i].process, plan[i].invoke, plan[i].response};
  }
  for (std::size_t i = 0; i < c.ops.size(); ++i) {
    const auto r = rng() % 100;
    if (r < 6 && c.ops[i].enqueue) {  // pending: it took effect (as planned)
      c.timed[i].response = TimedOp::kPending;
      c.ops[i].mode = Mode::pending;
    } else if (r < 9) {  // failed: did not happen (a failed enqueue's value then never leaves)
      c.ops[i].mode = Mode::fail;
    }
  }
  if (rng() % 2 == 0) {  // corrupt one dequeue's result
    QueueOp& op = c.ops[rng() % c.ops.size()];
    if (!op.enqueue) op.value = static_cast<std::uint32_t>(rng() % next_value);
  }
  return c;
}

SearchVerdict search(const Case& c, const std::vector<std::size_t>& only = {}) {
  if (only.empty()) return duet::detail::linearize(c.timed, Oracle{&c.ops}, duet::detail::Consistency::linearizable).verdict;
  Case sub;
  for (std::size_t i : only) {
    sub.ops.push_back(c.ops[i]);
    sub.timed.push_back(c.timed[i]);
  }
  return duet::detail::linearize(sub.timed, Oracle{&sub.ops}, duet::detail::Consistency::linearizable).verdict;
}

void agree(const Case& c, const std::string& what, int& decided, int& violations) {
  const std::optional<duet::detail::SearchResult> d = duet::history::detail::decide_unique_queue(c.ops, c.timed);
  const SearchVerdict expected = search(c);
  ASSERT_NE(expected, SearchVerdict::unknown) << what;
  if (!d) return;
  ++decided;
  ASSERT_EQ(d->verdict, expected) << what;
  if (d->verdict == SearchVerdict::violation) {
    ++violations;
    ASSERT_FALSE(d->witness.empty()) << what;
    EXPECT_EQ(search(c, d->witness), SearchVerdict::violation) << what << ": the witness alone is linearizable";
  }
}

TEST(QueueDecision, AgreesWithTheSearchOnRandomHistories) {
  std::mt19937_64 rng(20261125);
  int decided = 0, violations = 0;
  const int rounds = std::getenv("DUET_SOAK") != nullptr ? 200'000 : 4000;  // make soak: 50 times more
  for (int round = 0; round < rounds; ++round) {
    const Case c = random_case(rng, 4 + static_cast<int>(rng() % 20), 2 + static_cast<int>(rng() % 4));
    agree(c, "round " + std::to_string(round), decided, violations);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(decided, rounds * 3 / 4);
  EXPECT_GT(violations, rounds / 10);
}

// Small members of the family, where the search decides too.
TEST(QueueDecision, AgreesWithTheSearchOnSmallFamilyHistories) {
  int decided = 0, violations = 0;
  for (duet_test::Bug bug : {duet_test::Bug::none, duet_test::Bug::stale_read, duet_test::Bug::lost_write})
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const duet_test::Family f{
          .object = duet_test::Object::queue, .clients = 4, .ops_per_client = 6, .seed = seed, .bug = bug};
      duet::history::History h;
      try {
        h = duet_test::generate(f);
      } catch (const std::runtime_error&) {
        continue;  // no place for the bug in so short a run
      }
      Case c;
      std::unordered_map<std::string, std::uint32_t> ids;
      for (const duet::history::Operation& op : h.ops) {
        const bool enqueue = op.f == "enqueue";
        const duet::history::Value& v = enqueue ? op.input : op.output;
        const std::uint32_t id =
            v.is_nil() ? 0 : ids.try_emplace(v.to_string(), static_cast<std::uint32_t>(ids.size() + 1)).first->second;
        c.ops.push_back({enqueue, Mode::ok, id});
        c.timed.push_back({static_cast<std::uint32_t>(op.process), op.invoke, op.response});
      }
      agree(c, h.source, decided, violations);
      if (HasFatalFailure()) return;
    }
  EXPECT_GT(decided, 30);
}

// The family at many clients, where the search alone runs out of time at 10 clients already:
// both verdicts, unpartitioned (a queue cannot be partitioned), with a small witness. (Only lost
// enqueues are planted: a dequeue that passes over an element certainly shows only when the
// element leaves after that dequeue returned, which never happens at these sizes.)
TEST(QueueDecision, DecidesEightyClientHistories) {
  for (duet_test::Bug bug : {duet_test::Bug::none, duet_test::Bug::lost_write}) {
    const duet_test::Family f{.object = duet_test::Object::queue, .clients = 80, .ops_per_client = 100, .bug = bug};
    const duet::history::History h = duet_test::generate(f);
    duet::history::CheckOptions options;
    options.timeout_seconds = 10;
    const duet::history::CheckReport r = duet::history::check_history(h, options);
    ASSERT_EQ(r.verdict,
              bug == duet_test::Bug::none ? duet::history::Verdict::linearizable : duet::history::Verdict::not_linearizable)
        << duet_test::bug_name(bug) << ": " << r.explanation;
    if (bug == duet_test::Bug::none) continue;
    ASSERT_FALSE(r.witness.empty());
    EXPECT_LE(r.witness.size(), 20u);
    const duet::history::History window = duet_test::sub_history(h, r.witness);
    EXPECT_EQ(duet::history::check_history(window).verdict, duet::history::Verdict::not_linearizable);
  }
}

}  // namespace
