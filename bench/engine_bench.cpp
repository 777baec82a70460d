// Sequential engine: throughput in commands per second, and shrinking of the ring-buffer bug,
// duet against RapidCheck's stateful testing on the same models.
//
//   make bench     (or build/bin/duet-bench --benchmark_filter=Throughput)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <deque>
#include <optional>
#include <variant>
#include <vector>

#include "ring_buffer.hpp"

#ifdef DUET_BENCH_RAPIDCHECK
#include <rapidcheck.h>
#include <rapidcheck/state.h>
#endif

namespace {

// ---- the trivial subject: std::deque<int> against a std::vector<int> model ----
struct Push {
  int x;
};
struct Pop {};
struct Size {};
std::string duet_show(const Push& p) { return "push_back(" + duet::show(p.x) + ")"; }
std::string duet_show(const Pop&) { return "pop_front()"; }
std::string duet_show(const Size&) { return "size()"; }

struct DequeSpec {
  using Sut = std::deque<int>;
  using State = std::vector<int>;
  using Cmd = std::variant<Push, Pop, Size>;
  static duet::Gen<Cmd> command(const State& s) {
    static const duet::Gen<Cmd> with_pop =
        duet::one_of(duet::construct<Push>(duet::integers(-100, 100)).map([](Push p) { return Cmd(p); }),
                     duet::just(Cmd(Pop{})), duet::just(Cmd(Size{})));
    static const duet::Gen<Cmd> without_pop = duet::one_of(
        duet::construct<Push>(duet::integers(-100, 100)).map([](Push p) { return Cmd(p); }), duet::just(Cmd(Size{})));
    return s.empty() ? without_pop : with_pop;
  }
  static duet::Result run(const Cmd& c, Sut& d) {
    switch (c.index()) {
      case 0: d.push_back(std::get<Push>(c).x); return {};
      case 1: {
        const int x = d.front();
        d.pop_front();
        return x;
      }
      default: return d.size();
    }
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    switch (c.index()) {
      case 0: return {};
      case 1: return s.front();
      default: return s.size();
    }
  }
  static void next(const Cmd& c, State& s) {
    if (c.index() == 0) s.push_back(std::get<Push>(c).x);
    else if (c.index() == 1) s.erase(s.begin());
  }
};

void BM_Throughput_Duet(benchmark::State& st) {
  std::uint64_t commands = 0;
  std::uint64_t seed = 1;
  for (auto _ : st) {
    const duet::CheckResult r = duet::check_sequential<DequeSpec>({.seed = seed++, .count = 1000, .verbose = -1});
    if (!r) st.SkipWithError("duet reported a failure on a correct subject");
    commands += r.commands;
  }
  st.counters["commands/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
  st.counters["cmds/case"] = static_cast<double>(commands) / (1000.0 * static_cast<double>(st.iterations()));
}
BENCHMARK(BM_Throughput_Duet)->Unit(benchmark::kMillisecond);

// The floor for BM_Throughput_Duet: the same work written by hand, with nothing a testing tool
// adds (no recorded choices, no generators, no results as values, no reports). Each case: a
// fresh deque and model; before each command a 1-in-10 chance to end the case (duet's default
// mean length); a command drawn as DequeSpec draws it; candidate and model called and compared.
void BM_Throughput_HandLoop(benchmark::State& st) {
  std::uint64_t commands = 0;
  std::uint64_t rng = 1;
  auto below_or_equal = [&rng](std::uint64_t max) {  // splitmix64, as duet's generator
    rng += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = rng;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return z % (max + 1);
  };
  for (auto _ : st) {
    for (int c = 0; c < 1000; ++c) {
      std::deque<int> d;
      std::vector<int> model;
      for (int i = 0; i < 100 && below_or_equal(10) != 0; ++i) {
        ++commands;
        const std::uint64_t kind = model.empty() ? below_or_equal(1) * 2 : below_or_equal(2);
        if (kind == 0) {
          const int x = static_cast<int>(below_or_equal(200)) - 100;
          d.push_back(x);
          model.push_back(x);
        } else if (kind == 1) {
          const int got = d.front();
          d.pop_front();
          if (got != model.front()) st.SkipWithError("disagreement");
          model.erase(model.begin());
        } else if (d.size() != model.size()) {
          st.SkipWithError("disagreement");
        }
      }
      benchmark::DoNotOptimize(d);
    }
  }
  st.counters["commands/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
  st.counters["cmds/case"] = static_cast<double>(commands) / (1000.0 * static_cast<double>(st.iterations()));
}
BENCHMARK(BM_Throughput_HandLoop)->Unit(benchmark::kMillisecond);

// Between the two: the hand loop drawing as duet draws, through a duet::Source (every choice
// recorded, each command a span) and DequeSpec's own generators (duet::integers draws two
// choices a value: small, edge or uniform, then the value), and nothing else of the engine: no
// steps object, no Result values, no verdicts, no per-case bookkeeping. BM_Throughput_Duet
// over this is what the engine adds to a loop that records its choices for shrinking.
void BM_Throughput_HandLoopDuetDraws(benchmark::State& st) {
  std::uint64_t commands = 0;
  std::uint64_t seed = 1;
  duet::Source src = duet::Source::from_seed(0);
  for (auto _ : st) {
    for (int c = 0; c < 1000; ++c) {
      src.restart(seed++);
      // As the case loop does: the copy of the command generator a draw makes does no atomic
      // operation from the second command of a case on.
      const duet::detail::DeferredGenReleases deferred;
      std::deque<int> d;
      std::vector<int> model;
      for (int i = 0; i < 100; ++i) {
        const std::size_t span = src.begin_span();
        if (src.draw(10) == 0) break;
        const DequeSpec::Cmd cmd = DequeSpec::command(model)(src);
        ++commands;
        if (const auto* push = std::get_if<Push>(&cmd)) {
          d.push_back(push->x);
          model.push_back(push->x);
        } else if (std::holds_alternative<Pop>(cmd)) {
          const int got = d.front();
          d.pop_front();
          if (got != model.front()) st.SkipWithError("disagreement");
          model.erase(model.begin());
        } else if (d.size() != model.size()) {
          st.SkipWithError("disagreement");
        }
        src.end_span(span);
      }
      benchmark::DoNotOptimize(d);
    }
  }
  st.counters["commands/s"] = benchmark::Counter(static_cast<double>(commands), benchmark::Counter::kIsRate);
  st.counters["cmds/case"] = static_cast<double>(commands) / (1000.0 * static_cast<double>(st.iterations()));
}
BENCHMARK(BM_Throughput_HandLoopDuetDraws)->Unit(benchmark::kMillisecond);

// Shrinking: time from the start of the search to the minimal scenario, and its length.
void BM_Shrink_RingBuffer_Duet(benchmark::State& st) {
  std::uint64_t seed = 1;
  double steps = 0;
  for (auto _ : st) {
    const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(
        {.seed = seed++, .output_dir = "duet-output/bench", .verbose = -1});
    steps += static_cast<double>(r.failing_length);
  }
  st.counters["length"] = steps / static_cast<double>(st.iterations());
}
BENCHMARK(BM_Shrink_RingBuffer_Duet)->Unit(benchmark::kMillisecond);

#ifdef DUET_BENCH_RAPIDCHECK
std::uint64_t rc_commands = 0;

struct RcModel {
  std::vector<int> v;
};
using RcCmd = rc::state::Command<RcModel, std::deque<int>>;
struct RcPush : RcCmd {
  int x = *rc::gen::inRange(-100, 101);
  void apply(RcModel& m) const override { m.v.push_back(x); }
  void run(const RcModel&, std::deque<int>& d) const override {
    ++rc_commands;
    d.push_back(x);
  }
  void show(std::ostream& os) const override { os << "push_back(" << x << ")"; }
};
struct RcPop : RcCmd {
  void checkPreconditions(const RcModel& m) const override { RC_PRE(!m.v.empty()); }
  void apply(RcModel& m) const override { m.v.erase(m.v.begin()); }
  void run(const RcModel& m, std::deque<int>& d) const override {
    ++rc_commands;
    RC_ASSERT(d.front() == m.v.front());
    d.pop_front();
  }
  void show(std::ostream& os) const override { os << "pop_front()"; }
};
struct RcSize : RcCmd {
  void run(const RcModel& m, std::deque<int>& d) const override {
    ++rc_commands;
    RC_ASSERT(d.size() == m.v.size());
  }
  void show(std::ostream& os) const override { os << "size()"; }
};

void BM_Throughput_RapidCheck(benchmark::State& st) {
  rc_commands = 0;
  std::uint64_t seed = 1;
  for (auto _ : st) {
    rc::detail::TestParams params;
    params.seed = seed++;
    params.maxSuccess = 100;
    params.maxSize = 34;  // mean sequence length about 10, like duet's default
    const auto result = rc::detail::checkTestable(
        [] {
          RcModel m;
          std::deque<int> d;
          rc::state::check(m, d, rc::state::gen::execOneOfWithArgs<RcPush, RcPop, RcSize>());
        },
        rc::detail::TestMetadata{}, params);
    rc::detail::SuccessResult ok;
    if (!result.match(ok)) st.SkipWithError("RapidCheck reported a failure on a correct subject");
  }
  st.counters["commands/s"] = benchmark::Counter(static_cast<double>(rc_commands), benchmark::Counter::kIsRate);
  st.counters["cmds/case"] = static_cast<double>(rc_commands) / (100.0 * static_cast<double>(st.iterations()));
}
BENCHMARK(BM_Throughput_RapidCheck)->Unit(benchmark::kMillisecond);

// The same buggy ring buffer, as RapidCheck commands.
struct RingModel {
  std::deque<int> q;
};
using Ring = ring::BuggyRingBuffer;
using RingCmd = rc::state::Command<RingModel, Ring>;
struct RingPush : RingCmd {
  int x = *rc::gen::inRange(-100, 101);
  void apply(RingModel& m) const override {
    if (m.q.size() < 3) m.q.push_back(x);
  }
  void run(const RingModel& m, Ring& r) const override { RC_ASSERT(r.push(x) == (m.q.size() < 3)); }
  void show(std::ostream& os) const override { os << "push(" << x << ")"; }
};
struct RingPop : RingCmd {
  void apply(RingModel& m) const override {
    if (!m.q.empty()) m.q.pop_front();
  }
  void run(const RingModel& m, Ring& r) const override {
    const auto got = r.pop();
    RC_ASSERT(got == (m.q.empty() ? std::nullopt : std::optional<int>(m.q.front())));
  }
  void show(std::ostream& os) const override { os << "pop()"; }
};
struct RingSize : RingCmd {
  void run(const RingModel& m, Ring& r) const override { RC_ASSERT(r.size() == m.q.size()); }
  void show(std::ostream& os) const override { os << "size()"; }
};

void BM_Shrink_RingBuffer_RapidCheck(benchmark::State& st) {
  std::uint64_t seed = 1;
  double steps = 0, found = 0;
  for (auto _ : st) {
    rc::detail::TestParams params;
    params.seed = seed++;
    params.maxSuccess = 100000;
    const auto result = rc::detail::checkTestable(
        [] {
          RingModel m;
          Ring r(3);
          rc::state::check(m, r, rc::state::gen::execOneOfWithArgs<RingPush, RingPop, RingSize>());
        },
        rc::detail::TestMetadata{}, params);
    rc::detail::FailureResult failure;
    if (result.match(failure)) {
      found += 1;
      // The counterexample prints one command per line.
      for (const auto& [type, value] : failure.counterExample) {
        std::size_t line_start = 0;
        for (std::size_t i = 0; i <= value.size(); ++i) {
          if (i == value.size() || value[i] == '\n') {
            steps += i > line_start;
            line_start = i + 1;
          }
        }
      }
    }
  }
  st.counters["length"] = found ? steps / found : 0;
  st.counters["found"] = found / static_cast<double>(st.iterations());
}
BENCHMARK(BM_Shrink_RingBuffer_RapidCheck)->Unit(benchmark::kMillisecond);
#endif

}  // namespace
