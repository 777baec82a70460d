// The fiber scheduler: context-switch cost, fiber start cost (pooled stacks), runs per second
// of a 2 x 4 program of atomic increments (against the thread pool running the same program
// with std::atomic), and runs to the racy counter's lost update under random picks.
//
//   build/bin/duet-bench --benchmark_filter=Fiber
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <vector>

#include <boost/context/fiber.hpp>

#include <duet/executor.hpp>
#include <duet/source.hpp>
#include <duet/sync.hpp>

#include "execute/fibers/scheduler.hpp"

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

}  // namespace
