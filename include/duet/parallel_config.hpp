// The vocabulary of the parallel checks (Role, ParallelConfig, Consistency), apart from the
// parallel runner, so that duet/api.hpp, whose declarations name them too, does not compile the
// whole of duet/parallel.hpp. Included by both; a test file includes one of them.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/detail/consistency.hpp"
#include "duet/executor.hpp"
#include "duet/progress.hpp"

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

/// Every program of a scope instead of random ones: each Y-program of the shape ParallelConfig
/// gives (branches × up to branch_length calls, a prefix and a suffix of up to their lengths),
/// over the spec's operations, each argument over the first `values` answers of its generator
/// (duet::integers: the values nearest its target, 0 and 1 for integers(0, 9)). Programs whose
/// like branches only swap run once. On fibers with duet::exhaustive(duet::unbounded), a pass
/// says the structure is correct for every execution of every program of the scope
/// (docs/verifying.md); a budget that ends the walk first is inconclusive, never a pass.
///
///   duet::ParallelConfig pc{.branch_length = 3, .prefix_length = 1,
///                           .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
///                           .every_program = duet::EveryProgram{.values = 2}};
///   EXPECT_TRUE(duet::check_parallel<duet::models::TreiberStackSpec<>>(pc));
///
/// `symmetric_values`: the spec treats the values of its duet::integers arguments alike up to
/// renaming (a stack's, queue's or set's elements, a map's keys and values; not a counter's
/// increments nor an index), so a program's renamings need not run: the walk takes its values in
/// the order of their first use (push(1) | push(0) runs as push(0) | push(1)), which runs every
/// class of renamings, a few twice where swapping like branches changes which value comes first.
///
///   pc.every_program = duet::EveryProgram{.values = 3, .symmetric_values = true};
struct EveryProgram {
  std::size_t values = 2;         // answers tried of each argument's generator (at least 1)
  bool symmetric_values = false;  // duet::integers' values alike up to renaming
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
  // What the structure promises about progress (duet/progress.hpp), checked on fibers as the
  // programs run: duet::obstruction_free(), duet::lock_free(), duet::wait_free(bound). None: not
  // checked. On threads it is an error.
  Progress progress = {};
  // Every program of the shape above, once each, instead of random ones (EveryProgram). The
  // check's count and time then bound the walk (unset: none), and a walk they end is inconclusive.
  std::optional<EveryProgram> every_program = std::nullopt;
};

}  // namespace duet
