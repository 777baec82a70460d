// The search's reductions (most urgent first, partial-order reduction by key, backjumping,
// pending-operation dominance) must never change a verdict: random small kv histories, some
// linearizable and some corrupted, are decided partitioned, unpartitioned, and by brute force
// over every order.
#include <gtest/gtest.h>

#include <algorithm>
#include <duet/history.hpp>
#include <map>
#include <duet/detail/search.hpp>
#include <functional>
#include <random>

#include "history/edn.hpp"
#include "support/decision_cases.hpp"

namespace {

using namespace duet::history;

// A history from a real execution (each operation takes effect at a random point of its
// interval), then, sometimes, one get's result swapped for a stale one.
// Texts "i;" can be suffixes of one another ("3;" of "13;"), which keeps the kv decision out
// (a value could then come from two appends); marked texts "<i>" cannot, which lets it in.
History random_kv(std::mt19937_64& rng, int ops, int keys, bool with_pending, bool marked = false) {
  struct Planned {
    std::uint64_t invoke, point, response;
    int process;
  };
  std::vector<Planned> plan;
  std::vector<std::uint64_t> busy_until(4, 0);
  for (int i = 0; i < ops; ++i) {
    const int p = static_cast<int>(rng() % busy_until.size());
    const std::uint64_t invoke = busy_until[p] + rng() % 6;
    const std::uint64_t response = invoke + 1 + rng() % 12;
    busy_until[p] = response + 1;
    plan.push_back({invoke, invoke + rng() % (response - invoke + 1), response, p});
  }
  History h;
  h.source = "random";
  h.default_model = "kv";
  std::map<std::string, std::string> store;
  std::vector<std::size_t> by_point(plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) by_point[i] = i;
  std::stable_sort(by_point.begin(), by_point.end(),
                   [&](std::size_t a, std::size_t b) { return plan[a].point < plan[b].point; });
  h.ops.resize(plan.size());
  std::vector<std::vector<std::string>> past(keys);
  for (std::size_t i : by_point) {
    Operation& op = h.ops[i];
    const std::string key = std::to_string(rng() % keys);
    op.process = plan[i].process * 100 + static_cast<int>(i);  // one operation per process id: no program order
    op.key = Value::string(key);
    op.invoke = plan[i].invoke * 2;  // even: invocations and responses never tie
    op.response = plan[i].response * 2 + 1;
    const std::string v = marked ? "<" + std::to_string(i) + ">" : std::to_string(i) + ";";
    switch (rng() % 3) {
      case 0:
        op.f = "get";
        op.output = Value::string(store[key]);
        if (rng() % 2 == 0 && !past[std::stoi(key)].empty())  // corrupt: a stale value
          op.output = Value::string(past[std::stoi(key)][rng() % past[std::stoi(key)].size()]);
        break;
      case 1:
        op.f = "put";
        op.input = Value::string(v);
        past[std::stoi(key)].push_back(store[key]);
        store[key] = v;
        break;
      default:
        op.f = "append";
        op.input = Value::string(v);
        past[std::stoi(key)].push_back(store[key]);
        store[key] += v;
    }
    if (with_pending && op.f != "get" && rng() % 6 == 0) {
      op.outcome = Outcome::info;
      op.response = Operation::kPending;
    }
  }
  std::stable_sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
  return h;
}

// Every order that respects real time, with pending operations in or out.
bool brute_force(const History& h, std::map<std::string, std::string> store = {}) {
  const std::size_t n = h.ops.size();
  std::vector<bool> used(n, false);
  std::size_t completed = 0;
  for (const Operation& op : h.ops) completed += op.outcome != Outcome::info;
  std::function<bool(std::size_t)> go = [&](std::size_t placed_completed) -> bool {
    if (placed_completed == completed) return true;
    for (std::size_t i = 0; i < n; ++i) {
      if (used[i]) continue;
      bool allowed = true;  // nothing unplaced returned before i was invoked
      for (std::size_t j = 0; j < n && allowed; ++j)
        if (!used[j] && j != i && h.ops[j].outcome != Outcome::info && h.ops[j].response < h.ops[i].invoke) allowed = false;
      if (!allowed) continue;
      const Operation& op = h.ops[i];
      const std::string key = op.key->text;
      const std::string before = store[key];
      if (op.f == "get" && op.outcome == Outcome::ok && op.output.text != before) continue;
      if (op.f == "put") store[key] = op.input.text;
      if (op.f == "append") store[key] += op.input.text;
      used[i] = true;
      if (go(placed_completed + (op.outcome != Outcome::info))) return true;
      used[i] = false;
      store[key] = before;
    }
    return false;
  };
  return go(0);
}

// A decision's witness, or a failing window: no linearization from each state it may start in
// (a printed kv state, {"key" "value" ...}), with each of its open operations taking effect
// (kept, completed) or not (left out).
bool window_fails(const History& h, const CheckReport& r) {
  std::vector<std::map<std::string, std::string>> starts;
  for (const std::string& printed : r.witness_start) {
    static const std::string source = "state";
    duet::history::detail::EdnReader reader(printed, source, 1, "value");
    reader.skip_space();
    const duet::history::Value v = reader.read();
    std::map<std::string, std::string> store;
    for (std::size_t k = 0; k + 1 < v.items.size(); k += 2) store[v.items[k].text] = v.items[k + 1].text;
    starts.push_back(store);
  }
  if (starts.empty()) starts.emplace_back();
  for (const auto& store : starts)
    for (const std::vector<std::size_t>& kept : duet_test::witness_readings(r))
      if (brute_force(duet_test::sub_history(h, kept), store)) return false;
  return true;
}

void compare(bool with_pending, int max_ops, bool marked = false) {
  std::mt19937_64 rng(with_pending ? 77 : 42);
  int linearizable = 0, not_linearizable = 0, witnessed = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    const int ops = 3 + static_cast<int>(rng() % static_cast<std::uint64_t>(max_ops - 2));
    const History h = random_kv(rng, ops, 1 + static_cast<int>(rng() % 4), with_pending, marked);
    CheckOptions whole;
    whole.partition = false;
    const CheckReport parts = check_history(h);
    const Verdict one = check_history(h, whole).verdict;
    const Verdict truth = brute_force(h) ? Verdict::linearizable : Verdict::not_linearizable;
    ASSERT_EQ(parts.verdict, truth) << "trial " << trial << "\n" << write_duet_history(h);
    ASSERT_EQ(one, truth) << "trial " << trial << "\n" << write_duet_history(h);
    (truth == Verdict::linearizable ? linearizable : not_linearizable)++;
    if (!parts.witness.empty()) {  // the witness alone fails too
      ++witnessed;
      ASSERT_TRUE(window_fails(h, parts)) << "trial " << trial << "\n" << write_duet_history(h);
    }
  }
  // Both kinds must be well represented, or the comparison proves little.
  EXPECT_GT(linearizable, 1000);
  EXPECT_GT(not_linearizable, 1000);
  // With marked texts, the one-key decision decides most violations.
  if (marked) EXPECT_GT(witnessed, not_linearizable / 2);
}

TEST(CheckerDifferential, KvSearchAgreesWithBruteForce) { compare(false, 11); }

// Registers over a tiny domain, so that writes of the value already there (which change nothing
// here but would elsewhere) and failed compare-and-sets are common.
History random_register(std::mt19937_64& rng, int n) {
  History h;
  h.source = "random register";
  h.default_model = "cas-register-0";
  std::vector<std::uint64_t> busy(3, 0);
  std::vector<std::pair<std::uint64_t, std::size_t>> points;
  for (int i = 0; i < n; ++i) {
    const std::size_t p = rng() % busy.size();
    Operation op;
    op.process = static_cast<std::int64_t>(p);
    op.invoke = busy[p] + 1 + rng() % 4;
    op.response = op.invoke + 1 + rng() % 8;
    busy[p] = op.response;
    points.emplace_back(op.invoke + rng() % (op.response - op.invoke), h.ops.size());
    const int kind = static_cast<int>(rng() % 3);
    op.f = kind == 0 ? "read" : kind == 1 ? "write" : "cas";
    if (kind == 1) op.input = Value::integer(static_cast<std::int64_t>(rng() % 3));
    if (kind == 2)
      op.input = Value::vector(
          {Value::integer(static_cast<std::int64_t>(rng() % 3)), Value::integer(static_cast<std::int64_t>(rng() % 3))});
    h.ops.push_back(op);
  }
  std::stable_sort(points.begin(), points.end());
  std::int64_t reg = 0;
  for (const auto& [point, i] : points) {
    Operation& op = h.ops[i];
    if (op.f == "read") op.output = Value::integer(rng() % 5 == 0 ? static_cast<std::int64_t>(rng() % 3) : reg);
    if (op.f == "write") reg = op.input.number;
    if (op.f == "cas") {
      if (reg == op.input.items[0].number) reg = op.input.items[1].number;
      else op.outcome = Outcome::fail;  // completed without effect
    }
    if (op.f != "read" && rng() % 8 == 0) {
      op.outcome = Outcome::info;
      op.response = Operation::kPending;
    }
  }
  return h;
}

bool brute_force_register(const History& h) {
  const std::size_t n = h.ops.size();
  std::vector<bool> used(n, false);
  std::size_t completed = 0;
  for (const Operation& op : h.ops) completed += op.outcome != Outcome::info;
  std::function<bool(std::int64_t, std::size_t)> go = [&](std::int64_t reg, std::size_t placed) -> bool {
    if (placed == completed) return true;
    for (std::size_t i = 0; i < n; ++i) {
      if (used[i]) continue;
      bool allowed = true;
      for (std::size_t j = 0; j < n && allowed; ++j)
        if (!used[j] && j != i && h.ops[j].outcome != Outcome::info && h.ops[j].response < h.ops[i].invoke) allowed = false;
      if (!allowed) continue;
      const Operation& op = h.ops[i];
      std::int64_t next = reg;
      if (op.f == "read" && op.output.number != reg) continue;
      if (op.f == "write") next = op.input.number;
      if (op.f == "cas") {
        const bool match = reg == op.input.items[0].number;
        if (op.outcome == Outcome::ok && !match) continue;
        if (op.outcome == Outcome::fail && match) continue;
        if (match && op.outcome != Outcome::fail) next = op.input.items[1].number;
      }
      used[i] = true;
      if (go(next, placed + (op.outcome != Outcome::info))) return true;
      used[i] = false;
    }
    return false;
  };
  return go(0, 0);
}

TEST(CheckerDifferential, RegisterSearchAgreesWithBruteForce) {
  std::mt19937_64 rng(9);
  int linearizable = 0, violations = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    History h = random_register(rng, 3 + static_cast<int>(rng() % 8));
    std::stable_sort(h.ops.begin(), h.ops.end(), [](const Operation& a, const Operation& b) { return a.invoke < b.invoke; });
    const Verdict truth = brute_force_register(h) ? Verdict::linearizable : Verdict::not_linearizable;
    ASSERT_EQ(check_history(h).verdict, truth) << "trial " << trial << "\n" << write_duet_history(h);
    (truth == Verdict::linearizable ? linearizable : violations)++;
  }
  EXPECT_GT(linearizable, 500);
  EXPECT_GT(violations, 500);
}
TEST(CheckerDifferential, KvSearchWithPendingAgreesWithBruteForce) { compare(true, 11); }

// The one-key kv decision (a register in disguise) against brute force, with and without
// pending operations.
TEST(CheckerDifferential, KvDecisionAgreesWithBruteForce) { compare(false, 11, true); }
TEST(CheckerDifferential, KvDecisionWithPendingAgreesWithBruteForce) { compare(true, 11, true); }

}  // namespace

// The reductions against the plain search, on longer histories (over 64 operations, so the
// memo's windows span several words) where a process's consecutive operations may share a
// timestamp (program order then decides) and operations of different processes tie often.
namespace {

using duet::detail::Consistency;
using duet::detail::SearchVerdict;
using duet::detail::TimedOp;

struct KvStep {
  int kind;  // 0 get, 1 put, 2 append
  int key;
  int value;             // put/append: the value's id (as text: "<id>;")
  std::string expected;  // get: the result observed
};

struct PlainKv {
  using State = std::vector<std::string>;
  static constexpr bool memo = true;
  const std::vector<KvStep>* steps;
  int keys;
  State initial() const { return State(static_cast<std::size_t>(keys)); }
  bool apply(State& s, std::size_t i) const {
    const KvStep& st = (*steps)[i];
    std::string& v = s[static_cast<std::size_t>(st.key)];
    if (st.kind == 0) return v == st.expected;
    if (st.kind == 1) v = std::to_string(st.value) + ";";
    else v += std::to_string(st.value) + ";";
    return true;
  }
  std::uint64_t hash(const State& s) const {
    std::uint64_t h = 0;
    for (const std::string& v : s) h = h * 1000003 + std::hash<std::string>{}(v);
    return h;
  }
  bool equal(const State& a, const State& b) const { return a == b; }
};
struct ReducedKv : PlainKv {
  std::uint64_t footprint(std::size_t i) const { return static_cast<std::uint64_t>((*steps)[i].key); }
  bool read_only(std::size_t i) const { return (*steps)[i].kind == 0; }
  std::uint64_t part_hash(const State& s, std::uint64_t key) const { return std::hash<std::string>{}(s[key]); }
  bool part_equal(const State& a, const State& b, std::uint64_t key) const { return a[key] == b[key]; }
};

void random_timed_kv(std::mt19937_64& rng, int n, int keys, bool pending, bool ties, std::vector<TimedOp>& ops,
                     std::vector<KvStep>& steps) {
  const int processes = 2 + static_cast<int>(rng() % 4);
  std::vector<std::uint64_t> free_at(static_cast<std::size_t>(processes), 0);
  struct Plan {
    std::uint64_t point;
    std::size_t index;
  };
  std::vector<Plan> plan;
  bool corrupt_done = false;
  ops.clear();
  steps.clear();
  for (int i = 0; i < n; ++i) {
    const auto p = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(processes));
    TimedOp op;
    op.process = static_cast<std::uint32_t>(p);
    op.invoke = free_at[p] + (ties ? 0 : 1) + rng() % 3;  // ties: may start when the previous one returned
    op.response = op.invoke + rng() % 4;                  // coarse clock: many ties
    free_at[p] = op.response;
    plan.push_back({op.invoke + rng() % (op.response - op.invoke + 1), ops.size()});
    ops.push_back(op);
    steps.push_back({static_cast<int>(rng() % 3), static_cast<int>(rng() % static_cast<std::uint64_t>(keys)), i, ""});
  }
  // Effects happen at the planned points, in program order within a process on ties.
  std::stable_sort(plan.begin(), plan.end(), [](const Plan& a, const Plan& b) { return a.point < b.point; });
  std::vector<std::string> store(static_cast<std::size_t>(keys));
  std::vector<std::vector<std::string>> past(static_cast<std::size_t>(keys));
  // Half the histories get one stale read (when the chosen get has a past to be stale about).
  const std::size_t corrupt = rng() % 2 == 0 ? rng() % plan.size() : plan.size();
  for (std::size_t k = 0; k < plan.size(); ++k) {
    const Plan& pl = plan[k];
    KvStep& st = steps[pl.index];
    std::string& v = store[static_cast<std::size_t>(st.key)];
    if (st.kind == 0) {
      st.expected = v;
      if (k >= corrupt && !past[static_cast<std::size_t>(st.key)].empty() && std::exchange(corrupt_done, true) == false)
        st.expected = past[static_cast<std::size_t>(st.key)][rng() % past[static_cast<std::size_t>(st.key)].size()];
    } else {
      past[static_cast<std::size_t>(st.key)].push_back(v);
      v = st.kind == 1 ? std::to_string(st.value) + ";" : v + std::to_string(st.value) + ";";
      if (pending && rng() % 8 == 0) ops[pl.index].response = TimedOp::kPending;
    }
  }
}

void compare_reductions(bool pending, bool ties) {
  std::mt19937_64 rng(pending ? 5 : ties ? 6 : 7);
  int linearizable = 0, violations = 0;
  const int trials = pending ? 300 : 600;
  for (int trial = 0; trial < trials; ++trial) {
    std::vector<TimedOp> ops;
    std::vector<KvStep> steps;
    const int keys = 1 + static_cast<int>(rng() % 4);
    // With pending operations the plain search is slow: shorter histories.
    random_timed_kv(rng, 20 + static_cast<int>(rng() % (pending ? 50 : 130)), keys, pending, ties, ops, steps);
    const auto plain = duet::detail::linearize(ops, PlainKv{&steps, keys}, Consistency::linearizable);
    const auto reduced = duet::detail::linearize(ops, ReducedKv{{&steps, keys}}, Consistency::linearizable);
    ASSERT_NE(plain.verdict, SearchVerdict::unknown);
    ASSERT_EQ(plain.verdict, reduced.verdict) << "trial " << trial << ", " << ops.size() << " operations";
    (plain.verdict == SearchVerdict::ok ? linearizable : violations)++;
  }
  EXPECT_GT(linearizable, trials / 6);
  EXPECT_GT(violations, trials / 6);
}

TEST(CheckerDifferential, ReductionsAgreeWithPlainSearchOnLongHistoriesWithTies) { compare_reductions(false, true); }
// Without ties (and without pending operations) backjumping and class nogoods are on.
TEST(CheckerDifferential, ReductionsAgreeWithPlainSearchOnLongHistories) { compare_reductions(false, false); }
TEST(CheckerDifferential, ReductionsAgreeWithPlainSearchWithPending) { compare_reductions(true, true); }

}  // namespace
