// The parallel runner: Y-shaped programs (a sequential prefix, then branches run at once on
// threads, then an optional suffix), each run for many trials. An outcome passes only if some
// sequential order of the calls, consistent with each branch's order and with real-time order,
// explains every observed result — with the state-machine model as the oracle, or, for a
// signature-only description, the candidate itself run sequentially.
//
//   TEST(Queue, Linearizable) { EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3})); }
//   TEST(StdVector, NotThreadSafe) { EXPECT_TRUE(duet::expect_unsafe<VectorSpec>()); }
//   TEST(TbbQueue, Linearizable) { EXPECT_TRUE(duet::check_parallel(lin)); }   // lin: a duet::Lin<T>
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/search_types.hpp"  // Consistency
#include "duet/executor.hpp"
#include "duet/lin.hpp"
#include "duet/state_machine.hpp"

namespace duet {

using detail::Consistency;

/// Who may call what: `count` branches of a Y-program call only the operations `ops`, by the
/// name a call prints before its `(` (`push` for `q.push(3)`). A single-producer queue is
/// correct only with one producer; a work-stealing deque only when one owner pushes and pops.
///
///   EXPECT_TRUE(duet::check_parallel<SpscSpec>({.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}}));
///   EXPECT_TRUE(duet::check_parallel(deque, {.roles = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}}}));
struct Role {
  std::string name;
  std::size_t count = 1;
  std::vector<std::string> ops;
};

/// The shape of Y-programs and how they run. Defaults: see docs/parallel.md for the
/// measurements behind them.
struct ParallelConfig {
  std::size_t branches = 2;  // 2 to 8; with roles, the roles' counts add up to it
  // Which operations each branch may call (none: every branch may call every operation). The
  // prefix and the suffix run alone, ordered before and after every branch, and may call any
  // operation (a handle's constructor, say). See Role.
  std::vector<Role> roles = {};
  std::size_t branch_length = 4;  // calls per branch at most (about half on average)
  std::size_t prefix_length = 3;  // calls before the branches at most
  std::size_t suffix_length = 0;  // calls after the branches at most
  std::size_t trials = 20;        // runs of each program (stops at the first failing one)
  Consistency consistency = Consistency::linearizable;
  // Pin every branch (the calling thread runs branch 0) to its own CPU for the check, when the
  // process may use at least as many CPUs as there are branches; the caller's affinity is
  // restored afterwards. Without it the kernel often runs both branches on one CPU.
  bool pin_threads = true;
  // Random short delays (spins, now and then a yield) before the branches' calls on threads, so
  // that the branches meet at different points from trial to trial. Default: on for
  // expect_unsafe, off for check_parallel. Ignored on fibers, whose scheduler does that job.
  std::optional<bool> noise = std::nullopt;
  std::shared_ptr<Executor> executor = nullptr;  // default: a thread pool kept for the check
  // Per-thread setup and teardown for the pool a check makes (registration with an RCU library,
  // say): see ThreadHooks. With an executor of your own, give them to make_thread_pool (or, on
  // fibers, FiberOptions::on_fiber_start / on_fiber_stop) instead: here they would be an error.
  ThreadHooks thread_hooks = {};
};

}  // namespace duet

// The machinery under the parallel checks (not public; it uses the vocabulary above): a
// Y-program and its trials, and each front end's steps.
#include "duet/detail/y_program.hpp"
#include "duet/detail/model_y_steps.hpp"
#include "duet/detail/lin_y_steps.hpp"

namespace duet {

/// Y-shaped programs on threads against the state-machine model: passes if every trial of
/// every program is linearizable (or sequentially consistent, with
/// `.consistency = duet::Consistency::sequential`).
///
///   EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3}));
template <class Spec>
CheckResult check_parallel(const ParallelConfig& pc, const Config& config = {}) {
  return detail::check_model_parallel(detail::model_parallel_spec<Spec>(), pc, config);
}
/// The same under the default settings (the test file then builds none of its own).
template <class Spec>
CheckResult check_parallel() {
  return detail::check_model_parallel(detail::model_parallel_spec<Spec>());
}

/// One parallel case from raw bytes (a fuzzer's input; see duet/fuzz.hpp): the bytes choose the
/// program and, on the fiber scheduler, its schedules. Fibers only: on threads the outcome would
/// follow the timing, not the bytes.
///
///   auto r = duet::check_parallel_bytes<CounterSpec>({data, size}, {.executor = duet::fibers()});
template <class Spec>
CheckResult check_parallel_bytes(std::span<const std::uint8_t> bytes, const ParallelConfig& pc, const Config& config = {}) {
  return detail::check_model_parallel_bytes(detail::model_parallel_spec<Spec>(), bytes, pc, config);
}

/// The negative test: passes only when duet finds (and shrinks) a program whose outcome no
/// sequential order explains, proving the subject unsafe for concurrent use. The report, shown
/// as information, says how many programs and trials it took.
///
///   EXPECT_TRUE(duet::expect_unsafe<StdVectorSpec>({}, {.time = 10}));
template <class Spec>
CheckResult expect_unsafe(const ParallelConfig& pc, const Config& config = {}) {
  return detail::expect_model_unsafe(detail::model_parallel_spec<Spec>(), pc, config);
}
/// The same under the default settings (the test file then builds none of its own).
template <class Spec>
CheckResult expect_unsafe() {
  return detail::expect_model_unsafe(detail::model_parallel_spec<Spec>());
}

/// Y-programs over a signature-only description, with the candidate as its own oracle: an
/// outcome passes if running the calls sequentially on a fresh subject, in some order that
/// respects real time, gives the same results (qcheck-lin).
///
///   auto lin = duet::Lin<tbb::concurrent_queue<int>>("queue", "q")
///       .op("push", [](tbb::concurrent_queue<int>& q, int x) { q.push(x); }, duet::small_int())
///       .op("try_pop", [](tbb::concurrent_queue<int>& q) { int x = 0; return q.try_pop(x) ? std::optional<int>(x) : std::nullopt; });
///   EXPECT_TRUE(duet::check_parallel(lin));
template <class T>
CheckResult check_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::oracle, pc), config);
}

/// The negative test over a signature-only description: passes when duet finds a program
/// whose outcome no sequential run of the candidate explains.
template <class T>
CheckResult expect_unsafe(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(
      detail::expecting_failure(detail::lin_parallel_property(lin, detail::LinMode::oracle, detail::unsafe_config(pc))),
      config);
}

/// Stress on threads with no oracle: fails only on an exception from an operation not declared
/// may_throw, a crash or a hang (checked while Y-programs run on threads).
template <class T>
CheckResult stress_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::stress, pc), config);
}

}  // namespace duet