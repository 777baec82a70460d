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
/// CPUs the calling thread may run on (its affinity mask), at least 1.
std::size_t usable_cpus();
/// "branches pinned to CPUs 0, 1", "branches not pinned: 1 CPU available for 2 branches, ...",
/// or empty (another executor, or no run yet).
std::string placement_text(const Executor& e);

}  // namespace duet::detail
