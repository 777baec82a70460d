// The failing window (src/check/window.cpp): a violation only the search found is shrunk by
// relaxations alone (the end cut, read-only operations dropped) to operations that on their own
// still have no linearization, re-checked. Checked on registers with repeated values (no
// decision applies), a counter, and a user's model; the window must be small where the
// violation is local, always fail on its own, and have the shape of a relaxation.
#include <gtest/gtest.h>

#include <algorithm>
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

// A register as a user would write it: no decision, only the search (and the read-only hint).
struct PlainRegister {
  using State = std::int64_t;  // -1: nil
  State init() const { return -1; }
  static std::int64_t v(const Value& x) { return x.is_nil() ? -1 : x.number; }
  bool step(State& s, const Operation& op) const {
    if (op.f == "read") return op.outcome != Outcome::ok || s == v(op.output);
    if (op.f == "write") {
      if (op.outcome != Outcome::fail) s = v(op.input);
      return true;
    }
    const std::int64_t a = v(op.input.items.at(0)), b = v(op.input.items.at(1));
    if (op.outcome == Outcome::fail) return s != a;
    if (op.outcome == Outcome::ok && s != a) return false;
    if (s == a) s = b;
    return true;
  }
  bool read_only(const Operation& op) const { return op.f == "read" || op.outcome == Outcome::fail; }
};

const duet::history::Models& models() {
  static const duet::history::Models m = [] {
    duet::history::Models ms;
    ms.add("plain-register", "a register with no decision", PlainRegister{});
    return ms;
  }();
  return m;
}

CheckReport check(const History& h, const std::string& model, bool window = true) {
  CheckOptions options;
  options.model = model;
  options.models = &models();
  options.timeout_seconds = 60;
  options.failing_window = window;
  return duet::history::check_history(h, options);
}

bool read_only(const Operation& op) { return op.f == "read" || op.outcome == Outcome::fail; }

// The window is a relaxation of the history: for some time t, it holds every operation invoked
// by t except read-only ones, nothing invoked later, and takes as never returned exactly those
// completed operations still running at t.
void expect_relaxation_shape(const History& h, const CheckReport& r, const std::string& what) {
  std::vector<bool> in(h.ops.size(), false), open(h.ops.size(), false);
  for (std::size_t i : r.witness) in.at(i) = true;
  for (std::size_t i : r.witness_open) {
    ASSERT_TRUE(in.at(i)) << what << ": an open operation outside the window";
    ASSERT_NE(h.ops[i].outcome, Outcome::info) << what << ": only completed operations are opened";
    open[i] = true;
  }
  std::uint64_t t = 0, first_open = Operation::kPending;
  for (std::size_t i : r.witness) {
    t = std::max(t, h.ops[i].invoke);
    if (open[i]) first_open = std::min(first_open, h.ops[i].response);
    else if (h.ops[i].outcome != Outcome::info) t = std::max(t, h.ops[i].response);
  }
  EXPECT_LT(t, first_open) << what << ": an open operation returned before a kept one";
  for (std::size_t i = 0; i < h.ops.size(); ++i)
    if (!in[i] && h.ops[i].invoke <= t) EXPECT_TRUE(read_only(h.ops[i])) << what << ": dropped #" << i << " " << describe(h.ops[i]);
}

// A correct register history with values 0..4 (the decision does not apply), with one read at
// `at` (an index into ops) changed to a value no write before it wrote: a local violation.
History register_with_bad_read(std::size_t clients, std::size_t at, std::uint64_t seed) {
  const duet_test::Family f{.object = duet_test::Object::cas_register, .clients = clients, .ops_per_client = 200, .seed = seed, .values = 5};
  History h = duet_test::generate(f);
  for (std::size_t i = at; i < h.ops.size(); ++i) {
    Operation& op = h.ops[i];
    if (op.f != "read" || op.outcome != Outcome::ok) continue;
    op.output = Value::integer(77);  // never written
    return h;
  }
  return h;
}

TEST(FailingWindow, TwoThousandOperationsShrinkToALocalWindow) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const History h = register_with_bad_read(10, 12, seed);
    ASSERT_EQ(h.ops.size(), 2000u);
    for (const std::string model : {"cas-register", "plain-register"}) {
      const std::string what = model + " seed " + std::to_string(seed);
      const CheckReport r = check(h, model);
      ASSERT_EQ(r.verdict, Verdict::not_linearizable) << what << ": " << r.explanation;
      ASSERT_TRUE(r.partial_linearization) << what << ": the search, not a decision, found it";
      ASSERT_FALSE(r.witness.empty()) << what << ": " << r.explanation;
      EXPECT_LE(r.witness.size(), 20u) << what << ": " << r.explanation;
      std::printf("%s: window of %zu (%zu open)\n", what.c_str(), r.witness.size(), r.witness_open.size());
      expect_relaxation_shape(h, r, what);
      EXPECT_EQ(check(duet_test::window_of(h, r), model).verdict, Verdict::not_linearizable) << what;
      EXPECT_NE(r.explanation.find("The failing window: these " + std::to_string(r.witness.size()) + " operations"), std::string::npos)
          << r.explanation;
    }
  }
}

// Far from the start the window keeps what the state there depends on (the writes before it),
// but still drops every read but the one that fails and cuts the end.
TEST(FailingWindow, LateViolationKeepsWritesDropsReads) {
  const History h = register_with_bad_read(10, 1500, 4);
  const CheckReport r = check(h, "plain-register");
  ASSERT_EQ(r.verdict, Verdict::not_linearizable) << r.explanation;
  ASSERT_FALSE(r.witness.empty());
  EXPECT_LT(r.witness.size(), h.ops.size() * 3 / 4);
  std::size_t reads = 0;
  for (std::size_t i : r.witness) reads += h.ops[i].f == "read";
  EXPECT_LE(reads, 3u) << r.explanation;
  expect_relaxation_shape(h, r, "late");
  EXPECT_EQ(check(duet_test::window_of(h, r), "plain-register").verdict, Verdict::not_linearizable);
}

// Random small histories of registers and counters, correct or with a corrupted result: every
// window fails on its own and has a relaxation's shape; a linearizable history has none.
TEST(FailingWindow, RandomHistoriesWindowsFailAlone) {
  std::mt19937_64 rng(20261125);
  int windows = 0, violations = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<std::size_t> by_point;
    const int n = 6 + static_cast<int>(rng() % 14);
    const std::vector<duet_test::PlannedCall> plan = duet_test::random_execution(rng, n, 2 + static_cast<int>(rng() % 3), by_point);
    const bool counter = trial % 2 == 1;
    History h;
    h.ops.resize(plan.size());
    std::int64_t state = counter ? 0 : -1;
    for (std::size_t k : by_point) {  // apply in point order: a correct history
      Operation& op = h.ops[k];
      op.process = plan[k].process;
      op.invoke = plan[k].invoke;
      op.response = plan[k].response;
      const std::uint64_t dice = rng() % 10;
      if (counter) {
        if (dice < 5) op.f = "inc", ++state;
        else op.f = "read", op.output = Value::integer(state);
      } else if (dice < 4) {
        op.f = "write", state = static_cast<std::int64_t>(rng() % 3), op.input = Value::integer(state);
      } else if (dice < 6) {
        const std::int64_t a = static_cast<std::int64_t>(rng() % 3), b = static_cast<std::int64_t>(rng() % 3);
        op.f = "cas", op.input = Value::vector({Value::integer(a), Value::integer(b)});
        if (state == a) state = b;
        else op.outcome = Outcome::fail;
      } else {
        op.f = "read", op.output = state < 0 ? Value::nil() : Value::integer(state);
      }
      if (rng() % 12 == 0) op.outcome = Outcome::info, op.output = Value::nil(), op.response = Operation::kPending;
    }
    std::sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
    if (trial % 3 != 0)  // corrupt one read
      for (Operation& op : h.ops)
        if (op.f == "read" && op.outcome == Outcome::ok && rng() % 3 == 0) {
          op.output = Value::integer(static_cast<std::int64_t>(rng() % 4));
          break;
        }
    const std::string model = counter ? "counter" : "plain-register";
    const CheckReport r = check(h, model);
    ASSERT_NE(r.verdict, Verdict::unknown);
    if (r.verdict == Verdict::linearizable) {
      EXPECT_TRUE(r.witness.empty());
      continue;
    }
    ++violations;
    if (r.witness.empty()) continue;  // nothing smaller than the history
    ++windows;
    const std::string what = "trial " + std::to_string(trial) + "\n" + duet::history::write_duet_history(h);
    expect_relaxation_shape(h, r, what);
    ASSERT_EQ(check(duet_test::window_of(h, r), model).verdict, Verdict::not_linearizable) << what;
    // Without the window the report is the search's alone.
    EXPECT_TRUE(check(h, model, false).witness.empty());
  }
  std::printf("%d violations, %d with a window\n", violations, windows);
  EXPECT_GT(violations, 100);
  EXPECT_GT(windows, violations / 2);
}

}  // namespace
