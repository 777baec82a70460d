// Fibers against threads through the whole parallel runner (issue 9), as same-run ratios:
// trials per second of check_parallel on a correct 2 x 4 counter (duet::atomic fetch_add) on the
// thread pool and on fibers, and the trials and time check_parallel takes to find two lost
// updates written with duet::atomic (a load + store counter, and a vector whose push_back reads
// the size, stores the slot, stores size + 1) on threads and on fibers with each strategy.
// Outside a fiber run duet::atomic is std::atomic, so both executors run the same subject.
//
// Fiber trial counts are the same in every run (the seed decides the schedules); the times,
// and everything on threads, vary with the machine's load: compare rows of one run.
//
//   build/bin/duet-bench --benchmark_filter=Versus_Trials --benchmark_repetitions=10 \
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
//   build/bin/duet-bench --benchmark_filter=Versus_Detect --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <vector>

#include <duet/duet.hpp>
#include <duet/sync.hpp>

#include "fiber_subjects.hpp"

namespace {

// range(0) of every benchmark here: how the branches run.
enum Way { kThreads, kRandom, kPct2, kPct3, kExhaustive2 };
constexpr const char* kWayName[] = {"thread pool", "fibers random", "fibers pct(2)", "fibers pct(3)",
                                    "fibers exhaustive(2)"};

std::shared_ptr<duet::Executor> executor(int way) {
  switch (way) {
    case kRandom: return duet::fibers(duet::random());
    case kPct2: return duet::fibers(duet::pct(2));
    case kPct3: return duet::fibers(duet::pct(3));
    case kExhaustive2: return duet::fibers(duet::exhaustive(2));
    default: return duet::make_thread_pool();
  }
}

// 1. Trials per second of a correct counter (fetch_add on duet::atomic) through check_parallel:
// 2 branches of up to 4 calls (and a prefix of up to 3), 20 trials per program, 100 programs
// per iteration, wall-clock time. Every check must pass.
void BM_Versus_Trials2x4(benchmark::State& st) {
  const int way = static_cast<int>(st.range(0));
  duet::ParallelConfig pc{.branches = 2, .branch_length = 4};
  pc.executor = executor(way);
  std::uint64_t trials = 0, calls = 0, programs = 0, seed = 1;
  for (auto _ : st) {
    const auto r =
        duet::check_parallel<fiber_subjects::CounterSpec<false>>(pc, {.seed = seed++, .count = 100, .verbose = -1});
    if (!r) st.SkipWithError("the correct counter failed");
    trials += r.trials;
    calls += r.commands;
    programs += r.cases;
  }
  st.counters["trials/s"] = benchmark::Counter(static_cast<double>(trials), benchmark::Counter::kIsRate);
  st.counters["calls/program"] = static_cast<double>(calls) / static_cast<double>(std::max<std::uint64_t>(programs, 1));
  st.SetLabel(kWayName[way]);
}
BENCHMARK(BM_Versus_Trials2x4)->Arg(kThreads)->Arg(kRandom)->Arg(kPct3)->Unit(benchmark::kMillisecond)->UseRealTime();

// 2. Detection. The racy counter is tests/support/fiber_subjects.hpp's (incr() is a load then
// a store, and returns the new value); the vector is below, checked through duet::Lin (the
// candidate replayed sequentially is the oracle).
class AtomicVector {
 public:
  void push_back(int x) {
    const int n = size_.load();
    slots_[static_cast<std::size_t>(n)].store(x);
    size_.store(n + 1);
  }
  int size() const { return size_.load(); }
  int back() const {
    const int n = size_.load();
    return n == 0 ? -1 : slots_[static_cast<std::size_t>(n - 1)].load();
  }

 private:
  duet::atomic<int> size_{0};
  std::array<duet::atomic<int>, 32> slots_{};  // a program has at most 3 + 2 x 4 calls
};

const duet::Lin<AtomicVector>& vector_lin() {
  static const auto lin = duet::Lin<AtomicVector>("AtomicVector", "v")
                              .op(
                                  "push_back", [](AtomicVector& v, int x) { v.push_back(x); }, duet::integers(0, 9))
                              .op("size", [](const AtomicVector& v) { return v.size(); })
                              .op("back", [](const AtomicVector& v) { return v.back(); });
  return lin;
}

// The thread pool, stamping the end of every run: on threads the time to the report includes
// replays of the failing program (see detection()), so the search's own time is read here.
class Stamped final : public duet::Executor {
 public:
  explicit Stamped(std::shared_ptr<duet::Executor> inner) : inner_(std::move(inner)) {}
  void run(const std::vector<std::function<void()>>& branches) override {
    inner_->run(branches);
    ends.push_back(std::chrono::steady_clock::now());
  }
  const char* name() const override { return inner_->name(); }
  std::vector<std::chrono::steady_clock::time_point> ends;

 private:
  std::shared_ptr<duet::Executor> inner_;
};

// Per-seed cap: a seed that finds nothing in this many seconds is a miss.
constexpr double kCapSeconds = 5.0;
constexpr std::uint64_t kSeeds = 30;
constexpr double kMiss = std::numeric_limits<double>::infinity();

double percentile(std::vector<double> v, std::size_t per_ten) {
  std::sort(v.begin(), v.end());
  return v[v.size() * per_ten / 10];
}

// 30 seeds, shrinking off, default ParallelConfig (2 branches of up to 4 calls, prefix up to 3,
// 20 trials per program; exhaustive: every schedule of a program), a fresh executor per seed
// (as a check makes by default; PCT learns its k anew). Counters: median and 90th percentile
// of the trials to the failure and of the milliseconds to the report (CheckResult::seconds:
// the search, then one confirming replay and a re-run for the report: a run or two on fibers,
// on threads up to 20 attempts of the program's 20 trials each), a miss counted as infinitely
// late; the misses; trials per second over the 30 checks, misses included (on fibers mostly
// each check's fixed cost, as they find in a few trials). On threads also the search alone (to
// the end of the failing trial) and the most runs the replays took after it.
template <class Check>
void detection(benchmark::State& st, Check check) {
  const int way = static_cast<int>(st.range(0));
  std::vector<double> trials, ms, search_ms;
  double misses = 0, replay_runs = 0, all_trials = 0, all_seconds = 0;
  for (auto _ : st) {
    trials.clear();
    ms.clear();
    search_ms.clear();
    misses = replay_runs = all_trials = all_seconds = 0;
    for (std::uint64_t seed = 1; seed <= kSeeds; ++seed) {
      duet::ParallelConfig pc;
      pc.executor = executor(way);
      std::shared_ptr<Stamped> stamped;
      if (way == kThreads) pc.executor = stamped = std::make_shared<Stamped>(pc.executor);
      const auto start = std::chrono::steady_clock::now();
      const duet::CheckResult r =
          check(pc, duet::Config{.seed = seed, .time = kCapSeconds, .shrink_steps = 0, .verbose = -1});
      if (r.status == duet::CheckResult::Status::error) {
        st.SkipWithError("the check could not run");
        return;
      }
      const bool found = r.status == duet::CheckResult::Status::failed;
      misses += !found;
      all_trials += static_cast<double>(r.trials);
      all_seconds += r.seconds;
      trials.push_back(found ? static_cast<double>(r.trials) : kMiss);
      ms.push_back(found ? 1e3 * r.seconds : kMiss);
      if (stamped) {
        search_ms.push_back(found ? 1e3 * std::chrono::duration<double>(stamped->ends.at(r.trials - 1) - start).count()
                                  : kMiss);
        if (found) replay_runs = std::max(replay_runs, static_cast<double>(stamped->ends.size() - r.trials));
      }
    }
  }
  st.counters["median_trials"] = percentile(trials, 5);
  st.counters["p90_trials"] = percentile(trials, 9);
  st.counters["median_ms"] = percentile(ms, 5);
  st.counters["p90_ms"] = percentile(ms, 9);
  st.counters["misses"] = misses;
  st.counters["trials/s"] = all_trials / std::max(all_seconds, 1e-9);
  if (!search_ms.empty()) {
    st.counters["search_median_ms"] = percentile(search_ms, 5);
    st.counters["search_p90_ms"] = percentile(search_ms, 9);
    st.counters["replay_runs_max"] = replay_runs;
  }
  st.SetLabel(kWayName[way]);
}

void BM_Versus_Detect_RacyCounter(benchmark::State& st) {
  detection(st, [](const duet::ParallelConfig& pc, const duet::Config& c) {
    return duet::check_parallel<fiber_subjects::CounterSpec<true>>(pc, c);
  });
}
void BM_Versus_Detect_AtomicVector(benchmark::State& st) {
  detection(st,
            [](const duet::ParallelConfig& pc, const duet::Config& c) { return duet::check_parallel(vector_lin(), pc, c); });
}
void detect_args(benchmark::internal::Benchmark* b) {
  b->DenseRange(kThreads, kExhaustive2)->ArgName("way")->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();
}
BENCHMARK(BM_Versus_Detect_RacyCounter)->Apply(detect_args);
BENCHMARK(BM_Versus_Detect_AtomicVector)->Apply(detect_args);

}  // namespace
