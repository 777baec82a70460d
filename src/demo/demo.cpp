// make demo: duet finds and shrinks real bugs, and passes correct implementations.
#include <cstdio>
#include <string>
#include <vector>

#include <duet/history.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/queue.hpp>
#include <oneapi/tbb/concurrent_queue.h>

#include "avl.hpp"
#include "demo/demo.hpp"
#include "increasing.hpp"
#include "kv_store_spec.hpp"
#include "kv_stress.hpp"
#include "patricia.hpp"
#include "persistent_array.hpp"
#include "ring_buffer.hpp"

namespace {

std::unique_ptr<std::vector<int>> reserved_vector() {
  auto v = std::make_unique<std::vector<int>>();
  v->reserve(1024);
  return v;
}

using demo::expect_bug;
using demo::expect_pass;
using demo::Line;

std::string count(const duet::CheckResult& r, const char* where) {
  if (r.trials > 0) return std::to_string(r.cases) + " programs, " + std::to_string(r.trials) + " trials " + where;
  return std::to_string(r.cases) + " cases, " + std::to_string(r.commands) + " operations";
}

// How shrinking ended, as the report says it: a case cut short by a budget, or a race that did
// not come back, is not presented as minimal.
std::string shrunk(const duet::CheckResult& r) {
  using End = duet::CheckResult::ShrinkEnd;
  const std::string size = std::to_string(r.failing_length) + (r.trials > 0 ? " calls" : " steps");
  if (r.shrink_end == End::not_reproduced) return "not shrunk (" + size + "): the failure did not come back";
  std::string text = "shrunk to " + size + " in " + std::to_string(r.shrink_steps) + " shrink steps";
  if (r.shrink_end == End::step_budget || r.shrink_end == End::time_budget) text += " (stopped by its budget)";
  return text;
}

}  // namespace

void demo::expect_bug(std::vector<Line>& summary, const std::string& what, const duet::CheckResult& r, const char* where) {
  std::printf("%s\n", r.report.c_str());
  const bool found = r.status == duet::CheckResult::Status::failed;
  summary.push_back({what, found,
                     found ? "bug found after " +
                                 (r.trials > 0 ? std::to_string(r.trials) + " trials " + where
                                               : std::to_string(r.cases) + (r.cases == 1 ? " case" : " cases")) +
                                 ", " + shrunk(r)
                           : "NOT FOUND"});
}

void demo::expect_pass(std::vector<Line>& summary, const std::string& what, const duet::CheckResult& r, const char* where) {
  if (!r) std::printf("%s\n", r.report.c_str());
  std::printf("\n");
  summary.push_back({what, r.passed(), r.passed() ? "passed (" + count(r, where) + ")" : "FAILED"});
}

namespace {

// Demos 1 to 5: sequential checks, a model or a reference against a candidate.
void sequential_demos(std::vector<Line>& summary) {
  std::printf("-- 1. a bounded ring-buffer queue against a std::deque model (state machine) --\n");
  std::printf("   the buggy queue's read index wraps to 1 instead of 0\n\n");
  expect_bug(summary, "buggy ring buffer", duet::check_sequential<ring::BuggyRingBufferSpec>({.name = "BuggyRingBuffer"}));
  expect_pass(summary, "correct ring buffer",
              duet::check_sequential<ring::CorrectRingBufferSpec>({.name = "CorrectRingBuffer"}));

  std::printf("-- 2. How Ed got fired: persistent arrays, reference against candidate (Monolith) --\n");
  std::printf("   Ed's set writes in place instead of copying\n\n");
  using namespace persistent;
  expect_bug(summary, "Ed's persistent array", spec(ed::make, ed::get, ed::set).check({}, {.fuel = 5}));
  expect_pass(summary, "copying persistent array", spec(fixed::make, fixed::get, fixed::set).check({}, {.fuel = 5}));

  std::printf("-- 3. an increasing-sequence generator, with a nondeterministic spec (Monolith) --\n");
  std::printf("   next() may return any number above the previous one; this one wraps modulo 4\n\n");
  expect_bug(
      summary, "wrapping generator",
      increasing::spec<increasing::modulo4::Generator>(increasing::modulo4::create, increasing::modulo4::next).check());

  std::printf("-- 4. Patricia-tree maps against std::map: union compares branching masks as signed --\n\n");
  // Searching stops at the first failure; the larger budget only matters on an unlucky seed.
  expect_bug(summary, "signed-mask Patricia union", patricia::spec(patricia::union_signed_masks).check({.time = 30}));

  std::printf("-- 5. an AVL set whose join rebalances only at the root, with no reference at all --\n");
  std::printf("   (invariant-only mode, as in ArtiCheck: the contents stay right, only the balance check sees it)\n\n");
  expect_bug(summary, "root-only AVL join", avl::solo_spec(avl::union_root_only).check({.time = 30}));
  expect_pass(summary, "correct AVL join", avl::solo_spec(avl::union_).check());
}

// Demos 6 and 7: Y-shaped programs on threads, against a model and against the candidate itself.
void parallel_demos(std::vector<Line>& summary) {
  std::printf("-- 6. a queue under threads: Y-shaped programs, checked for linearizability --\n\n");
  expect_pass(summary, "tbb::concurrent_queue",
              duet::check_parallel<duet::models::Queue<duet::models::TbbQueue>>({}, {.name = "tbb::concurrent_queue"}));

  std::printf("-- 7. std::vector under threads, with no model: the candidate is its own oracle --\n\n");
  auto vector_lin = duet::Lin<std::vector<int>>("std::vector", "v")
                        .init(reserved_vector, "std::vector<int> v; v.reserve(1024);")
                        .op(
                            "push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::integers(0, 9))
                        .op("size", [](std::vector<int>& v) { return v.size(); });
  const duet::CheckResult unsafe = duet::check_parallel(vector_lin, {}, {.time = 30});
  expect_bug(summary, "std::vector on threads", unsafe);
}

// Demo 10: recorded histories, Jepsen's and a racy store's, checked by duet's history checker.
void history_demos(std::vector<Line>& summary) {
  std::printf("\n-- 10. recorded histories: Jepsen's etcd logs, and a stress run recorded on threads --\n\n");
  for (const char* name : {"etcd_000.log", "etcd_002.log"}) {
    const auto h = duet::history::read_history(std::string(DUET_HISTORIES_DIR) + "/etcd/" + name);
    const auto r = duet::history::check_history(h, {.timeout_seconds = 10});
    std::printf("%s: %s (%zu operations, %.1f ms)\n%s\n", name, std::string(duet::history::verdict_name(r.verdict)).c_str(),
                h.ops.size(), r.milliseconds, r.explanation.c_str());
    const bool expected = r.verdict == (name[6] == '0' && name[7] == '0' ? duet::history::Verdict::not_linearizable
                                                                         : duet::history::Verdict::linearizable);
    summary.push_back({std::string("Jepsen log ") + name, expected, std::string(duet::history::verdict_name(r.verdict))});
  }
  // A key-value store whose append reads and writes back under two locks loses updates when
  // two appends overlap: record runs until the checker proves one wrong.
  std::string lost = "NOT FOUND";
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 50 && !found; ++seed) {
    const auto h = record_kv_stress<RacyAppendKv>({.clients = 8, .ops_per_client = 30, .keys = 2, .seed = seed});
    const auto r = duet::history::check_history(h, {.timeout_seconds = 10});
    if (r.verdict == duet::history::Verdict::not_linearizable) {
      found = true;
      lost =
          "not linearizable in recorded run " + std::to_string(seed) + " (" + std::to_string(h.ops.size()) + " operations)";
      std::printf("racy kv store, run %llu: %s\n", static_cast<unsigned long long>(seed), r.explanation.c_str());
    }
  }
  summary.push_back({"kv store losing appends", found, lost});
}

// Demo 11: a key-value store over a block device with async I/O and injected crashes.
void crash_demos(std::vector<Line>& summary) {
  std::printf("\n-- 11. a key-value store over a block device, async I/O, crashes injected (the seed study) --\n");
  std::printf("   remove() leaves its directory write to the next update: a crash in between brings the key back\n\n");
  expect_bug(summary, "kv store, stale directory",
             duet::check_sequential<kv::Spec<kv::Bug::stale_directory>>({.name = "KvStaleDirectory"}));
  std::printf("   set() of a value over one sector writes the directory before the data\n\n");
  expect_bug(summary, "kv store, directory first",
             duet::check_sequential<kv::Spec<kv::Bug::directory_before_data>>({.name = "KvDirectoryFirst"}));
  expect_pass(summary, "crash-safe kv store", duet::check_sequential<kv::Spec<kv::Bug::none, true>>({.name = "KvStore"}));
}

}  // namespace

int main() {
  // Each line as it is printed, also into a pipe (`make demo | tee demo.log`).
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  std::vector<Line> summary;
  std::printf("== duet demo ==\n\n");
  sequential_demos(summary);
  parallel_demos(summary);
  demo::fiber_demos(summary);
  history_demos(summary);
  crash_demos(summary);

  std::printf("\n== summary ==\n");
  bool all = true;
  for (const Line& l : summary) {
    std::printf("  %-28s %s\n", (l.what + ":").c_str(), l.detail.c_str());
    all = all && l.ok;
  }
  std::printf("  demo %s\n", all ? "ok" : "did not go as expected");
  return all ? 0 : 1;
}
