// How the parallel runner drives an executor's trials, so that the case loop never names an
// executor: the thread pool and the fiber scheduler implement it, and an executor of the user's
// may (Executor::trial_driver; the default suits one that runs branches on threads of its own).
//
//   TrialDriver& driver = executor.trial_driver();
//   const std::size_t trials = driver.begin_program(branch_lengths, configured, src);
//   for (std::size_t t = 0; t < trials; ++t) {
//     const std::size_t start = src.position();
//     driver.begin_trial(src);
//     executor.run(branches);
//     if (failed) { driver.annotate(trace, src.choices() from start); break; }
//     if (!driver.trial_passed(src, start)) break;
//   }
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <functional>
#include <string>
#include <vector>

#include "duet/detail/declarations.hpp"

namespace duet {
class Executor;
class Source;
}  // namespace duet

namespace duet::detail {

struct Trace;

/// The real-time orders of a trial's calls that its execution allows (TrialDriver::call_orders):
/// any order of its clock reads that keeps `before`.
struct CallOrders {
  /// The times the check's clock read during the trial (its calls' invokes and responses), in
  /// the order they were read.
  std::vector<std::uint64_t> times;
  /// Per read (an index into `times`): the reads that come before it in every order the
  /// execution allows, as bits.
  std::vector<std::uint64_t> before;
  /// False when the order could not be given (more than 64 reads, ...): the driver then runs
  /// the orders as schedules.
  bool complete = false;
  /// Under the C++ memory model the check's clock reads are seq_cst fences; where the run left
  /// them out (so that the search explores the structure's executions alone), per read: the
  /// reads it may not come after, because the fences placed in that order would make the
  /// execution one C++ forbids. The run's own order is then one to judge like the others.
  bool fences_left_out = false;
  std::vector<std::uint64_t> not_after;
};

/// A Y-program trial around its branches (run_trial, duet/detail/y_program.hpp): `setup` makes
/// the subject and runs the prefix, `suffix` runs the suffix, `finish` gives the subject back
/// for the next trial (`keep`: it may outlive the run) or destroys it. None throws but the
/// engine's own signals.
struct TrialParts {
  std::function<void()> setup;
  std::function<void()> suffix;
  std::function<void(bool keep)> finish;
};

class TrialDriver {
 public:
  virtual ~TrialDriver() = default;

  /// Runs one trial: `parts.setup`, the branches on `executor`, `parts.suffix`, `parts.finish`.
  /// On threads (this default) the parts run on the calling thread around Executor::run; the
  /// fiber executor runs them on a fiber of the run, so that threads the subject starts in
  /// them are fibers too. Throws what Executor::run throws; `finish` is then not called.
  virtual void run_whole_trial(Executor& executor, const std::vector<std::function<void()>>& branches,
                               const TrialParts& parts);

  // ---- what the check is ----
  /// Where the cases run, as replay tokens and regression files name it: "threads" (any
  /// executor on threads), "fibers:pct(3)".
  virtual std::string execution() const { return "threads"; }
  /// A trial runs the same way every time from the same choices (a scheduler of its own): a
  /// replay that passes is nondeterminism in the test, one replay attempt is enough, timing
  /// noise means nothing, and calls never overlap in real time.
  virtual bool deterministic() const { return false; }

  // ---- a program and its trials ----
  /// A new program, of branches of these lengths (calls): how many trials to run of it
  /// (`configured`, as many as a search has, or one when `src` replays).
  virtual std::size_t begin_program(std::span<const std::size_t> branch_lengths, std::size_t configured, const Source& src) {
    (void)branch_lengths;
    (void)src;
    return configured;
  }
  /// Before each trial; its choices are drawn from `src` from here.
  virtual void begin_trial(Source& src) { (void)src; }
  /// After a trial that passed, which drew `src`'s choices from `trial_start`: whether another
  /// trial of the program could find something new. A deterministic driver gives the trial's
  /// choices back, so that a failing case's choices are its failing trial alone.
  virtual bool trial_passed(Source& src, std::size_t trial_start) {
    (void)src;
    (void)trial_start;
    return true;
  }
  /// Each trial runs in a process of its own (FiberOptions::trial_processes,
  /// execute/trial_process.hpp): the loop forks before it and goes on with what the trial's
  /// process sends back.
  virtual bool trials_in_processes() const { return false; }
  /// In the trial's process, before its trial: the counts trial_totals() gives start from 0.
  virtual void enter_trial_process() {}
  /// In the trial's process, after its trial: what the driver counted of it (the operations run,
  /// the libraries called), for add_trial_totals in the process that goes on with the case.
  virtual std::string trial_totals() const { return {}; }
  virtual void add_trial_totals(const std::string& totals) { (void)totals; }
  /// In a trial's process, for the next trial: `judge` runs inside the trial's run once its
  /// subject is destroyed, where threads the trial left still run (a library's process-wide
  /// pool that duet::Lin's oracle, making subjects of its own, needs); run_alone there runs its
  /// body as it is. Empty: none. A driver that cannot leaves it to the caller after the trial.
  virtual void judge_at_trial_end(const std::function<void()>& judge) { (void)judge; }
  /// A trial's process ended without answering (a crash): whether the trial runs again in the
  /// calling process instead, as it would have without trial processes (automatic: the check's
  /// first trial, run in a process of its own only to learn what it leaves).
  virtual bool rerun_lost_trial_here() { return false; }
  /// Why this check's trials run in processes of their own, or empty (Execution::trial_processes).
  virtual std::string trial_processes_reason() const { return {}; }
  /// Execution::take_trial_processes and Execution::trial_processes_taken.
  virtual bool take_trial_processes() { return false; }
  virtual bool trial_processes_taken() const { return false; }
  /// Execution::threads_left and Execution::searches_in_clean_child.
  virtual std::string threads_left() const { return {}; }
  virtual bool searches_in_clean_child() const { return false; }
  /// Runs `body`, the candidate's code that a check runs alone, its calls in order (duet::Lin's
  /// oracle replays a trial's calls on subjects of its own), then `finish(keep)`: `keep` says
  /// nothing `body` started is still running. Here on the calling thread; on fibers, after a
  /// trial whose subject started threads, in a fiber run of its own, so that threads the
  /// candidate starts there (a library's pool) are fibers that end with it. Throws
  /// ExecutorFailed when that run did not complete.
  virtual void run_alone(const std::function<void()>& body, const std::function<void(bool keep)>& finish) {
    body();
    finish(true);
  }
  /// After a program's trials: whether they ran every way this driver can run it (an exhaustive
  /// search that ended), so that running the same program again would find nothing new.
  virtual bool program_exhausted() const { return false; }
  /// Its trials search every way of running a program (an exhaustive strategy), so that a
  /// program whose search did not reach its end (program_complete) is a gap in what a pass says.
  virtual bool searches_every_run() const { return false; }
  /// After a program's trials: that search reached its end, not a budget.
  virtual bool program_complete() const { return false; }
  // ---- the calls' real-time orders ----
  /// After begin_program, before the program's first trial: the loop judges every order of a
  /// trial's calls that call_orders() gives, so the driver may stop running each order as a
  /// schedule of its own. Returns whether it does (an exhaustive search without a preemption
  /// bound: an order not run may need more preemptions than a bound allows). Asked again for
  /// each program: a program no one asked for has its orders run.
  virtual bool leave_call_orders_to_check() { return false; }
  /// After a trial, where leave_call_orders_to_check() said yes: the orders its execution
  /// allows (incomplete: the loop calls order_calls_by_running()).
  virtual CallOrders call_orders() { return {}; }
  /// After a trial, where leave_call_orders_to_check() said yes: whether its run left the
  /// check's seq_cst fences out (CallOrders::fences_left_out, without computing the orders).
  virtual bool fences_left_out() const { return false; }
  /// An order that call_orders() listed failed the check (or a run that left the check's
  /// fences out failed): the program's search starts again ordering the calls by running, with
  /// the fences in its runs, so that the failure is a run of its own (its report, its token).
  virtual void order_calls_by_running() {}

  /// What the report shows of the last trial beyond its calls (the interleaving on fibers);
  /// `trial_choices` are the choices it drew.
  virtual void annotate(Trace& trace, std::span<const std::uint64_t> trial_choices) const {
    (void)trace;
    (void)trial_choices;
  }

  // ---- progress guarantees (duet/progress.hpp) ----
  /// Why this executor cannot check `p`, or empty. Threads cannot be suspended at a chosen step.
  virtual std::string progress_unsupported(const Progress& p) const;
  /// The guarantee the check states (none: nothing to check), before its first program.
  virtual void expect_progress(const Progress& p) { (void)p; }
  /// With a guarantee stated: each branch's calls, as the report prints them, before the
  /// program's trials (which operation each fiber's calls are).
  virtual void branch_calls(const std::vector<std::vector<std::string>>& calls) { (void)calls; }

  // ---- a check ----
  /// When a check on this executor starts and ends (the pool keeps the caller's CPU meanwhile).
  virtual void check_starts() {}
  virtual void check_ends() {}
  /// For a pass: what the trials covered (the schedules searched, where the branches ran).
  virtual std::string coverage() const { return {}; }
  /// What coverage(), unexercised() and the counts of left-unfinished trials are made of, as
  /// bytes: saved by a process that ran part of a check's programs, added by the one that
  /// reports (a walk split over processes). A driver whose totals are not saved says nothing
  /// of the other processes' trials.
  virtual std::string save_totals() const { return {}; }
  virtual void add_totals(const std::string& saved) { (void)saved; }
  /// For a pass: why the trials since check_starts() tested nothing, or empty.
  virtual std::string unexercised() const { return {}; }
  /// Its trials run in this process and may end with branches in the middle of their calls
  /// (a deadlock or a livelock on fibers): what those calls half-did stays in the process.
  virtual bool may_leave_calls_unfinished() const { return false; }
  /// How many trials so far ended so (counted over the executor's life).
  virtual std::uint64_t trials_left_unfinished() const { return 0; }
  /// A pass needs trials whose calls of different branches overlapped in real time.
  virtual bool needs_overlap() const { return !deterministic(); }
  /// Checks run in a child process by default: a hang or crash on threads is unrecoverable
  /// in process (only for executors whose threads for_child_process can make again).
  virtual bool isolate_by_default() const { return false; }
  /// In a child process of isolation mode, which fork gave none of the parent's threads: the
  /// executor to run the child's trials on (`self` when it needs none of its own).
  virtual std::shared_ptr<Executor> for_child_process(std::shared_ptr<Executor> self) { return self; }
};

}  // namespace duet::detail
