// One Y-program case of the parallel case loop (run_y_case), declared here because its parts
// are in three sources: y_case.cpp draws the program and runs the case, y_trials.cpp runs its
// trials, y_verdict.cpp judges each trial and records it for the report. Internal to the loop.
#pragma once

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <vector>

#include "duet/detail/trial_driver.hpp"
#include "duet/parallel.hpp"  // duet/detail/y_program.hpp: YSteps, YShape, Observed, Noise
#include "duet/progress.hpp"

namespace duet::detail {

class CallOrderCheck;  // execute/call_order_check.hpp

// One Y-program case: the program drawn from the stream and accepted by the front end, then run
// trial by trial until one is not explained.
struct YCase {
  YSteps& steps;
  const ParallelParams& pp;
  Source& src;
  Trace* trace;
  const CaseParams& cp;
  CaseOutcome out;
  YShape shape;
  std::size_t stop_at = Source::kNoMark;
  StepVerdict failure;  // why drawing failed, when `failed`
  bool failed = false;
  Noise noise;
  std::vector<Observed> observed;

  YCase(YSteps& y_steps, const ParallelParams& parallel, Source& source, Trace* case_trace, const CaseParams& params)
      : steps(y_steps), pp(parallel), src(source), trace(case_trace), cp(params) {}

  // The case ends on a failure or an error of the spec.
  CaseOutcome end(StepVerdict v) {
    out.kind = v.kind == StepVerdict::Kind::error ? CaseOutcome::Kind::error : CaseOutcome::Kind::fail;
    out.message = std::move(v.message);
    return out;
  }

  // Draws the calls of one part of the program (a branch draws from its role's operations).
  std::size_t draw_part(YSteps::Part part, std::size_t branch, std::size_t max);

  // Prefix, branches and suffix; false when a draw failed (`failure` says why).
  bool draw_program();

  // A hand-written program: its calls taken in report order, part by part; nothing is drawn.
  bool take_program();

  // A choice of the program, so it replays with the token and shrinks to none when the failure
  // does not need it; the delays themselves follow from the program's choices.
  void draw_noise();

  // Isolation mode: if a trial kills the process, the report still shows the program.
  void show_program_before_trials();

  CaseOutcome run_trials();
  // How one trial ended: the case's outcome when the case ends there; else whether another
  // trial follows.
  struct TrialEnd {
    std::optional<CaseOutcome> outcome;
    bool next = true;
  };
  std::size_t schedule_start = 0;  // where the current trial's choices begin
  // In a trial's process, the oracle judges the trial's history inside its run, beside the
  // threads the trial left (TrialDriver::judge_at_trial_end): what it found, or what it threw.
  std::optional<bool> explained_in_run;
  std::exception_ptr judged_in_run_threw;
  void judge_in_run(TrialJudge& judge, TrialDriver& driver, std::size_t assertions_before);
  TrialEnd run_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last);
  // The same in a process of its own (execute/trial_process.hpp).
  TrialEnd run_trial_in_process(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last);
  // The trial that drew its schedule from `schedule_start` on, into the trace, with `verdict`.
  void record_trial(std::size_t schedule_start, const std::string& verdict);
  // The case fails with that trial.
  CaseOutcome fail_trial_from(std::size_t schedule_start, std::string message);
  // Whether some order of the calls explains history `h`. A front end whose oracle runs the
  // candidate judges where the driver runs the candidate alone (on fibers, a run of its own).
  bool explains(const std::vector<Observed>& h, TrialJudge& judge, TrialDriver& driver);
  // A trial that ran to its end, judged once per program for each history (results and which
  // calls precede which): the case's outcome when it ends here.
  std::optional<CaseOutcome> judge_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver,
                                         std::size_t schedule_start, bool last);
  // Which operation each fiber's calls are, for their progress guarantees.
  void announce_branch_calls(TrialDriver& driver);
};

}  // namespace duet::detail
