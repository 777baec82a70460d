// A Y-program case's trials (YCase::run_trials): each one run on the executor, in this process
// or in a process of its own (execute/trial_process.hpp), its overlap counted, and judged
// (y_verdict.cpp), until one is not explained or the trials run out.
#include "execute/y_case.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "execute/call_order_check.hpp"
#include "execute/fibers/instrumented.hpp"  // the symbolised addresses
#include "execute/hang_clock.hpp"
#include "execute/trial_process.hpp"
#include "execute/trial_progress.hpp"

namespace duet::detail {

void YCase::announce_branch_calls(TrialDriver& driver) {
  Trace drawn;
  steps.record(&drawn, shape, std::vector<Observed>(shape.size()), "");
  driver.branch_calls(drawn.y_branches);
}

// On fibers every trial draws its schedule from the stream. A trial that passes gives its
// choices back (random mode), so a failing case's choices are its program and the failing
// schedule only: the token replays that schedule in the first trial, and the shrinker reduces
// program and schedule together. Replays run that one trial.
CaseOutcome YCase::run_trials() {
  TrialJudge judge;
  TrialDriver& driver = pp.executor->trial_driver();
  if (pp.config.progress.stated()) announce_branch_calls(driver);
  const std::size_t trials = driver.begin_program(shape.branches, pp.config.trials, src);
  // An exhaustive search may leave the calls' real-time orders to this loop: each trial is then
  // judged in every order of its calls its execution allows (call_order_check.hpp).
  CallOrderCheck call_orders(shape, driver, src.mode() == Source::Mode::random);
  for (std::size_t t = 0; t < trials; ++t) {
    ++out.trials;
    trial_starts_here();  // the case's hang limit is per trial
    trial_progress(out.trials);
    if (trace && trace->observer) trace->observer->trial_starts(out);
    noise.trial = t;
    // Asked before each trial: the first one's process tells whether the rest need one. A
    // fuzzer's bytes are read where they are: its trials stay in this process.
    const bool own_process = driver.trials_in_processes() && src.mode() != Source::Mode::bytes;
    const TrialEnd ended = own_process ? run_trial_in_process(judge, call_orders, driver, t + 1 == trials)
                                       : run_trial(judge, call_orders, driver, t + 1 == trials);
    if (ended.outcome) return *ended.outcome;
    if (!ended.next) break;
  }
  if (std::string why = call_orders.unshown_failure(); !why.empty()) return end(StepVerdict::error(std::move(why)));
  return out;
}

YCase::TrialEnd YCase::run_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last) {
  schedule_start = src.position();
  driver.begin_trial(src);
  // Assertions (EXPECT_* and the like) that the calls raise where duet intercepts them (on the
  // calling thread, and on fibers) fail the trial; the oracle's own replays of the calls, while
  // it searches for an order, are not the program's and do not count.
  const std::size_t assertions_before = cp.capture ? cp.capture->count() : 0;
  StepVerdict v;
  judge_in_run(judge, driver, assertions_before);
  try {
    v = steps.trial(shape, *pp.executor, noise, observed);
  } catch (const ExecutorFailed& e) {
    driver.judge_at_trial_end({});
    return {end(StepVerdict::error(e.message))};
  }
  driver.judge_at_trial_end({});
  if (cp.capture && cp.capture->count() != assertions_before) {
    v = StepVerdict::fail("assertion failed: " + cp.capture->messages_since(assertions_before));
  } else {
    const TrialOverlap overlap = trial_overlap(shape, observed);
    out.overlapped += overlap.overlapped;
    out.cpus = std::max<std::uint64_t>(out.cpus, overlap.cpus);
  }
  if (!v.ok()) {
    // A crash, an assertion, a hang: where the run left the check's fences out, the search
    // looks for it again with them (call_order_check.hpp).
    if (v.kind != StepVerdict::Kind::fail) return {end(std::move(v))};
    if (!call_orders.search_again_with_fences(v.message)) return {fail_trial_from(schedule_start, std::move(v.message))};
  } else if (std::optional<CaseOutcome> ended = judge_trial(judge, call_orders, driver, schedule_start, last)) {
    return {std::move(ended)};
  }
  return {std::nullopt, driver.trial_passed(src, schedule_start)};
}

YCase::TrialEnd YCase::run_trial_in_process(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last) {
  const std::size_t start = src.position();
  const Source::Drawn drawn_before = src.drawn_since(start);
  const CaseOutcome out_before = out;
  const TrialProcessEnd child = run_in_trial_process([&] {
    driver.enter_trial_process();
    TrialAnswer answer;
    try {
      const TrialEnd ended = run_trial(judge, call_orders, driver, last);
      answer.ended = ended.outcome.has_value();
      answer.next = ended.next;
    } catch (const EngineError& e) {
      answer.escaped = TrialAnswer::Escaped::engine_error;
      answer.what = e.what();
    } catch (const Overrun&) {
      answer.escaped = TrialAnswer::Escaped::overrun;
    } catch (const std::exception& e) {
      answer.escaped = TrialAnswer::Escaped::other;
      answer.what = e.what();
    }
    answer.outcome = out;
    answer.drawn = src.drawn_since(start);
    answer.totals = driver.trial_totals();
    answer.symbolized = fiber::symbolized_addresses();
    if (trace) answer.trace = *trace;
    return encode(answer);
  });
  schedule_start = start;
  if (!child.answered && driver.rerun_lost_trial_here()) return run_trial(judge, call_orders, driver, last);
  if (!child.answered) {
    src.truncate(start);
    clear_observed(observed, shape);  // the calls' results died with the process
    return {fail_trial_from(start, "the trial's own process " + child.why +
                                       " (each trial runs in a process of its own: FiberOptions::trial_processes)")};
  }
  TrialAnswer answer = decode<TrialAnswer>(child.answer);
  driver.add_trial_totals(answer.totals);
  fiber::symbolize_ahead(answer.symbolized);  // the next trial's process starts with them read
  if (!driver.trials_in_processes()) {
    // The first trial, run alone only to learn that the check's trials need no process of their
    // own: it runs here again, so that this process goes on exactly as it would have.
    src.continue_from(start, drawn_before);
    out = out_before;
    return run_trial(judge, call_orders, driver, last);
  }
  src.continue_from(start, answer.drawn);
  out = std::move(answer.outcome);
  if (trace) *trace = std::move(answer.trace);
  switch (answer.escaped) {
    case TrialAnswer::Escaped::none: break;
    case TrialAnswer::Escaped::engine_error: throw EngineError(answer.what);
    case TrialAnswer::Escaped::overrun: throw Overrun{};
    case TrialAnswer::Escaped::other: throw std::runtime_error(answer.what);
  }
  if (answer.ended) return {out};
  return {std::nullopt, answer.next};
}

}  // namespace duet::detail
