// The sequential case loop, over a front end's steps (the contract is CaseSteps', in
// duet/detail/case_loop.hpp). A template: the command a draw makes is the front end's own type,
// held here, between draw and step, and passed back. Only the front ends' sources include it.
#pragma once

#include <concepts>
#include <cstddef>
#include <utility>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/property.hpp"
#include "duet/gen.hpp"
#include "engine/candidate_fork.hpp"

namespace duet::detail {

/// The case as the verdict that ended it leaves it (compiled once).
CaseOutcome ended(CaseOutcome out, StepVerdict& v, Trace* trace);

/// A front end's steps, as the loop calls them.
template <class S>
concept FrontEndSteps = std::derived_from<S, CaseSteps> &&
    requires(S& steps, Source& src, typename S::Command& command, StepVerdict& failure, Trace* trace) {
  { steps.start(trace) } -> std::same_as<StepVerdict>;
  { steps.draw(src, command, failure) } -> std::same_as<CaseSteps::Drawn>;
  { steps.step(command, trace) } -> std::same_as<StepVerdict>;
  { steps.after_step(trace) } -> std::same_as<StepVerdict>;
};

/// Draws one command: another attempt while a precondition, a filter or the reference says no.
template <FrontEndSteps Steps>
CaseSteps::Drawn draw_command(Steps& steps, Source& src, typename Steps::Command& command, StepVerdict& failure,
                              CaseOutcome& out) {
  CaseSteps::Drawn drawn = CaseSteps::Drawn::rejected;
  for (int attempt = 0; attempt < kDrawAttempts && drawn == CaseSteps::Drawn::rejected; ++attempt) {
    ++out.attempts;
    drawn = steps.draw(src, command, failure);
    if (drawn == CaseSteps::Drawn::rejected) ++out.rejected;
  }
  return drawn;
}

/// Runs one case: the steps' start, then commands until the length drawn from the choice
/// stream, params.max_length, a failure or a draw that finds nothing. Spec code may raise
/// assertions anywhere; they fail the step they were raised in (judged where the verdict lies:
/// a StepVerdict moved per step was a measurable cost).
template <FrontEndSteps Steps>
CaseOutcome run_case_loop(Steps& steps, Source& src, const CaseParams& params, Trace* trace) {
  const DeferredGenReleases deferred;  // the command generator's count, once per case
  steps.begin_case(params);
  CaseOutcome out;
  StepVerdict started = steps.start(trace);
  leave_if_candidates_child();  // a child the candidate forked, here or in any step, ends
  steps.judge(started, trace);
  if (!started.ok()) return ended(std::move(out), started, trace);
  if (trace && trace->observer) trace->observer->steps_done(*trace);
  typename Steps::Command command;
  StepVerdict failure;  // filled only by a draw that failed, which ends the case
  for (std::size_t i = 0; i < params.max_length; ++i) {
    const std::size_t span = src.begin_span();
    if (src.draw(params.continue_odds, 1) == 0) break;
    const CaseSteps::Drawn drawn = draw_command(steps, src, command, failure, out);
    if (drawn == CaseSteps::Drawn::failed) return ended(std::move(out), failure, trace);
    if (drawn != CaseSteps::Drawn::command) break;
    ++out.commands;
    // The span ends after the step: what running it drew (an async schedule, where a crash
    // struck) goes with the command when the shrinker deletes it.
    StepVerdict v = steps.step(command, trace);
    leave_if_candidates_child();
    steps.judge(v, trace);
    src.end_span(span);
    if (!v.ok()) return ended(std::move(out), v, trace);
    if (steps.checks_after_step()) {
      StepVerdict after = steps.after_step(trace);
      steps.judge(after, trace);
      if (!after.ok()) return ended(std::move(out), after, trace);
    }
    if (trace && trace->observer) trace->observer->steps_done(*trace);
  }
  return out;
}

}  // namespace duet::detail
