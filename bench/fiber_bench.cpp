// The fiber scheduler: context-switch cost, fiber start cost (pooled stacks), runs per second
// of a 2 x 4 program of atomic increments (against the thread pool running the same program
// with std::atomic), runs to the racy counter's lost update under random picks and PCT, PCT's
// detection rate on a depth-2 bug against its bound, and the exhaustive search: schedules per
// second, and schedules with and without the sleep-set reduction; a structure verified in a
// scope (every program, every execution).
//
//   build/bin/duet-bench --benchmark_filter=Fiber
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <vector>

#include <boost/context/fiber.hpp>

#include <duet/executor.hpp>
#include <duet/source.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/strategies.hpp"

namespace {

namespace fb = duet::detail::fiber;
using Branches = std::vector<std::function<void()>>;

// CPU time per item (printed in seconds with an SI prefix: "51n" is 51 ns).
benchmark::Counter time_per(double items) {
  return benchmark::Counter(items, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Never preempts, draws nothing: for measuring the runtime without a choice stream.
class FirstCandidate final : public fb::Picker {
 public:
  std::size_t pick(const fb::PickContext&) override { return 0; }
};

// Two fibers yielding to each other: every yield is a switch (fiber -> scheduler -> fiber).
void BM_Fiber_ContextSwitch(benchmark::State& st) {
  constexpr int kYields = 10'000;
  fb::Scheduler sched(fb::SchedulerConfig{.max_steps = 4 * kYields});
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  const auto body = [] {
    for (int i = 0; i < kYields; ++i) duet::yield();
  };
  const Branches br = {body, body};
  std::size_t switches = 0;
  for (auto _ : st) {
    const std::size_t before = sched.stats().switches;
    sched.run(br, picker);
    switches += sched.stats().switches - before;
  }
  st.counters["per_switch"] = time_per(static_cast<double>(switches));
}
BENCHMARK(BM_Fiber_ContextSwitch)->Unit(benchmark::kMillisecond);

// The bare Boost.Context switch the scheduler is built on, for scale.
void BM_Fiber_BoostResumeBaseline(benchmark::State& st) {
  constexpr int kSwitches = 10'000;
  std::size_t n = 0;
  for (auto _ : st) {
    boost::context::fiber f{[](boost::context::fiber&& main) {
      for (int i = 0; i < kSwitches; ++i) main = std::move(main).resume();
      return std::move(main);
    }};
    for (int i = 0; i <= kSwitches; ++i) f = std::move(f).resume();
    n += kSwitches;
  }
  // One round trip (in and out again), as one scheduler switch is (fiber -> scheduler -> fiber).
  st.counters["per_switch"] = time_per(static_cast<double>(n));
}
BENCHMARK(BM_Fiber_BoostResumeBaseline)->Unit(benchmark::kMillisecond);

// Runs of N empty fibers: creation on a pooled stack, first switch in, exit.
void BM_Fiber_Start(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  fb::Scheduler sched;
  FirstCandidate picker;
  const Branches br(n, [] {});
  for (auto _ : st) sched.run(br, picker);
  st.counters["per_fiber"] = time_per(static_cast<double>(st.iterations() * n));
  if (sched.stats().stacks_mapped != n) st.SkipWithError("stacks were mapped per run");
}
BENCHMARK(BM_Fiber_Start)->Arg(2)->Arg(8)->Unit(benchmark::kMicrosecond);

// A 2 x 4 program: two branches of four increments each, random schedules, counter checked.
void BM_Fiber_Run2x4(benchmark::State& st) {
  fb::Scheduler sched;
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  duet::atomic<int> c{0};
  const auto body = [&] {
    for (int i = 0; i < 4; ++i) c.fetch_add(1);
  };
  const Branches br = {body, body};
  std::uint64_t seed = 0, steps = 0;
  for (auto _ : st) {
    src.restart(++seed);
    c.store(0);
    steps += sched.run(br, picker).steps;
    if (c.load() != 8) st.SkipWithError("lost an increment");
  }
  st.counters["runs/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  st.counters["events/run"] = static_cast<double>(steps) / static_cast<double>(st.iterations());
}
BENCHMARK(BM_Fiber_Run2x4)->Unit(benchmark::kMicrosecond);

// The C++ memory model's cost: the project's Treiber stack (acquire/release) with two fibers
// each pushing two values and popping two, random schedules, with the model off (0: every
// atomic as seq_cst) and on (1). Runs per second; with the model, the share of runs in which
// some load read an older store.
void BM_Fiber_MemoryModel_Treiber(benchmark::State& st) {
  fb::SchedulerConfig config;
  config.cpp_memory_model = st.range(0) != 0;
  fb::Scheduler sched(config);
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  std::uint64_t seed = 0, steps = 0, stale_runs = 0;
  for (auto _ : st) {
    duet::models::TreiberStack<int, duet::models::FiberSync> stack;
    const auto body = [&] {
      stack.push(1);
      stack.push(2);
      (void)stack.pop();
      (void)stack.pop();
    };
    const Branches br = {body, body};
    src.restart(++seed);
    const fb::RunResult& r = sched.run(br, picker);
    steps += r.steps;
    if (r.outcome != fb::Outcome::completed) st.SkipWithError("the stack's run failed");
    for (const fb::TraceEvent& e : sched.trace())
      if (e.stale > 0) {
        ++stale_runs;
        break;
      }
  }
  st.counters["runs/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
  st.counters["events/run"] = static_cast<double>(steps) / static_cast<double>(st.iterations());
  st.counters["stale runs"] = static_cast<double>(stale_runs) / static_cast<double>(st.iterations());
}
BENCHMARK(BM_Fiber_MemoryModel_Treiber)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// The same program on the persistent thread pool (std::atomic), for the same-run ratio.
void BM_Fiber_Run2x4_ThreadPool(benchmark::State& st) {
  auto pool = duet::make_thread_pool();
  std::atomic<int> c{0};
  const auto body = [&] {
    for (int i = 0; i < 4; ++i) c.fetch_add(1);
  };
  const Branches br = {body, body};
  for (auto _ : st) {
    c.store(0);
    pool->run(br);
    if (c.load() != 8) st.SkipWithError("lost an increment");
  }
  st.counters["runs/s"] = benchmark::Counter(static_cast<double>(st.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Fiber_Run2x4_ThreadPool)->Unit(benchmark::kMicrosecond)->UseRealTime();

// Runs until the lost update of the racy counter (load + store on duet::atomic, two fibers
// each incrementing once), over 30 seeds of the random picker.
void BM_Fiber_Detection_RacyCounter(benchmark::State& st) {
  fb::Scheduler sched;
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  duet::atomic<int> c{0};
  const auto incr = [&] {
    const int v = c.load();
    c.store(v + 1);
  };
  const Branches br = {incr, incr};
  std::vector<double> runs;
  for (auto _ : st) {
    runs.clear();
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      std::uint64_t n = 0;
      do {
        src.restart(seed * 1'000'003 + n++);
        c.store(0);
        sched.run(br, picker);
      } while (c.load() == 2);
      runs.push_back(static_cast<double>(n));
    }
  }
  std::sort(runs.begin(), runs.end());
  st.counters["median_runs"] = runs[runs.size() / 2];
  st.counters["p90_runs"] = runs[runs.size() * 9 / 10];
  st.counters["worst_runs"] = runs.back();
}
BENCHMARK(BM_Fiber_Detection_RacyCounter)->Unit(benchmark::kMicrosecond);

// The same under PCT (depth 2 and 3, k learnt from the runs): a fresh picker per seed, so the
// first run of each seed has no change points.
void BM_Fiber_Detection_RacyCounter_Pct(benchmark::State& st) {
  const auto depth = static_cast<std::size_t>(st.range(0));
  fb::Scheduler sched;
  duet::Source src = duet::Source::from_seed(1);
  duet::atomic<int> c{0};
  const auto incr = [&] {
    const int v = c.load();
    c.store(v + 1);
  };
  const Branches br = {incr, incr};
  std::vector<double> runs;
  for (auto _ : st) {
    runs.clear();
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
      fb::PctPicker pct(src, depth);
      std::uint64_t n = 0;
      do {
        src.restart(seed * 1'000'003 + n++);
        c.store(0);
        sched.run(br, pct);
      } while (c.load() == 2);
      runs.push_back(static_cast<double>(n));
    }
  }
  std::sort(runs.begin(), runs.end());
  st.counters["median_runs"] = runs[runs.size() / 2];
  st.counters["p90_runs"] = runs[runs.size() * 9 / 10];
  st.counters["worst_runs"] = runs.back();
}
BENCHMARK(BM_Fiber_Detection_RacyCounter_Pct)->Arg(2)->Arg(3)->Unit(benchmark::kMicrosecond);

// PCT's guarantee measured: a depth-2 bug (fiber 0 stores a then b; fiber 1 sees a set and b
// not, which needs fiber 0 first and preempted between its stores), plus range(0) - 2 fibers
// working elsewhere. k learnt by the picker. Counters: the detection rate, the bound
// 1/(n k) with the k the runs used, and this program's exact rate 1/(2k).
void BM_Fiber_Pct_Depth2Bound(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  constexpr std::size_t kRuns = 20'000;
  fb::Scheduler sched;
  duet::Source src = duet::Source::from_seed(1);
  duet::atomic<int> a{0}, b{0}, other{0};
  bool bug = false;
  Branches br = {[&] {
                   a.store(1);
                   b.store(1);
                 },
                 [&] { bug = a.load() == 1 && b.load() == 0; }};
  while (br.size() < n) br.push_back([&] { other.store(1); });
  double observed = 0;
  std::size_t k = 0;
  for (auto _ : st) {
    fb::PctPicker pct(src, 2);
    std::size_t hits = 0;
    for (std::size_t i = 0; i < kRuns; ++i) {
      src.restart(0x9c7'0000 + i);
      a.store(0);
      b.store(0);
      bug = false;
      sched.run(br, pct);
      hits += bug;
    }
    k = pct.steps();
    observed = static_cast<double>(hits) / kRuns;
  }
  st.counters["k"] = static_cast<double>(k);
  st.counters["rate"] = observed;
  st.counters["bound"] = fb::PctPicker::bound(n, k, 2);
  st.counters["exact"] = 1.0 / (2.0 * static_cast<double>(k));
}
BENCHMARK(BM_Fiber_Pct_Depth2Bound)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond)->Iterations(1);

// ---- the exhaustive search ----

// A program for the search: branches, a reset between schedules, and its failure check.
struct SearchProgram {
  Branches branches;
  std::function<void()> reset;
  std::function<bool()> failed;
};

// 2 x 3 correct spin lock: exchange to take it, store to give it back, a load + store
// increment inside.
struct SpinLock2x3 {
  duet::atomic<bool> flag{false};
  duet::atomic<int> counter{0};
  explicit SpinLock2x3(int) {}
  SearchProgram program() {
    const auto body = [this] {
      for (int i = 0; i < 3; ++i) {
        while (flag.exchange(true)) {
        }
        counter.store(counter.load() + 1);
        flag.store(false);
      }
    };
    return {{body, body},
            [this] {
              flag.store(false);
              counter.store(0);
            },
            [this] { return counter.load() != 6; }};
  }
};

struct RacyCounterN {
  duet::atomic<int> c{0};
  int n;
  explicit RacyCounterN(int fibers) : n(fibers) {}
  SearchProgram program() {
    const auto incr = [this] {
      const int v = c.load();
      c.store(v + 1);
    };
    return {Branches(static_cast<std::size_t>(n), incr), [this] { c.store(0); }, [this] { return c.load() != n; }};
  }
};

// Fibers on disjoint objects: three increments each, on atomics of their own.
struct DisjointN {
  std::array<duet::atomic<int>, 4> own{};
  int n;
  explicit DisjointN(int fibers) : n(fibers) {}
  SearchProgram program() {
    Branches br;
    for (int f = 0; f < n; ++f)
      br.push_back([this, f] {
        for (int i = 0; i < 3; ++i) own[static_cast<std::size_t>(f)].fetch_add(1);
      });
    return {br,
            [this] {
              for (auto& x : own) x.store(0);
            },
            [] { return false; }};
  }
};

// range(0): preemption bound (-1: none); range(1): sleep sets on (1) or off (0). The search
// stops at ExplorerConfig's default max_schedules (1 M runs): see the "complete" counter.
template <class Subject>
void explore_bench(benchmark::State& st, int fibers) {
  Subject subject(fibers);
  const SearchProgram p = subject.program();
  fb::ExplorerConfig cfg;
  cfg.preemption_bound = st.range(0) < 0 ? fb::ExplorerConfig::kUnbounded : static_cast<std::size_t>(st.range(0));
  cfg.sleep_sets = st.range(1) != 0;
  fb::Scheduler sched;
  duet::Source src = duet::Source::from_seed(0);
  fb::ExplorerStats stats;
  std::size_t failing = 0, runs = 0;
  for (auto _ : st) {
    fb::Explorer ex(sched, src, cfg);
    fb::Picker* picker = nullptr;
    failing = 0;
    while (ex.next(picker)) {
      src.restart(0);
      p.reset();
      const fb::RunResult& r = sched.run(p.branches, *picker);
      failing += r.outcome != fb::Outcome::completed || p.failed();
      ex.finish(r);
    }
    stats = ex.stats();
    runs += stats.runs;
  }
  st.counters["complete"] = stats.complete ? 1 : 0;  // 0: stopped at max_schedules runs
  st.counters["schedules"] = static_cast<double>(stats.schedules);
  st.counters["redundant"] = static_cast<double>(stats.redundant);
  st.counters["failing"] = static_cast<double>(failing);
  st.counters["runs/s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
void explore_args(benchmark::internal::Benchmark* b) {
  b->ArgsProduct({{0, 1, 2, -1}, {1, 0}})->ArgNames({"bound", "sleep"})->Unit(benchmark::kMillisecond);
}
void BM_Fiber_Explore_SpinLock2x3(benchmark::State& st) { explore_bench<SpinLock2x3>(st, 2); }
void BM_Fiber_Explore_RacyCounter2(benchmark::State& st) { explore_bench<RacyCounterN>(st, 2); }
void BM_Fiber_Explore_RacyCounter3(benchmark::State& st) { explore_bench<RacyCounterN>(st, 3); }
void BM_Fiber_Explore_Disjoint2x3(benchmark::State& st) { explore_bench<DisjointN>(st, 2); }
void BM_Fiber_Explore_Disjoint3x3(benchmark::State& st) { explore_bench<DisjointN>(st, 3); }
BENCHMARK(BM_Fiber_Explore_SpinLock2x3)
    ->ArgsProduct({{0, 1, 2, 3, -1}, {1, 0}})
    ->ArgNames({"bound", "sleep"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Fiber_Explore_RacyCounter2)->Apply(explore_args);
BENCHMARK(BM_Fiber_Explore_RacyCounter3)->Apply(explore_args);
BENCHMARK(BM_Fiber_Explore_Disjoint2x3)->Apply(explore_args);
BENCHMARK(BM_Fiber_Explore_Disjoint3x3)->Apply(explore_args);

// A structure verified in a scope: every program of 2 branches × up to 2 calls after a prefix of
// up to 1, values {0, 1}, each program's executions by the optimal search (docs/verifying.md).
// Arguments: the structure (0: the models' Treiber stack, 1: the Michael–Scott queue) and the
// memory model (0: sc, 1: cpp). The counts are the same on every run; the time is the search's.
template <class Spec>
void verify_bench(benchmark::State& st) {
  duet::ParallelConfig pc{
      .branch_length = 2,
      .prefix_length = 1,
      .executor = duet::fibers(duet::exhaustive(duet::unbounded),
                               {.memory_model = st.range(1) != 0 ? duet::MemoryModel::cpp : duet::MemoryModel::sc}),
      .every_program = duet::EveryProgram{.values = 2}};
  duet::CheckResult r;
  std::uint64_t runs = 0;
  for (auto _ : st) {
    r = duet::check_parallel<Spec>(pc, {.verbose = -1});
    if (!r) st.SkipWithError("the structure failed its scope");
    runs += r.trials;
  }
  st.counters["programs"] = static_cast<double>(r.cases);
  st.counters["runs"] = static_cast<double>(r.trials);
  st.counters["runs/s"] = benchmark::Counter(static_cast<double>(runs), benchmark::Counter::kIsRate);
}
void BM_Fiber_Verify_Scope(benchmark::State& st) {
  if (st.range(0) == 0) verify_bench<duet::models::TreiberStackSpec<>>(st);
  else verify_bench<duet::models::MsQueueSpec<>>(st);
}
BENCHMARK(BM_Fiber_Verify_Scope)
    ->ArgsProduct({{0, 1}, {0, 1}})
    ->ArgNames({"queue", "cpp"})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace
