// duet's executors on threads (src/execute/threads.cpp): what the parallel runner needs beyond
// their trial drivers.
#pragma once

#include <memory>
#include <string>

#include "duet/detail/trial_driver.hpp"
#include "duet/executor.hpp"
#include "duet/progress.hpp"

namespace duet::detail {

/// The driver of an executor that does not bring its own (Executor::trial_driver's default).
TrialDriver& default_trial_driver();
/// One of duet's own thread executors, with no ThreadHooks: nothing in it but threads, so a check
/// on it may run on fibers instead (DUET_EXECUTOR).
bool plain_threads(const Executor& e);
/// Whether checks on duet's thread executors run in a child process by default (not under
/// ThreadSanitizer, which ends a child that starts threads after a fork).
bool threads_restart_in_child();
/// CPUs the calling thread may run on (its affinity mask), at least 1.
std::size_t usable_cpus();

}  // namespace duet::detail
