// Isolation mode (DUET_FORK=1) against running cases in process, on the ring-buffer spec: the
// search (all cases in one child: the target is at most 3x per case) and shrinking (one round
// trip to the child per shrink candidate). Arg 0: in process; 1: isolated.
#include <benchmark/benchmark.h>

#include <duet/state_machine.hpp>

#include "crashing_subjects.hpp"
#include "ring_buffer.hpp"

namespace {

void BM_Isolation_Search_RingBuffer(benchmark::State& st) {
  std::uint64_t seed = 1, cases = 0;
  for (auto _ : st) {
    duet::Config c;
    c.seed = seed++;
    c.count = 2000;
    c.verbose = -1;
    c.isolate = st.range(0) != 0;
    const duet::CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>(c);
    if (!r) st.SkipWithError("a failure on a correct subject");
    cases += r.cases;
  }
  st.counters["cases/s"] = benchmark::Counter(static_cast<double>(cases), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Isolation_Search_RingBuffer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A failing check: search, then shrinking, each candidate a case.
void BM_Isolation_Shrink_RingBuffer(benchmark::State& st) {
  std::uint64_t seed = 1, replays = 0;
  for (auto _ : st) {
    duet::Config c;
    c.seed = seed++;
    c.verbose = -1;
    c.output_dir = "duet-output/bench";
    c.isolate = st.range(0) != 0;
    const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(c);
    if (r.status != duet::CheckResult::Status::failed) st.SkipWithError("the bug was not found");
    replays += r.shrink_tries;
  }
  st.counters["replays/s"] = benchmark::Counter(static_cast<double>(replays), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Isolation_Shrink_RingBuffer)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// A crash, found and shrunk in children (a fork for each candidate that crashes).
void BM_Isolation_ShrinkCrash_NullStack(benchmark::State& st) {
  std::uint64_t seed = 1, replays = 0;
  for (auto _ : st) {
    duet::Config c;
    c.seed = seed++;
    c.verbose = -1;
    c.output_dir = "duet-output/bench";
    c.isolate = true;
    const duet::CheckResult r = duet::check_sequential<crashing::NullStackSpec>(c);
    if (r.status != duet::CheckResult::Status::failed) st.SkipWithError("the crash was not found");
    replays += r.shrink_tries;
  }
  st.counters["replays/s"] = benchmark::Counter(static_cast<double>(replays), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Isolation_ShrinkCrash_NullStack)->Unit(benchmark::kMillisecond);

}  // namespace
