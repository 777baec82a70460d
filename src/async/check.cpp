// duet::check_async: a property whose every case runs the test body under the check's schedule
// strategy (AsyncOptions::schedule), its picks drawn from and recorded in the case's choice
// stream (so the engine replays and shrinks them). Random and PCT: one run per case;
// exhaustive: every schedule of the body within the bound, in one case.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>

#include "async/schedules.hpp"
#include "execute/fibers/strategies.hpp"
#include "duet/async.hpp"
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/faults.hpp"
#include "duet/result.hpp"
#include "duet/source.hpp"
#include "duet/state_machine.hpp"  // record_step, record_failure, failing_step

namespace duet {

namespace detail {
namespace {

CaseOutcome run_body(const std::string& name, const std::function<task<void>()>& body, const AsyncOptions& options,
                     const CaseParams& params, Trace* trace) {
  CaseOutcome out;
  out.commands = 1;
  const std::size_t assertions_before = params.capture ? params.capture->count() : 0;
  std::string async_text;
  Result got;
  std::string thrown;  // "the body threw std::runtime_error(...)", when it did
  {
    const AsyncTraceScope traced(trace ? &async_text : nullptr);
    try {
      duet::run(body(), options);
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      got = Result::current_exception();
      thrown = threw("the body");
    }
  }
  const bool asserted = params.capture && params.capture->count() != assertions_before;
  const std::string code = "duet::run(" + name + "())";
  if (trace) {
    record_step(trace, code, got);
    trace->steps.back().async_trace = std::move(async_text);
    trace->no_draft = "the failing schedule comes from the choice stream: replay it with the token";
  }
  if (thrown.empty() && !asserted) return out;
  out.kind = CaseOutcome::Kind::fail;
  out.message = asserted ? "assertion failed: " + params.capture->messages_since(assertions_before) : thrown;
  if (trace) record_failure(trace, nullptr, out.message);
  else out.failing_step = failing_step(code, got, nullptr, out.message);
  return out;
}

// A schedule the strategy cannot run, or empty: the check's error before any case (PctPicker
// would throw it from inside the body's first duet::run, where it was taken for the body's).
std::string schedule_error(const Schedule& schedule) {
  if (schedule.kind != Schedule::Kind::pct) return {};
  return fiber::PctPicker::depth_error(std::max<std::size_t>(schedule.depth, 1));  // the depth PctStrategy runs
}

// The body under the strategy: once, or (exhaustive, searching) once per schedule until the
// search is complete. The choices of a passing run are dropped, so a failing case's choices are
// its failing schedule alone: the token replays it, the shrinker reduces it.
CaseOutcome run_async_case(const std::string& name, const std::function<task<void>()>& body, const AsyncOptions& options,
                           async::CheckSchedules& schedules, Source& src, const CaseParams& params, Trace* trace) {
  const async::SchedulesScope scope(schedules);
  ScheduleStrategy& strategy = *schedules.strategy;
  strategy.begin_program({});
  const std::size_t runs = src.mode() == Source::Mode::random ? strategy.trials(1) : 1;
  // A search stops at half the case timeout, so that it is never taken for a hang.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                               std::chrono::duration<double>(params.search_seconds));
  CaseOutcome out;
  for (std::size_t k = 0; k < runs; ++k) {
    const std::size_t schedule_start = src.position();
    out = run_body(name, body, options, params, trace);
    if (out.kind != CaseOutcome::Kind::pass) return out;
    if (runs == 1 || !strategy.more()) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      strategy.stop("the case's time allowance (half its case_timeout)");
      break;
    }
    src.truncate(schedule_start);
  }
  return out;
}

}  // namespace
}  // namespace detail

CheckResult check_async(std::string name, std::function<task<void>()> body, const Config& config,
                        const AsyncOptions& options) {
  if (!body) return detail::nothing_tested(name, "duet::check_async: no body");
  if (std::string why = detail::schedule_error(options.schedule); !why.empty())
    return detail::nothing_tested(name,
                                  "bad AsyncOptions::schedule, " + detail::schedule_name(options.schedule) + ": " + why);
  detail::Property p;
  p.name = name;
  p.spec_id = detail::hash32("duet::check_async:" + name);
  auto shared = std::make_shared<std::function<task<void>()>>(std::move(body));
  // Made on the thread that runs the cases, at the first: the scheduler's stacks are its own.
  auto schedules = std::make_shared<std::unique_ptr<detail::async::CheckSchedules>>();
  auto schedules_for = [schedules, options, name]() -> detail::async::CheckSchedules& {
    if (!*schedules) {
      *schedules = std::make_unique<detail::async::CheckSchedules>(options);
      (*schedules)->strategy->name_programs("the body of \"" + name + "\"");
    }
    return **schedules;
  };
  p.run_case = [shared, name = std::move(name), options, schedules_for](Source& src, const detail::CaseParams& params,
                                                                        detail::Trace* trace) {
    return detail::run_async_case(name, *shared, options, schedules_for(), src, params, trace);
  };
  const std::string strategy = detail::schedule_name(options.schedule);
  p.coverage = [schedules, strategy] {
    const std::string searched = *schedules ? (*schedules)->strategy->coverage() : std::string();
    return searched.empty() ? "schedules drawn by " + strategy + ", one run per case" : searched;
  };
  if (options.schedule.kind == Schedule::Kind::exhaustive) {
    // The body is the same program in every case: one complete search covers them all.
    p.covered = [schedules] { return *schedules && !(*schedules)->strategy->more(); };
  }
  return detail::run_property(p, config);
}

}  // namespace duet
