#include "duet/detail/case_loop.hpp"

namespace duet::detail {

CaseOutcome run_case_loop(CaseSteps& steps, Source& src, const CaseParams& params, Trace* trace) {
  steps.capture_ = params.capture;
  steps.failures_before_ = params.capture ? params.capture->count() : 0;
  CaseOutcome out;
  auto end = [&](StepVerdict v) {
    switch (v.kind) {
      case StepVerdict::Kind::ok: out.kind = CaseOutcome::Kind::pass; break;
      case StepVerdict::Kind::fail: out.kind = CaseOutcome::Kind::fail; break;
      case StepVerdict::Kind::abandoned: out.kind = CaseOutcome::Kind::abandoned; break;
      case StepVerdict::Kind::error: out.kind = CaseOutcome::Kind::error; break;
    }
    out.message = std::move(v.message);
    if (!trace) out.failing_step = std::move(v.failing_step);
    return out;
  };
  // Spec code may raise assertions anywhere; they fail the step they were raised in.
  auto judged = [&](StepVerdict v) {
    if (v.ok() && steps.assertion_raised()) return steps.assertion_failed(trace, steps.assertion_message());
    return v;
  };

  if (StepVerdict v = judged(steps.start(trace)); !v.ok()) return end(std::move(v));
  if (trace && trace->observer) trace->observer->steps_done(*trace);
  for (std::size_t i = 0; i < params.max_length; ++i) {
    const std::size_t span = src.begin_span();
    if (src.draw(params.continue_odds) == 0) break;
    StepVerdict failure;
    CaseSteps::Drawn drawn = CaseSteps::Drawn::rejected;
    for (int attempt = 0; attempt < kDrawAttempts && drawn == CaseSteps::Drawn::rejected; ++attempt) {
      ++out.attempts;
      drawn = steps.draw(src, failure);
      if (drawn == CaseSteps::Drawn::rejected) ++out.rejected;
    }
    if (drawn == CaseSteps::Drawn::failed) return end(std::move(failure));
    if (drawn != CaseSteps::Drawn::command) break;
    ++out.commands;
    // The span ends after the step: what running it drew (an async schedule, where a crash
    // struck) goes with the command when the shrinker deletes it.
    StepVerdict v = judged(steps.step(trace));
    src.end_span(span);
    if (!v.ok()) return end(std::move(v));
    if (StepVerdict after = judged(steps.after_step(trace)); !after.ok()) return end(std::move(after));
    if (trace && trace->observer) trace->observer->steps_done(*trace);
  }
  return out;
}

}  // namespace duet::detail
