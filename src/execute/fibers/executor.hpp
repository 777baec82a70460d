// The fiber scheduler as an Executor, and what the Y-program runner asks of it: where the
// picks come from (the case's choice stream), how the last run ended, its interleaving.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "duet/detail/trial_driver.hpp"
#include "duet/executor.hpp"
#include "duet/progress.hpp"
#include "execute/fibers/progress.hpp"
#include "execute/fibers/schedule_strategy.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail {

class FiberExecutor final : public Executor, public TrialDriver {
 public:
  FiberExecutor(Schedule schedule, FiberOptions options);
  ~FiberExecutor() override;

  /// Runs the branches as fibers, picks drawn from the source given to begin_trial (or, for a
  /// caller that runs its own code on this executor, from a seed counted per run). Throws
  /// ScheduleFailed when the run deadlocked, livelocked, raced or misused a lock.
  void run(const std::vector<std::function<void()>>& branches) override;
  const char* name() const override { return "fibers"; }
  /// The whole trial in one run: the parts on a fiber of their own (fiber::TrialFrame).
  void run_whole_trial(Executor& executor, const std::vector<std::function<void()>>& branches,
                       const TrialParts& parts) override;
  /// Once a trial's subject has started threads, in a fiber run of its own (run_alone.cpp).
  void run_alone(const std::function<void()>& body, const std::function<void(bool keep)>& finish) override;

  // ---- the parallel runner's driver (duet/detail/trial_driver.hpp) ----
  TrialDriver& trial_driver() override { return *this; }
  /// "fibers:pct(3)", and ",memory_model=sc" after it under MemoryModel::sc (report/token.hpp).
  std::string execution() const override;
  bool deterministic() const override { return true; }
  /// An exhaustive search starts over; as many trials as it has schedules.
  std::size_t begin_program(std::span<const std::size_t> branch_lengths, std::size_t configured, const Source& src) override;
  /// The next run's picks come from `src` (the case's choice stream, so they replay and shrink
  /// with the program).
  /// Also FiberOptions::before_each_run, and the trial's own virtual time and random numbers
  /// (fiber/determinism.hpp), from here until the next trial or the end of the check.
  void begin_trial(Source& src) override;
  /// False once an exhaustive search has covered every schedule.
  bool trial_passed(Source& src, std::size_t trial_start) override;
  /// An exhaustive search of the last program ended (complete, or stopped by its budget).
  bool program_exhausted() const override { return strategy_->search_stats() && !strategy_->more(); }
  /// The exhaustive strategy searches every schedule of a program within its bound.
  bool searches_every_run() const override { return schedule_.kind == Schedule::Kind::exhaustive; }
  /// That search of the last program reached its end (not its budget).
  bool program_complete() const override;
  /// An exhaustive search without a bound leaves the calls' real-time orders to the check.
  bool leave_call_orders_to_check() override { return strategy_->leave_call_orders(); }
  CallOrders call_orders() override { return strategy_->call_orders(); }
  bool fences_left_out() const override { return strategy_->fences_left_out(); }
  void order_calls_by_running() override { strategy_->order_calls_by_running(); }
  /// The interleaving, the schedule as duet::run_fibers reads it, the options a draft needs.
  void annotate(Trace& trace, std::span<const std::uint64_t> trial_choices) const override;
  /// Obstruction- and lock-freedom need random or PCT schedules: their episodes are drawn.
  std::string progress_unsupported(const Progress& p) const override;
  void expect_progress(const Progress& p) override;
  void branch_calls(const std::vector<std::vector<std::string>>& calls) override { progress_.branch_calls(calls); }
  void check_starts() override;
  void check_ends() override;
  /// Why the runs since the check started tested nothing (no instrumented code), or empty.
  std::string unexercised() const override { return unexercised(operations_at_check_start_); }
  /// A deadlock or a livelock leaves fibers mid-call, never unwound (their subject is kept).
  bool may_leave_calls_unfinished() const override { return true; }
  std::uint64_t trials_left_unfinished() const override { return left_unfinished_; }
  // ---- each trial in a process of its own (execute/trial_process.hpp) ----
  /// FiberOptions::trial_processes: always; automatic for the check's first trial, and for every
  /// trial once that one left a thread running.
  bool trials_in_processes() const override;
  void enter_trial_process() override;
  std::string trial_totals() const override;
  void add_trial_totals(const std::string& totals) override;
  void judge_at_trial_end(const std::function<void()>& judge) override { judge_at_end_ = judge; }
  std::string trial_processes_reason() const override;
  bool rerun_lost_trial_here() override;
  /// With automatic, where a trial can run in a process of its own at all (always: they do).
  bool take_trial_processes() override;
  bool trial_processes_taken() const override { return taken_; }
  /// Why a trial (here, or in the worker whose totals came back) left a thread running, or empty.
  std::string threads_left() const override;
  /// In a process with instrumented code (duet_instrument), with automatic: a library's thread
  /// started in a trial would otherwise stay abandoned in the test's process.
  bool searches_in_clean_child() const override;
  /// The last run's interleaving, one line per step (empty before any run).
  std::vector<std::string> interleaving() const;
  /// The same as a table with one column per fiber, header row first; empty when it would be
  /// wider than 100 columns (the report then prints interleaving()).
  std::vector<std::string> interleaving_columns() const;
  /// A note for the report on how the schedules were chosen ("random", "pct(3)", ...).
  std::string strategy_name() const;
  /// What the runs so far covered, for a pass: with exhaustive(), the schedules explored and
  /// whether every program's search completed; empty for the sampling strategies.
  std::string coverage() const override;
  std::string save_totals() const override;
  void add_totals(const std::string& saved) override;
  /// Operations (switch points) the fibers of every run so far executed.
  std::uint64_t operations() const { return operations_; }
  /// Empty when the runs since `operations_before` executed an operation; else why a pass of
  /// them tested nothing (no instrumented code).
  std::string unexercised(std::uint64_t operations_before) const;
  const Schedule& schedule() const { return schedule_; }
  /// What it was made with (DUET_EXECUTOR keeps them when it changes the strategy).
  const FiberOptions& options() const { return options_; }
  /// The runs follow the C++ memory model (FiberOptions::memory_model, DUET_MEMORY_MODEL).
  bool cpp_memory_model() const { return scheduler_.config().cpp_memory_model; }
  /// The FiberOptions a draft passes to duet::run_fibers to replay a run of this executor, as
  /// C++ ("{.memory_model = duet::MemoryModel::sc}"); empty when the defaults do.
  std::string draft_options() const;

 private:
  void run_on_fibers(const std::vector<std::function<void()>>& branches, const fiber::TrialFrame* frame);
  /// A trial of this check can run in a process of its own.
  bool trials_can_fork() const;
  /// Why a trial run in this process left a thread running (threads_left), or empty.
  static std::string threads_left_here();
  fiber::TrialFrame hooked_frame(std::function<void()> setup, std::function<void()> teardown) const;

  Schedule schedule_;
  FiberOptions options_;  // its on_fiber_start / on_fiber_stop
  fiber::Scheduler scheduler_;
  Source* trial_source_ = nullptr;
  std::string before_error_;  // what FiberOptions::before_each_run threw, for the trial's run
  std::uint64_t own_runs_ = 0;
  bool weak_order_noted_ = false;
  std::vector<const char*> libraries_;       // the uninstrumented libraries the runs called (RunResult::libraries)
  std::deque<std::string> named_elsewhere_;  // such libraries of other processes' runs (add_totals)
  std::uint64_t operations_ = 0;             // the note about weak memory orders is printed once
  std::uint64_t operations_at_check_start_ = 0;
  std::uint64_t left_unfinished_ = 0;           // runs that ended with a fiber mid-call (trials_left_unfinished)
  std::unique_ptr<ScheduleStrategy> strategy_;  // the picker of each run
  fiber::ProgressMonitor progress_;             // the check's progress guarantees (progress.hpp)
  bool progress_on_ = false;
  bool subject_started_threads_ = false;     // a trial of this check had fibers beyond its own (run_alone)
  std::unique_ptr<fiber::Scheduler> alone_;  // run_alone's runs, apart from the trials' (their traces)
  // Trial processes: whether the check's first trial has come back yet (automatic), whether a
  // trial left threads to its process (automatic: every trial in a process of its own from then
  // on), and, in a trial's process, the counts before its trial.
  bool first_trial_back_ = false;
  bool threads_left_to_process_ = false;
  bool taken_ = false;                   // take_trial_processes: every trial from then on
  std::string taken_why_;                // and why (trial_processes_reason)
  std::string left_elsewhere_;           // threads_left() of the worker that searched (add_totals)
  std::uint64_t left_with_process_ = 0;  // in a trial's process: threads its runs left so
  std::vector<std::uint64_t> progress_before_;
  std::function<void()> judge_at_end_;  // judge_at_trial_end's
  Source judge_source_ = Source::from_seed(0);
  std::optional<fiber::RandomPicker> judge_picker_;  // schedules the judging: the same every time
  void judge_in_run();
  /// A library the runs called, once in libraries_.
  void add_library(const char* library);
};

/// The scheduler's configuration for a check's FiberOptions.
fiber::SchedulerConfig scheduler_config(const FiberOptions& o);

/// `branches` with FiberOptions::on_fiber_start / on_fiber_stop run inside each fiber around it
/// (`storage` keeps the wrapped functions), or `branches` when there are no hooks.
const std::vector<std::function<void()>>& with_fiber_hooks(const std::vector<std::function<void()>>& branches,
                                                           const FiberOptions& options,
                                                           std::vector<std::function<void()>>& storage);

/// A trial's picks as duet::run_fibers reads them: "0.1.1", trailing zeros dropped (past its
/// end a replay answers 0 anyway).
std::string schedule_text(std::span<const std::uint64_t> picks);
/// The reverse; throws std::invalid_argument naming what is wrong.
std::vector<std::uint64_t> parse_schedule(std::string_view text);

/// The memory model a fiber run uses: `code`'s choice, or DUET_MEMORY_MODEL's (sc or cpp;
/// another value throws std::invalid_argument naming it).
MemoryModel memory_model_setting(MemoryModel code);

}  // namespace duet::detail
