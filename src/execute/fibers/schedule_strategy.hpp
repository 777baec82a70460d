// How a run on the fiber scheduler gets its picker, by Schedule (random, pct, exhaustive): one
// mechanism for Y-program branches (FiberExecutor) and duet::run / duet::check_async.
//
//   auto strategy = make_schedule_strategy(duet::exhaustive(2), scheduler);
//   strategy->begin_program({});                 // a new search (its branch lengths, if any)
//   do {
//     const fiber::RunResult& r = scheduler.run(fibers, *strategy->picker(case_source));
//     strategy->finish(r);
//   } while (strategy->more());
//   strategy->coverage();   // "exhaustive(2), complete for ...: all 37 schedules ..."
//
// In random mode a strategy decides each pick and records it in the case's choice stream, so a
// token replays it with a plain RandomPicker (what replay and bytes modes use, whatever the
// strategy). Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "duet/detail/trial_driver.hpp"
#include "duet/executor.hpp"
#include "duet/progress.hpp"
#include "duet/source.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail {

namespace fiber {
struct ExplorerStats;
}

/// Spurious wake-ups one in this many waits: every picker and every replay must agree.
inline constexpr std::uint64_t kSpuriousOneIn = 8;

class ScheduleStrategy {
 public:
  virtual ~ScheduleStrategy() = default;
  /// A new program, of branches of these lengths (calls; empty for a test body): an exhaustive
  /// search starts over.
  virtual void begin_program(std::span<const std::size_t> branch_lengths) { (void)branch_lengths; }
  /// The picker of the next run, its picks drawn from (and recorded in) `src`.
  virtual fiber::Picker* picker(Source& src) = 0;
  /// After each run.
  virtual void finish(const fiber::RunResult&) {}
  /// Whether another run of the same program could find something new (false once an
  /// exhaustive search has covered every schedule).
  virtual bool more() const { return true; }
  /// Runs to make of each program: `configured`, or as many as an exhaustive search has.
  virtual std::size_t trials(std::size_t configured) const { return configured; }
  /// Ends a search before its end, for `why` ("the case's time allowance"): more() is false
  /// from here and coverage() says why the search is incomplete.
  virtual void stop(std::string why) { (void)why; }  // NOLINT(performance-unnecessary-value-param): overrides keep it
  /// What the runs so far covered, for a pass (empty for the sampling strategies).
  virtual std::string coverage() const { return {}; }
  /// What coverage() is made of, as bytes: saved where a share of a walk over every program
  /// ran, added where the walk is reported (empty for the sampling strategies, which count
  /// nothing there).
  virtual std::string save_totals() const { return {}; }
  virtual void add_totals(const std::string& saved) { (void)saved; }
  /// What the runs so far taught the strategy (PCT's run length), as bytes: a trial's process
  /// of its own sends it back (execute/trial_process.hpp), and learn() takes it in the process
  /// that goes on with the check.
  virtual std::string learnt() const { return {}; }
  virtual void learn(const std::string& learnt) { (void)learnt; }
  /// The exhaustive search of the current program so far, or null (sampling strategies).
  virtual const fiber::ExplorerStats* search_stats() const { return nullptr; }
  /// The calls' real-time orders (TrialDriver's, for the Y-program loop): after begin_program
  /// and before the program's first run, whether its search leaves them to the check (an
  /// exhaustive search without a bound; each begin_program orders them by running until asked);
  /// after a run, the orders it allows; and the search started again ordering them by running.
  virtual bool leave_call_orders() { return false; }
  virtual CallOrders call_orders() const { return {}; }
  virtual bool fences_left_out() const { return false; }
  virtual void order_calls_by_running() {}
  /// Whether the next run has the check's fences in it (SchedulerConfig::harness_fences): not
  /// where the check judges the calls' orders itself, placing the fences in each.
  virtual bool harness_fences() const { return true; }
  /// How coverage() names what a program without branches is ("the body of \"barrier\"").
  void name_programs(std::string what) { programs_name_ = std::move(what); }

 protected:
  std::string programs_name_ = "the programs run";
};

std::unique_ptr<ScheduleStrategy> make_schedule_strategy(const Schedule& schedule, const fiber::Scheduler& scheduler);

/// "random", "pct(3)", "exhaustive(2)".
std::string schedule_name(const Schedule& schedule);

}  // namespace duet::detail
