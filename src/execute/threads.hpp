// The thread pool's placement of branches on CPUs, for the parallel runner (src/execute/threads.cpp).
#pragma once

#include <memory>
#include <string>

#include "duet/executor.hpp"

namespace duet::detail {

/// Inside a check: the pool keeps the calling thread pinned from run to run (no-op for other
/// executors).
void hold_caller_placement(Executor& e);
/// After a check: the calling thread gets its own CPU affinity back.
void release_caller_placement(Executor& e);
/// In a child process of isolation mode, which fork gave none of the pool's threads: a new
/// pool like `e` (placed like it), or `e` itself when it is no thread pool.
std::shared_ptr<Executor> executor_for_child(std::shared_ptr<Executor> e);
/// Whether a check on `e` may run in a child process by default: duet's own thread executors,
/// which executor_for_child restarts there (another executor's threads would not exist in the
/// child), and not under ThreadSanitizer (which ends a child that starts threads after a fork
/// of a process with threads).
bool isolate_by_default(const Executor& e);
/// CPUs the calling thread may run on (its affinity mask), at least 1.
std::size_t usable_cpus();
/// "branches pinned to CPUs 0, 1", "branches not pinned: 1 CPU available for 2 branches, ...",
/// or empty (another executor, or no run yet).
std::string placement_text(const Executor& e);

}  // namespace duet::detail
