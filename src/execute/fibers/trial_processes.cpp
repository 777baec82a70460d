// A fiber check's trials in processes of their own (FiberOptions::trial_processes): whether
// they run there, whether a forked child can run them, what a trial left behind that decides
// it, and the totals a trial's process sends back to the check.
#include <algorithm>
#include <string>
#include <utility>

#include "execute/fibers/executor_totals.hpp"
#include "execute/fibers/determinism.hpp"
#include "execute/fibers/executor.hpp"
#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"
#include "execute/fibers/schedule_strategy.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/trial_process.hpp"

namespace duet::detail {

bool FiberExecutor::trials_in_processes() const {
  switch (options_.trial_processes) {
    case TrialProcesses::always: return true;
    case TrialProcesses::never: return false;
    case TrialProcesses::automatic: break;
  }
  // A library's globals alone do not make every trial fork (a trial of libcds's queues takes
  // microseconds, a fork tens of them): its failures replay from the clean child
  // (engine/clean_child.hpp); where one did not, the search runs again with every trial forked
  // (take_trial_processes). The first trial runs in a process of its own to learn whether it
  // leaves a thread running, which only a subject under duet_instrument can (its threads are
  // fibers): elsewhere that fork would cost every check a millisecond for nothing.
  const bool learn_from_first = !first_trial_back_ && fiber::own_thread_locals_enabled();
  return (learn_from_first || threads_left_to_process_ || taken_) && trials_can_fork();
}

bool FiberExecutor::trials_can_fork() const {
  // An exhaustive search and progress episodes keep their state across the trials of a
  // program, in this process; a run inside another fiber run, or under ThreadSanitizer, forks
  // nothing.
#if defined(__SANITIZE_THREAD__)
  return false;
#else
  return schedule_.kind != Schedule::Kind::exhaustive && !progress_on_ && fiber::current() == nullptr &&
         forked_processes_start_threads();
#endif
}

// Why, where take_trial_processes took them (engine/search.cpp).
constexpr const char* kTakenReason =
    "the failure the first search met did not replay as it was met, a trial there starting from what the trials "
    "before it had left in the process, so the check searched again from its seed";
constexpr const char* kOutsideThreadReason =
    "the candidate, run alone on the calling thread (duet::Lin's oracle), started a thread the subject keeps "
    "running (a library's own thread), which no fiber trial of this process can run beside, so the check searched "
    "again from its seed";
constexpr const char* kThreadLeftReason =
    "a trial of the first search left a thread the subject started running (a library's own thread, started "
    "after the first trial), which cannot go on into the next trial in one process, so the check searched again "
    "from its seed";

bool FiberExecutor::take_trial_processes() {
  if (options_.trial_processes == TrialProcesses::always) return true;
  if (options_.trial_processes == TrialProcesses::never || !trials_can_fork()) return false;
  taken_why_ = threads_left_here();
  if (taken_why_.empty()) taken_why_ = left_elsewhere_.empty() ? kTakenReason : left_elsewhere_;
  taken_ = true;
  return true;
}

std::string FiberExecutor::threads_left_here() {
  if (!fiber::earlier_outlived_error().empty()) return kThreadLeftReason;
  if (fiber::outside_threads_alive()) return kOutsideThreadReason;
  return {};
}

std::string FiberExecutor::threads_left() const {
  if (options_.trial_processes != TrialProcesses::automatic || taken_) return {};
  std::string here = threads_left_here();
  return here.empty() ? left_elsewhere_ : here;
}

bool FiberExecutor::searches_in_clean_child() const {
  // Not where a forked child cannot start a thread (qemu-user): the library's own threads, which
  // the oracle starts outside any run (oneTBB's pool), would end the worker.
  return options_.trial_processes == TrialProcesses::automatic && fiber::own_thread_locals_enabled() &&
         forked_processes_start_threads();
}

bool FiberExecutor::rerun_lost_trial_here() {
  if (options_.trial_processes != TrialProcesses::automatic || first_trial_back_ || taken_) return false;
  first_trial_back_ = true;  // nothing learnt: the trials run here
  return true;
}

std::string FiberExecutor::trial_processes_reason() const {
  if (taken_) return taken_why_;
  if (!first_trial_back_) return {};
  if (options_.trial_processes == TrialProcesses::always) return "FiberOptions::trial_processes";
  if (!trials_in_processes()) return {};
  return "its first trial left a thread the subject started running";
}

void FiberExecutor::enter_trial_process() {
  scheduler_.set_end_with_trial(true);
  operations_at_check_start_ = operations_;
  libraries_.clear();
  left_unfinished_ = 0;
  left_with_process_ = 0;
  progress_before_ = progress_.totals();
}

// The trial's counts, as save_totals writes a check's, and the threads it left to its process.
std::string FiberExecutor::trial_totals() const {
  std::vector<std::uint64_t> progress = progress_.totals();
  for (std::size_t i = 0; i < progress.size() && i < progress_before_.size(); ++i) progress[i] -= progress_before_[i];
  return encode(TrialTotals{std::move(progress), std::vector<std::string>(libraries_.begin(), libraries_.end()),
                            operations_ - operations_at_check_start_, left_unfinished_, left_with_process_,
                            weak_order_noted_, subject_started_threads_, strategy_->learnt()});
}

void FiberExecutor::add_trial_totals(const std::string& totals) {
  TrialTotals t = decode<TrialTotals>(totals);
  progress_.add_totals(t.progress);
  // The trial's process ran the library, not this one; what a failure found there needs of the
  // clean child is as if it had run here (engine/clean_child.hpp).
  if (!t.libraries.empty()) fiber::count_run_in_libraries();
  for (std::string& library : t.libraries) add_library(named_elsewhere_.emplace_back(std::move(library)).c_str());
  operations_ += t.operations;
  left_unfinished_ += t.left_unfinished;
  threads_left_to_process_ = threads_left_to_process_ || t.left_with_process > 0;
  weak_order_noted_ = weak_order_noted_ || t.weak_order_noted;
  subject_started_threads_ = subject_started_threads_ || t.subject_started_threads;
  first_trial_back_ = true;
  // A first trial that only told that the trials need no process of their own runs again here
  // (y_trials.cpp): the strategy learns from that run, as it would have.
  if (trials_in_processes()) strategy_->learn(t.learnt);
}

}  // namespace duet::detail
