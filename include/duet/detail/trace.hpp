// A case's record for its report, which a front end fills in when the engine asks for it (the
// shrunk case, replays): the steps, a parallel program's branches and witness, a fiber
// interleaving. Included where a front end's code writes it (the library, the parallel front
// ends' headers), not by a sequential check's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "duet/detail/engine.hpp"

namespace duet::detail {

/// One step of a fiber interleaving in parts, as the report's line for it shows them: what the
/// HTML timeline (DUET_TIMELINE) draws.
struct InterleavingStep {
  std::uint32_t step = 0, fiber = 0;
  std::string op;        // "cas(acquire)", "lock"
  std::string object;    // "atomic#0", or empty
  std::string value;     // "0 -> 1", ":= 1", or empty
  std::string location;  // "queue.hpp:42", or empty
  std::string note;      // a stale read's explanation, or empty
};

/// Where a fiber run read the check's clock (a call's invoke or response): the time read, how
/// many steps the run had executed then, and the fiber that read it.
struct ClockRead {
  std::uint64_t time = 0;
  std::uint32_t steps = 0, fiber = 0;
};

/// Told what a traced case is doing as it runs (isolation mode, in the child process), so that
/// a case that kills its process still has a report: the steps done and the call running.
class CaseObserver {
 public:
  virtual ~CaseObserver() = default;
  /// The candidate (or the reference) is about to run this call (C++, as the step shows it).
  virtual void calling(const std::string& code) = 0;
  /// Every step so far is in the trace (after each step, and once the setup is recorded).
  virtual void steps_done(const Trace& trace) = 0;
  /// A trial of a parallel program starts: the case's counts so far, this trial among its
  /// trials (a case that kills its process has still run them).
  virtual void trial_starts(const CaseOutcome& so_far) = 0;
};

struct Trace {
  std::string setup;        // C++ statement(s) creating the subject, e.g. "RingBuffer q(3);"
  std::string draft_setup;  // what a draft test makes the subject with, when not `setup` (a model over a binding)
  std::vector<Step> steps;  // the failing step, if any, is the last
  bool failed = false;
  // The state before the first step, when the spec prints its state.
  std::string initial_state;
  // A Y-shaped program (parallel runner) prints as a diagram instead of numbered steps.
  std::string diagram;
  std::vector<std::string> y_prefix, y_suffix;
  std::vector<std::vector<std::string>> y_branches;
  std::vector<std::string> y_roles;  // each branch's role (ParallelConfig::roles), or none
  std::string verdict;               // the failing program's verdict line
  // When the spec prints its state and the search found no order: the closest sequential
  // witness, the longest order of the calls the search explained (indices in program order),
  // and the oracle's state before it and after each of its calls (one more than the calls).
  std::vector<std::size_t> y_witness;
  std::vector<std::string> y_witness_states;
  bool y_witness_after_prefix = false;  // the witness starts after the prefix (an Api's)
  // Each call's result as the diagram shows it ("()" for void; an Api's results its own), in
  // program order: what the witness shows.
  std::vector<std::string> y_shown_results;
  // The subject as its printer shows it where the failing trial's run ended (Lin::state,
  // a spec's show_sut), or empty.
  std::string y_subject_state;
  // Each call's result as Result::show() spells it, in program order (prefix, branches, suffix):
  // what a draft test compares, and what a replay must reproduce on fibers.
  std::vector<std::string> y_results;
  // On the fiber scheduler: the failing trial's interleaving, one line per step, and how its
  // schedules were chosen ("random", "pct(3)", ...). Empty on threads.
  std::vector<std::string> interleaving;
  // The same, one column per fiber (header row first) when that fits in 100 columns; else empty
  // and the report prints the lines above.
  std::vector<std::string> interleaving_columns;
  std::string schedule;
  // The failing trial's picks ("0.1.1"), as duet::run_fibers replays them; empty on threads.
  std::string fiber_schedule;
  std::string fiber_options;  // the draft's duet::FiberOptions for run_fibers, when not the default
  // The failing trial's steps in parts, and where its calls read the check's clock: with
  // `call_times` they place each call on the interleaving (report/fiber_timeline.hpp). Empty
  // on threads.
  std::vector<InterleavingStep> interleaving_steps;
  std::vector<ClockRead> clock_reads;
  // Each call's invoke and response time (Observed), in program order; 0: never.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> call_times;
  // On fibers: what the failing run called into that was not instrumented, and what that means
  // for the verdict; empty when it called nothing so.
  std::string uninstrumented;
  // On threads with noise: the delays the failing program ran with (Noise::describe), or empty.
  std::string noise;
  // Why no draft test can reproduce the case (a crash was injected, say), or empty.
  std::string no_draft;
  // The program was hand-written (duet::Scenario): fixed, so shrinking reduced its schedule only.
  bool given_program = false;
  // A parallel failure's program as a scenario test (duet::check_scenario), for its draft; no
  // calls when the front end cannot write one (a command with no C++ spelling).
  struct ScenarioDraft {
    std::string declarations;        // lines before the TEST: what the user defines (duet_lin())
    std::string type;                // "duet::Scenario<Spec::Cmd>"
    std::string check;               // "duet::check_scenario<Spec>(scenario"
    std::vector<std::string> calls;  // each call as the scenario writes it, in report order
    std::string config;              // the ParallelConfig the draft passes, as C++, or empty
    std::string token;               // on fibers: the failing schedule's token in that check
  } scenario;
  // Set by the caller: record the run even when it passes (the engine compares a replay
  // with the failing run it should reproduce).
  bool record_pass = false;
  // Set by the caller (isolation mode): told of each call before it runs. Not part of the report.
  CaseObserver* observer = nullptr;
};

/// Front ends call this with a traced step's C++ right before running it.
inline void announce_call(Trace* trace, const std::string& code) {
  if (trace && trace->observer) trace->observer->calling(code);
}

}  // namespace duet::detail
