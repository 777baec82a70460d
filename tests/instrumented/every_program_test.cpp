// Plain std::atomic code, compiled through duet_instrument, verified for every program of a
// scope under the C++ memory model (docs/verifying.md): the project's Treiber stack and
// Michael–Scott queue over std::atomic (duet::models::StdSync, acquire/release where the
// algorithms allow), and a stack whose push publishes its node with a relaxed CAS, found in the
// same scope. The scope of 2 branches × up to 3 calls takes minutes: run it with
// --gtest_also_run_disabled_tests.
#include <duet/lin.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

namespace {

// Every program of 2 branches × up to `calls` calls after a prefix of up to 1, values {0, 1},
// each searched to its end.
duet::ParallelConfig scope(std::size_t calls) {
  return {.branch_length = calls,
          .prefix_length = 1,
          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
          .every_program = duet::EveryProgram{.values = 2}};
}

bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

template <class Spec>
void verified(const char* name, std::size_t calls) {
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_parallel<Spec>(scope(calls), {.verbose = -1});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.coverage, "every program of the scope passed")) << r.coverage;
  EXPECT_TRUE(has(r.coverage, "with the check's seq_cst fences placed in that order")) << r.coverage;
  std::printf("[ measured ] %s, 2 branches x up to %zu calls: %llu programs, %llu executions, %.1f s\n", name, calls,
              static_cast<unsigned long long>(r.cases), static_cast<unsigned long long>(r.trials), seconds);
}

using StdTreiber = duet::models::TreiberStackSpec<duet::models::StdSync>;
using StdMsQueue = duet::models::MsQueueSpec<duet::models::StdSync>;

TEST(InstrumentedEveryProgram, TheStdAtomicStructuresAreCorrectForEveryProgramOfTheSmallScope) {
  verified<StdTreiber>("std::atomic Treiber stack", 1);
  verified<StdMsQueue>("std::atomic Michael-Scott queue", 1);
}

TEST(InstrumentedEveryProgram, DISABLED_TheStdAtomicStructuresAreCorrectForEveryProgramOfTwoBranchesOfThreeCalls) {
  verified<StdTreiber>("std::atomic Treiber stack", 3);
  verified<StdMsQueue>("std::atomic Michael-Scott queue", 3);
}

// Treiber's push with a relaxed CAS: a popper that takes the node may read what the push wrote
// into it before, with nothing ordering the two (the nodes come from a pool and are never reused:
// no ABA).
class RelaxedPushStack {
  struct Node {
    int value = 0;
    std::atomic<Node*> next{nullptr};
  };

 public:
  void push(int value) {
    Node* n = &pool_[used_.fetch_add(1, std::memory_order_relaxed) % kPool];
    n->value = value;
    Node* top = top_.load(std::memory_order_relaxed);
    do n->next.store(top, std::memory_order_relaxed);
    while (!top_.compare_exchange_weak(top, n, std::memory_order_relaxed, std::memory_order_relaxed));
  }
  std::optional<int> pop() {
    Node* top = top_.load(std::memory_order_acquire);
    while (top != nullptr && !top_.compare_exchange_weak(top, top->next.load(std::memory_order_relaxed),
                                                         std::memory_order_acquire, std::memory_order_acquire)) {
    }
    if (top == nullptr) return std::nullopt;
    return top->value;
  }

 private:
  static constexpr unsigned kPool = 16;  // more than a program of the scope pushes
  std::atomic<Node*> top_{nullptr};
  std::atomic<unsigned> used_{0};
  Node pool_[kPool];
};

TEST(InstrumentedEveryProgram, ARelaxedPublicationIsFoundInTheSmallScope) {
  auto lin = duet::Lin<RelaxedPushStack>("RelaxedPushStack", "s");
  lin.op(
         "push", [](RelaxedPushStack& s, int v) { s.push(v); }, duet::integers(0, 9))
      .op("pop", [](RelaxedPushStack& s) { return s.pop(); });
  const duet::CheckResult r = duet::expect_unsafe(lin, scope(2), {.verbose = -1});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
