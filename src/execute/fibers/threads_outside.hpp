// Threads that a fiber trial's code starts outside its run. A trial of duet::Lin or a
// state-machine spec runs whole in its run (scheduler.hpp, TrialFrame), but some of a check's
// code still runs on the calling thread: a duet::Api check's prefix, the candidate run
// sequentially as its own oracle, a before_each_run hook. A std::thread started there (a
// library's worker, a storage engine's background thread) is a real thread. The scheduler does
// not schedule it and sees none of its steps: a fiber that waits for it (the worker's condition
// variable, a lock it holds) waits for ever in the run, which would be reported as a deadlock
// the real program does not have, and a run that passes says nothing of it. So a run that starts
// while such a thread is alive is an error of the check, neither a failure nor a pass.
//
// duet::instrument's pthread_create counts them (threads.cpp) unless duet's code runs
// (t_in_runtime: DuetsOwnThread below); FiberExecutor::run asks.
// Internal: users' headers never see it.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <duet/detail/source_location.hpp>

#include "execute/fibers/instrumented.hpp"

namespace duet::detail::fiber {

/// Around duet's own threads (the hang monitor, the stall watchdog, the thread pool of checks
/// on threads): started on the calling thread, maybe within a trial, they are not the
/// subject's and are not counted (the threads they start are, when the subject's code starts
/// them: a pool thread runs the subject's calls).
class DuetsOwnThread {
 public:
  DuetsOwnThread() noexcept { ++t_in_runtime; }
  ~DuetsOwnThread() { --t_in_runtime; }
  DuetsOwnThread(const DuetsOwnThread&) = delete;
  DuetsOwnThread& operator=(const DuetsOwnThread&) = delete;
};

/// Set on a thread whose every thread is duet's: within DuetsOwnThreads, and for good on the
/// threads started there (threads.cpp), so that a library duet itself uses (oneTBB, whose
/// workers start more workers) starts none the subject's are counted with.
extern constinit thread_local bool t_duets_lineage;
class DuetsOwnThreads {
 public:
  DuetsOwnThreads() noexcept : was_(t_duets_lineage) { t_duets_lineage = true; }
  ~DuetsOwnThreads() { t_duets_lineage = was_; }
  DuetsOwnThreads(const DuetsOwnThreads&) = delete;
  DuetsOwnThreads& operator=(const DuetsOwnThreads&) = delete;

 private:
  bool was_;
};

/// A thread started outside a run by a trial's code, at `loc`.
void outside_thread_started(duet::source_location loc) noexcept;
/// One of them ended (its start routine returned, or it called pthread_exit).
void outside_thread_ended() noexcept;
/// Such a thread is alive (a subject that started one is not kept for a trial: lin.cpp).
bool outside_threads_alive() noexcept;
/// Why a run cannot be judged now: the threads started outside runs that are still alive, and
/// where one was started; empty when none is.
std::string outside_threads_error();

/// A thread started outside any fiber trial by code that is not duet's (before the check: a
/// library's background thread, which leveldb's first compaction starts and never ends), from
/// `stack` (return addresses, innermost first; symbolised only when a report names them):
/// counted while it lives. Runs go on beside it, but a fiber that waits for it waits for ever,
/// so a run that deadlocks on anything but fibers' locks (or livelocks) while one lives cannot
/// be judged.
inline constexpr std::size_t kForeignStack = 12;
void foreign_thread_started(std::span<void* const> stack) noexcept;
void foreign_thread_ended() noexcept;
/// Why a run that deadlocked or livelocked is no verdict: such threads are alive, and where one
/// was started; empty when none is.
std::string foreign_threads_note();
/// "a thread started outside any fiber check (at file:line)", "3 threads ... (the last at ...)"
/// while such threads are alive; empty when none is.
std::string foreign_threads();

}  // namespace duet::detail::fiber
