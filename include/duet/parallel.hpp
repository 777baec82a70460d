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
#include "duet/parallel_config.hpp"  // Role, ParallelConfig (duet/api.hpp takes them alone)
#include "duet/executor.hpp"
#include "duet/hash.hpp"  // a model state's hash (detail/model_y_steps.hpp)
#include "duet/lin.hpp"
#include "duet/scenario.hpp"
#include "duet/state_machine.hpp"

namespace duet {

using detail::Consistency;  // also in duet/parallel_config.hpp, which names it first

}  // namespace duet

// The machinery under the parallel checks (not public; it uses the vocabulary of
// duet/parallel_config.hpp): a Y-program and its trials, and each front end's steps.
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

/// A hand-written Y-program (duet/scenario.hpp) against the state-machine model, checked as a
/// generated program is: on threads for its trials, case after case; on fibers with the
/// strategy's schedules (an exhaustive search ends once it has explored them all). The settings
/// for generated programs' shapes are ignored; roles, consistency and the executor apply. A
/// failure shrinks its schedule only, and its token replays this scenario alone. A scenario
/// whose prefix breaks a precondition, or whose branches do in some order, is an error.
///
///   const duet::Scenario<CounterSpec::Cmd> two_incrs{.branches = {{Incr{}}, {Incr{}}}};
///   EXPECT_TRUE(duet::check_scenario<CounterSpec>(two_incrs, {.executor = duet::fibers(duet::exhaustive())}));
template <class Spec>
CheckResult check_scenario(const Scenario<typename Spec::Cmd>& scenario, const ParallelConfig& pc = {},
                           const Config& config = {}) {
  return detail::check_model_scenario(detail::model_scenario<Spec>(scenario), pc, config);
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
CheckResult check_parallel(const Lin<T>& lin, const ParallelConfig& pc, const Config& config = {}) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::linearizable, pc, config);
}
/// The same under the default settings (the test file then builds none of its own).
template <class T>
CheckResult check_parallel(const Lin<T>& lin) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::linearizable);
}

/// A hand-written Y-program over a signature-only description (duet/scenario.hpp): each call
/// names an operation with its arguments (duet::call); checked as duet::check_scenario<Spec>
/// checks a spec's, with the candidate as its own oracle. A call of an unknown operation, or
/// with arguments that do not fit, is an error.
///
///   const duet::Scenario<> pops{.prefix = {duet::call("push", 1)},
///                               .branches = {{duet::call("try_pop")}, {duet::call("try_pop")}}};
///   EXPECT_TRUE(duet::check_scenario(lin, pops, {.executor = duet::fibers(duet::pct(3))}));
template <class T>
CheckResult check_scenario(const Lin<T>& lin, const Scenario<>& scenario, const ParallelConfig& pc,
                           const Config& config = {}) {
  return detail::check_lin_scenario(detail::LinAccess::description(lin), scenario, pc, config);
}
/// The same under the default settings.
template <class T>
CheckResult check_scenario(const Lin<T>& lin, const Scenario<>& scenario) {
  return detail::check_lin_scenario(detail::LinAccess::description(lin), scenario);
}

/// The negative test over a signature-only description: passes when duet finds a program
/// whose outcome no sequential run of the candidate explains.
template <class T>
CheckResult expect_unsafe(const Lin<T>& lin, const ParallelConfig& pc, const Config& config = {}) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::unsafe, pc, config);
}
/// The same under the default settings.
template <class T>
CheckResult expect_unsafe(const Lin<T>& lin) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::unsafe);
}

/// Stress on threads with no oracle: fails only on an exception from an operation not declared
/// may_throw, a crash or a hang (checked while Y-programs run on threads).
template <class T>
CheckResult stress_parallel(const Lin<T>& lin, const ParallelConfig& pc, const Config& config = {}) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::stress, pc, config);
}
/// The same under the default settings.
template <class T>
CheckResult stress_parallel(const Lin<T>& lin) {
  return detail::check_lin_parallel(detail::LinAccess::description(lin), detail::LinCheck::stress);
}

}  // namespace duet