// ParallelConfig::every_program beyond the fiber scheduler: on threads (whose checks run in a
// child process, where the walk runs too), through duet::Api, and with roles.
#include <duet/gtest.hpp>
#include <duet/sync.hpp>

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <filesystem>
#include <unistd.h>

#include "certify/certificate.hpp"
#include "engine/case_files.hpp"
#include "support/verdicts.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct AtomicCounter {
  std::atomic<int> n{0};
};

duet::Lin<AtomicCounter> counter_lin() {
  return duet::Lin<AtomicCounter>("AtomicCounter", "c")
      .op("incr", [](AtomicCounter& c) { return c.n.fetch_add(1) + 1; })
      .op("get", [](AtomicCounter& c) { return c.n.load(); });
}

// 2 branches of up to 2 calls of two operations, no prefix: 27 programs (tests/fibers has the count).
const duet::ParallelConfig kScope{.branch_length = 2, .prefix_length = 0, .every_program = duet::EveryProgram{}};

TEST(EveryProgramOnThreads, EveryProgramRunsInTheChildAndThePassSaysSo) {
  const duet::CheckResult r = duet::check_parallel(counter_lin(), kScope, {.verbose = -1});
  ASSERT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
  if (!r) GTEST_SKIP() << "inconclusive on this machine's load: " << r.report;
  EXPECT_EQ(r.cases, 27u);
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed: 27 programs of 2 branches × up to 2 calls")) << r.coverage;
  EXPECT_FALSE(has(r.coverage, "searched to its end")) << r.coverage;
}

// The walk ran in isolation's child: its certificate says what the child walked.
TEST(EveryProgramOnThreads, TheCertificateIsTheChildsWalk) {
  const std::string file =
      (std::filesystem::temp_directory_path() / ("duet-threads-" + std::to_string(::getpid()) + ".cert")).string();
  ::setenv("DUET_CERTIFICATE", file.c_str(), 1);
  const duet::CheckResult r = duet::check_parallel(counter_lin(), kScope, {.verbose = -1});
  ::unsetenv("DUET_CERTIFICATE");
  ASSERT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
  const duet::detail::Certificate c = duet::detail::parse_certificate(duet::detail::read_case_file(file).bytes);
  std::filesystem::remove(file);
  EXPECT_EQ(c.check, "AtomicCounter");
  EXPECT_EQ(c.execution, "threads");
  EXPECT_TRUE(c.walk_done);
  EXPECT_EQ(c.scope_programs, 27u);
  EXPECT_EQ(c.programs, 27u);
  EXPECT_FALSE(c.every_run);  // threads sample their runs
  EXPECT_EQ(c.trials, r.trials);
  EXPECT_EQ(c.verdict, r ? "passed" : "inconclusive");
}

TEST(EveryProgramOnThreads, AWalkItsBudgetEndsInTheChildIsInconclusive) {
  const duet::CheckResult r = duet::check_parallel(counter_lin(), kScope, {.count = 4, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "stopped at its budget, after 4 programs of the scope's 27")) << r.report;
}

// A queue through duet::Api, one producer and one consumer: push(0), push(1) for the producer,
// try_pop for the consumer, a prefix of up to one call of either.
struct LockedQueue {
  duet::mutex m;
  std::deque<int> q;
  void push(int x) {
    std::lock_guard<duet::mutex> l(m);
    q.push_back(x);
  }
  std::optional<int> try_pop() {
    std::lock_guard<duet::mutex> l(m);
    if (q.empty()) return std::nullopt;
    const int x = q.front();
    q.pop_front();
    return x;
  }
};

TEST(EveryProgramWithRoles, OneProducerAndOneConsumerWalkTheirOwnOperations) {
  auto lin = duet::Lin<LockedQueue>("LockedQueue", "q")
                 .op(
                     "push", [](LockedQueue& q, int x) { q.push(x); }, duet::integers(0, 9))
                 .op("try_pop", [](LockedQueue& q) { return q.try_pop(); });
  duet::ParallelConfig pc{.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"try_pop"}}},
                          .branch_length = 2,
                          .prefix_length = 1,
                          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                          .every_program = duet::EveryProgram{}};
  const duet::CheckResult r = duet::check_parallel(lin, pc, {.verbose = -1});
  ASSERT_TRUE(r) << r.report;
  // Prefixes: none, push(0), push(1), try_pop(): 4. Producer branches: 1 + 2 + 4 = 7; consumer: 1 + 1 + 1 = 3;
  // 21 pairs, each with 4 prefixes, less the one with no call.
  EXPECT_EQ(r.cases, 83u);
  EXPECT_TRUE(
      has(r.coverage, "83 programs of 2 branches (producer, consumer) × up to 2 calls after a prefix of up to 1 call"))
      << r.coverage;
}

}  // namespace
