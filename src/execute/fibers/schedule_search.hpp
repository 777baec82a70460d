// A systematic search over one program's schedules, as the exhaustive strategy drives it: the
// sleep-set search (Explorer, strategies.hpp) and the optimal partial-order reduction
// (dpor::OptimalExplorer) both implement it.
//
//   std::unique_ptr<ScheduleSearch> search = ...;
//   Picker* p;
//   while (search->next(p)) search->finish(sched.run(branches, *p));   // the state reset before each run
//   search->stats().complete;
//
// Internal.
#pragma once

#include <string>
#include <vector>

#include "execute/fibers/dpor/run_order.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber {

struct ExplorerStats;

class ScheduleSearch {
 public:
  virtual ~ScheduleSearch() = default;
  /// The picker for the next schedule; false when the search is over.
  virtual bool next(Picker*& picker) = 0;
  /// Ends the schedule just run (throws std::runtime_error when it did not repeat its prefix).
  virtual void finish(const RunResult& result) = 0;
  virtual const ExplorerStats& stats() const = 0;
  /// Why the search cannot cover this program (it then never says complete), or empty.
  virtual std::string outside_scope() const { return {}; }
  /// The last run's steps and their happens-before, with the dependence the search explores
  /// them by (what the calls' real-time orders of the run are computed from:
  /// dpor/call_orders.hpp).
  virtual const dpor::RunOrder& run_order() const = 0;
};

}  // namespace duet::detail::fiber
