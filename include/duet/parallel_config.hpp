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
};

}  // namespace duet
