// The engine every front end plugs into: run cases from the choice stream until a budget
// runs out, shrink the first failure by reducing its recorded choices, report it.
//
// A front end supplies a Property: a function that runs one case from a Source and says
// how it went, and, when asked, records a Trace of the steps for the report.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "duet/detail/declarations.hpp"

namespace duet {
struct Schedule;
}  // namespace duet

namespace duet::detail {

/// One executed step, as the report prints it.
struct Step {
  std::string code;      // C++ statement without the trailing ';', e.g. "q.push(3)"
  std::string observed;  // C++ spelling of what the candidate did: "3", "" for void
  enum class Kind : unsigned char { none, value, exception } kind = Kind::none;
  std::string exception_type;  // when kind == exception
  // Filled only on the failing step:
  std::string expected;  // C++ spelling of what the model allows, when known
  bool expected_exception = false;
  std::string explanation;  // "candidate returned 0; the model allows 1"
  // A check duet ran after the step (an invariant, a well-formedness check) failed: the C++
  // expression a draft test re-runs ("v.size() <= v.capacity()", "duet_invariant(v)"), and the
  // declaration it needs when duet cannot spell the check itself (the user defines it).
  std::string check;
  std::string check_declaration;
  bool assertion = false;  // print the failing step as assert(code == expected)
  // A crash injected during the step: "crash at disk.write, sector 3 (block_device.hpp:98)".
  std::string crash;
  // What duet::run did during the step (crash steps and the failing step): the interleaving of
  // each run, as the report prints it under the step.
  std::string async_trace;
  // The process died during the step (isolation mode): how, e.g. "a segmentation fault
  // (SIGSEGV)", "a hang (still running after 200 ms)". The draft runs the step in a child.
  std::string died;
  // The state after the step as the spec prints it (a spec's show_state, Lin::state,
  // Api::state); empty when the spec does not print its state, and on the failing step.
  std::string state;
};

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

struct Trace;
struct CaseOutcome;
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

/// How far a walk over every program got, in the walk's own numbers.
struct WalkProgress {
  std::uint64_t position = 0;            // the walk's number (from 1) of the last program it met
  std::uint64_t ran = 0, exhausted = 0;  // programs run, of which searched to their end
  bool done = false;                     // every path of the scope walked
  std::uint64_t fingerprint = 0;         // of the programs met (ProgramEnumeration::fingerprint)
  std::uint64_t total = 0;               // the scope's programs when counted beforehand, else 0
  bool searches_every_run = false;       // the executor searches every run of a program
  std::uint32_t shards = 1, shard = 0;   // the shard of the walk (DUET_SHARDS, DUET_SHARD_INDEX)
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

struct CaseOutcome {
  enum class Kind : unsigned char {
    pass,
    fail,       // a disagreement: shrink and report
    overrun,    // the choices ran out (byte input): not a failure
    abandoned,  // the candidate declared an operation unimplemented: not a failure
    error       // the spec cannot run (e.g. the candidate's constructor throws): report, no shrink
  } kind = Kind::pass;
  std::string message;  // for fail and error: one line, what went wrong
  std::uint64_t commands = 0;
  std::uint64_t attempts = 0;    // command generation attempts
  std::uint64_t rejected = 0;    // of which rejected by a precondition or a filter
  std::uint64_t trials = 0;      // parallel runner: runs of the case's program
  std::uint64_t overlapped = 0;  // of which trials where calls of different branches overlapped in time
  std::uint64_t cpus = 0;        // the most distinct CPUs the branches ran on in one trial
  /// A walk over every program found no program left to run: this was not a case, and the
  /// search ends (ParallelConfig::every_program).
  bool nothing_left = false;
  /// For a failure seen without a trace: the failing step as the trace would have recorded it
  /// (the last of `commands` steps). Kept so that a failure that does not come back when
  /// replayed can still be shown as first seen.
  std::optional<Step> failing_step;
};

class AssertionCapture;

/// What a case needs to know from the settings.
struct CaseParams {
  std::size_t max_length = 100;         // commands per case at most
  std::uint64_t continue_odds = 10;     // before each command, draw(continue_odds) == 0 stops
  AssertionCapture* capture = nullptr;  // assertion failures raised by spec code, if any
  /// How long one case may spend executing again to search its runs' schedules (half the case
  /// timeout, so that a search is never mistaken for a hang).
  double search_seconds = 30.0;
  /// The settings' shards: a walk over every program (ParallelConfig::every_program) runs the
  /// programs of its shard.
  std::uint32_t shards = 1, shard_index = 0;
};

/// Where a check's cases run, as far as the engine must know it: replays, isolation, what a pass
/// needs. The default is in process, deterministic and sequential (check_sequential, Api,
/// check_async); parallel checks give their executor's (src/execute/parallel_params.cpp).
class Execution {
 public:
  virtual ~Execution() = default;
  /// "sequential", "threads", "fibers:pct(3)": replay tokens record it (a token refused for
  /// another execution names the one that recorded it); regression cases are kept per name.
  virtual std::string name() const { return "sequential"; }
  /// How many times a replay is tried before concluding the case does not fail: 1 where a case
  /// is deterministic; more where failures depend on thread timing.
  virtual int replay_attempts() const { return 1; }
  /// Runs replay exactly (the fiber scheduler): a replay whose trace differs from the failing
  /// run it replays is nondeterminism in the test, reported where the two diverged.
  virtual bool exact_replay() const { return false; }
  /// A pass needs trials whose branches overlapped in time (a check on threads that never saw
  /// two calls at once proves nothing and is inconclusive).
  virtual bool needs_overlap() const { return false; }
  /// For a pass: why nothing the check ran could have interleaved (fibers that met no
  /// instrumented operation), or empty. A non-empty answer makes the pass an error.
  virtual std::string unexercised() const { return {}; }
  /// Cases run in process may end with calls left in the middle (a deadlock on fibers), and
  /// what those calls half-did stays in the process (engine/clean_child.hpp).
  virtual bool may_leave_calls_unfinished() const { return false; }
  /// How many cases' trials ended so, over the check's life so far.
  virtual std::uint64_t trials_left_unfinished() const { return 0; }
  /// Why the check's trials ran each in a process of its own, or empty where they did not
  /// (execute/trial_process.hpp): the check's process never ran the subject.
  virtual std::string trial_processes() const { return {}; }
  /// From now on each trial in a process of its own, where it can (FiberOptions::trial_processes
  /// automatic): a failure the search met beside an uninstrumented library did not replay from
  /// the process as it was before the first case, so the search runs again so (engine/search.cpp).
  /// Whether it does.
  virtual bool take_trial_processes() { return false; }
  /// Whether take_trial_processes() took them: the check's tokens say so, and its child
  /// processes are told (engine/backend.hpp).
  virtual bool trial_processes_taken() const { return false; }
  /// Why a trial of this check (run in this process, or in the worker that searched) left a
  /// thread the subject started running (a library's process-wide pool that a later trial than
  /// the first started, or that duet::Lin's oracle started on the calling thread), or empty:
  /// duet's limit in one process. A search with each trial in a process of its own, from the
  /// state before the first case, lets such a thread end with its trial (engine/search.cpp).
  virtual std::string threads_left() const { return {}; }
  /// The search runs in the clean child's worker processes, never in this one
  /// (engine/clean_child.hpp): its trials may leave what no later check of this process could
  /// run beside (a library's thread, started in a trial and abandoned with it).
  virtual bool searches_in_clean_child() const { return false; }
  /// Cases run in a child process (isolation mode) unless the settings say otherwise: a check
  /// on threads, where a hang or a crash cannot be recovered from in process.
  virtual bool isolate_by_default() const { return false; }
  /// First in each child process of isolation mode (restarts what fork did not copy, such as a
  /// thread pool's threads).
  virtual void in_child() {}
  /// Once after the check, however it ended (restores what it changed: the caller's affinity).
  virtual void after_check() {}
};

struct Property {
  std::string name;           // shown in reports, default file names
  std::uint32_t spec_id = 0;  // hash of the spec's type, binds replay tokens to their test
  /// Where its cases run (never null).
  std::shared_ptr<Execution> execution = std::make_shared<Execution>();
  /// Where DUET_EXECUTOR moved it, as reports say it ("on fibers:pct(3) (DUET_EXECUTOR=fibers:pct,
  /// over the check's own threads)"); empty where it runs on its own executor.
  std::string executor_note;
  /// What a replay of its tokens needs set besides DUET_REPLAY ("DUET_EXECUTOR=fibers:random"
  /// for a check rebuilt on fibers), when DUET_EXECUTOR does not say it already; or empty.
  std::string replay_setting;
  /// A parallel check on threads whose calls can also run on fibers: the same property on the
  /// fiber scheduler under a strategy, to search a failing program's schedules there
  /// (engine/fiber_bridge.hpp). Empty where there is no such twin.
  std::function<Property(const Schedule&)> fiber_twin;
  /// Runs one case. When trace is non-null, records every step into it.
  std::function<CaseOutcome(Source&, const CaseParams&, Trace*)> run_case;
  /// The case records its trace only when it fails, so the engine may pass a trace to every
  /// run: a failure that does not come back on replay (thread timing) still has its report.
  bool cheap_trace = false;
  /// For a pass: what it covered beyond the counts (CheckResult::coverage), or empty.
  std::function<std::string()> coverage;
  /// After a passing case: true when the cases so far covered everything the check can run (an
  /// exhaustive search of a body that is the same in every case), so the search ends there.
  std::function<bool()> covered;
  /// For a pass: why it would claim more than its cases ran (a walk over every program that
  /// its budget ended), or empty. A non-empty answer makes the pass inconclusive.
  std::function<std::string()> unfinished;
  /// A walk over every program: what its certificate records of the walk (DUET_CERTIFICATE;
  /// src/certify/), or empty for other checks.
  std::function<std::string()> certificate;
  /// How many cases the search will run, when the property knows (a walk over every program
  /// whose scope was counted), else 0: the progress line says "of N" and the time left.
  std::function<std::uint64_t()> planned_cases;
  /// A walk over every program, split over processes (Config::jobs): where the walk is, and
  /// the walk the process that reports stands for (the shares' added up); what the executor's
  /// pass line is made of, as bytes a share saves and the reporting process adds to its own.
  /// Unset for other checks.
  std::function<WalkProgress()> walk_progress;
  std::function<void(const WalkProgress&)> adopt_walk;
  std::function<std::string()> save_totals;
  std::function<void(const std::string&)> add_totals;
  /// What the calls' arguments were drawn from ("keys 0..3 and values 0..9"), or empty:
  /// named with the coverage, so that a check that found nothing says what it tried.
  std::string domain;
  /// A negative test (expect_unsafe): a shrunk counterexample is the pass, and finding none in
  /// the budget is the failure.
  bool expect_failure = false;
  /// The time budget when the settings give neither a count nor a time; 0 for a property whose
  /// search ends by itself (a walk over every program), which then needs no budget.
  double default_time = 1.0;
  /// With that default budget, the search also ends after this many trials whose branches
  /// overlapped (0: no such cap): a trial that did not overlap could not have raced, so it
  /// does not use up the budget. Where it is set, it is the budget and the time only a limit:
  /// a search that the time ended first did not do its work, and says so.
  std::uint64_t max_overlapped_trials = 0;
};

/// Runs a property under the settings: the whole pipeline (generate, execute, check,
/// shrink, report). Never throws: bad settings or tokens come back as Status::error.
/// With bytes, runs the one case those bytes describe (a fuzzer's input) instead of a search.
CheckResult run_property(const Property& property, const Config& config,
                         std::optional<std::span<const std::uint8_t>> bytes = std::nullopt);

/// A sequential spec's property whose cases search the schedules of their duet::run calls that
/// ask for duet::exhaustive(), each run from the state its case's commands left (the case is
/// executed again for each schedule; src/async/run_search.cpp); the pass names the coverage.
Property searching_case_runs(Property property);

/// The result of a check that could not test anything (a bad setting, token or spec): an
/// error, never a pass, with a report saying why.
CheckResult nothing_tested(const std::string& name, const std::string& why);

/// FNV-1a, for spec ids.
constexpr std::uint32_t hash32(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 16777619u;
  return h;
}

// ---- GoogleTest (or other framework) assertion capture, installed by duet/gtest.hpp ----
/// Collects assertion failures raised inside spec code while a check runs, so that an
/// EXPECT_EQ inside a command is a disagreement like any other (and shrinks).
class AssertionCapture {
 public:
  virtual ~AssertionCapture() = default;
  virtual std::size_t count() const = 0;  // failures seen so far
  virtual std::string messages_since(std::size_t first) const = 0;
};
/// The assertion failures a capture has seen, each "file:line: message" on one line. Compiled
/// once in the library (src/report/report.cpp): the GoogleTest glue's capture keeps its failures
/// here, so that a test file compiles none of it.
class AssertionLog {
 public:
  void add(const char* file, int line, const char* message);
  std::size_t count() const { return lines_.size(); }
  /// The failures from the `first`th on, joined with " | ".
  std::string messages_since(std::size_t first) const;

 private:
  std::vector<std::string> lines_;
};

using AssertionCaptureFactory = std::unique_ptr<AssertionCapture> (*)();
void set_assertion_capture(AssertionCaptureFactory factory);
AssertionCaptureFactory assertion_capture();

}  // namespace duet::detail
