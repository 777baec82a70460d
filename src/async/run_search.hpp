// duet::exhaustive() for the duet::run calls in a sequential spec's commands (state machines,
// Api): a run's schedules can only be explored from the state the case's earlier commands left,
// so the case is executed again for every schedule of one run, one run after another. Internal.
//
//   RunSearchTotals totals;
//   CaseOutcome out = search_case_runs(property.run_case, src, params, nullptr, totals);
//   totals.coverage();  // "exhaustive(2) for each duet::run of 100 cases: ..."
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include "async/schedules.hpp"
#include "duet/async.hpp"
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"

namespace duet::detail::async {

/// What the searches of a check's cases covered, for its pass line.
struct RunSearchTotals {
  std::size_t cases = 0;             // cases with at least one exhaustive run
  std::size_t runs = 0;              // runs searched (one search each)
  std::size_t complete = 0;          // of which searched completely
  std::size_t schedules = 0;         // distinct schedules explored, over the runs
  std::size_t redundant = 0;         // runs the sleep sets found redundant
  std::size_t executions = 0;        // executions of cases, the first of each included
  std::size_t timed_out = 0;         // cases whose search stopped at the case's time allowance
  std::size_t runs_out_of_time = 0;  // runs whose search the allowance cut short
  std::size_t bound = 0, stale_reads = 0;
  bool memory_model = false;
  /// Empty when no run asked for exhaustive().
  std::string coverage() const;
};

/// A sequential front end's case: Property::run_case.
using RunCase = std::function<CaseOutcome(Source&, const CaseParams&, Trace*)>;

/// Executes a case once and, when its duet::run calls ask for duet::exhaustive() (random mode,
/// no trace: a replay executes once), again for every schedule of each such run in turn, the
/// case's choices restored before each execution so that its commands are the same. Stops at
/// the first failing execution (its choices are the case's), or after params.search_seconds.
CaseOutcome search_case_runs(const RunCase& execute, Source& src, const CaseParams& params, Trace* trace,
                             RunSearchTotals& totals);

/// For duet::run: whether a case search is under way on this thread (exhaustive() is allowed).
bool run_search_active() noexcept;

/// For a duet::run that asks for duet::exhaustive() in a case search: the scheduler and strategy
/// of the run searched in this execution, or null for the case's other runs (random schedules).
CheckSchedules* searched_run(const AsyncOptions& options);

}  // namespace duet::detail::async
