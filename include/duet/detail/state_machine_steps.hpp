// A state-machine spec's steps for the sequential case loop (StateMachineSteps: the calls into
// the spec's own code, under the engine of state_machine_engine.hpp, which judges them), and the
// engine-facing property, whose static_asserts say what a spec is missing.
// Included by duet/state_machine.hpp after the vocabulary it uses (Verdict, Caller, Result); not
// a public header.
#pragma once

#include <concepts>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/candidates_child.hpp"
#include "duet/detail/case_loop.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/fault_plan.hpp"
#include "duet/detail/gen_counted.hpp"
#include "duet/detail/possible_worlds.hpp"
#include "duet/detail/state_machine_engine.hpp"
#include "duet/detail/state_machine_spec.hpp"

namespace duet {
namespace detail {


/// The spec's shape as the engine reads it.
template <class Spec>
constexpr StateMachineShape state_machine_shape() {
  StateMachineShape shape;
  shape.expected = HasExpected<Spec>;
  shape.postcondition = HasPostcondition<Spec>;
  shape.relaxed = HasNextStates<Spec>;
  shape.recover = HasRecover<Spec>;
  shape.shows_state = HasShowState<Spec>;
  shape.crash_one_in = crash_one_in<Spec>();
  return shape;
}

/// A spec that has none of the parts whose calls the engine has defaults for (see
/// StateMachineEngine): its steps are StateMachineSteps, which overrides none of them.
template <class Spec>
inline constexpr bool plain_state_machine_spec =
    !HasPostcondition<Spec> && !HasNextStates<Spec> && !HasRecover<Spec> && !HasShowState<Spec> && !requires {
  { Spec::draft_setup_cpp() } -> std::convertible_to<std::string>;
};

/// A state-machine spec's steps for the case loop: commands drawn from the model's state, run
/// in lockstep on the candidate and the model. Only the calls into the spec's own code are
/// here (the engine, compiled once, does the rest); what a spec does not use (crashes, relaxed
/// steps) is not instantiated.
template <class Spec>
class StateMachineSteps : public StateMachineEngine {
  using Cmd = typename Spec::Cmd;
  using State = typename Spec::State;
  // Several worlds only after a crash or a relaxed step; otherwise the one state, held alone.
  using Worlds = std::conditional_t<HasRecover<Spec> || HasNextStates<Spec>, PossibleWorlds<State>, OneWorld<State>>;

 public:
  StateMachineSteps() : StateMachineEngine(state_machine_shape<Spec>()) {}

  Drawn draw(Source& src, Command&, StepVerdict& failure) override {
    src_ = &src;
    return draw_command<Spec>(src, states_.front(), states_.all(), cmd_, failure);
  }

  // The common spec's case without a trace (the sequential hot path): the case loop of
  // src/engine/case_loop.hpp with the draw and the step inline and the spec's calls in them,
  // drawing exactly as the loop draws (a token found here replays traced there). A step that
  // does not go through (an exception, an assertion, a disagreement) goes on in the engine.
  void untraced_case(Source& src, const CaseParams& params, CaseOutcome& out) override {
    if constexpr (!inline_steps) {
      StateMachineEngine::untraced_case(src, params, out);
    } else {
      const DeferredGenReleases deferred;  // the command generator's count, once per case
      if (!start_untraced(src, params, out)) return;
      while (next_command(params, out)) {
        Drawn drawn = Drawn::rejected;
        for (int attempt = 0; attempt < kDrawAttempts && drawn == Drawn::rejected; ++attempt) {
          ++out.attempts;
          drawn = draw_command<Spec>(src, states_.front(), states_.all(), cmd_, verdict_);
          out.rejected += drawn == Drawn::rejected;
        }
        if (drawn == Drawn::failed) return end_at_draw(out);
        if (drawn != Drawn::command) break;
        ++out.commands;
        const bool ok = untraced_step();
        leave_if_candidates_child();
        if (!ok || assertion_raised()) [[unlikely]]
          return end_at_step(out, ok);
      }
    }
  }

 protected:
  // One world, expected() and nothing optional: the engine's common case, whose untraced cases
  // run here, with the spec's calls inline.
  static constexpr bool inline_steps =
      HasExpected<Spec> && !HasPostcondition<Spec> && !HasNextStates<Spec> && !HasRecover<Spec>;

  // As the engine's step, for that case: expected, run, compare, next; anything else (an
  // exception, an assertion, a disagreement) goes on in the engine, which says whether the step
  // went through after all.
  bool untraced_step() {
    Result& want = wants_.front();
    try {
      StateMachineSteps::expect(0, want);
    } catch (...) {
      return expected_threw();
    }
    bool crashed = false;
    {
      const AsyncTraceScope untraced(nullptr);
      try {
        StateMachineSteps::run(got_);
      } catch (...) {
        crashed = run_threw();
      }
    }
    if (crashed) return crashed_untraced();
    ran_ = true;
    if (assertion_raised() || !(got_ == want)) [[unlikely]]
      return judge_untraced();
    try {
      StateMachineSteps::advance(0);
    } catch (...) {
      return next_threw();
    }
    return true;
  }

  void make_candidate() override { sut_.make(); }
  void drop_candidate() override { sut_.reset(); }
  void run(Result& out) override {
    emplace_result(out, [this] { return Spec::run(*cmd_, *sut_); });
  }
  void spec_recover() {
    if constexpr (HasRecover<Spec>) Spec::recover(*sut_);
  }
  void restart_model() override {
    states_.restart_made([] { return initial_state<Spec>(); });
  }
  void drop_model() override {
    cmd_.reset();
    states_.clear();
  }
  std::size_t worlds() const override { return states_.size(); }
  void expect(std::size_t world, Result& out) override {
    if constexpr (HasExpected<Spec>)
      emplace_result(out, [&] { return Spec::expected(*cmd_, std::as_const(states_[world])); });
  }
  Verdict spec_postcondition(std::size_t world, const Result& got) {
    if constexpr (HasPostcondition<Spec>) return Spec::postcondition(*cmd_, std::as_const(states_[world]), got);
    else return (void)world, (void)got, true;
  }
  // Inlined into untraced_step too (the sequential hot path): kept out of line, the spec's next
  // was compiled once rather than twice, and a step ran 3% more instructions.
  void advance(std::size_t world) override { apply_next<Spec>(*cmd_, states_[world]); }
  void spec_fork_worlds() {
    if constexpr (HasRecover<Spec>) {
      states_.fork([this](State& taken) { apply_next<Spec>(*cmd_, taken); });
      states_.merge(same_state);
    }
  }
  std::size_t spec_keep_worlds(const std::vector<bool>& keep) {
    if constexpr (HasRecover<Spec>) return states_.keep_at(keep);
    else return (void)keep, states_.size();
  }
  void spec_advance_all() {
    if constexpr (HasRecover<Spec>) {
      for (State& s : states_) apply_next<Spec>(*cmd_, s);
      states_.merge(same_state);
    }
  }
  Relaxed spec_relaxed_next(const Result& got) {
    if constexpr (HasNextStates<Spec>) return next_relaxed(got);
    else return (void)got, Relaxed::ok;
  }
  std::string spec_model_state() const { return show_states<Spec>(states_.all()); }
  std::string last_command() const override { return show_command<Spec>(*cmd_); }
  std::string setup() const override { return setup_cpp<Spec>(); }
  std::string spec_draft_setup() const { return draft_setup_cpp<Spec>(); }
  const char* candidate_maker() const override { return sut_maker<Spec>(); }

  // Every world sees the result and says which states may follow; the model goes on in all of
  // them (the worlds stay as they were when none, or too many, are allowed).
  Relaxed next_relaxed(const Result& got) {
    Worlds next;
    for (const State& s : states_) {
      for (State& t : next_states_of<Spec>(*cmd_, s, got, Caller{})) next.add(std::move(t), same_state);
      if (next.over_limit()) return Relaxed::over_limit;
    }
    if (next.empty()) return Relaxed::none_allowed;
    states_ = std::move(next);
    return Relaxed::ok;
  }

  // Equal model states merge where State can say so.
  static bool same_state(const State& a, const State& b) {
    if constexpr (std::equality_comparable<State>) return a == b;
    else return (void)a, (void)b, false;
  }

  HeldCandidate<Spec> sut_;
  Worlds states_;  // one, except after crashes (or a relaxed step): every state the model may be in
  std::optional<Cmd> cmd_;
};

/// The steps of a spec that is not plain: the engine's calls of its optional parts go to the
/// spec (a plain spec's steps leave them to the engine's defaults, and compile none of them).
template <class Spec>
class StateMachineStepsWithParts final : public StateMachineSteps<Spec> {
  using Relaxed = StateMachineEngine::Relaxed;

 protected:
  void recover() override { this->spec_recover(); }
  Verdict postcondition(std::size_t world, const Result& got) override { return this->spec_postcondition(world, got); }
  void fork_worlds() override { this->spec_fork_worlds(); }
  std::size_t keep_worlds(const std::vector<bool>& keep) override { return this->spec_keep_worlds(keep); }
  void advance_all() override { this->spec_advance_all(); }
  Relaxed relaxed_next(const Result& got) override { return this->spec_relaxed_next(got); }
  std::string model_state() const override { return this->spec_model_state(); }
  std::string draft_setup() const override { return this->spec_draft_setup(); }
};

template <class Spec>
std::unique_ptr<StateMachineEngine> make_state_machine_steps() {
  if constexpr (plain_state_machine_spec<Spec>) return std::unique_ptr<StateMachineEngine>(new StateMachineSteps<Spec>());
  else return std::unique_ptr<StateMachineEngine>(new StateMachineStepsWithParts<Spec>());
}

/// One case of a state-machine spec (see the library's run_state_machine_case).
template <class Spec>
CaseOutcome run_state_machine_case(Source& src, const CaseParams& params, Trace* trace) {
  return run_state_machine_case(&make_state_machine_steps<Spec>, src, params, trace);
}

/// Says at compile time what a state-machine spec is missing or gets wrong (every front end
/// over a state-machine spec asks it, sequential or parallel).
template <class Spec>
consteval void check_state_machine_spec() {
  static_assert(
      StateMachineSpec<Spec>,
      "duet: a state-machine spec (check_sequential, check_parallel, expect_unsafe) needs types Sut, State, Cmd and functions "
      "`Gen<Cmd> command(const State&)` and `Result run(const Cmd&, Sut&)`");
  static_assert(
      HasExpected<Spec> || HasPostcondition<Spec> || HasNextStates<Spec>,
      "duet: a state-machine spec (check_sequential, check_parallel, expect_unsafe) needs `Result expected(const Cmd&, const State&)` "
      "or `Verdict postcondition(const Cmd&, const State& before, const Result&)`, or, relaxed, "
      "`std::vector<State> next_states(const Cmd&, const State& before, const Result&)`");
  if constexpr (HasNextStates<Spec>) {
    static_assert(!HasExpected<Spec> && !HasPostcondition<Spec>,
                  "duet: a relaxed spec's next_states judges every result: leave expected and postcondition out");
    static_assert(!HasRecover<Spec>,
                  "duet: crash injection (recover) does not combine with a relaxed spec (next_states) yet");
  }
  if constexpr (requires { &Spec::next_states; })
    static_assert(
        HasNextStates<Spec>,
        "duet: Spec::next_states must be `static std::vector<State> next_states(const Cmd&, const State& before, const Result&)` "
        "(or take a duet::Caller after the Result)");
  static_assert(
      NextByValue<Spec> || NextInPlace<Spec> || HasNextStates<Spec>,
      "duet: a state-machine spec (check_sequential, check_parallel, expect_unsafe) needs `State next(const Cmd&, State)` or "
      "`void next(const Cmd&, State&)` (a void next taking the state by value or const& "
      "cannot change it)");
  // An optional member that exists under its name but does not fit would otherwise be
  // silently ignored.
  if constexpr (requires { &Spec::precondition; })
    static_assert(HasPrecondition<Spec>,
                  "duet: Spec::precondition must be `static bool precondition(const Cmd&, const State&)`");
  if constexpr (requires { &Spec::expected; })
    static_assert(HasExpected<Spec>, "duet: Spec::expected must be `static Result expected(const Cmd&, const State&)`");
  if constexpr (requires { &Spec::postcondition; })
    static_assert(HasPostcondition<Spec>,
                  "duet: Spec::postcondition must be `static Verdict postcondition(const Cmd&, const State& before, "
                  "const Result&)` (or return bool)");
  if constexpr (requires { &Spec::init_state; })
    static_assert(
        requires {
          { Spec::init_state() } -> std::convertible_to<typename Spec::State>;
        },
        "duet: Spec::init_state must be `static State init_state()`");
  if constexpr (requires { &Spec::init_sut; })
    static_assert(
        requires { Spec::init_sut(); }, "duet: Spec::init_sut must be `static Sut init_sut()` "
                                        "(or return std::unique_ptr<Sut>)");
  if constexpr (requires { &Spec::setup_cpp; })
    static_assert(
        requires {
          { Spec::setup_cpp() } -> std::convertible_to<std::string>;
        },
        "duet: Spec::setup_cpp must be `static std::string setup_cpp()`");
  if constexpr (requires { &Spec::show; })
    static_assert(
        requires(const typename Spec::Cmd& c) {
          { Spec::show(c) } -> std::convertible_to<std::string>;
        },
        "duet: Spec::show must be `static std::string show(const Cmd&)`");
  if constexpr (requires { &Spec::show_state; })
    static_assert(HasShowState<Spec>, "duet: Spec::show_state must be `static std::string show_state(const State&)`");
  if constexpr (requires { &Spec::show_sut; })
    static_assert(HasShowSut<Spec>, "duet: Spec::show_sut must be `static std::string show_sut(const Sut&)`");
  if constexpr (requires { &Spec::domain; })
    static_assert(
        requires {
          { Spec::domain() } -> std::convertible_to<std::string>;
        },
        "duet: Spec::domain must be `static std::string domain()`");
}

}  // namespace detail
}  // namespace duet
