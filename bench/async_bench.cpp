// duet/async.hpp: scenarios per second of the key-value store over the mock block device, with
// and without crash injection; the cost of a co_await of a duet awaitable (a switch point that
// keeps running, a switch to another task through a channel, an inline task) against a fiber
// switch of the scheduler (BM_Fiber_ContextSwitch in fiber_bench.cpp, same binary, same run).
//
//   build/bin/duet-bench --benchmark_filter='Async|Fiber_ContextSwitch'
#include <benchmark/benchmark.h>

#include <chrono>
#include <vector>

#include <duet/async.hpp>
#include <duet/duet.hpp>

#include "kv_store_api.hpp"
#include "kv_store_spec.hpp"

namespace {

benchmark::Counter time_per(double items) {
  return benchmark::Counter(items, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The same spec with no recover: crash injection off, every fault point a no-op.
template <class S>
struct NoCrashes {
  using Sut = typename S::Sut;
  using State = typename S::State;
  using Cmd = typename S::Cmd;
  static constexpr const char* sut_name = "kv";
  static auto init_sut() { return S::init_sut(); }
  static auto command(const State& s) { return S::command(s); }
  static duet::Result run(const Cmd& c, Sut& s) { return S::run(c, s); }
  static duet::Result expected(const Cmd& c, const State& m) { return S::expected(c, m); }
  static void next(const Cmd& c, State& m) { S::next(c, m); }
};

template <class Spec>
void kv_scenarios(benchmark::State& state) {
  std::uint64_t cases = 0, commands = 0;
  for (auto _ : state) {
    const duet::CheckResult r = duet::check_sequential<Spec>({.seed = 1, .count = 1000, .verbose = -1});
    if (!r) state.SkipWithError("the store failed");
    cases += r.cases;
    commands += r.commands;
  }
  state.counters["scenarios/s"] = benchmark::Counter(static_cast<double>(cases), benchmark::Counter::kIsRate);
  state.counters["commands/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
}
void BM_AsyncKvScenariosWithCrashes(benchmark::State& state) { kv_scenarios<kv::Spec<kv::Bug::none>>(state); }
void BM_AsyncKvScenariosWithoutCrashes(benchmark::State& state) { kv_scenarios<NoCrashes<kv::Spec<kv::Bug::none>>>(state); }
BENCHMARK(BM_AsyncKvScenariosWithCrashes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AsyncKvScenariosWithoutCrashes)->Unit(benchmark::kMillisecond);

// The same store as a duet::Api (kv_store_api.hpp): with recover, every step first copies the
// live values (the world without the call), and after a crash every world judges each result.
void kv_api_scenarios(benchmark::State& state, bool crashes) {
  const duet::Api api = kv::api<kv::Bug::none>(crashes);
  std::uint64_t cases = 0, commands = 0;
  for (auto _ : state) {
    const duet::CheckResult r = api.check({.seed = 1, .count = 1000, .verbose = -1});
    if (!r) state.SkipWithError("the store failed");
    cases += r.cases;
    commands += r.commands;
  }
  state.counters["scenarios/s"] = benchmark::Counter(static_cast<double>(cases), benchmark::Counter::kIsRate);
  state.counters["commands/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
}
void BM_AsyncKvApiScenariosWithCrashes(benchmark::State& state) { kv_api_scenarios(state, true); }
void BM_AsyncKvApiScenariosWithoutCrashes(benchmark::State& state) { kv_api_scenarios(state, false); }
BENCHMARK(BM_AsyncKvApiScenariosWithCrashes)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AsyncKvApiScenariosWithoutCrashes)->Unit(benchmark::kMillisecond);

// N spawned tasks alive at once, each sleeping 1 ms of virtual time: what a run with many
// fibers costs (their stacks are mapped once, in the first run, and reused after). Arg 15 is the
// most the old 16-fiber limit allowed; 63 the most the limit of 64 allows.
void BM_AsyncSpawnAliveAtOnce(benchmark::State& state) {
  const auto n = static_cast<int>(state.range(0));
  auto root = [n]() -> duet::task<void> {
    std::vector<duet::future<void>> all;
    for (int i = 0; i < n; ++i)
      all.push_back(duet::spawn([]() -> duet::task<void> { co_await duet::sleep_for(std::chrono::milliseconds(1)); }));
    for (auto& f : all) co_await f;
  };
  for (auto _ : state) duet::run(root());
  state.counters["per fiber"] = time_per(static_cast<double>(state.iterations()) * n);
}
BENCHMARK(BM_AsyncSpawnAliveAtOnce)->Arg(15)->Arg(63)->Unit(benchmark::kMicrosecond);

constexpr int kAwaits = 10'000;

// One task, co_await of a switch point: the scheduler is consulted, nobody else can run.
void BM_AsyncAwaitSwitchPoint(benchmark::State& state) {
  auto body = []() -> duet::task<void> {
    for (int i = 0; i < kAwaits; ++i) co_await duet::switch_point();
  };
  for (auto _ : state) duet::run(body(), {.max_steps = 1'000'000});
  state.counters["per co_await"] = time_per(static_cast<double>(state.iterations()) * kAwaits);
}
BENCHMARK(BM_AsyncAwaitSwitchPoint);

// Two tasks handing values through a channel of capacity 1: every receive waits for the other
// task, so each message is a switch there and back.
void BM_AsyncAwaitChannelPingPong(benchmark::State& state) {
  auto body = []() -> duet::task<void> {
    duet::channel<int> ch(1);
    auto producer = duet::spawn([&]() -> duet::task<void> {
      for (int i = 0; i < kAwaits; ++i) co_await ch.send(i);
      ch.close();
    });
    while (co_await ch.receive()) {
    }
    co_await producer;
  };
  for (auto _ : state) duet::run(body(), {.max_steps = 1'000'000});
  state.counters["per message"] = time_per(static_cast<double>(state.iterations()) * kAwaits);
}
BENCHMARK(BM_AsyncAwaitChannelPingPong);

duet::task<int> one() { co_return 1; }

// co_await of a child task: a coroutine frame allocated, run inline, destroyed.
void BM_AsyncAwaitInlineTask(benchmark::State& state) {
  auto body = []() -> duet::task<void> {
    int sum = 0;
    for (int i = 0; i < kAwaits; ++i) sum += co_await one();
    benchmark::DoNotOptimize(sum);
  };
  for (auto _ : state) duet::run(body());
  state.counters["per co_await"] = time_per(static_cast<double>(state.iterations()) * kAwaits);
}
BENCHMARK(BM_AsyncAwaitInlineTask);

}  // namespace
