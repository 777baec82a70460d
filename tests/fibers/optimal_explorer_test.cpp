// Optimal DPOR (src/execute/fibers/dpor/): on small programs, the runs it makes are exactly the
// distinct Mazurkiewicz traces that a brute-force search over every schedule finds (computed
// independently, by trace_key), each once and none cut short; the bugs the sleep-set search
// finds are found; a failing schedule replays with the random picker; a nondeterministic
// program is refused. The reduction against sleep sets is measured on the same programs.
#include <gtest/gtest.h>

#include <duet/sync.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "execute/fibers/dpor/optimal_explorer.hpp"
#include "execute/fibers/dpor/run_order.hpp"
#include "execute/fibers/strategies.hpp"
#include "explored_programs.hpp"
#include "fiber_support.hpp"

namespace {

using namespace duet::fibertest;
namespace dpor = duet::detail::fiber::dpor;

void report(const std::string& what) { std::printf("[ measured ] %s\n", what.c_str()); }

struct Search {
  std::size_t runs = 0, schedules = 0, redundant = 0, repeated = 0, failures = 0, unreachable = 0;
  bool complete = false;
  std::string outside;               // why the search could not cover the program
  std::set<std::string> keys;        // the traces of the runs
  std::set<std::string> executions;  // under the C++ memory model: the runs' reads-from (execution_key)
  std::size_t repeated_executions = 0;
  std::set<std::string> outcomes;  // what the runs computed (Program::outcome)
  std::vector<std::uint64_t> failing_choices;
  std::string failing_trace;
  double seconds = 0;
  std::vector<double> runs_in_all;  // the search's estimate of its runs in all, after each run
};

// The optimal search's dependence (see KeyRules), for every search compared with it.
constexpr KeyRules kOptimalRules{.failed_cas_writes = false, .blocked_attempts_read = true};

// An execution under the C++ memory model, up to the order of steps that do not matter: per
// object, its stores in order (the model's modification order is their execution order) and
// which store each read took (a failed compare-exchange reads the newest); objects keyed by
// their accesses, as in trace_key.
std::string execution_key(const std::vector<fb::TraceEvent>& trace) {
  std::vector<std::string> label(trace.size());
  std::array<int, fb::kMaxFibers> nth{};
  std::map<std::uint32_t, std::vector<std::string>> writes, reads;
  std::map<std::uint32_t, std::string> newest;
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const fb::TraceEvent& e = trace[i];
    label[i] = std::to_string(e.fiber) + "." + std::to_string(nth[e.fiber]++);
    const std::uint32_t o = e.event.object;
    if (o == fb::kNoObject) continue;
    switch (e.event.op) {
      case fb::Op::load: {
        const std::string from = e.read_step == fb::kNoStep ? "init" : label[e.read_step];
        reads[o].push_back(label[i] + "<" + from);
        break;
      }
      case fb::Op::cas_fail: reads[o].push_back(label[i] + "<" + (newest.count(o) ? newest[o] : "init")); break;
      case fb::Op::store:
      case fb::Op::rmw:
      case fb::Op::cas:
        writes[o].push_back(label[i] + fb::op_name(e.event.op));
        newest[o] = label[i];
        break;
      default: break;
    }
  }
  std::vector<std::string> groups;
  for (const auto& [o, w] : writes) {
    std::vector<std::string> r = reads[o];
    std::sort(r.begin(), r.end());
    std::string g;
    for (const auto& x : w) g += x + " ";
    g += "/ ";
    for (const auto& x : r) g += x + " ";
    groups.push_back(g);
  }
  for (const auto& [o, r] : reads)
    if (!writes.count(o)) {
      std::vector<std::string> sorted = r;
      std::sort(sorted.begin(), sorted.end());
      std::string g = "/ ";
      for (const auto& x : sorted) g += x + " ";
      groups.push_back(g);
    }
  std::sort(groups.begin(), groups.end());
  std::string key;
  for (const auto& g : groups) key += g + "| ";
  return key;
}

// Runs a whole search of `p` with `Ex` (the sleep-set Explorer or the OptimalExplorer), under
// the C++ memory model when `model`.
template <class Ex, class Config>
Search search(Program& p, Config cfg, bool model = false) {
  fb::SchedulerConfig sc;
  sc.cpp_memory_model = model;
  fb::Scheduler s(sc);
  duet::Source src = duet::Source::from_seed(0);
  Ex ex(s, src, cfg);
  Search out;
  const auto t0 = std::chrono::steady_clock::now();
  each_run(ex, s, src, p, [&](const fb::RunResult& r) {
    const bool failed = p.failed(r);
    if (failed && out.failures++ == 0) {
      out.failing_choices = src.choices();
      out.failing_trace = joined(fb::format_trace(s.trace()));
    }
    out.outcomes.insert(p.outcome());
    ex.finish(r);
    out.runs_in_all.push_back(ex.stats().runs_in_all);
    if (!ex.redundant() && !out.keys.insert(trace_key(s.trace(), kOptimalRules)).second) ++out.repeated;
    if (model && !ex.redundant() && !out.executions.insert(execution_key(s.trace())).second) ++out.repeated_executions;
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.runs = ex.stats().runs;
  out.schedules = ex.stats().schedules;
  out.redundant = ex.stats().redundant;
  out.complete = ex.stats().complete;
  out.outside = ex.outside_scope();
  if constexpr (requires { ex.unreachable(); }) out.unreachable = ex.unreachable();
  return out;
}

constexpr std::size_t kInf = fb::ExplorerConfig::kUnbounded;

Search optimal(Program& p) { return search<dpor::OptimalExplorer>(p, dpor::OptimalConfig{}); }
Search sleep_sets(Program& p) { return search<fb::Explorer>(p, fb::ExplorerConfig{.preemption_bound = kInf}); }
Search every_schedule(Program& p) {
  return search<fb::Explorer>(p, fb::ExplorerConfig{.preemption_bound = kInf, .sleep_sets = false});
}

std::string counts(const std::string& name, const Search& s) {
  return name + ": " + std::to_string(s.runs) + " runs, " + std::to_string(s.keys.size()) + " traces, " +
         std::to_string(s.redundant) + " redundant, " + std::to_string(s.failures) + " failing, " +
         (s.unreachable ? std::to_string(s.unreachable) + " unreachable, " : std::string()) +
         std::to_string(static_cast<long>(s.seconds * 1e3)) + " ms";
}

// Two fibers, two variables, each writes one and reads the other (store buffering, under
// sequential consistency here).
struct StoreBuffering : Program {
  duet::atomic<int> x{0}, y{0};
  int r0 = 0, r1 = 0;
  StoreBuffering() {
    branches = {[this] {
                  x.store(1);
                  r0 = y.load();
                },
                [this] {
                  y.store(1);
                  r1 = x.load();
                }};
  }
  void reset() override {
    x.store(0);
    y.store(0);
  }
};

// One writer, `readers` readers of the same variable, and a fiber on an object of its own.
struct Readers : Program {
  duet::atomic<int> x{0}, own{0};
  explicit Readers(int readers) {
    branches.push_back([this] {
      x.store(1);
      x.store(2);
    });
    for (int i = 0; i < readers; ++i) branches.push_back([this] { (void)x.load(); });
    branches.push_back([this] { own.fetch_add(1); });
  }
  void reset() override {
    x.store(0);
    own.store(0);
  }
};

// Compare-and-swap increments: each fiber retries until its CAS succeeds.
struct CasCounter : Program {
  duet::atomic<int> c{0};
  int n;
  explicit CasCounter(int fibers) : n(fibers) {
    branches.assign(static_cast<std::size_t>(fibers), [this] {
      int v = c.load();
      while (!c.compare_exchange_strong(v, v + 1)) {
      }
    });
  }
  void reset() override { c.store(0); }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || c.load() != n; }
};

// What the calls of a run returned, whichever fiber returned what.
std::string sorted_text(std::vector<int> values) {
  std::sort(values.begin(), values.end());
  std::string text;
  for (int v : values) text += std::to_string(v) + " ";
  return text;
}

// A Treiber stack (compare-exchange on the top), nodes allocated during the run.
struct TreiberStack : Program {
  struct Node {
    int value;
    Node* next;
  };
  duet::atomic<Node*> top{nullptr};
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<int> popped;
  TreiberStack() {
    branches = {[this] {
                  push(1);
                  pop();
                },
                [this] {
                  push(2);
                  pop();
                },
                [this] { pop(); }};
  }
  void push(int v) {
    Node* n = nodes.emplace_back(std::make_unique<Node>(Node{v, nullptr})).get();
    Node* t = top.load();
    do n->next = t;
    while (!top.compare_exchange_weak(t, n));
  }
  void pop() {
    Node* t = top.load();
    while (t != nullptr && !top.compare_exchange_weak(t, t->next)) {
    }
    popped.push_back(t ? t->value : 0);
  }
  void reset() override {
    top.store(nullptr);
    nodes.clear();
    popped.clear();
  }
  std::string outcome() const override { return sorted_text(popped); }
};

// The Michael-Scott queue: a dummy node, compare-exchange on the tail's next, the tail and the
// head; its nodes (and their atomics) are made during the run.
struct MsQueue : Program {
  struct Node {
    int value = 0;
    duet::atomic<Node*> next{nullptr};
  };
  duet::atomic<Node*> head{nullptr}, tail{nullptr};
  std::vector<std::unique_ptr<Node>> nodes;
  std::vector<int> got;
  MsQueue() {
    branches = {[this] {
                  enqueue(1);
                  dequeue();
                },
                [this] {
                  enqueue(2);
                  dequeue();
                }};
  }
  void enqueue(int v) {
    Node* n = nodes.emplace_back(std::make_unique<Node>()).get();
    n->value = v;
    for (;;) {
      Node* t = tail.load();
      Node* next = t->next.load();
      if (next == nullptr) {
        if (t->next.compare_exchange_strong(next, n)) {
          tail.compare_exchange_strong(t, n);
          return;
        }
      } else {
        tail.compare_exchange_strong(t, next);
      }
    }
  }
  void dequeue() {
    for (;;) {
      Node* h = head.load();
      Node* t = tail.load();
      Node* next = h->next.load();
      if (h == t) {
        if (next == nullptr) {
          got.push_back(0);
          return;
        }
        tail.compare_exchange_strong(t, next);
      } else if (head.compare_exchange_strong(h, next)) {
        got.push_back(next->value);
        return;
      }
    }
  }
  void reset() override {
    nodes.clear();
    got.clear();
    Node* dummy = nodes.emplace_back(std::make_unique<Node>()).get();
    head.store(dummy);
    tail.store(dummy);
  }
  std::string outcome() const override { return sorted_text(got); }
};

struct Case {
  std::string name;
  std::unique_ptr<Program> p;
  /// A failed compare-exchange may succeed in another order: its reversal goes in as that
  /// write, and the search may then run an equivalent schedule twice (complete, not optimal).
  bool retries_cas = false;
  /// Under the C++ memory model, executions no schedule gives with every load reading the
  /// newest store (store buffering's both-zero outcome): each of their schedules has a stale read
  /// that the search cannot move before the store it missed, and one may run more than once.
  bool weak_cycles = false;
};

std::vector<Case> programs() {
  std::vector<Case> cases;
  cases.push_back({"racy counter 2", std::make_unique<RacyCounter>(2)});
  cases.push_back({"racy counter 3", std::make_unique<RacyCounter>(3)});
  cases.push_back({"disjoint 2x2", std::make_unique<Disjoint>(2, 2)});
  cases.push_back({"disjoint 3x3", std::make_unique<Disjoint>(3, 3)});
  cases.push_back({"depth-2 bug", std::make_unique<Depth2>(1)});
  cases.push_back({"store buffering", std::make_unique<StoreBuffering>()});
  cases.push_back({"readers 3", std::make_unique<Readers>(3)});
  cases.push_back({"cas counter 3", std::make_unique<CasCounter>(3), true});
  return cases;
}

TEST(OptimalExplorer, RunsEachTraceOfTheBruteForceSearchExactlyOnce) {
  for (const Case& c : programs()) {
    SCOPED_TRACE(c.name);
    const Search all = every_schedule(*c.p);
    const Search opt = optimal(*c.p);
    report(counts(c.name + ", optimal", opt) + "; every schedule: " + std::to_string(all.runs) + " runs, " +
           std::to_string(all.keys.size()) + " traces");
    ASSERT_TRUE(all.complete);
    EXPECT_TRUE(opt.complete);
    EXPECT_EQ(opt.unreachable, 0u);
    EXPECT_EQ(opt.keys, all.keys);  // every trace explored...
    EXPECT_EQ(opt.redundant, 0u);   // no run cut short by a sleep set...
    if (!c.retries_cas) {
      EXPECT_EQ(opt.repeated, 0u);           // ...each once
      EXPECT_EQ(opt.runs, all.keys.size());  // so the runs are the traces
    }
    EXPECT_EQ(opt.failures > 0, all.failures > 0);
  }
}

TEST(OptimalExplorer, MakesFewerRunsThanSleepSets) {
  std::size_t opt_runs = 0, sleep_runs = 0;
  for (const Case& c : programs()) {
    const Search sleep = sleep_sets(*c.p);
    const Search opt = optimal(*c.p);
    report(counts(c.name + ", sleep sets", sleep) + "; " + counts("optimal", opt));
    EXPECT_LE(opt.runs, sleep.runs) << c.name;
    opt_runs += opt.runs;
    sleep_runs += sleep.runs;
  }
  report("all programs: optimal " + std::to_string(opt_runs) + " runs, sleep sets " + std::to_string(sleep_runs));
  EXPECT_LT(opt_runs, sleep_runs);
}

// Lock-free structures too large for the brute-force search: the optimal search reaches every
// outcome the sleep-set search reaches, in fewer runs, and completes.
TEST(OptimalExplorer, LockFreeStructuresReachEveryOutcomeInFewerRuns) {
  std::vector<Case> cases;
  cases.push_back({"Treiber stack, 3 fibers", std::make_unique<TreiberStack>()});
  cases.push_back({"Michael-Scott queue, 2 fibers", std::make_unique<MsQueue>()});
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Search sleep = sleep_sets(*c.p);
    const Search opt = optimal(*c.p);
    report(counts(c.name + ", sleep sets", sleep) + "; " + counts("optimal", opt));
    ASSERT_TRUE(sleep.complete);
    EXPECT_TRUE(opt.complete);
    EXPECT_EQ(opt.outcomes, sleep.outcomes);
    // Both searches count a failed compare-exchange as a read: their traces are the same set,
    // though the queue's nodes (and their atomics) are numbered per run.
    EXPECT_EQ(opt.keys, sleep.keys);
    EXPECT_EQ(opt.redundant, 0u);
    EXPECT_LE(opt.runs, sleep.runs);
  }
}

// A budget ends the search as incomplete, never as a pass; it knows roughly how far it got.
TEST(OptimalExplorer, ABudgetEndsTheSearchIncomplete) {
  Readers p(3);
  const Search opt = search<dpor::OptimalExplorer>(p, dpor::OptimalConfig{.max_schedules = 5});
  EXPECT_EQ(opt.runs, 5u);
  EXPECT_FALSE(opt.complete);
  EXPECT_GT(opt.runs_in_all.back(), 5.0);
}

// The estimate of a search's runs in all (search_share.hpp): exact once the search is complete,
// never below the runs made, and, measured here, how close it was a quarter and half of the way.
TEST(OptimalExplorer, EstimatesItsRunsInAllAsItGoes) {
  std::vector<Case> cases = programs();
  cases.push_back({"Treiber stack, 3 fibers", std::make_unique<TreiberStack>()});
  cases.push_back({"Michael-Scott queue, 2 fibers", std::make_unique<MsQueue>()});
  for (const Case& c : cases)
    for (const bool reduced : {true, false}) {
      SCOPED_TRACE(c.name + (reduced ? ", optimal" : ", every schedule"));
      const Search s = reduced ? optimal(*c.p) : every_schedule(*c.p);
      ASSERT_TRUE(s.complete);
      ASSERT_EQ(s.runs_in_all.size(), s.runs);
      EXPECT_DOUBLE_EQ(s.runs_in_all.back(), static_cast<double>(s.runs));
      for (std::size_t i = 0; i + 1 < s.runs; ++i)
        EXPECT_GT(s.runs_in_all[i], static_cast<double>(i + 1)) << "after run " << i + 1 << " of " << s.runs;
      auto at = [&](std::size_t part) { return s.runs_in_all[(s.runs - 1) / part]; };
      std::printf("[ measured ] %s, %s: %zu runs; estimated after a quarter %.0f, after half %.0f\n", c.name.c_str(),
                  reduced ? "optimal" : "every schedule", s.runs, at(4), at(2));
    }
}

// Fibers on disjoint objects have one trace: one run, however many fibers and steps.
TEST(OptimalExplorer, DisjointFibersTakeOneRun) {
  Disjoint p(4, 4);
  const Search opt = optimal(p);
  EXPECT_EQ(opt.runs, 1u);
  EXPECT_TRUE(opt.complete);
}

TEST(OptimalExplorer, FailingScheduleReplaysWithTheRandomPicker) {
  RacyCounter p(2);
  const Search opt = optimal(p);
  ASSERT_GT(opt.failures, 0u);
  fb::Scheduler s;
  p.reset();
  const fb::RunResult& again = run_replay(s, p.branches, opt.failing_choices);
  EXPECT_TRUE(p.failed(again));
  EXPECT_EQ(joined(fb::format_trace(s.trace())), opt.failing_trace);
}

// Blocking is not part of the reduction yet: a program whose fibers block on a mutex is still
// searched (and its bugs found where the search reaches them), but never called complete.
TEST(OptimalExplorer, ABlockedFiberMakesTheSearchIncompleteAndSaysWhy) {
  MutexMix p(2);
  const Search opt = optimal(p);
  EXPECT_FALSE(opt.complete);
  EXPECT_EQ(opt.failures, 0u);
  EXPECT_NE(opt.outside.find("a fiber blocked on a mutex (explored_programs.hpp:"), std::string::npos) << opt.outside;
}

// Spin loops: the scheduler makes a spinning fiber let another run, so the search ends; the
// broken lock (test, then set) is found.
TEST(OptimalExplorer, FindsTheBrokenSpinLockAndPassesTheCorrectOne) {
  SpinLock good(2, 1);
  const Search g = optimal(good);
  report(counts("spin lock 2x1, optimal", g));
  EXPECT_EQ(g.failures, 0u);
  EXPECT_GT(g.runs, 1u);
  SpinLock broken(2, 1, true);
  const Search b = optimal(broken);
  report(counts("broken spin lock 2x1, optimal", b));
  EXPECT_GT(b.failures, 0u);
}

TEST(OptimalExplorer, RefusesANondeterministicProgram) {
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(0);
  dpor::OptimalExplorer ex(s, src);
  duet::atomic<int> x{0};
  int round = 0;
  // The first step depends on something the runs do not reset.
  const Branches branches = {[&] {
                               if (round % 2) x.store(1);
                               else (void)x.load();
                               x.store(2);
                             },
                             [&] { (void)x.load(); }};
  fb::Picker* picker = nullptr;
  EXPECT_THROW(
      {
        for (int i = 0; i < 10 && ex.next(picker); ++i, ++round) {
          src.restart(0);
          ex.finish(s.run(branches, *picker));
        }
      },
      std::runtime_error);
}

// The order of one run: program order, dependence, and the races that are not implied.
TEST(OptimalExplorer, RacesAreDependentPairsWithNothingBetween) {
  using dpor::Step;
  auto st = [](std::uint32_t fiber, fb::Op op, std::uint32_t object) {
    return Step{.fiber = fiber, .event = fb::Event{.op = op, .kind = fb::ObjectKind::atomic, .object = object}};
  };
  // 0: f0 store x; 1: f1 load x; 2: f1 store y; 3: f2 load y; 4: f2 load x.
  const std::vector<Step> steps = {st(0, fb::Op::store, 0), st(1, fb::Op::load, 0), st(1, fb::Op::store, 1),
                                   st(2, fb::Op::load, 1), st(2, fb::Op::load, 0)};
  dpor::RunOrder order;
  order.assign(steps);
  std::vector<std::pair<std::size_t, std::size_t>> races;
  for (const dpor::Race& r : order.races()) races.emplace_back(r.first, r.second);
  // (0, 4) is implied: 0 -> 1 -> 2 -> 3 -> 4.
  EXPECT_EQ(races, (std::vector<std::pair<std::size_t, std::size_t>>{{0, 1}, {2, 3}}));
  EXPECT_TRUE(order.before(0, 4));
  EXPECT_FALSE(order.before(3, 2));
  const std::vector<Step> v = order.reversal({2, 3});
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].fiber, 2u);
  EXPECT_TRUE(dpor::weak_initial(2, v, nullptr));
  const Step load_x = st(0, fb::Op::load, 0);
  const Step store_y = st(0, fb::Op::store, 1);
  EXPECT_TRUE(dpor::weak_initial(0, v, &load_x));    // independent of f2's load of y
  EXPECT_FALSE(dpor::weak_initial(0, v, &store_y));  // a store of y is not
  EXPECT_FALSE(dpor::weak_initial(0, v, nullptr));   // unknown: assumed dependent
}

// Under the C++ memory model, a load may read a store older than a newer one only where that
// newer store could not have run after it: otherwise the same execution has the load first.
TEST(OptimalExplorer, UnderTheModelALoadCouldPrecedeTheStoresNothingOrdersBeforeIt) {
  using dpor::Step;
  auto st = [](std::uint32_t fiber, fb::Op op, std::uint32_t object) {
    return Step{
        .fiber = fiber,
        .event = fb::Event{.op = op, .kind = fb::ObjectKind::atomic, .order = std::memory_order_relaxed, .object = object},
        .model = true};
  };
  // 0: f0 stores x; 1: f0 stores y; 2: f1 loads y; then f1's load of x is pending.
  const std::vector<Step> steps = {st(0, fb::Op::store, 0), st(0, fb::Op::store, 1), st(1, fb::Op::load, 1)};
  dpor::RunOrder order;
  order.assign(steps);
  const Step load_x = st(1, fb::Op::load, 0);
  // f1's load of y follows f0's store of y, which follows the store of x: the load of x cannot
  // come before it.
  EXPECT_FALSE(order.could_precede(load_x, std::vector<std::size_t>{0}));
  // Without the load of y in between, it can.
  const std::vector<Step> alone = {st(0, fb::Op::store, 0), st(0, fb::Op::store, 1)};
  order.assign(alone);
  EXPECT_TRUE(order.could_precede(load_x, std::vector<std::size_t>{0}));
  EXPECT_EQ(dpor::writes_of(alone, 0), (std::vector<std::size_t>{0}));
  EXPECT_TRUE(dpor::history_holds_every_store(alone, 0));
}

// Programs with relaxed atomics, for the searches under the C++ memory model.
struct RelaxedStoreBuffering : Program {
  duet::atomic<int> x{0}, y{0};
  int r0 = 0, r1 = 0;
  RelaxedStoreBuffering() {
    branches = {[this] {
                  x.store(1, std::memory_order_relaxed);
                  r0 = y.load(std::memory_order_relaxed);
                },
                [this] {
                  y.store(1, std::memory_order_relaxed);
                  r1 = x.load(std::memory_order_relaxed);
                }};
  }
  void reset() override {
    x.store(0);
    y.store(0);
  }
  std::string outcome() const override { return std::to_string(r0) + std::to_string(r1); }
};

// A writer of two values and readers that read twice (coherence: a later read is not older).
struct CoherentReaders : Program {
  duet::atomic<int> x{0};
  std::array<int, 4> seen{};
  explicit CoherentReaders(int readers) {
    branches.push_back([this] {
      x.store(1, std::memory_order_relaxed);
      x.store(2, std::memory_order_relaxed);
    });
    for (int i = 0; i < readers; ++i)
      branches.push_back([this, i] {
        const int a = x.load(std::memory_order_relaxed);
        seen[static_cast<std::size_t>(i)] = a * 10 + x.load(std::memory_order_relaxed);
      });
  }
  void reset() override {
    x.store(0);
    seen = {};
  }
  std::string outcome() const override {
    std::string o;
    for (int v : seen) o += std::to_string(v) + " ";
    return o;
  }
};

// Message passing: data, then a flag, released or relaxed; the reader reads the flag, then data.
struct MessagePassing : Program {
  duet::atomic<int> data{0}, flag{0};
  int f = 0, d = 0;
  explicit MessagePassing(bool release) {
    const auto st = release ? std::memory_order_release : std::memory_order_relaxed;
    const auto ld = release ? std::memory_order_acquire : std::memory_order_relaxed;
    branches = {[this, st] {
                  data.store(1, std::memory_order_relaxed);
                  flag.store(1, st);
                },
                [this, ld] {
                  f = flag.load(ld);
                  d = data.load(std::memory_order_relaxed);
                }};
  }
  void reset() override {
    data.store(0);
    flag.store(0);
  }
  std::string outcome() const override { return std::to_string(f) + std::to_string(d); }
};

// Independent reads of independent writes: two writers, two readers reading both in turn.
struct RelaxedIriw : Program {
  duet::atomic<int> x{0}, y{0};
  int a = 0, b = 0, c = 0, d = 0;
  RelaxedIriw() {
    constexpr auto relaxed = std::memory_order_relaxed;
    branches = {[this] { x.store(1, relaxed); }, [this] { y.store(1, relaxed); },
                [this] {
                  a = x.load(relaxed);
                  b = y.load(relaxed);
                },
                [this] {
                  c = y.load(relaxed);
                  d = x.load(relaxed);
                }};
  }
  void reset() override {
    x.store(0);
    y.store(0);
  }
  std::string outcome() const override {
    return std::to_string(a) + std::to_string(b) + std::to_string(c) + std::to_string(d);
  }
};

// n fibers incrementing by a relaxed load and store.
struct RelaxedCounter : Program {
  duet::atomic<int> c{0};
  explicit RelaxedCounter(int fibers) {
    branches.assign(static_cast<std::size_t>(fibers), [this] {
      const int v = c.load(std::memory_order_relaxed);
      c.store(v + 1, std::memory_order_relaxed);
    });
  }
  void reset() override { c.store(0); }
  std::string outcome() const override { return std::to_string(c.load()); }
};

// Under the C++ memory model an execution is a schedule and the store each load read. With
// every store explored, the optimal search's runs are the distinct executions that the search of
// every schedule and every store finds, each once; within a stale-read bound, it reaches what
// the sleep-set search reaches with that bound.
TEST(OptimalExplorer, UnderTheModelRunsEachExecutionOnce) {
  std::vector<Case> cases;
  cases.push_back({"relaxed store buffering", std::make_unique<RelaxedStoreBuffering>(), false, true});
  cases.push_back({"coherent readers 2", std::make_unique<CoherentReaders>(2)});
  cases.push_back({"message passing, relaxed", std::make_unique<MessagePassing>(false)});
  cases.push_back({"message passing, release/acquire", std::make_unique<MessagePassing>(true)});
  cases.push_back({"relaxed counter 3", std::make_unique<RelaxedCounter>(3)});
  cases.push_back({"relaxed IRIW", std::make_unique<RelaxedIriw>(), false, true});
  constexpr std::size_t every = dpor::OptimalConfig::kUnbounded;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const Search all = search<fb::Explorer>(
        *c.p,
        fb::ExplorerConfig{.preemption_bound = kInf, .sleep_sets = false, .memory_model = true, .stale_read_bound = kInf},
        true);
    const Search opt = search<dpor::OptimalExplorer>(*c.p, dpor::OptimalConfig{.stale_read_bound = every}, true);
    report(counts(c.name + ", optimal, every store", opt) + ", " + std::to_string(opt.executions.size()) +
           " executions; every schedule and store: " + std::to_string(all.runs) + " runs, " +
           std::to_string(all.executions.size()) + " executions");
    ASSERT_TRUE(all.complete);
    EXPECT_TRUE(opt.complete) << opt.outside;
    EXPECT_EQ(opt.executions, all.executions);
    EXPECT_EQ(opt.outcomes, all.outcomes);
    if (!c.weak_cycles) EXPECT_EQ(opt.repeated_executions, 0u);
    EXPECT_EQ(opt.redundant, 0u);
    const Search sleep = search<fb::Explorer>(
        *c.p, fb::ExplorerConfig{.preemption_bound = kInf, .memory_model = true, .stale_read_bound = 1}, true);
    const Search bounded = search<dpor::OptimalExplorer>(*c.p, dpor::OptimalConfig{.stale_read_bound = 1}, true);
    report(counts(c.name + ", 1 stale read, optimal", bounded) + "; " + counts("sleep sets", sleep));
    EXPECT_TRUE(bounded.complete);
    EXPECT_EQ(bounded.executions, sleep.executions);
    EXPECT_LE(bounded.runs, sleep.runs);
  }
}

}  // namespace
