// The optimal reduction (duet::exhaustive(duet::unbounded)) against the sleep-set search with a
// bound no schedule reaches (duet::exhaustive(1000)), on the same generated programs of the
// models' structures, under sequential consistency and under the C++ memory model: the runs each
// takes to exhaust every program (deterministic: seeded programs, no clock in the search) and the
// time (whatever the machine gives). docs/benchmarks.md's table comes from the disabled test:
//
//   build/bin/duet_fiber_tests --gtest_also_run_disabled_tests \
//     --gtest_filter='ReductionComparison.DISABLED_*'
#include <duet/gtest.hpp>

#include <duet/models/chase_lev.hpp>
#include <duet/models/lazy_list.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/seqlock.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/spsc_ring.hpp>
#include <duet/models/treiber_stack.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace {

using duet::models::FiberSync;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Searched {
  std::uint64_t runs = 0;
  double seconds = 0;
};

template <class Spec>
Searched search(duet::ParallelConfig pc, duet::Schedule schedule, duet::MemoryModel model, std::uint64_t programs) {
  pc.executor = duet::fibers(schedule, {.memory_model = model});
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_parallel<Spec>(pc, {.seed = 7, .count = programs, .verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "complete for")) << r.coverage;
  return {r.trials, seconds};
}

// One row: the same programs under both searches and both models.
template <class Spec>
void row(const char* name, const duet::ParallelConfig& pc, std::uint64_t programs) {
  for (const duet::MemoryModel model : {duet::MemoryModel::sc, duet::MemoryModel::cpp}) {
    const Searched optimal = search<Spec>(pc, duet::exhaustive(duet::unbounded), model, programs);
    const Searched sleep_sets = search<Spec>(pc, duet::exhaustive(1000), model, programs);
    std::printf("[ measured ] | %s | %s | %llu | %llu | %.1f× | %.2f / %.2f s |\n", name,
                model == duet::MemoryModel::sc ? "sc" : "cpp", static_cast<unsigned long long>(sleep_sets.runs),
                static_cast<unsigned long long>(optimal.runs),
                static_cast<double>(sleep_sets.runs) / static_cast<double>(std::max<std::uint64_t>(optimal.runs, 1)),
                sleep_sets.seconds, optimal.seconds);
    EXPECT_LE(optimal.runs, sleep_sets.runs) << name;
  }
}

// 10 generated programs each (seed 7), 2 branches × up to 2 calls after a prefix of up to 1.
const duet::ParallelConfig kShape{.branch_length = 2, .prefix_length = 1};

duet::ParallelConfig with_roles(std::vector<duet::Role> roles) {
  duet::ParallelConfig pc = kShape;
  pc.roles = std::move(roles);
  return pc;
}

TEST(ReductionComparison, DISABLED_EightStructuresSleepSetsAgainstTheReduction) {
  std::printf(
      "[ measured ] | structure, 10 programs | model | sleep sets: runs | optimal: runs | ratio | time, sleep sets / optimal |\n");
  row<duet::models::TreiberStackSpec<>>("Treiber stack", kShape, 10);
  row<duet::models::MsQueueSpec<>>("Michael–Scott queue", kShape, 10);
  row<duet::models::WorkStealingDeque<duet::models::ChaseLevBinding<FiberSync>>>(
      "Chase–Lev deque (owner, thief)", with_roles({{"owner", 1, {"push", "pop"}}, {"thief", 1, {"steal"}}}), 10);
  row<duet::models::BoundedQueue<duet::models::SpscRingBinding<FiberSync>>>(
      "Lamport SPSC ring (producer, consumer)", with_roles({{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}), 10);
  row<duet::models::SeqLockSpec<>>("seqlock", kShape, 10);
  row<duet::models::TtasSpinLockSpec<>>("TTAS spin lock (a counter behind it)", kShape, 10);
  row<duet::models::TicketLockSpec<>>("ticket lock (a counter behind it)", kShape, 10);
  row<duet::models::LazyListSpec<>>("lazy list (a set)", kShape, 10);
}

}  // namespace
