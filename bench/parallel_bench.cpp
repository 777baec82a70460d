// The parallel runner: checking cost (memoized search vs enumerating interleavings), trials per
// second (persistent pool vs threads per trial), and detection (trials to the first failure).
//
//   build/bin/duet-bench --benchmark_filter=Parallel
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <deque>
#include <cstdlib>
#include <atomic>
#include <thread>
#include <vector>

#include <duet/detail/search.hpp>
#include <duet/duet.hpp>
#include <duet/sync.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/queue.hpp>

#if DUET_HAVE_LIBCUCKOO
#include "cuckoo_lin.hpp"
#endif
#include <memory>
#include <optional>

#include "racy_subjects.hpp"

namespace {

using duet::detail::Consistency;
using duet::detail::TimedOp;

// A counter history: every branch increments, the last call of the last branch reads a value
// no order can produce, so every search must exhaust its space. All calls overlap in time.
struct CounterOracle {
  using State = long;
  static constexpr bool memo = true;
  const std::vector<int>* reads;  // -1: incr, else get() observed this value
  State initial() const { return 0; }
  bool apply(State& s, std::size_t i) const {
    if ((*reads)[i] < 0) {
      ++s;
      return true;
    }
    return s == (*reads)[i];
  }
  std::uint64_t hash(const State& s) const { return static_cast<std::uint64_t>(s); }
  bool equal(const State& a, const State& b) const { return a == b; }
};
struct EnumeratingOracle : CounterOracle {
  static constexpr bool memo = false;
};

void history(std::size_t branches, std::size_t length, std::vector<TimedOp>& ops, std::vector<int>& reads) {
  for (std::size_t b = 0; b < branches; ++b)
    for (std::size_t k = 0; k < length; ++k) {
      ops.push_back({static_cast<std::uint32_t>(b), 10 * k + b, 1'000'000});
      reads.push_back(b + 1 == branches && k + 1 == length ? 1'000 : -1);
    }
}

template <class Oracle>
void BM_Parallel_Check(benchmark::State& st) {
  std::vector<TimedOp> ops;
  std::vector<int> reads;
  history(static_cast<std::size_t>(st.range(0)), static_cast<std::size_t>(st.range(1)), ops, reads);
  const Oracle oracle{{&reads}};
  std::uint64_t nodes = 0;
  for (auto _ : st) {
    duet::detail::SearchBudget budget;
    budget.max_seconds = 20;
    const auto r = duet::detail::linearize(ops, oracle, Consistency::sequential, budget);
    if (r.verdict == duet::detail::SearchVerdict::ok) st.SkipWithError("the crafted history must not be explainable");
    nodes += r.nodes;
    st.counters["unknown"] = r.verdict == duet::detail::SearchVerdict::unknown;
  }
  st.counters["nodes"] = static_cast<double>(nodes) / static_cast<double>(st.iterations());
}
// 2 branches x 12 calls and 4 x 6, memoized; enumeration of the same (stopped after 20 s).
BENCHMARK(BM_Parallel_Check<CounterOracle>)->Args({2, 12})->Args({4, 6})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Parallel_Check<EnumeratingOracle>)->Args({2, 12})->Args({4, 6})->Unit(benchmark::kMillisecond)->Iterations(1);

struct AtomicCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load(); }
};

void BM_Parallel_Trials(benchmark::State& st) {
  duet::ParallelConfig pc;
  pc.executor = st.range(0) == 0 ? std::shared_ptr<duet::Executor>(duet::make_thread_pool())
                                 : std::shared_ptr<duet::Executor>(duet::make_thread_per_run());
  std::uint64_t trials = 0, seed = 1;
  for (auto _ : st) {
    const auto r =
        duet::check_parallel<duet::models::Counter<AtomicCounter>>(pc, {.seed = seed++, .count = 100, .verbose = -1});
    trials += r.trials;
  }
  st.counters["trials/s"] = benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
  st.SetLabel(st.range(0) == 0 ? "persistent pool" : "threads per trial");
}
BENCHMARK(BM_Parallel_Trials)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// A parallel check's trials on fibers (deterministic, CPU-bound): each trial's history is
// searched with the queue model as oracle, so this is where the search of short histories
// shows. Trials per second of CPU time.
struct LockedQueue {
  struct Sut {
    duet::mutex m;
    std::deque<int> items;
  };
  static void push(Sut& q, int x) {
    const std::lock_guard lock(q.m);
    q.items.push_back(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    const std::lock_guard lock(q.m);
    if (q.items.empty()) return std::nullopt;
    const int x = q.items.front();
    q.items.pop_front();
    return x;
  }
};
void BM_Parallel_FiberTrials_Queue(benchmark::State& st) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  pc.branch_length = static_cast<std::size_t>(st.range(0));
  std::uint64_t trials = 0, seed = 1;
  for (auto _ : st) {
    const auto r = duet::check_parallel<duet::models::Queue<LockedQueue>>(pc, {.seed = seed++, .count = 100, .verbose = -1});
    if (!r.passed()) st.SkipWithError("the check did not pass");
    trials += r.trials;
  }
  st.counters["trials/s"] = benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Parallel_FiberTrials_Queue)->Arg(3)->Arg(6)->Unit(benchmark::kMillisecond);

#if DUET_HAVE_LIBCUCKOO
// duet::Lin over a subject costly to make (a 4096-slot libcuckoo map): the candidate-as-oracle
// search replays calls on the candidate; with Lin::reset (arg 1) it clears one map instead of
// making one per replay from the start. Branches of up to 3 and 6 calls.
using cuckoo_subject::CuckooMap;
void BM_Parallel_LinHeavySubject(benchmark::State& st) {
  duet::Lin<CuckooMap> lin = cuckoo_subject::cuckoo_lin("cuckoo4096", 4096);
  if (st.range(0) == 1) lin.reset([](CuckooMap& m) { m.clear(); });
  duet::ParallelConfig pc;
  pc.branch_length = static_cast<std::size_t>(st.range(1));
  std::uint64_t trials = 0, seed = 1;
  for (auto _ : st) {
    const auto r = duet::check_parallel(lin, pc, {.seed = seed++, .count = 100, .verbose = -1, .isolate = false});
    if (!r.passed()) st.SkipWithError("the check did not pass");
    trials += r.trials;
  }
  st.counters["trials/s"] = benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
  st.SetLabel(st.range(0) == 0 ? "no reset: a new map per trial and per search" : "Lin::reset");
}
BENCHMARK(BM_Parallel_LinHeavySubject)
    ->Args({0, 3})
    ->Args({1, 3})
    ->Args({0, 6})
    ->Args({1, 6})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
#endif

struct RacyCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) {
    const long v = c.load(std::memory_order_relaxed);
    std::this_thread::yield();
    c.store(v + 1, std::memory_order_relaxed);
  }
  static long get(Sut& c) { return c.load(); }
};

std::unique_ptr<std::vector<int>> reserved_vector() {
  auto v = std::make_unique<std::vector<int>>();
  v->reserve(1024);
  return v;
}

// Trials to the first failure over 30 seeds: median, 90th percentile, worst.
template <class Search>
void detection(benchmark::State& st, Search search) {
  std::vector<double> trials;
  for (auto _ : st) {
    trials.clear();
    for (std::uint64_t seed = 1; seed <= 30; ++seed) trials.push_back(static_cast<double>(search(seed)));
  }
  std::sort(trials.begin(), trials.end());
  st.counters["median"] = trials[trials.size() / 2];
  st.counters["p90"] = trials[trials.size() * 9 / 10];
  st.counters["max"] = trials.back();
}

void BM_Parallel_Detection_RacyCounter(benchmark::State& st) {
  detection(st, [](std::uint64_t seed) {
    // Shrinking off: only the search counts here.
    return duet::check_parallel<duet::models::Counter<RacyCounter>>(
               {}, {.seed = seed, .time = 60, .shrink_steps = 0, .verbose = -1})
        .trials;
  });
}
BENCHMARK(BM_Parallel_Detection_RacyCounter)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Parallel_Detection_StdVector(benchmark::State& st) {
  auto lin = duet::Lin<std::vector<int>>("std::vector", "v")
                 .init(reserved_vector, "std::vector<int> v; v.reserve(1024);")
                 .op(
                     "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::integers(0, 9))
                 .op("size", [](std::vector<int>& v) { return v.size(); })
                 .op("back", [](std::vector<int>& v) { return v.empty() ? -1 : v.back(); });
  detection(st, [&](std::uint64_t seed) {
    return duet::check_parallel(lin, {}, {.seed = seed, .time = 60, .shrink_steps = 0, .verbose = -1}).trials;
  });
}
BENCHMARK(BM_Parallel_Detection_StdVector)->Unit(benchmark::kMillisecond)->Iterations(1);

// A load then a store, with nothing to widen the window: found only when two increments really
// run at once.
struct LoadStoreCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.store(c.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed); }
  static long get(Sut& c) { return c.load(); }
};

// Trials to the first failure of the load-store counter, 30 seeds of at most 2 s each, with the
// branches pinned (the default) and left to the kernel (Arg 0). A seed that finds nothing counts
// its trials; "missed" counts those seeds.
void BM_Parallel_Detection_LoadStoreCounter(benchmark::State& st) {
  duet::ParallelConfig pc;
  pc.pin_threads = st.range(0) != 0;
  int missed = 0;
  detection(st, [&](std::uint64_t seed) {
    const auto r = duet::check_parallel<duet::models::Counter<LoadStoreCounter>>(
        pc, {.seed = seed, .time = 2, .shrink_steps = 0, .verbose = -1});
    missed += r.passed() || r.status == duet::CheckResult::Status::error;
    return r.trials;
  });
  st.counters["missed"] = missed;
  st.SetLabel(pc.pin_threads ? "pinned" : "not pinned");
}
BENCHMARK(BM_Parallel_Detection_LoadStoreCounter)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

// The start barrier's skew: nanoseconds between the first instructions of two branches, over
// 20,000 runs of the pool; median and 99th percentile.
void BM_Parallel_StartSkew(benchmark::State& st) {
  auto pool = duet::make_thread_pool(st.range(0) != 0);
  std::vector<double> skews;
  for (auto _ : st) {
    skews.clear();
    for (int i = 0; i < 20000; ++i) {
      std::uint64_t t0 = 0, t1 = 0;
      pool->run({[&] { t0 = duet::detail::event_time(); }, [&] { t1 = duet::detail::event_time(); }});
      skews.push_back(static_cast<double>(t0 > t1 ? t0 - t1 : t1 - t0));
    }
  }
  std::sort(skews.begin(), skews.end());
  st.counters["median_ns"] = skews[skews.size() / 2];
  st.counters["p99_ns"] = skews[skews.size() * 99 / 100];
  st.SetLabel(st.range(0) != 0 ? "pinned" : "not pinned");
}
BENCHMARK(BM_Parallel_StartSkew)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->Iterations(1);

// The six bug classes of tests/support/racy_subjects.hpp through expect_unsafe, with noise
// (Arg 1, expect_unsafe's default), without (Arg 0), and as before placement and noise (Arg 2): trials and seconds to the first
// counterexample over 30 seeds of at most DUET_BENCH_SEED_SECONDS (default 5) each. A seed that
// finds nothing counts its trials and seconds, and "missed" counts those seeds. Run it idle and
// under load (docs/benchmarks.md says how).
// Arg 2: as before issue 11, branches left to the kernel and no noise.
template <class T>
void bug_class(benchmark::State& st, const duet::Lin<T>& lin) {
  const bool noise = st.range(0) == 1;
  const bool pin = st.range(0) != 2;
  const char* cap_text = std::getenv("DUET_BENCH_SEED_SECONDS");
  const double cap = cap_text ? std::atof(cap_text) : 5.0;
  std::vector<double> trials, seconds;
  int missed = 0;
  for (auto _ : st) {
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      const auto start = std::chrono::steady_clock::now();
      const auto r = duet::expect_unsafe(lin, {.pin_threads = pin, .noise = noise},
                                         {.seed = seed, .time = cap, .shrink_steps = 0, .verbose = -1});
      seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      trials.push_back(static_cast<double>(r.trials));
      missed += !r.passed();
    }
  }
  std::sort(trials.begin(), trials.end());
  std::sort(seconds.begin(), seconds.end());
  st.counters["trials_median"] = trials[trials.size() / 2];
  st.counters["trials_p90"] = trials[trials.size() * 9 / 10];
  st.counters["s_median"] = seconds[seconds.size() / 2];
  st.counters["s_p90"] = seconds[seconds.size() * 9 / 10];
  st.counters["missed"] = missed;
  st.SetLabel(!pin ? "not pinned, no noise" : noise ? "noise" : "no noise");
}
void BM_Parallel_BugClass_UnlockedSizeCounter(benchmark::State& st) { bug_class(st, racy::counted_queue()); }
void BM_Parallel_BugClass_TornPair(benchmark::State& st) { bug_class(st, racy::torn_pair()); }
void BM_Parallel_BugClass_DoubleCheckedInit(benchmark::State& st) { bug_class(st, racy::lazy_instance()); }
void BM_Parallel_BugClass_TwoLockTransfer(benchmark::State& st) { bug_class(st, racy::bank()); }
void BM_Parallel_BugClass_TreiberLoadStorePop(benchmark::State& st) { bug_class(st, racy::load_store_stack()); }
void BM_Parallel_BugClass_CheckThenActWrap(benchmark::State& st) { bug_class(st, racy::wrap_counter()); }
BENCHMARK(BM_Parallel_BugClass_UnlockedSizeCounter)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Parallel_BugClass_TornPair)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Parallel_BugClass_DoubleCheckedInit)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Parallel_BugClass_TwoLockTransfer)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Parallel_BugClass_TreiberLoadStorePop)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_Parallel_BugClass_CheckThenActWrap)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace
