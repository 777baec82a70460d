// The C++ memory model on fibers (src/execute/fibers/memory_model.hpp): the classic litmus tests,
// each explored exhaustively (every schedule, every choice of store for up to 4 stale reads),
// compared with the outcomes C++20 allows. Within the model's scope (store buffers: no load
// buffering, modification order = execution order) every allowed outcome must appear; an outcome
// the standard forbids must never appear. The optimal reduction (src/execute/fibers/dpor/) must
// reach the same outcomes as the sleep-set search on each.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "duet/sync.hpp"
#include "execute/fibers/dpor/optimal_explorer.hpp"
#include "execute/fibers/strategies.hpp"
#include "fiber_support.hpp"

namespace {

using namespace duet::fibertest;
namespace dpor = duet::detail::fiber::dpor;
using std::memory_order_acquire, std::memory_order_relaxed, std::memory_order_release, std::memory_order_seq_cst;
using Outcomes = std::set<std::string>;

duet::atomic<int> x, y, z;
int r[4];

void reset() {
  x.store(0);
  y.store(0);
  z.store(0);
  for (int& v : r) v = -1;
}

std::string regs(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += (i ? " " : "") + std::to_string(r[i]);
  return s;
}

struct Search {
  Outcomes outcomes;
  fb::ExplorerStats stats;
};

// One whole search of `branches` with `ex` on `s`.
Search run_search(fb::ScheduleSearch& ex, fb::Scheduler& s, duet::Source& src, const Branches& branches,
                  const std::function<std::string()>& outcome) {
  Search out;
  fb::Picker* picker = nullptr;
  while (ex.next(picker)) {
    src.restart(0);
    reset();
    const fb::RunResult& run = s.run(branches, *picker);
    EXPECT_EQ(run.outcome, fb::Outcome::completed) << fb::describe(run, s.trace());
    ex.finish(run);
    out.outcomes.insert(outcome());
  }
  out.stats = ex.stats();
  EXPECT_TRUE(out.stats.complete) << ex.outside_scope();
  return out;
}

// The optimal reduction's search (src/execute/fibers/dpor/), `stale` older stores per run.
Search explore_optimal(const Branches& branches, const std::function<std::string()>& outcome, bool memory_model,
                       std::size_t stale) {
  fb::SchedulerConfig sc;
  sc.cpp_memory_model = memory_model;
  fb::Scheduler s(sc);
  duet::Source src = duet::Source::from_seed(0);
  dpor::OptimalExplorer ex(s, src, dpor::OptimalConfig{.stale_read_bound = stale});
  return run_search(ex, s, src, branches, outcome);
}

// Every schedule (no preemption bound) and every store choice of up to `stale` loads per run.
// Each litmus test's outcomes are also the optimal reduction's, with the same bound and with
// none (every store of every load: these programs need no more than `stale`).
Search explore(const Branches& branches, const std::function<std::string()>& outcome, bool memory_model = true,
               bool sleep_sets = true, std::size_t stale = 4) {
  fb::SchedulerConfig sc;
  sc.cpp_memory_model = memory_model;
  fb::Scheduler s(sc);
  duet::Source src = duet::Source::from_seed(0);
  fb::ExplorerConfig cfg;
  cfg.preemption_bound = fb::ExplorerConfig::kUnbounded;
  cfg.sleep_sets = sleep_sets;
  cfg.memory_model = memory_model;
  cfg.stale_read_bound = stale;
  fb::Explorer ex(s, src, cfg);
  Search out = run_search(ex, s, src, branches, outcome);
  if (sleep_sets) {
    const Search bounded = explore_optimal(branches, outcome, memory_model, stale);
    EXPECT_EQ(bounded.outcomes, out.outcomes) << "the optimal reduction, " << stale << " stale reads";
    EXPECT_LE(bounded.stats.schedules, out.stats.runs);
    if (stale >= 4) {  // a smaller bound is one a test wants to see limit the outcomes
      const Search every = explore_optimal(branches, outcome, memory_model, dpor::OptimalConfig::kUnbounded);
      EXPECT_EQ(every.outcomes, out.outcomes) << "the optimal reduction, every store";
    }
  }
  return out;
}

Outcomes all_of(std::initializer_list<const char*> list) { return Outcomes(list.begin(), list.end()); }

// ---- SB: store buffering ----

Branches sb(std::memory_order st, std::memory_order ld, bool sc_fences = false) {
  return {[=] {
            x.store(1, st);
            if (sc_fences) duet::atomic_thread_fence(memory_order_seq_cst);
            r[0] = y.load(ld);
          },
          [=] {
            y.store(1, st);
            if (sc_fences) duet::atomic_thread_fence(memory_order_seq_cst);
            r[1] = x.load(ld);
          }};
}

TEST(MemoryModelLitmus, StoreBufferingRelaxedShowsBothZero) {
  EXPECT_EQ(explore(sb(memory_order_relaxed, memory_order_relaxed), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, StoreBufferingReleaseAcquireShowsBothZero) {
  EXPECT_EQ(explore(sb(memory_order_release, memory_order_acquire), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, StoreBufferingSeqCstNeverBothZero) {
  EXPECT_EQ(explore(sb(memory_order_seq_cst, memory_order_seq_cst), [] { return regs(2); }).outcomes,
            all_of({"0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, StoreBufferingWithSeqCstFencesNeverBothZero) {
  EXPECT_EQ(explore(sb(memory_order_relaxed, memory_order_relaxed, true), [] { return regs(2); }).outcomes,
            all_of({"0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, SequentialConsistencyModelNeverShowsAWeakOutcome) {
  EXPECT_EQ(explore(
                sb(memory_order_relaxed, memory_order_relaxed), [] { return regs(2); }, false)
                .outcomes,
            all_of({"0 1", "1 0", "1 1"}));
}

// ---- MP: message passing ----

Branches mp(std::memory_order st, std::memory_order ld, bool fences = false) {
  return {[=] {
            x.store(1, memory_order_relaxed);
            if (fences) duet::atomic_thread_fence(memory_order_release);
            y.store(1, st);
          },
          [=] {
            r[0] = y.load(ld);
            if (fences) duet::atomic_thread_fence(memory_order_acquire);
            r[1] = x.load(memory_order_relaxed);
          }};
}

TEST(MemoryModelLitmus, MessagePassingRelaxedShowsFlagWithoutData) {
  EXPECT_EQ(explore(mp(memory_order_relaxed, memory_order_relaxed), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, MessagePassingReleaseAcquireNeverFlagWithoutData) {
  EXPECT_EQ(explore(mp(memory_order_release, memory_order_acquire), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 1"}));
}

TEST(MemoryModelLitmus, MessagePassingReleaseWithRelaxedLoadShowsFlagWithoutData) {
  EXPECT_EQ(explore(mp(memory_order_release, memory_order_relaxed), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 0", "1 1"}));
}

TEST(MemoryModelLitmus, MessagePassingWithFencesNeverFlagWithoutData) {
  EXPECT_EQ(explore(mp(memory_order_relaxed, memory_order_relaxed, true), [] { return regs(2); }).outcomes,
            all_of({"0 0", "0 1", "1 1"}));
}

// ---- IRIW: independent reads of independent writes ----

Branches iriw(std::memory_order st, std::memory_order ld) {
  return {[=] { x.store(1, st); }, [=] { y.store(1, st); },
          [=] {
            r[0] = x.load(ld);
            r[1] = y.load(ld);
          },
          [=] {
            r[2] = y.load(ld);
            r[3] = x.load(ld);
          }};
}

TEST(MemoryModelLitmus, IriwAcquireReadersDisagree) {
  const Outcomes o = explore(iriw(memory_order_release, memory_order_acquire), [] { return regs(4); }).outcomes;
  EXPECT_EQ(o.size(), 16u);  // every combination, "1 0 1 0" (the readers disagree) among them
  EXPECT_TRUE(o.count("1 0 1 0"));
}

TEST(MemoryModelLitmus, IriwSeqCstReadersAgree) {
  const Outcomes o = explore(iriw(memory_order_seq_cst, memory_order_seq_cst), [] { return regs(4); }).outcomes;
  EXPECT_EQ(o.size(), 15u);
  EXPECT_FALSE(o.count("1 0 1 0"));
}

// ---- coherence ----

TEST(MemoryModelLitmus, CoherenceReadRead) {
  const Branches b = {[] {
                        x.store(1, memory_order_relaxed);
                        x.store(2, memory_order_relaxed);
                      },
                      [] {
                        r[0] = x.load(memory_order_relaxed);
                        r[1] = x.load(memory_order_relaxed);
                      }};
  // Never a second read older than the first: not "1 0", "2 0", "2 1".
  EXPECT_EQ(explore(b, [] { return regs(2); }).outcomes, all_of({"0 0", "0 1", "0 2", "1 1", "1 2", "2 2"}));
}

TEST(MemoryModelLitmus, CoherenceWriteRead) {
  const Branches b = {[] {
                        x.store(1, memory_order_relaxed);
                        r[0] = x.load(memory_order_relaxed);
                      },
                      [] { x.store(2, memory_order_relaxed); }};
  // A fiber never reads older than its own store: never 0.
  EXPECT_EQ(explore(b, [] { return regs(1) + " " + std::to_string(x.load()); }).outcomes, all_of({"1 1", "1 2", "2 2"}));
}

TEST(MemoryModelLitmus, CoherenceReadWrite) {
  const Branches b = {[] {
                        r[0] = x.load(memory_order_relaxed);
                        x.store(1, memory_order_relaxed);
                      },
                      [] { x.store(2, memory_order_relaxed); }};
  // Never a read of a store that comes after the fiber's own in modification order: not "2 2".
  EXPECT_EQ(explore(b, [] { return regs(1) + " " + std::to_string(x.load()); }).outcomes, all_of({"0 1", "0 2", "2 1"}));
}

TEST(MemoryModelLitmus, CoherenceWriteWrite) {
  const Branches b = {[] {
    x.store(1, memory_order_relaxed);
    x.store(2, memory_order_relaxed);
  }};
  EXPECT_EQ(explore(b, [] { return std::to_string(x.load()); }).outcomes, all_of({"2"}));
}

// ---- 2+2W, R, S, WRC, LB ----

TEST(MemoryModelLitmus, TwoPlusTwoWritesOutsideTheScope) {
  // C++ allows x == 1 && y == 1 with relaxed stores; store buffers keep modification order as
  // execution order, so it is never shown (docs/memory-model.md says so).
  const Branches b = {[] {
                        x.store(1, memory_order_relaxed);
                        y.store(2, memory_order_relaxed);
                      },
                      [] {
                        y.store(1, memory_order_relaxed);
                        x.store(2, memory_order_relaxed);
                      }};
  EXPECT_EQ(explore(b, [] { return std::to_string(x.load()) + " " + std::to_string(y.load()); }).outcomes,
            all_of({"1 2", "2 1", "2 2"}));
}

Branches r_test(std::memory_order o) {
  return {[=] {
            x.store(1, o);
            y.store(1, o);
          },
          [=] {
            y.store(2, o);
            r[0] = x.load(o == memory_order_release ? memory_order_acquire : o);
          }};
}

TEST(MemoryModelLitmus, RReleaseAcquireShowsTheWeakOutcome) {
  // (final y, r0) = (2, 0): y's stores ordered 1 then 2, and still x's store unseen.
  EXPECT_EQ(explore(r_test(memory_order_release), [] { return std::to_string(y.load()) + " " + regs(1); }).outcomes,
            all_of({"1 0", "1 1", "2 0", "2 1"}));
}

TEST(MemoryModelLitmus, RSeqCstForbidsIt) {
  EXPECT_EQ(explore(r_test(memory_order_seq_cst), [] { return std::to_string(y.load()) + " " + regs(1); }).outcomes,
            all_of({"1 0", "1 1", "2 1"}));
}

TEST(MemoryModelLitmus, SReleaseAcquireForbidsTheWeakOutcome) {
  const Branches b = {[] {
                        x.store(2, memory_order_relaxed);
                        y.store(1, memory_order_release);
                      },
                      [] {
                        r[0] = y.load(memory_order_acquire);
                        x.store(1, memory_order_relaxed);
                      }};
  // Never (r0, final x) = (1, 2).
  EXPECT_EQ(explore(b, [] { return regs(1) + " " + std::to_string(x.load()); }).outcomes, all_of({"0 1", "0 2", "1 1"}));
}

Branches wrc(std::memory_order st, std::memory_order ld) {
  return {[] { x.store(1, memory_order_relaxed); },
          [=] {
            r[0] = x.load(memory_order_relaxed);
            y.store(1, st);
          },
          [=] {
            r[1] = y.load(ld);
            r[2] = x.load(memory_order_relaxed);
          }};
}

TEST(MemoryModelLitmus, WrcReleaseAcquireForbidsTheWeakOutcome) {
  const Outcomes o = explore(wrc(memory_order_release, memory_order_acquire), [] { return regs(3); }).outcomes;
  EXPECT_FALSE(o.count("1 1 0"));
  EXPECT_EQ(o.size(), 7u);  // every other combination
}

TEST(MemoryModelLitmus, WrcRelaxedShowsTheWeakOutcome) {
  const Outcomes o = explore(wrc(memory_order_relaxed, memory_order_relaxed), [] { return regs(3); }).outcomes;
  EXPECT_TRUE(o.count("1 1 0"));
  EXPECT_EQ(o.size(), 8u);
}

TEST(MemoryModelLitmus, LoadBufferingOutsideTheScope) {
  const Branches b = {[] {
                        r[0] = x.load(memory_order_relaxed);
                        y.store(1, memory_order_relaxed);
                      },
                      [] {
                        r[1] = y.load(memory_order_relaxed);
                        x.store(1, memory_order_relaxed);
                      }};
  // C++ allows "1 1"; a load reads only stores already executed, so it is never shown.
  EXPECT_EQ(explore(b, [] { return regs(2); }).outcomes, all_of({"0 0", "0 1", "1 0"}));
}

// ---- release sequences and RMWs ----

TEST(MemoryModelLitmus, ReleaseSequenceThroughAnRmw) {
  // The acquire load reads the RMW; the RMW continues the release store's sequence, so the data
  // is visible: never "2 0".
  const Branches b = {[] {
                        r[3] = 0;
                        x.store(1, memory_order_relaxed);
                        y.store(1, memory_order_release);
                      },
                      [] { y.fetch_add(1, memory_order_relaxed); },
                      [] {
                        r[0] = y.load(memory_order_acquire);
                        r[1] = x.load(memory_order_relaxed);
                      }};
  const Outcomes o = explore(b, [] { return regs(2); }).outcomes;
  EXPECT_FALSE(o.count("2 0"));
  EXPECT_TRUE(o.count("2 1"));
  EXPECT_TRUE(o.count("1 1"));
}

TEST(MemoryModelLitmus, RmwReadsTheNewestStore) {
  // Two increments never read the same value: the final count is always 2.
  const Branches b = {[] { x.fetch_add(1, memory_order_relaxed); }, [] { x.fetch_add(1, memory_order_relaxed); }};
  EXPECT_EQ(explore(b, [] { return std::to_string(x.load()); }).outcomes, all_of({"2"}));
}

// ---- seq_cst fences and loads reach through happens-before ([atomics.order]/4, C++20) ----

TEST(MemoryModelLitmus, AFenceReachesALoadThroughReleaseAcquire) {
  // r0 == 0 puts T0's fence before T1's in S (4.4); T1's fence happens-before T2's load of x
  // (release/acquire on z), so that load must see x == 1: never "0 1 0".
  const Branches b = {[] {
                        x.store(1, memory_order_relaxed);
                        duet::atomic_thread_fence(memory_order_seq_cst);
                        r[0] = y.load(memory_order_relaxed);
                      },
                      [] {
                        y.store(1, memory_order_relaxed);
                        duet::atomic_thread_fence(memory_order_seq_cst);
                        z.store(1, memory_order_release);
                      },
                      [] {
                        r[1] = z.load(memory_order_acquire);
                        r[2] = x.load(memory_order_relaxed);
                      }};
  const Outcomes o = explore(b, [] { return regs(3); }).outcomes;
  EXPECT_FALSE(o.count("0 1 0"));
  EXPECT_TRUE(o.count("1 1 1"));
}

TEST(MemoryModelLitmus, ASeqCstLoadAfterAFenceSeesWhatAReadBeforeTheFenceSaw) {
  // 4.2 with a read: T1 read x == 1 before its fence; T2's seq_cst load of x comes after that
  // fence in S (y's seq_cst store precedes it, and T1 read y == 0): never "1 0 0".
  const Branches b = {[] { x.store(1, memory_order_relaxed); },
                      [] {
                        r[0] = x.load(memory_order_relaxed);
                        duet::atomic_thread_fence(memory_order_seq_cst);
                        r[1] = y.load(memory_order_relaxed);
                      },
                      [] {
                        y.store(1, memory_order_seq_cst);
                        r[2] = x.load(memory_order_seq_cst);
                      }};
  EXPECT_FALSE(explore(b, [] { return regs(3); }).outcomes.count("1 0 0"));
}

TEST(MemoryModelLitmus, ALoadAfterAFenceSeesWhatAnEarlierSeqCstLoadSaw) {
  // 4.3 with a seq_cst load: never "1 0 0".
  const Branches b = {[] { x.store(1, memory_order_relaxed); },
                      [] {
                        r[0] = x.load(memory_order_seq_cst);
                        r[1] = y.load(memory_order_seq_cst);
                      },
                      [] {
                        y.store(1, memory_order_relaxed);
                        duet::atomic_thread_fence(memory_order_seq_cst);
                        r[2] = x.load(memory_order_relaxed);
                      }};
  EXPECT_FALSE(explore(b, [] { return regs(3); }).outcomes.count("1 0 0"));
}

// A compare-exchange whose failure order acquires: when it fails reading a release store, what
// preceded that store is visible (here: the data is never read stale).
TEST(MemoryModelLitmus, AFailedCompareExchangeAcquiresWithItsFailureOrder) {
  const Branches b = {[] {
                        x.store(42, memory_order_relaxed);
                        y.store(1, memory_order_release);
                      },
                      [] {
                        int expected = 0;
                        r[0] = y.compare_exchange_strong(expected, 2, memory_order_relaxed, memory_order_acquire) ? 0 : 1;
                        r[1] = r[0] == 1 ? x.load(memory_order_relaxed) : -1;
                      }};
  EXPECT_EQ(explore(b, [] { return regs(2); }).outcomes, all_of({"0 -1", "1 42"}));
}

// ---- the search itself ----

TEST(MemoryModelLitmus, SleepSetsLoseNoOutcome) {
  const auto o = [] { return regs(4); };
  EXPECT_EQ(explore(iriw(memory_order_release, memory_order_acquire), o, true, true).outcomes,
            explore(iriw(memory_order_release, memory_order_acquire), o, true, false).outcomes);
  EXPECT_EQ(explore(iriw(memory_order_seq_cst, memory_order_seq_cst), o, true, true).outcomes,
            explore(iriw(memory_order_seq_cst, memory_order_seq_cst), o, true, false).outcomes);
  EXPECT_EQ(explore(sb(memory_order_relaxed, memory_order_relaxed, true), o, true, true).outcomes,
            explore(sb(memory_order_relaxed, memory_order_relaxed, true), o, true, false).outcomes);
}

TEST(MemoryModelLitmus, TheStaleReadBoundLimitsTheSearch) {
  // With no stale read allowed, the model's search shows only sequentially consistent outcomes.
  EXPECT_EQ(explore(
                sb(memory_order_relaxed, memory_order_relaxed), [] { return regs(2); }, true, true, 0)
                .outcomes,
            all_of({"0 1", "1 0", "1 1"}));
}

}  // namespace
