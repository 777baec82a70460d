// The loop every sequential case runs, whatever the front end: draw a command (another
// attempt when a precondition or a filter rejects one), run and judge it, notice assertions
// raised by spec code, until the case's drawn length ends it. Front ends supply the steps.
#pragma once

#include <optional>
#include <string>

#include "duet/detail/engine.hpp"

namespace duet::detail {

/// How a step (or the start of a case) went, as a front end tells the loop.
struct StepVerdict {
  enum class Kind : unsigned char { ok, fail, abandoned, error } kind = Kind::ok;
  std::string message;               // fail, abandoned, error: one line
  std::optional<Step> failing_step;  // fail, seen without a trace: see CaseOutcome::failing_step

  // Not an aggregate: `return {}`, every passing step's verdict, would value-initialise the
  // whole std::optional<Step> (about 400 bytes zeroed per step: 8% of a sequential check's time).
  StepVerdict() noexcept {}
  StepVerdict(Kind k, std::string why, std::optional<Step> step)
      : kind(k), message(std::move(why)), failing_step(std::move(step)) {}

  bool ok() const { return kind == Kind::ok; }
  static StepVerdict fail(std::string message, std::optional<Step> step = std::nullopt) {
    return {Kind::fail, std::move(message), std::move(step)};
  }
  static StepVerdict error(std::string message) { return {Kind::error, std::move(message), std::nullopt}; }
  static StepVerdict abandoned(std::string message) { return {Kind::abandoned, std::move(message), std::nullopt}; }
};

/// What a front end supplies to the loop, for one case.
class CaseSteps {
 public:
  enum class Drawn : unsigned char {
    command,   // a command is ready for step()
    rejected,  // a precondition, a filter or duet::Discard said no: draw again
    none,      // nothing can be drawn here: the case ends
    failed     // spec code failed while drawing: the verdict says how
  };
  virtual ~CaseSteps() = default;
  /// Makes the subject and the model or reference; anything but ok ends the case.
  virtual StepVerdict start(Trace* trace) = 0;
  /// Draws one command for the current state. On `failed`, fills `failure`.
  virtual Drawn draw(Source& src, StepVerdict& failure) = 0;
  /// Runs the command drawn last on both sides and judges it, recording its step when tracing.
  virtual StepVerdict step(Trace* trace) = 0;
  /// Checks over everything live after a step (well-formedness of every value, say). Not
  /// called for steps that said no_after_step_checks() (a virtual call per command saved).
  virtual StepVerdict after_step(Trace*) { return {}; }
  /// An assertion (EXPECT_* in spec code) failed during the last step (or the start): the
  /// verdict, with `why` on the last step's line.
  virtual StepVerdict assertion_failed(Trace* trace, std::string why) = 0;

  /// Assertions raised by spec code since the case started (for steps that judge in phases).
  bool assertion_raised() const { return capture_ && capture_->count() != failures_before_; }
  std::string assertion_message() const { return "assertion failed: " + capture_->messages_since(failures_before_); }

 protected:
  /// Steps without after_step checks say so once (the loop then skips the call).
  void no_after_step_checks() { checks_after_step_ = false; }

 private:
  friend CaseOutcome run_case_loop(CaseSteps&, Source&, const CaseParams&, Trace*);
  // An ok verdict becomes the assertion failure when spec code raised one (inline: it is
  // asked after every step).
  void judge(StepVerdict& v, Trace* trace) {
    if (v.ok() && assertion_raised()) [[unlikely]]
      fail_on_assertion(v, trace);
  }
  void fail_on_assertion(StepVerdict& v, Trace* trace);
  AssertionCapture* capture_ = nullptr;
  std::size_t failures_before_ = 0;
  bool checks_after_step_ = true;
};

/// Draw attempts for one command before the case ends there (every front end).
inline constexpr int kDrawAttempts = 32;

/// Runs one case: the steps' start, then commands until the length drawn from the choice
/// stream, params.max_length, a failure or a draw that finds nothing.
CaseOutcome run_case_loop(CaseSteps& steps, Source& src, const CaseParams& params, Trace* trace);

}  // namespace duet::detail
