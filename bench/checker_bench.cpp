// The history checker on the recorded histories (one benchmark per file family) and on bigger
// kv histories recorded from duet's own thread pool (how far the unpartitioned search scales).
// Times include parsing; counters give search steps, the memo's peak size and the process's
// peak resident memory.
//
//   build/bin/duet-bench --benchmark_filter=Checker
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <duet/history.hpp>

#include "history_families.hpp"
#include "kv_stress.hpp"

namespace {

using namespace duet::history;

const std::string kHistories = DUET_HISTORIES_DIR;

std::vector<std::string> files_in(const std::string& dir, const std::string& ext) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ext) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

double peak_rss_mib() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux: KiB
}

// Checks every file of a family per iteration; reports the slowest file too.
void check_family(benchmark::State& st, const std::vector<std::string>& files, bool partition, bool window = true) {
  std::uint64_t nodes = 0;
  std::size_t memo = 0;
  double slowest_ms = 0;
  std::string slowest;
  for (auto _ : st) {
    for (const std::string& f : files) {
      const auto t0 = std::chrono::steady_clock::now();
      const History h = read_history(f);
      CheckOptions options;
      options.partition = partition;
      options.failing_window = window;
      const CheckReport r = check_history(h, options);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      if (r.verdict == Verdict::unknown) st.SkipWithError(("unknown verdict for " + f).c_str());
      nodes += r.nodes;
      memo = std::max(memo, r.peak_memo_bytes);
      if (ms > slowest_ms) {
        slowest_ms = ms;
        slowest = f.substr(f.find_last_of('/') + 1);
      }
    }
  }
  st.counters["files"] = static_cast<double>(files.size());
  st.counters["steps/iter"] = static_cast<double>(nodes) / static_cast<double>(st.iterations());
  st.counters["slowest_ms"] = slowest_ms;
  st.counters["memo_peak_KiB"] = static_cast<double>(memo) / 1024.0;
  st.counters["rss_peak_MiB"] = peak_rss_mib();
  st.SetLabel("slowest " + slowest);
}

// Arg: 1 shrinks each violation to a failing window (the default), 0 does not.
void Checker_Etcd70(benchmark::State& st) {
  check_family(st, files_in(kHistories + "/etcd", ".log"), true, st.range(0) != 0);
}
BENCHMARK(Checker_Etcd70)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond);

void Checker_EtcdFile(benchmark::State& st) {
  static const char* names[] = {"etcd_002.log", "etcd_007.log", "etcd_057.log"};
  const std::string name = names[st.range(0)];
  check_family(st, {kHistories + "/etcd/" + name}, true);
  st.SetLabel(name);
}
BENCHMARK(Checker_EtcdFile)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

void Checker_Knossos(benchmark::State& st) { check_family(st, files_in(kHistories + "/knossos", ".edn"), true); }
BENCHMARK(Checker_Knossos)->Unit(benchmark::kMillisecond);

void Checker_KvC10(benchmark::State& st) {
  const std::string name = st.range(0) == 0 ? "c10-ok.txt" : "c10-bad.txt";
  const bool partition = st.range(1) != 0;
  check_family(st, {kHistories + "/kv/" + name}, partition);
  st.SetLabel(name + (partition ? " partitioned" : " unpartitioned"));
}
BENCHMARK(Checker_KvC10)->ArgsProduct({{0, 1}, {0, 1}})->Unit(benchmark::kMillisecond);

// Mean number of other operations in flight during an operation: how concurrent a history is.
double mean_overlap(const History& h) {
  std::vector<std::pair<std::uint64_t, int>> events;
  for (const Operation& op : h.ops) {
    events.emplace_back(op.invoke, +1);
    events.emplace_back(op.response, -1);
  }
  std::sort(events.begin(), events.end());
  double area = 0, busy = 0;
  int live = 0;
  for (std::size_t i = 0; i + 1 < events.size(); ++i) {
    live += events[i].second;
    const double span = static_cast<double>(events[i + 1].first - events[i].first);
    area += span * live;
    if (live > 0) busy += span;
  }
  return busy > 0 ? area / busy : 0;
}

// Scaling: kv histories recorded from a correct store on duet's thread pool, with clients x
// operations growing well past c10 (10 clients, ~400 operations), checked unpartitioned.
void Checker_KvScaling(benchmark::State& st) {
  const KvStress run{.clients = static_cast<std::size_t>(st.range(0)),
                     .ops_per_client = static_cast<std::size_t>(st.range(1)),
                     .keys = 10,
                     .seed = 11,
                     .max_delay = std::chrono::microseconds(st.range(2))};
  const History h = record_kv_stress<LockedKv>(run);
  std::uint64_t nodes = 0;
  std::size_t memo = 0;
  for (auto _ : st) {
    CheckOptions options;
    options.partition = false;
    options.timeout_seconds = 60;
    const CheckReport r = check_history(h, options);
    if (r.verdict != Verdict::linearizable) st.SkipWithError(("verdict " + std::string(verdict_name(r.verdict))).c_str());
    nodes += r.nodes;
    memo = std::max(memo, r.peak_memo_bytes);
  }
  st.counters["ops"] = static_cast<double>(h.ops.size());
  st.counters["overlap"] = mean_overlap(h);
  st.counters["steps/iter"] = static_cast<double>(nodes) / static_cast<double>(st.iterations());
  st.counters["memo_peak_MiB"] = static_cast<double>(memo) / (1024.0 * 1024.0);
  st.counters["rss_peak_MiB"] = peak_rss_mib();
}
BENCHMARK(Checker_KvScaling)
    ->Args({10, 40, 500})
    ->Args({20, 100, 500})
    ->Args({40, 100, 500})
    ->Args({80, 100, 500})
    ->Args({40, 500, 500})
    ->Args({160, 100, 500})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The history families (tests/support/history_families.hpp): N clients x 100 operations on one
// object in virtual time, correct or with one planted bug, checked with 60 s and 2 GiB (or
// DUET_BENCH_MEMORY_MIB) budgets. Args: object (0 cas-register, 1 queue, 2 kv, 3 set), clients, bug
// (0 none, 1 stale read, 2 lost write), partitioned. A history whose verdict is not the
// expected one is an error; unknown is reported in the label.
//
//   build/bin/duet-bench --benchmark_filter=Checker_Family --benchmark_counters_tabular=true
void Checker_Family(benchmark::State& st) {
  const duet_test::Family f{.object = static_cast<duet_test::Object>(st.range(0)),
                            .clients = static_cast<std::size_t>(st.range(1)),
                            .ops_per_client = 100,
                            .bug = static_cast<duet_test::Bug>(st.range(2))};
  const History h = duet_test::generate(f);
  CheckReport r;
  for (auto _ : st) {
    CheckOptions options;
    options.partition = st.range(3) != 0;
    options.timeout_seconds = 60;
    if (const char* t = std::getenv("DUET_BENCH_TIMEOUT_S")) options.timeout_seconds = std::atof(t);
    if (const char* mib = std::getenv("DUET_BENCH_MEMORY_MIB"))
      options.max_memory_bytes = std::size_t(std::atoll(mib)) << 20;
    r = check_history(h, options);
  }
  const Verdict expected = f.bug == duet_test::Bug::none ? Verdict::linearizable : Verdict::not_linearizable;
  if (r.verdict != expected && r.verdict != Verdict::unknown)
    st.SkipWithError(("wrong verdict " + std::string(verdict_name(r.verdict))).c_str());
  st.counters["ops"] = static_cast<double>(h.ops.size());
  st.counters["overlap"] = mean_overlap(h);
  st.counters["steps"] = static_cast<double>(r.nodes);
  st.counters["memo_peak_MiB"] = static_cast<double>(r.peak_memo_bytes) / (1024.0 * 1024.0);
  st.counters["rss_peak_MiB"] = peak_rss_mib();
  st.counters["witness"] = static_cast<double>(r.witness.size());
  st.SetLabel(std::string(duet_test::object_name(f.object)) + " " + duet_test::bug_name(f.bug) + ": " +
              std::string(verdict_name(r.verdict)));
}
BENCHMARK(Checker_Family)
    ->ArgsProduct({{0}, {10, 20, 40, 80, 160}, {0, 1}, {0}})
    ->ArgsProduct({{1}, {10, 20, 40, 80, 160}, {0, 2}, {0}})
    ->ArgsProduct({{2}, {10, 20, 40, 80}, {0, 1, 2}, {1}})
    ->ArgsProduct({{3}, {10, 20, 40, 80}, {0, 1, 2}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// The failing window of a violation only the search finds (duet/detail/history_window.hpp): a register
// history with values 0..4 (no decision applies), CLIENTS x 200 operations, one read at index
// AT changed to a value never written; WINDOW 1 shrinks it, 0 does not (the search's cost
// alone). `window` is the number of operations kept, `open` of them cut while running.
//
//   build/bin/duet-bench --benchmark_filter=Checker_FailingWindow --benchmark_counters_tabular=true
//
// Checker_FailingWindowLong/AT/WINDOW: the same with 10 clients x 20,000 operations (200,000).
void failing_window(benchmark::State& st, std::size_t clients, std::size_t ops_per_client, std::size_t at, bool window) {
  const duet_test::Family f{
      .object = duet_test::Object::cas_register, .clients = clients, .ops_per_client = ops_per_client, .values = 5};
  History h = duet_test::generate(f);
  for (std::size_t i = at; i < h.ops.size(); ++i)
    if (h.ops[i].f == "read" && h.ops[i].outcome == duet::history::Outcome::ok) {
      h.ops[i].output = duet::history::Value::integer(77);
      break;
    }
  CheckReport r;
  for (auto _ : st) {
    CheckOptions options;
    options.timeout_seconds = 60;
    options.failing_window = window;
    r = check_history(h, options);
  }
  if (r.verdict != Verdict::not_linearizable)
    st.SkipWithError(("wrong verdict " + std::string(verdict_name(r.verdict))).c_str());
  st.counters["ops"] = static_cast<double>(h.ops.size());
  st.counters["steps"] = static_cast<double>(r.nodes);
  st.counters["window"] = static_cast<double>(r.witness.size());
  st.counters["open"] = static_cast<double>(r.witness_open.size());
}
void Checker_FailingWindow(benchmark::State& st) {
  failing_window(st, static_cast<std::size_t>(st.range(0)), 200, static_cast<std::size_t>(st.range(1)), st.range(2) != 0);
}
void Checker_FailingWindowLong(benchmark::State& st) {
  failing_window(st, 10, 20'000, static_cast<std::size_t>(st.range(0)), st.range(1) != 0);
}
BENCHMARK(Checker_FailingWindowLong)->ArgsProduct({{100'000}, {0, 1}})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(Checker_FailingWindow)
    ->ArgsProduct({{10}, {12, 1000, 1900}, {0, 1}})
    ->ArgsProduct({{20}, {12, 2000, 3900}, {0, 1}})
    ->Unit(benchmark::kMillisecond);

}  // namespace
