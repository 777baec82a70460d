// A Y-program trial judged and reported: whether some order of its calls explains its history
// (in the trial's own process, when it has one, beside what the trial left), the case's verdict
// from it, and what the report shows (the program before its trials, the trial in the trace).
#include "execute/y_case.hpp"

#include <exception>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "execute/call_order_check.hpp"
#include "execute/scenario_draft.hpp"
#include "execute/trial_process.hpp"

namespace duet::detail {

void YCase::show_program_before_trials() {
  Trace drawn;
  steps.record(&drawn, shape, std::vector<Observed>(shape.size()), "");
  // The calls without results: none has run yet.
  std::vector<std::string> calls = drawn.y_prefix;
  for (const auto& branch : drawn.y_branches) calls.insert(calls.end(), branch.begin(), branch.end());
  calls.insert(calls.end(), drawn.y_suffix.begin(), drawn.y_suffix.end());
  drawn.diagram = y_diagram(shape, calls, std::vector<std::string>(calls.size()));
  drawn.y_results.clear();
  drawn.failed = false;
  trace->observer->steps_done(drawn);
}

void YCase::judge_in_run(TrialJudge& judge, TrialDriver& driver, std::size_t assertions_before) {
  explained_in_run.reset();
  judged_in_run_threw = nullptr;
  if (!in_trial_process() || !steps.oracle_runs_candidate()) return;
  driver.judge_at_trial_end([this, &judge, &driver, assertions_before] {
    if (cp.capture && cp.capture->count() != assertions_before) return;  // failed: nothing to judge
    try {
      explained_in_run = explains(observed, judge, driver);
    } catch (...) {
      judged_in_run_threw = std::current_exception();
    }
  });
}

void YCase::record_trial(std::size_t schedule_start, const std::string& verdict) {
  steps.record(trace, shape, observed, verdict);
  pp.executor->trial_driver().annotate(*trace, std::span(src.choices()).subspan(schedule_start));
  trace->noise = noise.describe();
  trace->given_program = pp.given != nullptr;
  record_scenario_draft(*trace, steps, pp, shape, std::span(src.choices()).subspan(schedule_start));
}

CaseOutcome YCase::fail_trial_from(std::size_t schedule_start, std::string message) {
  out.kind = CaseOutcome::Kind::fail;
  out.message = std::move(message);
  if (trace) record_trial(schedule_start, out.message);
  return out;
}

bool YCase::explains(const std::vector<Observed>& h, TrialJudge& judge, TrialDriver& driver) {
  if (&h == &observed && (explained_in_run || judged_in_run_threw)) {  // judged already (judge_in_run)
    if (judged_in_run_threw) std::rethrow_exception(std::exchange(judged_in_run_threw, nullptr));
    return *std::exchange(explained_in_run, std::nullopt);
  }
  if (!steps.oracle_runs_candidate()) return steps.explained(shape, h, judge, pp.config.consistency);
  bool explained = false;
  driver.run_alone([&] { explained = steps.explained(shape, h, judge, pp.config.consistency); },
                   [&](bool keep) { steps.oracle_done(keep); });
  return explained;
}

std::optional<CaseOutcome> YCase::judge_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver,
                                              std::size_t schedule_start, bool last) {
  try {
    const bool own = call_orders.explained_before(observed) || explains(observed, judge, driver);
    if (!own && judge.finish(out)) return out;
    const auto in_order = [&](const std::vector<Observed>& h) { return explains(h, judge, driver); };
    const CallOrderCheck::Verdict orders = call_orders.judge(observed, own, in_order);
    if (orders == CallOrderCheck::Verdict::failed)
      return fail_trial_from(schedule_start, steps.violation(pp.config.consistency));
    if (orders == CallOrderCheck::Verdict::unexplained && judge.finish(out)) return out;
  } catch (const ExecutorFailed& e) {  // the oracle's run of the candidate did not complete
    return end(StepVerdict::error(e.message));
  }
  if (trace && trace->record_pass && last) {
    // A replay the engine compares with the failing run it should have reproduced.
    record_trial(schedule_start, "");
    trace->failed = false;
  }
  return std::nullopt;
}

}  // namespace duet::detail
