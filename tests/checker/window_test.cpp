// The failing window (duet/detail/history_window.hpp): a violation only the search found is
// shrunk by relaxations alone (the end and the front cut, read-only operations dropped) to
// operations that on their own still have no linearization. Checked on registers with repeated
// values (no decision applies), a counter, and a user's model: the window must be small where
// the violation is, fail when re-checked from each state it may start in (with each of its
// open operations taking effect or not), and have the shape of a relaxation.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <random>

#include <duet/history.hpp>
#include <duet/detail/history_window.hpp>
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
  State init(const std::optional<Value>& v) const { return v && !v->is_nil() ? v->number : -1; }
  std::string show(const State& s) const { return s < 0 ? "nil" : std::to_string(s); }
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

CheckReport check(const History& h, const std::string& model, bool window = true, std::optional<Value> init = std::nullopt) {
  CheckOptions options;
  options.init = std::move(init);
  options.model = model;
  options.models = &models();
  options.timeout_seconds = 60;
  options.failing_window = window;
  return duet::history::check_history(h, options);
}

bool read_only(const Operation& op) { return op.f == "read" || op.outcome == Outcome::fail; }

// The window is a relaxation of the history: for some times t0 < t, it holds every operation
// invoked by t and not returned by t0, except read-only ones; its open operations are exactly
// those still running at t or at t0. Without a start state given, t0 is before everything.
void expect_relaxation_shape(const History& h, const CheckReport& r, const std::string& what) {
  std::vector<bool> in(h.ops.size(), false), open(h.ops.size(), false);
  for (std::size_t i : r.witness) in.at(i) = true;
  for (std::size_t i : r.witness_open) {
    ASSERT_TRUE(in.at(i)) << what << ": an open operation outside the window";
    ASSERT_NE(h.ops[i].outcome, Outcome::info) << what << ": only completed operations are opened";
    open[i] = true;
  }
  std::uint64_t t = 0;
  for (std::size_t i : r.witness) t = std::max(t, h.ops[i].invoke);
  // Some front t0 (none when no start states are given) explains what was dropped and opened.
  auto fits = [&](std::optional<std::uint64_t> t0) {
    std::uint64_t end = t;  // the end cut: at or after t, before every open operation not across the front returned
    for (std::size_t i : r.witness)
      if (!open[i] && h.ops[i].outcome != Outcome::info) end = std::max(end, h.ops[i].response);
    for (std::size_t i = 0; i < h.ops.size(); ++i) {
      const Operation& op = h.ops[i];
      const bool completed = op.outcome != Outcome::info;
      const bool before_front = t0 && completed && op.response <= *t0;
      if (!in[i]) {  // dropped: invoked after the end, returned before the front, or read-only
        if (op.invoke <= t && !before_front && !(completed && read_only(op))) return false;
        continue;
      }
      if (before_front) return false;
      if (!completed) continue;
      const bool across_front = t0 && op.invoke <= *t0;
      if (open[i] != (across_front || op.response > end)) return false;
    }
    return true;
  };
  // Or the stuck operation alone, from every state the operations that may precede it reach.
  if (r.witness.size() == 1 && r.witness_open.empty() && !r.witness_start.empty() && r.stuck == r.witness[0]) return;
  bool explained = r.witness_start.empty() && fits(std::nullopt);
  if (!r.witness_start.empty())
    for (const Operation& op : h.ops)
      if (op.outcome != Outcome::info && fits(op.response)) explained = true;
  EXPECT_TRUE(explained) << what << ": the window is not the history cut at an end"
                         << (r.witness_start.empty() ? "" : " and a front") << ", less read-only operations";
}

// Re-checks a window as check_history sees histories: from each start state (as --init), with
// each subset of its open operations taking effect with their results (kept, completed) or not
// at all (left out); every one must fail.
void expect_window_fails(const History& h, const CheckReport& r, const std::string& model, const std::string& what) {
  std::vector<std::optional<Value>> inits;
  if (r.witness_start.empty()) inits.push_back(std::nullopt);
  for (const std::string& s : r.witness_start) inits.push_back(s == "nil" ? Value::nil() : Value::integer(std::stoll(s)));
  ASSERT_LE(r.witness_open.size(), 12u) << what;
  for (const std::optional<Value>& init : inits)
    for (const std::vector<std::size_t>& kept : duet_test::witness_readings(r)) {
      const CheckReport again = check(duet_test::sub_history(h, kept), model, false, init);
      ASSERT_EQ(again.verdict, Verdict::not_linearizable)
          << what << ": the window is linearizable from " << (init ? init->to_string() : "the start") << " keeping "
          << kept.size() << " of its " << r.witness.size() << " operations";
    }
}

// A correct register history with values 0..4 (the decision does not apply), with one read at
// `at` (an index into ops) changed to a value no write before it wrote: a local violation.
History register_with_bad_read(std::size_t clients, std::size_t at, std::uint64_t seed, std::size_t ops_per_client = 200) {
  const duet_test::Family f{.object = duet_test::Object::cas_register,
                            .clients = clients,
                            .ops_per_client = ops_per_client,
                            .seed = seed,
                            .values = 5};
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
      expect_window_fails(h, r, model, what);
      // The read of a value nothing writes fails from every state: it alone is the window.
      EXPECT_EQ(r.witness.size(), 1u) << what << ": " << r.explanation;
      EXPECT_NE(r.explanation.find(
                    "The failing window: this operation alone has no linearization either, starting from any state"),
                std::string::npos)
          << r.explanation;
    }
  }
}

// A long history with one read of a value nothing writes: that read fails from every state the
// history can reach, so it alone is the window, and finding it costs little next to the search
// (it took 3 times the search and kept 3,513 operations, when each candidate window was
// searched from the start).
TEST(FailingWindow, ImpossibleReadInALongHistoryIsTheWindowAloneAndCheap) {
  const History h = register_with_bad_read(10, 10'000, 1, 2000);
  ASSERT_EQ(h.ops.size(), 20'000u);
  const auto t0 = std::chrono::steady_clock::now();
  const CheckReport plain = check(h, "cas-register", false);
  const auto t1 = std::chrono::steady_clock::now();
  const CheckReport r = check(h, "cas-register");
  const auto t2 = std::chrono::steady_clock::now();
  ASSERT_EQ(plain.verdict, Verdict::not_linearizable) << plain.explanation;
  ASSERT_EQ(r.verdict, Verdict::not_linearizable) << r.explanation;
  ASSERT_TRUE(r.stuck.has_value());
  EXPECT_EQ(h.ops[*r.stuck].output, Value::integer(77));
  EXPECT_EQ(r.witness, std::vector<std::size_t>{*r.stuck}) << r.explanation;
  EXPECT_TRUE(r.witness_is_window);
  EXPECT_EQ(r.witness_start, (std::vector<std::string>{"0", "1", "2", "3", "4", "nil"})) << r.explanation;
  expect_window_fails(h, r, "cas-register", "impossible read");
  const double search = std::chrono::duration<double>(t1 - t0).count(),
               with_window = std::chrono::duration<double>(t2 - t1).count();
  std::printf("search alone %.2f s, with the window %.2f s\n", search, with_window);
  EXPECT_LT(with_window, 1.5 * search + 0.2);
}

// Far from the start: the front is cut too, and the window starts in the states the operations
// before it can leave.
TEST(FailingWindow, LateViolationCutsTheFront) {
  for (const std::size_t at : {std::size_t{1000}, std::size_t{1500}, std::size_t{1990}}) {
    const History h = register_with_bad_read(10, at, 4);
    const std::string what = "bad read at " + std::to_string(at);
    for (const std::string model : {"cas-register", "plain-register"}) {
      const CheckReport r = check(h, model);
      ASSERT_EQ(r.verdict, Verdict::not_linearizable) << r.explanation;
      ASSERT_FALSE(r.witness.empty());
      EXPECT_LE(r.witness.size(), 20u) << what << "\n" << r.explanation;
      EXPECT_FALSE(r.witness_start.empty()) << what << "\n" << r.explanation;
      std::printf("%s, %s: window of %zu (%zu open), %zu start states\n", what.c_str(), model.c_str(), r.witness.size(),
                  r.witness_open.size(), r.witness_start.size());
      expect_relaxation_shape(h, r, what);
      expect_window_fails(h, r, model, what);
      EXPECT_NE(r.explanation.find("starting from "), std::string::npos) << r.explanation;
    }
  }
}

// Random small histories of registers and counters, correct or with a corrupted result: every
// window fails on its own and has a relaxation's shape; a linearizable history has none.
TEST(FailingWindow, RandomHistoriesWindowsFailAlone) {
  std::mt19937_64 rng(20261125);
  int windows = 0, violations = 0, fronts = 0;
  for (int trial = 0; trial < 600; ++trial) {
    std::vector<std::size_t> by_point;
    const int n = 6 + static_cast<int>(rng() % 14);
    const std::vector<duet_test::PlannedCall> plan =
        duet_test::random_execution(rng, n, 2 + static_cast<int>(rng() % 3), by_point);
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
    fronts += !r.witness_start.empty();
    const std::string what = "trial " + std::to_string(trial) + "\n" + duet::history::write_duet_history(h);
    expect_relaxation_shape(h, r, what);
    expect_window_fails(h, r, model, what);
    // Without the window the report is the search's alone.
    EXPECT_TRUE(check(h, model, false).witness.empty());
  }
  std::printf("%d violations, %d with a window, %d of them cut at the front\n", violations, windows, fronts);
  EXPECT_GT(violations, 100);
  EXPECT_GT(windows, violations / 2);
  EXPECT_GT(fronts, windows / 10);
}

// A register with compare-and-set for the search directly (values 0..2, starting at 0).
struct WindowOp {
  int kind;  // 0 write a, 1 read a, 2 cas a -> b (ok), 3 cas a (failed)
  int a, b;
};
struct WindowOracleUnderTest {
  using State = int;
  static constexpr bool memo = true;
  const std::vector<WindowOp>* ops;
  State initial() const { return 0; }
  bool apply(State& s, std::size_t i) const {
    const WindowOp& op = (*ops)[i];
    switch (op.kind) {
      case 0: s = op.a; return true;
      case 1: return s == op.a;
      case 2:
        if (s != op.a) return false;
        s = op.b;
        return true;
      default: return s != op.a;
    }
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& x, const State& y) const { return x == y; }
  bool read_only(std::size_t i) const { return (*ops)[i].kind == 1 || (*ops)[i].kind == 3; }
  std::string show(const State& s) const { return std::to_string(s); }
};

// Soundness: every step is a relaxation, so a linearizable history has no failing window at
// all, however the search is pointed at it. Shrinking linearizable histories as if they had
// failed (each operation in turn named stuck) must keep them whole: a front's start states
// that missed one the history can reach, an open operation held to more than "took effect or
// not", or a dropped write would show here as a window.
TEST(FailingWindow, NeverFoundInALinearizableHistory) {
  std::mt19937_64 rng(7);
  std::size_t shrunk = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::vector<std::size_t> by_point;
    const int n = 4 + static_cast<int>(rng() % 16);
    const std::vector<duet_test::PlannedCall> plan =
        duet_test::random_execution(rng, n, 2 + static_cast<int>(rng() % 3), by_point);
    std::vector<WindowOp> ops(plan.size());
    std::vector<duet::detail::TimedOp> timed(plan.size());
    int state = 0;
    for (std::size_t k : by_point) {
      const int a = static_cast<int>(rng() % 3), b = static_cast<int>(rng() % 3);
      const std::uint64_t dice = rng() % 10;
      if (dice < 4) ops[k] = {0, a, 0}, state = a;
      else if (dice < 7) ops[k] = {1, state, 0};
      else if (state == a) ops[k] = {2, a, b}, state = b;
      else ops[k] = {3, a, 0};
      timed[k] = {plan[k].process, plan[k].invoke,
                  rng() % 8 == 0 && ops[k].kind != 1 ? duet::detail::TimedOp::kPending : plan[k].response};
    }
    const WindowOracleUnderTest oracle{&ops};
    ASSERT_EQ(duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable).verdict,
              duet::detail::SearchVerdict::ok);
    std::vector<bool> read_only(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i)
      read_only[i] = timed[i].response != duet::detail::TimedOp::kPending && oracle.read_only(i);
    for (std::size_t stuck = 0; stuck < ops.size(); ++stuck) {
      const auto w =
          duet::history::detail::failing_window(timed, oracle, duet::detail::SearchBudget{}, stuck, read_only, 1'000'000);
      ++shrunk;
      ASSERT_EQ(w.ops.size(), ops.size()) << "trial " << trial << ", stuck " << stuck
                                          << ": a window in a linearizable history";
      ASSERT_TRUE(w.open.empty() && w.start.empty()) << "trial " << trial;
    }
  }
  EXPECT_GT(shrunk, 2000u);
}

// Out of time, steps or cancelled: no search can say "violation", so nothing is cut and no
// window is claimed (the report keeps the search's own diagnosis).
TEST(FailingWindow, OutOfBudgetClaimsNothing) {
  // write 2, then a long run of reads of 2, then a read of 1 nobody wrote: the last read fails.
  std::vector<WindowOp> ops{{0, 2, 0}};
  std::vector<duet::detail::TimedOp> timed{{0, 1, 2}};
  for (std::uint32_t k = 0; k < 30; ++k) {
    ops.push_back({1, 2, 0});
    timed.push_back({1 + k % 3, 10 + 10ull * k, 15 + 10ull * k});
  }
  ops.push_back({1, 1, 0});
  timed.push_back({1, 400, 405});
  const WindowOracleUnderTest oracle{&ops};
  std::vector<bool> read_only(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) read_only[i] = oracle.read_only(i);
  const std::size_t stuck = ops.size() - 1;
  // With room: the window is the write and the bad read, or the bad read alone from its start.
  const auto w =
      duet::history::detail::failing_window(timed, oracle, duet::detail::SearchBudget{}, stuck, read_only, 1'000'000);
  EXPECT_LE(w.ops.size(), 2u);
  EXPECT_FALSE(w.out_of_budget);
  EXPECT_NE(std::find(w.ops.begin(), w.ops.end(), stuck), w.ops.end());
  auto expect_whole = [&](const duet::history::detail::FailingWindow<int>& x, const char* what) {
    EXPECT_EQ(x.ops.size(), ops.size()) << what;
    EXPECT_TRUE(x.open.empty() && x.start.empty()) << what;
    EXPECT_TRUE(x.out_of_budget) << what << ": says there is no window for want of budget";
  };
  duet::detail::SearchBudget late;
  late.deadline = std::chrono::steady_clock::now() - std::chrono::seconds(1);
  expect_whole(duet::history::detail::failing_window(timed, oracle, late, stuck, read_only, 1'000'000), "deadline passed");
  expect_whole(duet::history::detail::failing_window(timed, oracle, duet::detail::SearchBudget{}, stuck, read_only, 0),
               "no steps");
  std::atomic<bool> stop{true};
  duet::detail::SearchBudget cancelled;
  cancelled.cancel = &stop;
  expect_whole(duet::history::detail::failing_window(timed, oracle, cancelled, stuck, read_only, 1'000'000), "cancelled");
}

}  // namespace

namespace {

// The parts of the shrinking, alone: a cut's operations and which of them are open, and the
// times cuts fall at.
TEST(FailingWindowParts, ACutHoldsWhatRanBeforeItsEndAndAfterItsFrontOpenWhereItCrossesThem) {
  using duet::detail::TimedOp;
  using duet::history::detail::WindowCut;
  const TimedOp before{0, 0, 2}, across_front{1, 1, 6}, inside{0, 7, 8}, across_end{1, 9, 20}, after{0, 21, 22},
      pending{2, 3, TimedOp::kPending};
  const WindowCut cut{10, true, 5};
  EXPECT_FALSE(cut.contains(before));  // returned by the front
  EXPECT_TRUE(cut.contains(across_front));
  EXPECT_TRUE(cut.contains(inside));
  EXPECT_TRUE(cut.contains(across_end));
  EXPECT_FALSE(cut.contains(after));  // invoked after the end
  EXPECT_TRUE(cut.contains(pending));
  EXPECT_TRUE(cut.open(across_front));
  EXPECT_FALSE(cut.open(inside));
  EXPECT_TRUE(cut.open(across_end));
  EXPECT_FALSE(cut.open(pending));  // pending anyway
  const WindowCut whole;
  EXPECT_TRUE(whole.contains(before) && whole.contains(after));
  EXPECT_FALSE(whole.open(before) || whole.open(across_end));
}

TEST(FailingWindowParts, CutsFallAtEachResponseOnceInOrder) {
  using duet::detail::TimedOp;
  const std::vector<TimedOp> timed{{0, 0, 9}, {1, 1, 3}, {2, 2, TimedOp::kPending}, {0, 10, 3}, {1, 4, 12}};
  const std::vector<std::uint64_t> times = duet::history::detail::cut_times(timed);
  EXPECT_EQ(times, (std::vector<std::uint64_t>{3, 9, 12}));
  EXPECT_EQ(duet::history::detail::first_at_or_after(times, 0), 0u);
  EXPECT_EQ(duet::history::detail::first_at_or_after(times, 9), 1u);
  EXPECT_EQ(duet::history::detail::first_at_or_after(times, 10), 2u);
  EXPECT_EQ(duet::history::detail::first_at_or_after(times, 13), 3u);
}

}  // namespace
