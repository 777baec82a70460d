// Time to find the Patricia tree's signed-mask union (docs/examples/patricia.hpp) by duet's
// random search: keys with edge bias (small, extreme and present keys: the spec as the seed
// tests use it) against uniform 64-bit keys. Ten seeds each, one iteration; the median and the
// worst are counters, in seconds until the report is ready (search and shrink). The same bug
// under libFuzzer without edge bias: bench/fuzz_patricia.sh.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <vector>

#include "patricia.hpp"

namespace {

void BM_Patricia_TimeToFind(benchmark::State& st) {
  const bool edge_keys = st.range(0) == 0;
  const duet::Api api = patricia::spec(patricia::union_signed_masks, edge_keys);
  std::vector<double> seconds;
  std::vector<double> cases;
  int missed = 0;
  for (auto _ : st) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      duet::Config c;
      c.seed = seed;
      c.time = 60;
      c.verbose = -1;
      c.output_dir = "duet-output/bench";
      const duet::CheckResult r = api.check(c);
      if (r.status == duet::CheckResult::Status::failed) {
        seconds.push_back(r.seconds);
        cases.push_back(static_cast<double>(r.cases));
      } else {
        ++missed;
      }
    }
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return -1.0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  };
  st.counters["median_s"] = median(seconds);
  st.counters["max_s"] = seconds.empty() ? -1.0 : *std::max_element(seconds.begin(), seconds.end());
  st.counters["median_cases"] = median(cases);
  st.counters["missed_of_10"] = missed;
}
BENCHMARK(BM_Patricia_TimeToFind)->Arg(0)->Arg(1)->Iterations(1)->Unit(benchmark::kSecond);

}  // namespace
