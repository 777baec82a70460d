// How duet::run's scheduler runs get their schedules (AsyncOptions::schedule): the strategy a
// check_async case gives its runs, or one kept per case for a spec's duet::run calls. Internal.
#pragma once

#include <memory>

#include "duet/async.hpp"
#include "execute/fibers/schedule_strategy.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail::async {

/// A check's scheduler and strategy: check_async makes one per check, so that PCT learns over
/// the check's runs and an exhaustive search spans the runs of a case.
struct CheckSchedules {
  explicit CheckSchedules(const AsyncOptions& options);
  std::unique_ptr<fiber::Scheduler> scheduler;
  std::unique_ptr<ScheduleStrategy> strategy;
};

/// While it lives, duet::run on this thread runs on `schedules` (its scheduler, its strategy)
/// instead of the thread's own.
class SchedulesScope {
 public:
  explicit SchedulesScope(CheckSchedules& schedules) noexcept;
  ~SchedulesScope();
  SchedulesScope(const SchedulesScope&) = delete;
  SchedulesScope& operator=(const SchedulesScope&) = delete;

 private:
  CheckSchedules* previous_;
};

}  // namespace duet::detail::async
