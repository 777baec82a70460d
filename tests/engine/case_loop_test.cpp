// The sequential case loop (src/engine/case_loop.hpp) over steps of the test's own: the command
// a draw makes is the loop's value, passed back to step; rejected draws are drawn again and
// counted; a failed draw, a failing step and a draw that finds nothing end the case.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "engine/case_loop.hpp"

namespace {

using duet::Source;
using duet::detail::CaseOutcome;
using duet::detail::CaseParams;
using duet::detail::CaseSteps;
using duet::detail::StepVerdict;
using duet::detail::Trace;

// Each draw numbers its command; every `reject_every`-th attempt is rejected, the draw numbered
// `fail_at` fails, the step numbered `fail_step` fails, and after `last` commands nothing is drawn.
class NumberedSteps final : public CaseSteps {
 public:
  struct Command {
    int number = 0;
    std::string text;
  };
  int reject_every = 0, fail_at = 0, fail_step = 0, last = 1000;
  std::vector<int> stepped;  // the numbers step was given
  int after_steps = 0;

  StepVerdict start(Trace*) { return {}; }
  Drawn draw(Source&, Command& command, StepVerdict& failure) {
    ++attempts_;
    if (reject_every && attempts_ % reject_every == 0) return Drawn::rejected;
    if (drawn_ == last) return Drawn::none;
    command.number = ++drawn_;
    command.text = "call " + std::to_string(drawn_);
    if (drawn_ == fail_at) {
      failure = StepVerdict::error("draw " + std::to_string(drawn_) + " failed");
      return Drawn::failed;
    }
    return Drawn::command;
  }
  StepVerdict step(Command& command, Trace*) {
    stepped.push_back(command.number);
    if (command.number == fail_step) return StepVerdict::fail(command.text + " disagrees");
    return {};
  }
  StepVerdict after_step(Trace*) {
    ++after_steps;
    return {};
  }
  StepVerdict assertion_failed(Trace*, std::string why) override { return StepVerdict::fail(std::move(why)); }

 private:
  int attempts_ = 0, drawn_ = 0;
};

CaseOutcome run(NumberedSteps& steps, std::size_t length) {
  Source src = Source::replay(std::vector<std::uint64_t>(100, 1));  // "one more command?" says yes
  CaseParams params;
  params.max_length = length;
  return duet::detail::run_case_loop(steps, src, params, nullptr);
}

TEST(CaseLoop, EachStepIsGivenTheCommandItsDrawMade) {
  NumberedSteps steps;
  const CaseOutcome out = run(steps, 5);
  EXPECT_EQ(out.kind, CaseOutcome::Kind::pass);
  EXPECT_EQ(steps.stepped, (std::vector<int>{1, 2, 3, 4, 5}));
  EXPECT_EQ(out.commands, 5u);
  EXPECT_EQ(steps.after_steps, 5);
}

TEST(CaseLoop, RejectedDrawsAreDrawnAgainAndCounted) {
  NumberedSteps steps;
  steps.reject_every = 2;  // attempts 2, 4, 6, ... say no
  const CaseOutcome out = run(steps, 3);
  EXPECT_EQ(steps.stepped, (std::vector<int>{1, 2, 3}));
  EXPECT_EQ(out.commands, 3u);
  EXPECT_EQ(out.attempts, 5u);
  EXPECT_EQ(out.rejected, 2u);
}

TEST(CaseLoop, AFailedDrawEndsTheCaseWithItsVerdictAndNoStep) {
  NumberedSteps steps;
  steps.fail_at = 3;
  const CaseOutcome out = run(steps, 10);
  EXPECT_EQ(out.kind, CaseOutcome::Kind::error);
  EXPECT_EQ(out.message, "draw 3 failed");
  EXPECT_EQ(steps.stepped, (std::vector<int>{1, 2}));
  EXPECT_EQ(out.commands, 2u);
}

TEST(CaseLoop, AFailingStepEndsTheCaseBeforeItsAfterStepChecks) {
  NumberedSteps steps;
  steps.fail_step = 2;
  const CaseOutcome out = run(steps, 10);
  EXPECT_EQ(out.kind, CaseOutcome::Kind::fail);
  EXPECT_EQ(out.message, "call 2 disagrees");
  EXPECT_EQ(steps.after_steps, 1);
}

TEST(CaseLoop, ADrawThatFindsNothingEndsTheCaseAsAPass) {
  NumberedSteps steps;
  steps.last = 2;
  const CaseOutcome out = run(steps, 10);
  EXPECT_EQ(out.kind, CaseOutcome::Kind::pass);
  EXPECT_EQ(steps.stepped, (std::vector<int>{1, 2}));
}

TEST(CaseLoop, ARejectionOnEveryAttemptEndsTheCaseAfterTheAttemptsAllowed) {
  NumberedSteps steps;
  steps.reject_every = 1;
  const CaseOutcome out = run(steps, 10);
  EXPECT_EQ(out.kind, CaseOutcome::Kind::pass);
  EXPECT_TRUE(steps.stepped.empty());
  EXPECT_EQ(out.attempts, static_cast<std::uint64_t>(duet::detail::kDrawAttempts));
  EXPECT_EQ(out.rejected, out.attempts);
}

}  // namespace
