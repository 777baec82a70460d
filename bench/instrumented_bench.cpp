// duet_instrument's costs (docs/benchmarks.md, "Instrumented std:: code"):
//   - outside a fiber run, a Boost.Lockfree queue compiled with the instrumentation against the
//     same code compiled plainly (the runtime's hooks do the plain operation);
//   - inside a run, scheduling steps per second of std::atomic increments (instrumented) against
//     duet::atomic increments.
//
//   build/bin/duet-instrument-bench
#include <benchmark/benchmark.h>

#include <functional>
#include <vector>

#include <duet/source.hpp>
#include <duet/sync.hpp>

#include "execute/fibers/scheduler.hpp"
#include "instrumented_workloads.hpp"

namespace {

namespace fb = duet::detail::fiber;
constexpr int kRoundTrips = 10'000;
constexpr int kIncrements = 2'000;

void BM_Instrumented_QueueOutsideRun_Plain(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(duet_bench::queue_round_trips<1024>(kRoundTrips));
  st.SetItemsProcessed(st.iterations() * kRoundTrips);
}
BENCHMARK(BM_Instrumented_QueueOutsideRun_Plain)->Unit(benchmark::kMicrosecond);

void BM_Instrumented_QueueOutsideRun_Instrumented(benchmark::State& st) {
  for (auto _ : st) benchmark::DoNotOptimize(duet_bench::queue_round_trips_instrumented(kRoundTrips));
  st.SetItemsProcessed(st.iterations() * kRoundTrips);
}
BENCHMARK(BM_Instrumented_QueueOutsideRun_Instrumented)->Unit(benchmark::kMicrosecond);

// Two fibers of kIncrements increments each, random picks: items are the run's steps.
template <class Body>
void steps_per_second(benchmark::State& st, Body body) {
  fb::Scheduler sched(fb::SchedulerConfig{.max_steps = 10 * kIncrements});
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  const std::vector<std::function<void()>> branches = {body, body};
  std::size_t steps = 0;
  for (auto _ : st) {
    src = duet::Source::from_seed(1);
    steps += sched.run(branches, picker).steps;
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(steps));
}

void BM_Instrumented_StepsInRun_DuetAtomic(benchmark::State& st) {
  duet::atomic<int> a{0};
  steps_per_second(st, [&a] { duet_bench::increments(a, kIncrements); });
}
BENCHMARK(BM_Instrumented_StepsInRun_DuetAtomic)->Unit(benchmark::kMicrosecond);

void BM_Instrumented_StepsInRun_StdAtomic(benchmark::State& st) {
  std::atomic<int> a{0};
  steps_per_second(st, [&a] { duet_bench::increments_std_atomic(a, kIncrements); });
}
BENCHMARK(BM_Instrumented_StepsInRun_StdAtomic)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
