// The spec-independent engine of a state-machine case, compiled once in the library
// (src/frontends/state_machine.cpp): the phases of a step (the model's expected results, the
// candidate's run with crash injection, the comparison, the postcondition, the transition),
// the possible worlds after a crash, relaxed steps, trace recording and verdicts. A spec's
// steps (StateMachineSteps<Spec>, state_machine_steps.hpp) supply only the calls into its own
// code, one virtual function each, so that a test file compiles those calls and nothing more.
// Included by duet/state_machine.hpp after the vocabulary it uses (Verdict, Caller, Result); not
// a public header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/engine.hpp"

namespace duet {
namespace detail {

/// Which optional parts a spec has, as the engine needs to know them (read once from the
/// spec's type: the engine asks no virtual function for them).
struct StateMachineShape {
  bool expected = false;       // Spec::expected
  bool postcondition = false;  // Spec::postcondition
  bool relaxed = false;        // Spec::next_states
  bool recover = false;        // Spec::recover: crash injection is on
  bool shows_state = false;    // Spec::show_state: traced steps record the model's state
  std::uint64_t crash_one_in = 25;
};

/// One state-machine case, whatever the spec: the case loop's steps over the spec's calls.
class StateMachineEngine : public CaseSteps {
 public:
  // Out of line: a spec's steps make and destroy only their own members.
  explicit StateMachineEngine(const StateMachineShape& shape);
  ~StateMachineEngine() override;

  // The spec's command is of the spec's own type, which only its steps know (the loop and this
  // engine are compiled once for every spec): they hold the command drawn last, and the loop's
  // Command is empty.
  struct Command {};

  StepVerdict start(Trace* trace);
  /// Draws a command from the model's state (its preconditions); the spec's steps hold it.
  virtual Drawn draw(Source& src, Command& command, StepVerdict& failure) = 0;
  // Judged in phases, each failing where it happens: the model's expected result, the
  // candidate's run, assertions raised there, the comparison, the postcondition, next. A spec
  // with one world, expected() and nothing optional runs its untraced steps inline instead
  // (StateMachineSteps::untraced_case), coming to the engine only when a phase does not go through.
  virtual StepVerdict step(Command& command, Trace* trace);
  StepVerdict after_step(Trace*) { return {}; }  // never called: no_after_step_checks()
  StepVerdict assertion_failed(Trace* trace, std::string why) final;
  /// A case without a trace (the search's, the shrinker's replays), into `out`: the case loop
  /// over these steps; a spec with one world, expected() and nothing optional runs its own
  /// instead, with the draw and the step inline (StateMachineSteps::untraced_case).
  virtual void untraced_case(Source& src, const CaseParams& params, CaseOutcome& out);
  /// The case is over: what it made goes (the model's states before the candidate, as a
  /// destroyed steps object would), the room stays for the next case.
  void finish();

 protected:
  // ---- the inline case in the library: its start and end, and a step's way out ----
  // A verdict other than a plain pass is kept in verdict_ (so that the inline case, compiled
  // in each test file, never makes, moves or destroys one); each way out says whether the step
  // went through after all.
  /// begin_case, start and the assertions raised there: false when the case ended, `out` saying
  /// how. The case draws from `src`.
  bool start_untraced(Source& src, const CaseParams& params, CaseOutcome& out);
  /// The case loop's bookkeeping between two commands, in one call: the last command's span
  /// ended, the next one's begun, and the draw that says whether the case goes on (false: it
  /// ends, as it does at params.max_length commands).
  bool next_command(const CaseParams& params, const CaseOutcome& out);
  /// The case ends at a draw that failed (verdict_).
  void end_at_draw(CaseOutcome& out);
  /// The case ends at the step just run: on verdict_ (`ran_ok` false), or on an assertion raised
  /// in a step that went through.
  void end_at_step(CaseOutcome& out, bool ran_ok);
  /// Spec::expected threw (called in the catch block).
  bool expected_threw();
  /// Spec::run threw (called in the catch block): true when that was a crash (the step then
  /// goes on in crashed_untraced()); an engine signal goes on; anything else is the result.
  bool run_threw();
  bool crashed_untraced();
  /// The run is over but the step did not agree at once (an assertion, a disagreement).
  bool judge_untraced();
  /// Spec::next threw (called in the catch block).
  bool next_threw();
  StepVerdict verdict_;   // the inline case's draw or step that did not go through
  std::size_t span_ = 0;  // the inline case's command: where its span began
  bool in_span_ = false;

  // ---- the spec's own calls; exceptions go through to the engine, which says whose they were ----
  // Those a plain spec (expected, no postcondition, crash injection, relaxed steps, show_state or
  // draft_setup_cpp) does without have defaults here, for a spec without them (nothing, true,
  // one world, no text), so that its steps override only the others.
  virtual void make_candidate() = 0;
  virtual void drop_candidate() = 0;
  /// Spec::run on the command drawn last, into `out` (constructed in place).
  virtual void run(Result& out) = 0;
  virtual void recover();
  virtual void restart_model() = 0;
  /// The command drawn last and the model's states go; the candidate stays (finish() drops it).
  virtual void drop_model() = 0;
  virtual std::size_t worlds() const = 0;
  /// Spec::expected for world `world`, into `out` (constructed in place).
  virtual void expect(std::size_t world, Result& out) = 0;
  virtual Verdict postcondition(std::size_t world, const Result& got);
  /// The model's transition in world `world`.
  virtual void advance(std::size_t world) = 0;
  /// A crash interrupted the command: every world goes on with and without it, equal ones merged.
  virtual void fork_worlds();
  /// Keeps the worlds whose entry is true, in order; returns how many are left (none: the
  /// worlds stay, for the failure to list what they allowed).
  virtual std::size_t keep_worlds(const std::vector<bool>& keep);
  /// Advances every world, equal ones merged.
  virtual void advance_all();
  enum class Relaxed : unsigned char { ok, none_allowed, over_limit };
  /// A relaxed spec: every world sees `got`; the worlds become those next_states allows.
  virtual Relaxed relaxed_next(const Result& got);
  /// The model's state as Spec::show_state prints it (every world's), exceptions going through.
  virtual std::string model_state() const;
  virtual std::string last_command() const = 0;
  virtual std::string setup() const = 0;
  virtual std::string draft_setup() const;
  virtual const char* candidate_maker() const = 0;

  Source* src_ = nullptr;  // the case's choice stream (crash injection draws from it)
  Result got_;
  std::vector<Result> wants_;  // what each world expects of this step (kept at the worlds' count)
  bool ran_ = false;

 private:
  struct Ran;
  Ran run_candidate(std::string* async_trace);
  bool run_on_candidate();
  StepVerdict judged_step(Trace* trace);
  std::string printed_state() const;
  std::optional<StepVerdict> expect_and_run(Trace* trace, std::string& async_trace);
  std::optional<StepVerdict> expect_all(Trace* trace);
  StepVerdict judge_one_world(Trace* trace, std::string& async_trace);
  StepVerdict crashed(Trace* trace, const Ran& ran, std::string async_trace);
  StepVerdict step_after_crash(Trace* trace);
  bool explains_after_crash(std::size_t world, std::string& why, bool& postcondition_threw);
  std::string allowed_after_crash() const;
  StepVerdict step_relaxed(Trace* trace);
  StepVerdict fail_here(Trace* trace, const Result* want, std::string why) const;
  static StepVerdict with_async(StepVerdict v, Trace* trace, std::string& async_trace);

  StateMachineShape shape_;
  std::size_t crashes_ = 0;
};

/// Makes a spec's steps (StateMachineSteps<Spec>), one function per spec.
using MakeStateMachineSteps = std::unique_ptr<StateMachineEngine> (*)();

/// One case of a state-machine spec. Each thread reuses one steps object per spec, case after
/// case, so that a case allocates nothing of its own but the candidate and the model; a case
/// run inside a case gets a fresh one.
CaseOutcome run_state_machine_case(MakeStateMachineSteps make, Source& src, const CaseParams& params, Trace* trace);

/// The engine-facing form of a state-machine spec, named `name`, with its domain (or empty).
Property state_machine_property(std::string name, MakeStateMachineSteps make, std::string domain);

/// check_sequential and check_sequential_bytes: the property above, its cases searching the
/// schedules of their duet::run calls, run under `config` (on `bytes` when given).
CheckResult check_state_machine(std::string name, MakeStateMachineSteps make, std::string domain, const Config& config,
                                std::optional<std::span<const std::uint8_t>> bytes = std::nullopt);
/// The same under the default settings (check_sequential<Spec>() makes no Config of its own).
CheckResult check_state_machine(std::string name, MakeStateMachineSteps make, std::string domain);

}  // namespace detail
}  // namespace duet
