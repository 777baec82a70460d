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

/// What every front end's steps share: the draw's answers, and the assertions that spec code
/// raised. The loop itself (src/engine/case_loop.hpp) is a template over the front end's steps,
/// which supply, for one case:
///
///   StepVerdict start(Trace*);         the subject and the model or reference; anything but ok
///                                      ends the case
///   Drawn draw(Source&, Command&, StepVerdict& failure);
///                                      one command for the current state, into the loop's
///                                      Command (the front end's type); on `failed`, `failure`
///   StepVerdict step(Command&, Trace*); runs the command drawn last on both sides and judges
///                                      it, recording its step when tracing
///   StepVerdict after_step(Trace*);     checks over everything live after a step (not called
///                                      after no_after_step_checks())
///
/// A drawn command is a value the loop passes back to step: nothing of one draw is left in the
/// steps for the next. Drawing never runs the candidate. It may run the model's or the
/// reference's side of the command, where only that run can say whether the command may be
/// drawn at all (a precondition on the model's state, a reference that declines with
/// duet::BackOff): a declined draw is drawn again before the loop counts a command.
class CaseSteps {
 public:
  enum class Drawn : unsigned char {
    command,   // a command is ready for step()
    rejected,  // a precondition, a filter or duet::Discard said no: draw again
    none,      // nothing can be drawn here: the case ends
    failed     // spec code failed while drawing: the verdict says how
  };
  virtual ~CaseSteps() = default;
  /// An assertion (EXPECT_* in spec code) failed during the last step (or the start): the
  /// verdict, with `why` on the last step's line.
  virtual StepVerdict assertion_failed(Trace* trace, std::string why) = 0;

  /// Assertions raised by spec code since the case started (for steps that judge in phases).
  bool assertion_raised() const { return capture_ && capture_->count() != failures_before_; }
  std::string assertion_message() const { return "assertion failed: " + capture_->messages_since(failures_before_); }

  /// The loop's side: the case starts under `params`' assertion capture.
  void begin_case(const CaseParams& params) {
    capture_ = params.capture;
    failures_before_ = params.capture ? params.capture->count() : 0;
  }
  /// An ok verdict becomes the assertion failure when spec code raised one (inline: it is
  /// asked after every step).
  void judge(StepVerdict& v, Trace* trace) {
    if (v.ok() && assertion_raised()) [[unlikely]]
      fail_on_assertion(v, trace);
  }
  bool checks_after_step() const { return checks_after_step_; }

 protected:
  /// Steps without after_step checks say so once (the loop then skips the call).
  void no_after_step_checks() { checks_after_step_ = false; }

 private:
  void fail_on_assertion(StepVerdict& v, Trace* trace);
  AssertionCapture* capture_ = nullptr;
  std::size_t failures_before_ = 0;
  bool checks_after_step_ = true;
};

/// Draw attempts for one command before the case ends there (every front end).
inline constexpr int kDrawAttempts = 32;

}  // namespace duet::detail
