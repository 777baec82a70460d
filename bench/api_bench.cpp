// The reference-vs-candidate front end against the state-machine front end on the same
// subject (persistent arrays, correct candidate): operations per second through each.
//
//   build/bin/duet-bench --benchmark_filter=PersistentArray
#include <benchmark/benchmark.h>

#include <variant>

#include "persistent_array.hpp"

namespace {

void BM_PersistentArray_Api(benchmark::State& st) {
  const duet::Api api = persistent::spec(persistent::fixed::make, persistent::fixed::get, persistent::fixed::set);
  std::uint64_t ops = 0, seed = 1;
  for (auto _ : st) {
    const duet::CheckResult r = api.check({.seed = seed++, .count = 1000, .verbose = -1}, {.fuel = 20});
    if (!r) st.SkipWithError("the API front end failed a correct candidate");
    ops += r.commands;
  }
  st.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PersistentArray_Api)->Unit(benchmark::kMillisecond);

// The same operations as a state machine: the model is the list of live reference arrays,
// the subject the list of live candidate arrays; commands name arrays by index.
struct Make {
  int n;
  std::int64_t x;
};
struct Get {
  std::size_t a;
  int i;
};
struct Set {
  std::size_t a;
  int i;
  std::int64_t x;
};
std::string duet_show(const Make& m) { return "make(" + std::to_string(m.n) + ", " + std::to_string(m.x) + ")"; }
std::string duet_show(const Get& g) { return "get(a" + std::to_string(g.a) + ", " + std::to_string(g.i) + ")"; }
std::string duet_show(const Set& s) {
  return "set(a" + std::to_string(s.a) + ", " + std::to_string(s.i) + ", " + std::to_string(s.x) + ")";
}

struct PersistentArraySpec {
  using Sut = std::vector<persistent::ed::Array>;
  using State = std::vector<persistent::ref::Array>;
  using Cmd = std::variant<Make, Get, Set>;
  static duet::Gen<Cmd> command(const State& s) {
    static const auto element = duet::integers<std::int64_t>(0, 1000);
    static const duet::Gen<Cmd> make =
        duet::construct<Make>(duet::integers(0, 15), element).map([](Make m) { return Cmd(m); });
    if (s.empty() || s.size() >= 32) return make;
    // An array, then an index into it (dependent generation), as the API spec does.
    return duet::integers<std::size_t>(0, s.size() - 1).bind([&s](std::size_t a) -> duet::Gen<Cmd> {
      if (s[a].empty()) return make;
      auto index = duet::integers(0, static_cast<int>(s[a].size()) - 1);
      return duet::one_of(
          make, index.map([a](int i) {
            return Cmd(Get{a, i});
          }),
          index.bind([a](int i) {
            return duet::integers<std::int64_t>(0, 1000).map([a, i](std::int64_t x) { return Cmd(Set{a, i, x}); });
          }));
    });
  }
  static duet::Result run(const Cmd& c, Sut& arrays) {
    if (auto* m = std::get_if<Make>(&c)) {
      arrays.push_back(persistent::fixed::make(m->n, m->x));
      return {};
    }
    if (auto* g = std::get_if<Get>(&c)) return persistent::fixed::get(arrays[g->a], g->i);
    const auto& s = std::get<Set>(c);
    arrays.push_back(persistent::fixed::set(arrays[s.a], s.i, s.x));
    return {};
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (auto* g = std::get_if<Get>(&c)) return persistent::ref::get(s[g->a], g->i);
    return {};
  }
  static void next(const Cmd& c, State& s) {
    if (auto* m = std::get_if<Make>(&c)) s.push_back(persistent::ref::make(m->n, m->x));
    else if (auto* st = std::get_if<Set>(&c)) s.push_back(persistent::ref::set(s[st->a], st->i, st->x));
  }
};

void BM_PersistentArray_StateMachine(benchmark::State& st) {
  std::uint64_t ops = 0, seed = 1;
  for (auto _ : st) {
    const duet::CheckResult r =
        duet::check_sequential<PersistentArraySpec>({.seed = seed++, .count = 1000, .max_length = 20, .verbose = -1});
    if (!r) st.SkipWithError("the state machine failed a correct candidate");
    ops += r.commands;
  }
  st.counters["ops/s"] = benchmark::Counter(static_cast<double>(ops), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PersistentArray_StateMachine)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
