// The scheduling strategies (src/execute/fibers/strategies.hpp): PCT's detection rate against
// its bound, the exhaustive search's counts, its partial-order reduction checked against the
// unreduced search, and the rule that every strategy's choices replay with the random picker.
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

#include "execute/fibers/strategies.hpp"
#include "explored_programs.hpp"
#include "fiber_support.hpp"

namespace {

using namespace duet::fibertest;

void report(const std::string& what) { std::printf("[ measured ] %s\n", what.c_str()); }

// Preemptions read off a trace, for programs without spins and blocking: a switch away from a
// fiber whose last event was not its exit and whose next event is not a yield.
std::size_t trace_preemptions(const std::vector<fb::TraceEvent>& trace) {
  std::size_t n = 0;
  for (std::size_t i = 0; i + 1 < trace.size(); ++i) {
    const fb::TraceEvent& e = trace[i];
    if (trace[i + 1].fiber == e.fiber || e.event.op == fb::Op::exit || e.event.op == fb::Op::exit_exception) continue;
    bool yields_next = false;
    for (std::size_t j = i + 1; j < trace.size(); ++j)
      if (trace[j].fiber == e.fiber) {
        yields_next = trace[j].event.op == fb::Op::yield;
        break;
      }
    n += !yields_next;
  }
  return n;
}

struct Explored {
  fb::ExplorerStats stats;
  std::size_t failures = 0;
  std::size_t first_failure = 0;  // 1-based run number
  std::vector<std::uint64_t> failing_choices;
  std::string failing_trace;
  std::size_t failing_preemptions = 0;
  std::set<std::string> keys;      // traces of the complete (non-redundant) schedules
  std::set<std::string> all_keys;  // of every run
  std::size_t max_preemptions = 0;
  std::size_t max_trace_preemptions = 0;
  double seconds = 0;
};

Explored explore(Program& p, fb::ExplorerConfig cfg, bool keys = false, bool replay_each = false) {
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(0);
  fb::Explorer ex(s, src, cfg);
  Explored out;
  const auto t0 = std::chrono::steady_clock::now();
  each_run(ex, s, src, p, [&](const fb::RunResult& r) {
    const bool failed = p.failed(r);
    std::string formatted;
    if (replay_each || (failed && out.failures == 0)) formatted = joined(fb::format_trace(s.trace()));
    const std::vector<std::uint64_t> choices = src.choices();
    ex.finish(r);  // decides whether the run was redundant
    if (keys) {
      const std::string k = trace_key(s.trace());
      out.all_keys.insert(k);
      if (!ex.redundant()) {
        const bool is_new = out.keys.insert(k).second;
        // Unbounded, sleep sets complete each trace once. (Bounded, the reduction is partial:
        // see strategies.hpp.)
        EXPECT_TRUE(is_new || !cfg.sleep_sets || cfg.preemption_bound != fb::ExplorerConfig::kUnbounded)
            << "an equivalent schedule was completed twice";
      }
    }
    out.max_trace_preemptions = std::max(out.max_trace_preemptions, trace_preemptions(s.trace()));
    out.max_preemptions = std::max(out.max_preemptions, ex.preemptions());
    if (failed && ++out.failures == 1) {
      out.first_failure = ex.stats().runs;
      out.failing_choices = choices;
      out.failing_trace = formatted;
      out.failing_preemptions = ex.preemptions();
    }
    if (replay_each) {  // every schedule, not just a failing one, replays with the random picker
      p.reset();
      const fb::RunResult& again = run_replay(s, p.branches, choices);
      EXPECT_EQ(p.failed(again), failed);
      EXPECT_EQ(joined(fb::format_trace(s.trace())), formatted) << "run " << ex.stats().runs;
    }
  });
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  out.stats = ex.stats();
  return out;
}

std::string describe(const std::string& name, const Explored& e) {
  return name + ": " + std::to_string(e.stats.schedules) + " schedules + " + std::to_string(e.stats.redundant) +
         " redundant runs (" + std::to_string(e.stats.sleep_pruned) + " alternatives asleep, " +
         std::to_string(e.stats.bound_pruned) + " over the bound), " + std::to_string(e.failures) + " failing, " +
         std::to_string(static_cast<int>(e.seconds * 1e3)) + " ms";
}

// Detection rate of a strategy: runs of `p` under `picker` with a fresh seed each.
template <class MakePicker>
double rate(Program& p, std::size_t runs, MakePicker make) {
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(1);
  auto picker = make(src);
  std::size_t hits = 0;
  for (std::size_t i = 0; i < runs; ++i) {
    src.restart(0x5eed'0000 + i);
    p.reset();
    hits += p.failed(s.run(p.branches, *picker));
  }
  return static_cast<double>(hits) / static_cast<double>(runs);
}

// ---- dependence ----

TEST(FiberStrategies, DependenceIsSameObjectWithAWrite) {
  const auto ev = [](fb::Op op, std::uint32_t object, fb::ObjectKind kind = fb::ObjectKind::atomic) {
    return fb::Event{op, kind, std::memory_order_seq_cst, object, {}};
  };
  EXPECT_FALSE(fb::dependent(ev(fb::Op::load, 1), ev(fb::Op::load, 1)));
  EXPECT_FALSE(fb::dependent(ev(fb::Op::load, 1), ev(fb::Op::cas_fail, 1)));
  EXPECT_FALSE(fb::dependent(ev(fb::Op::read, 1, fb::ObjectKind::var), ev(fb::Op::read, 1, fb::ObjectKind::var)));
  EXPECT_TRUE(fb::dependent(ev(fb::Op::load, 1), ev(fb::Op::store, 1)));
  EXPECT_TRUE(fb::dependent(ev(fb::Op::store, 1), ev(fb::Op::load, 1)));
  EXPECT_TRUE(fb::dependent(ev(fb::Op::cas, 1), ev(fb::Op::cas_fail, 1)));  // a pending CAS may write
  EXPECT_TRUE(fb::dependent(ev(fb::Op::rmw, 1), ev(fb::Op::rmw, 1)));
  EXPECT_FALSE(fb::dependent(ev(fb::Op::store, 1), ev(fb::Op::store, 2)));
  EXPECT_TRUE(fb::dependent(ev(fb::Op::lock, 3, fb::ObjectKind::mutex), ev(fb::Op::unlock, 3, fb::ObjectKind::mutex)));
  EXPECT_FALSE(fb::dependent(ev(fb::Op::yield, fb::kNoObject, fb::ObjectKind::none), ev(fb::Op::store, 1)));
  EXPECT_FALSE(fb::dependent(ev(fb::Op::start, fb::kNoObject, fb::ObjectKind::none), ev(fb::Op::store, 1)));
  EXPECT_TRUE(fb::dependent(ev(fb::Op::notify_one, 4, fb::ObjectKind::condition_variable),
                            ev(fb::Op::wait, 4, fb::ObjectKind::condition_variable)));
  // A condition-variable wait also releases its (unnamed) mutex.
  EXPECT_TRUE(
      fb::dependent(ev(fb::Op::lock, 5, fb::ObjectKind::mutex), ev(fb::Op::wait, 4, fb::ObjectKind::condition_variable)));
}

// ---- PCT ----

TEST(FiberStrategies, PctFindsADepthOneBugAtTheBoundedRate) {
  Depth1 p;
  const double bound = fb::PctPicker::bound(2, 8, 1);  // 1/n
  const double observed = rate(p, 2000, [](duet::Source& src) { return std::make_unique<fb::PctPicker>(src, 1); });
  report("PCT d=1, n=2: detection " + std::to_string(observed) + " per run, bound " + std::to_string(bound));
  EXPECT_GE(observed, 0.8 * bound);
  EXPECT_LE(observed, 1.2 * bound);  // exactly 1/2 here: the bug needs fiber 1's priority higher
}

TEST(FiberStrategies, PctFindsADepthTwoBugAtTheBoundedRate) {
  static constexpr std::size_t k = 8;
  for (int idle = 0; idle <= 1; ++idle) {
    SCOPED_TRACE(idle);
    Depth2 p(idle);
    const std::size_t n = p.branches.size();
    const double bound = fb::PctPicker::bound(n, k, 2);  // 1/(n k)
    const double observed = rate(p, 6000, [](duet::Source& src) { return std::make_unique<fb::PctPicker>(src, 2, k); });
    // This program's exact rate: fiber 0's priority above fiber 1's (half the orders; the idle
    // fiber's place does not matter) and the change point at the one step between fiber 0's
    // stores (1/k). With two fibers that is the bound itself.
    const double exact = 1.0 / (2.0 * k);
    report("PCT d=2, n=" + std::to_string(n) + ", k=" + std::to_string(k) + ": detection " + std::to_string(observed) +
           " per run, bound " + std::to_string(bound) + ", exact " + std::to_string(exact));
    EXPECT_GE(observed, 0.8 * bound);
    EXPECT_GE(observed, 0.8 * exact);
    EXPECT_LE(observed, 1.25 * exact);  // more would mean change points act at other steps
    // Depth 1 never finds it: without a change point fiber 0 runs both stores first.
    EXPECT_EQ(rate(p, 500, [](duet::Source& src) { return std::make_unique<fb::PctPicker>(src, 1); }), 0.0);
  }
}

TEST(FiberStrategies, PctLearnsTheStepCountFromEarlierRuns) {
  RacyCounter p(2);
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(3);
  fb::PctPicker pct(src, 2);
  p.reset();
  s.run(p.branches, pct);
  EXPECT_EQ(pct.steps(), 0u);          // no change points in the first run
  EXPECT_FALSE(p.failed(s.result()));  // so the highest-priority fiber ran to its end first
  ASSERT_GT(pct.steps_seen(), 0u);
  std::size_t found_at = 0;
  for (std::size_t run = 2; run <= 200 && found_at == 0; ++run) {
    src.restart(run);
    p.reset();
    const std::size_t seen_before = pct.steps_seen();
    s.run(p.branches, pct);
    EXPECT_EQ(pct.steps(), seen_before);  // k = the most events before a choice in earlier runs
    if (p.failed(s.result())) found_at = run;
  }
  EXPECT_GT(found_at, 0u) << "PCT with a learnt k never lost the update";
}

// ---- replay: every strategy's choices replay with the random picker ----

// Waiters and a notifier: waiter picks and spurious wake-ups are choices too.
struct CvProgram : Program {
  duet::mutex m;
  duet::condition_variable cv;
  duet::atomic<int> c{0};
  int tokens = 0, served = 0;
  CvProgram() {
    const auto waiter = [this] {
      std::unique_lock lk(m);
      cv.wait(lk, [&] { return tokens > 0; });
      --tokens;
      ++served;
      lk.unlock();
      const int v = c.load();  // a lost update on top
      c.store(v + 1);
    };
    branches = {waiter, waiter, [this] {
                  for (int i = 0; i < 2; ++i) {
                    std::lock_guard g(m);
                    ++tokens;
                    cv.notify_one();
                  }
                }};
  }
  void reset() override {
    tokens = served = 0;
    c.store(0);
  }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || c.load() != 2; }
};

void expect_failing_run_replays(Program& p, fb::Picker& picker, duet::Source& src, const std::string& strategy) {
  SCOPED_TRACE(strategy);
  fb::Scheduler s;
  std::vector<std::uint64_t> choices;
  std::string trace;
  for (std::uint64_t seed = 1; seed <= 2000 && trace.empty(); ++seed) {
    src.restart(seed);
    p.reset();
    if (p.failed(s.run(p.branches, picker))) {
      choices = src.choices();
      trace = joined(fb::format_trace(s.trace()));
    }
  }
  ASSERT_FALSE(trace.empty()) << "no failing run";
  for (int i = 0; i < 2; ++i) {
    p.reset();
    EXPECT_TRUE(p.failed(run_replay(s, p.branches, choices)));
    EXPECT_EQ(joined(fb::format_trace(s.trace())), trace);
  }
}

TEST(FiberStrategies, EveryStrategysFailingRunReplaysWithTheRandomPicker) {
  for (int which = 0; which < 2; ++which) {
    std::unique_ptr<Program> p;
    if (which == 0) p = std::make_unique<RacyCounter>(3);
    else p = std::make_unique<CvProgram>();
    duet::Source src = duet::Source::from_seed(1);
    fb::RandomPicker random(src);
    expect_failing_run_replays(*p, random, src, "random");
    for (std::size_t d = 2; d <= 3; ++d) {  // depth 1 never preempts: it cannot lose the update
      fb::PctPicker pct(src, d, 12);
      expect_failing_run_replays(*p, pct, src, "pct " + std::to_string(d));
    }
    fb::PctPicker adaptive(src, 3);
    expect_failing_run_replays(*p, adaptive, src, "pct adaptive");
    // The exhaustive search: every schedule (failing or not) replays, waiter picks and
    // spurious wake-ups included.
    const std::size_t bound = which == 0 ? 2 : 1;
    const Explored e = explore(*p, {.preemption_bound = bound, .spurious_bound = 1}, false, true);
    report(describe((which == 0 ? "racy counter 3x1" : "condition variable 3 fibers") + std::string(", bound ") +
                        std::to_string(bound) + ", spurious 1, every schedule replayed",
                    e));
    EXPECT_GT(e.failures, 0u);
    EXPECT_TRUE(e.stats.complete);
  }
}

// ---- the exhaustive search ----

// Which waiter a notify_one wakes, and spurious wake-ups, are choice points of the search too.
// Two waiters and one token: the notifier wakes one waiter, which serves itself and passes the
// token on to the other.
struct Relay : Program {
  duet::mutex m;
  duet::condition_variable cv;
  int tokens = 0, served = 0;
  std::vector<std::uint32_t> order;
  Relay() {
    const auto waiter = [this](std::uint32_t id) {
      std::unique_lock lk(m);
      cv.wait(lk, [&] { return tokens > 0; });
      --tokens;
      order.push_back(id);
      if (++served < 2) {
        ++tokens;
        cv.notify_one();
      }
    };
    branches = {[=] { waiter(0); }, [=] { waiter(1); },
                [this] {
                  std::lock_guard g(m);
                  ++tokens;
                  cv.notify_one();
                }};
  }
  void reset() override {
    tokens = served = 0;
    order.clear();
  }
  bool failed(const fb::RunResult& r) const override { return Program::failed(r) || served != 2; }
};

TEST(FiberStrategies, ExhaustiveExploresWhichWaiterIsWokenAndSpuriousWakeUps) {
  for (std::size_t spurious_bound : {0, 1}) {
    SCOPED_TRACE(spurious_bound);
    Relay p;
    fb::Scheduler s;
    duet::Source src = duet::Source::from_seed(0);
    fb::Explorer ex(s, src, {.preemption_bound = 0, .spurious_bound = spurious_bound});
    std::set<std::uint32_t> served_first;  // among runs where both waited at the notifier's notify
    std::size_t spurious_runs = 0;
    fb::Picker* picker = nullptr;
    while (ex.next(picker)) {
      src.restart(0);
      p.reset();
      const fb::RunResult& r = s.run(p.branches, *picker);
      EXPECT_FALSE(p.failed(r)) << fb::describe(r, s.trace());
      std::set<std::uint32_t> waiting;
      bool spurious = false, both_waited = false;
      for (const fb::TraceEvent& e : s.trace()) {
        if (e.event.op == fb::Op::wake && e.read.bits == static_cast<std::uint64_t>(fb::WakeReason::spurious))
          spurious = true;
        if (e.event.op == fb::Op::wait) waiting.insert(e.fiber);
        if (e.event.op == fb::Op::wake) waiting.erase(e.fiber);
        if (e.event.op == fb::Op::notify_one && e.fiber == 2) both_waited = waiting.size() == 2;
      }
      if (both_waited && !spurious && !p.order.empty()) served_first.insert(p.order[0]);
      spurious_runs += spurious;
      ex.finish(r);
    }
    EXPECT_TRUE(ex.stats().complete);
    if (spurious_bound == 0) {
      EXPECT_EQ(served_first, (std::set<std::uint32_t>{0, 1}));  // both waiter picks explored
      EXPECT_EQ(spurious_runs, 0u);
    } else {
      EXPECT_GT(spurious_runs, 0u);
    }
    report("relay over a condition variable, bound 0, spurious bound " + std::to_string(spurious_bound) + ": " +
           std::to_string(ex.stats().schedules) + " schedules, " + std::to_string(spurious_runs) +
           " with a spurious wake-up");
  }
}

TEST(FiberStrategies, ExhaustiveFindsTheRacyCounterOnItsFirstPass) {
  RacyCounter p(2);
  const Explored e = explore(p, {.preemption_bound = 2});
  report(describe("racy counter 2x1, bound 2", e) + "; first failure at run " + std::to_string(e.first_failure) + " with " +
         std::to_string(e.failing_preemptions) + " preemption(s)");
  ASSERT_GT(e.failures, 0u);
  EXPECT_TRUE(e.stats.complete);
  EXPECT_LE(e.first_failure, 3u);  // depth-first from the non-preemptive schedule: the first preemption tried
  EXPECT_EQ(e.failing_preemptions, 1u);
  EXPECT_NE(e.failing_trace.find("load"), std::string::npos);
  // Both loads before either store, in the failing trace.
  p.reset();
  fb::Scheduler s;
  run_replay(s, p.branches, e.failing_choices);
  EXPECT_EQ(p.c.load(), 1);
  int loads_first = 0;
  for (const auto& ev : s.trace()) {
    if (ev.event.op == fb::Op::store) break;
    loads_first += ev.event.op == fb::Op::load;
  }
  EXPECT_EQ(loads_first, 2);
  // Without a bound the reduction is exact: the loads and stores of the two increments on one
  // object have 4 orders up to swapping the two loads (0's load and store before 1's, the
  // reverse, and both loads first followed by either store order); the last two lose the update.
  const Explored all = explore(p, {.preemption_bound = fb::ExplorerConfig::kUnbounded});
  EXPECT_TRUE(all.stats.complete);
  EXPECT_EQ(all.stats.schedules, 4u);
  EXPECT_EQ(all.failures, 2u);
}

TEST(FiberStrategies, ExhaustiveCompletesOnACorrectSpinLockAndFindsABrokenOne) {
  SpinLock good(2, 3);
  const Explored reduced = explore(good, {.preemption_bound = 2});
  const Explored full = explore(good, {.preemption_bound = 2, .sleep_sets = false});
  report(describe("spin lock 2x3, bound 2, sleep sets", reduced));
  report(describe("spin lock 2x3, bound 2, no reduction", full));
  EXPECT_TRUE(reduced.stats.complete);
  EXPECT_TRUE(full.stats.complete);
  EXPECT_EQ(reduced.failures, 0u);
  EXPECT_EQ(full.failures, 0u);
  EXPECT_GT(reduced.stats.schedules, 10u);
  EXPECT_LT(reduced.stats.runs, full.stats.runs);
  EXPECT_LE(reduced.max_preemptions, 2u);

  SpinLock broken(2, 3, true);
  const Explored b = explore(broken, {.preemption_bound = 2});
  report(describe("broken spin lock 2x3, bound 2", b) + "; first failure at run " + std::to_string(b.first_failure));
  EXPECT_GT(b.failures, 0u);
}

TEST(FiberStrategies, FibersOnDisjointObjectsHaveExactlyOneScheduleAfterReduction) {
  for (int fibers = 2; fibers <= 3; ++fibers) {
    SCOPED_TRACE(fibers);
    Disjoint p(fibers, 3);
    const Explored reduced = explore(p, {.preemption_bound = fb::ExplorerConfig::kUnbounded}, true);
    report(describe("disjoint " + std::to_string(fibers) + "x3, unbounded, sleep sets", reduced));
    EXPECT_TRUE(reduced.stats.complete);
    EXPECT_EQ(reduced.stats.schedules, 1u);
    EXPECT_EQ(reduced.all_keys.size(), 1u);
    if (fibers == 2) {
      const Explored full = explore(p, {.preemption_bound = fb::ExplorerConfig::kUnbounded, .sleep_sets = false}, true);
      report(describe("disjoint 2x3, unbounded, no reduction", full));
      EXPECT_TRUE(full.stats.complete);
      // Two fibers of 4 switch points each (start and 3 operations), interleaved: C(8, 4) = 70.
      EXPECT_EQ(full.stats.schedules, 70u);
      EXPECT_EQ(full.keys.size(), 1u);
    }
  }
}

TEST(FiberStrategies, PreemptionBoundZeroExploresOnlyNonPreemptiveSchedules) {
  // Three fibers, two increments each: the only free choices are who starts and, each time a
  // fiber finishes, who goes next: 3! = 6 schedules.
  struct Incr : Program {
    duet::atomic<int> x{0};
    Incr() {
      branches.assign(3, [this] {
        x.fetch_add(1);
        x.fetch_add(1);
      });
    }
    void reset() override { x.store(0); }
  } incr;
  // Three fibers: increment, yield, increment. Who starts (3), then at the first yield either
  // other fiber (2); from there fairness decides: a fiber that yielded runs again only after
  // every fiber that could run when it yielded has run. 3 * 2 = 6.
  struct Yielding : Program {
    duet::atomic<int> x{0};
    Yielding() {
      branches.assign(3, [this] {
        x.fetch_add(1);
        duet::yield();
        x.fetch_add(1);
      });
    }
    void reset() override { x.store(0); }
  } yielding;
  for (bool sleep_sets : {true, false}) {
    SCOPED_TRACE(sleep_sets);
    const Explored a = explore(incr, {.preemption_bound = 0, .sleep_sets = sleep_sets}, true);
    EXPECT_TRUE(a.stats.complete);
    EXPECT_EQ(a.stats.schedules, 6u);
    EXPECT_EQ(a.stats.redundant, 0u);
    EXPECT_EQ(a.keys.size(), 6u);
    EXPECT_EQ(a.max_preemptions, 0u);
    EXPECT_EQ(a.max_trace_preemptions, 0u);
    const Explored b = explore(yielding, {.preemption_bound = 0, .sleep_sets = sleep_sets}, true);
    EXPECT_TRUE(b.stats.complete);
    EXPECT_EQ(b.stats.schedules, 6u);
    EXPECT_EQ(b.max_trace_preemptions, 0u);
  }
  // One preemption allowed: strictly more.
  const Explored c = explore(incr, {.preemption_bound = 1, .sleep_sets = false});
  EXPECT_GT(c.stats.schedules, 6u);
  EXPECT_EQ(c.max_preemptions, 1u);
  EXPECT_EQ(c.max_trace_preemptions, 1u);
}

// The reduction loses nothing: with sleep sets, the set of traces (equivalence classes)
// explored equals the unreduced search's, at every bound; unbounded, each trace is completed
// exactly once (checked inside explore()).
TEST(FiberStrategies, SleepSetsExploreEveryTraceTheFullSearchDoes) {
  struct Case {
    std::string name;
    std::unique_ptr<Program> p;
    std::vector<std::size_t> bounds;
  };
  constexpr std::size_t inf = fb::ExplorerConfig::kUnbounded;
  std::vector<Case> cases;
  cases.push_back({"racy counter 2", std::make_unique<RacyCounter>(2), {0, 1, 2, inf}});
  cases.push_back({"racy counter 3", std::make_unique<RacyCounter>(3), {0, 1, 2, inf}});
  cases.push_back({"mutex mix 2", std::make_unique<MutexMix>(2), {0, 1, 2, inf}});
  cases.push_back({"mutex mix 3", std::make_unique<MutexMix>(3), {0, 1, 2}});
  cases.push_back({"disjoint 2x2", std::make_unique<Disjoint>(2, 2), {0, 1, 2, inf}});
  cases.push_back({"depth-2 bug", std::make_unique<Depth2>(1), {0, 1, 2, inf}});
  for (const Case& c : cases)
    for (std::size_t bound : c.bounds) {
      SCOPED_TRACE(c.name + ", bound " + (bound == inf ? std::string("none") : std::to_string(bound)));
      const Explored reduced = explore(*c.p, {.preemption_bound = bound}, true);
      const Explored full = explore(*c.p, {.preemption_bound = bound, .sleep_sets = false}, true);
      ASSERT_TRUE(reduced.stats.complete && full.stats.complete);
      EXPECT_EQ(reduced.keys, full.keys);
      EXPECT_EQ(reduced.all_keys, full.keys);  // redundant runs repeat explored traces
      EXPECT_EQ(reduced.failures > 0, full.failures > 0);
      EXPECT_LE(reduced.stats.schedules, full.stats.schedules);
      if (bound == inf) EXPECT_EQ(reduced.stats.schedules, full.keys.size());
    }
}

TEST(FiberStrategies, FairnessLetsThreeSpinningFibersComplete) {
  SpinLock p(3, 1);
  const Explored e = explore(p, {.preemption_bound = 1});
  report(describe("spin lock 3x1, bound 1", e));
  EXPECT_TRUE(e.stats.complete);
  EXPECT_EQ(e.failures, 0u);  // no livelock: the spinners cannot pass the turn among themselves forever
  // Unfair, the spinners may pass the turn among themselves without end: the search goes on
  // and on (each such schedule a new one, up to the run's step limit).
  const Explored unfair = explore(p, {.preemption_bound = 1, .max_schedules = 500, .fair = false});
  report(describe("spin lock 3x1, bound 1, unfair", unfair));
  EXPECT_FALSE(unfair.stats.complete);
}

TEST(FiberStrategies, ExhaustiveStopsAtMaxSchedulesAndReportsIncomplete) {
  SpinLock p(2, 3);
  const Explored e = explore(p, {.preemption_bound = 2, .max_schedules = 5});
  EXPECT_EQ(e.stats.runs, 5u);
  EXPECT_FALSE(e.stats.complete);
}

TEST(FiberStrategies, ExhaustiveRejectsANondeterministicProgram) {
  fb::Scheduler s;
  duet::Source src = duet::Source::from_seed(0);
  fb::Explorer ex(s, src, {.preemption_bound = 2});
  duet::atomic<int> x{0};
  int runs = 0;
  const Branches br = {[&] {
                         x.store(1);
                         if (runs % 2 == 0) x.store(2);  // depends on something the run does not reset
                       },
                       [&] { x.load(); }};
  fb::Picker* picker = nullptr;
  bool threw = false;
  while (!threw && ex.next(picker)) {
    ++runs;
    src.restart(0);
    const fb::RunResult& r = s.run(br, *picker);
    try {
      ex.finish(r);
    } catch (const std::runtime_error& e) {
      threw = true;
      EXPECT_NE(std::string(e.what()).find("nondeterministic"), std::string::npos);
    }
  }
  EXPECT_TRUE(threw);
}

TEST(FiberStrategies, ExhaustiveNeedsARecordingSource) {
  fb::Scheduler s;
  duet::Source src = duet::Source::replay({});
  fb::Explorer ex(s, src);
  fb::Picker* picker = nullptr;
  EXPECT_THROW(ex.next(picker), std::logic_error);
}

}  // namespace
