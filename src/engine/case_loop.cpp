#include "duet/detail/case_loop.hpp"
#include "duet/gen.hpp"
#include "engine/candidate_fork.hpp"

namespace duet::detail {

namespace {

// How the case ends, from the verdict that ended it.
void end_case(CaseOutcome& out, StepVerdict& v, Trace* trace) {
  switch (v.kind) {
    case StepVerdict::Kind::ok: out.kind = CaseOutcome::Kind::pass; break;
    case StepVerdict::Kind::fail: out.kind = CaseOutcome::Kind::fail; break;
    case StepVerdict::Kind::abandoned: out.kind = CaseOutcome::Kind::abandoned; break;
    case StepVerdict::Kind::error: out.kind = CaseOutcome::Kind::error; break;
  }
  out.message = std::move(v.message);
  if (!trace) out.failing_step = std::move(v.failing_step);
}

}  // namespace

void CaseSteps::fail_on_assertion(StepVerdict& v, Trace* trace) { v = assertion_failed(trace, assertion_message()); }

// Spec code may raise assertions anywhere; they fail the step they were raised in (judged
// where the verdict lies: a StepVerdict moved per step was a measurable cost).
CaseOutcome run_case_loop(CaseSteps& steps, Source& src, const CaseParams& params, Trace* trace) {
  const DeferredGenReleases deferred;  // the command generator's count, once per case
  steps.capture_ = params.capture;
  steps.failures_before_ = params.capture ? params.capture->count() : 0;
  CaseOutcome out;
  StepVerdict started = steps.start(trace);
  leave_if_candidates_child();  // a child the candidate forked, here or in any step, ends
  steps.judge(started, trace);
  if (!started.ok()) {
    end_case(out, started, trace);
    return out;
  }
  if (trace && trace->observer) trace->observer->steps_done(*trace);
  StepVerdict failure;  // filled only by a draw that failed, which ends the case
  for (std::size_t i = 0; i < params.max_length; ++i) {
    const std::size_t span = src.begin_span();
    if (src.draw(params.continue_odds, 1) == 0) break;
    CaseSteps::Drawn drawn = CaseSteps::Drawn::rejected;
    for (int attempt = 0; attempt < kDrawAttempts && drawn == CaseSteps::Drawn::rejected; ++attempt) {
      ++out.attempts;
      drawn = steps.draw(src, failure);
      if (drawn == CaseSteps::Drawn::rejected) ++out.rejected;
    }
    if (drawn == CaseSteps::Drawn::failed) {
      end_case(out, failure, trace);
      return out;
    }
    if (drawn != CaseSteps::Drawn::command) break;
    ++out.commands;
    // The span ends after the step: what running it drew (an async schedule, where a crash
    // struck) goes with the command when the shrinker deletes it.
    StepVerdict v = steps.step(trace);
    leave_if_candidates_child();
    steps.judge(v, trace);
    src.end_span(span);
    if (!v.ok()) {
      end_case(out, v, trace);
      return out;
    }
    if (steps.checks_after_step_) {
      StepVerdict after = steps.after_step(trace);
      steps.judge(after, trace);
      if (!after.ok()) {
        end_case(out, after, trace);
        return out;
      }
    }
    if (trace && trace->observer) trace->observer->steps_done(*trace);
  }
  return out;
}

}  // namespace duet::detail
