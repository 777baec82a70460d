// A state-machine spec's steps for the sequential case loop (StateMachineSteps: the model's
// expected result, the candidate's run with crash injection, the comparison, the postcondition,
// the transition; after a crash or in a relaxed spec, every state the model may be in), and the
// engine-facing property whose static_asserts say what a spec is missing.
// Included by duet/state_machine.hpp after the vocabulary it uses (Verdict, Caller); not a
// public header.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/possible_worlds.hpp"
#include "duet/detail/state_machine_spec.hpp"
#include "duet/faults.hpp"
#include "duet/result.hpp"

namespace duet {
namespace detail {


/// The part of a state-machine case that does not depend on the spec: what the last step
/// observed, and how a failure of it is recorded (out of line, so that each spec instantiates
/// only the calls into its own code).
class StateMachineStepsBase : public CaseSteps {
 public:
  StepVerdict assertion_failed(Trace* trace, std::string why) override;

 protected:
  // The last command fails with `why`: traced, or kept as the failing step without a trace.
  StepVerdict fail_here(Trace* trace, const Result* want, std::string why) const;
  virtual std::string last_command() const = 0;

  Result got_;
  bool ran_ = false;
};

/// A state-machine spec's steps for the case loop: commands drawn from the model's state, run
/// in lockstep on the candidate and the model.
template <class Spec>
class StateMachineSteps final : public StateMachineStepsBase {
  using Cmd = typename Spec::Cmd;
  using State = typename Spec::State;

 public:
  StateMachineSteps() { no_after_step_checks(); }

  StepVerdict start(Trace* trace) override {
    if (trace) {
      trace->setup = setup_cpp<Spec>();
      trace->draft_setup = draft_setup_cpp<Spec>();
    }
    try {
      sut_ = make_sut<Spec>();
    } catch (...) {
      return StepVerdict::error(threw(sut_maker<Spec>()));
    }
    try {
      states_.restart(initial_state<Spec>());
    } catch (...) {
      return StepVerdict::error(threw("the model's initial state"));
    }
    return {};
  }

  /// The case is over: what it made goes (the model's states before the candidate, as a
  /// destroyed steps object would), the room stays for the next case.
  void finish() {
    cmd_.reset();
    wants_.clear();
    states_.clear();
    sut_.reset();
    got_ = Result();
    ran_ = false;
    src_ = nullptr;
    crashes_ = 0;
  }

  Drawn draw(Source& src, StepVerdict& failure) override {
    src_ = &src;
    std::optional<Cmd> c;
    const Drawn drawn = draw_command<Spec>(src, states_.front(), states_.all(), c, failure);
    if (drawn == Drawn::command) cmd_.emplace(std::move(*c));
    return drawn;
  }

  // Judged in phases, each failing where it happens: the model's expected result, the
  // candidate's run, assertions raised there, the comparison, the postcondition, next.
  StepVerdict step(Trace* trace) override {
    const Cmd& cmd = *cmd_;
    if constexpr (HasNextStates<Spec>) return step_relaxed(trace);
    if (states_.size() > 1) return step_after_crash(trace);
    State& state = states_.front();
    std::vector<Result>& wants = expected_results();
    std::string async_trace;
    if (auto ended = expect_and_run(trace, wants, async_trace)) return std::move(*ended);
    if constexpr (HasExpected<Spec>) {
      const Result& want = wants.front();
      if (!(got_ == want)) return with_async(fail_here(trace, &want, disagreement(got_, &want, {})), trace, async_trace);
    }
    if constexpr (HasPostcondition<Spec>) {
      Verdict v(true);
      try {
        v = Spec::postcondition(cmd, state, got_);
      } catch (...) {
        return fail_here(trace, nullptr, threw("the model's postcondition"));
      }
      if (assertion_raised()) return assertion_failed(trace, assertion_message());
      if (!v.ok) return with_async(fail_here(trace, nullptr, disagreement(got_, nullptr, v.why)), trace, async_trace);
    }
    try {
      apply_next<Spec>(cmd, state);
    } catch (...) {
      return fail_here(trace, nullptr, threw("the model's next()"));
    }
    return {};
  }

 private:
  struct Ran {
    bool crashed = false;
    std::string where;  // the crash's fault point
    std::string error;  // the candidate swallowed a crash
  };

  // Runs the command on the candidate, with crash injection when the spec can recover.
  Ran run_candidate(std::string* async_trace) {
    Ran ran;
    const AsyncTraceScope traced(async_trace);
    if constexpr (HasRecover<Spec>) {
      FaultPlan plan;
      plan.src = src_;
      plan.one_in = crash_one_in<Spec>();
      const FaultScope faults(plan);
      ran.crashed = !run_on_candidate();
      note_caught_crash(plan, ran);
    } else {
      ran.crashed = !run_on_candidate();
    }
    return ran;
  }

  // The candidate's run into got_ (constructed in place: no Result moved on the hot path);
  // false when an injected crash interrupted it.
  bool run_on_candidate() {
    bool done = true;
    try {
      emplace_result(got_, [this] { return Spec::run(*cmd_, *sut_); });
    } catch (const duet::crash&) {
      done = false;
    } catch (const detail::EngineSignal&) {
      throw;
    } catch (...) {
      got_ = Result::current_exception();
    }
    ran_ = true;
    return done;
  }

  // Where the crash struck, and the error when the candidate swallowed it and went on.
  static void note_caught_crash(const FaultPlan& plan, Ran& ran) {
    if (!plan.where.empty()) {
      ran.where = plan.where + " (" + plan.location + ")";
      if (!ran.crashed)
        ran.error = "the candidate caught duet::crash (injected at " + ran.where +
                    ") and went on: a crash must end the operation (let duet::crash through any catch (...))";
    }
  }

  // What each model state expects of this step, one entry per state: one vector for the case,
  // kept at the states' count, so that a step allocates nothing for it (the hot path).
  std::vector<Result>& expected_results() {
    if constexpr (HasExpected<Spec>) {
      if (wants_.size() != states_.size()) wants_.resize(states_.size());
    }
    return wants_;
  }

  // The first phases of a step: what each model state expects (if the spec says), then the
  // candidate's run, recorded. A verdict when the step ends there (a crash, a failure).
  std::optional<StepVerdict> expect_and_run(Trace* trace, std::vector<Result>& wants, std::string& async_trace) {
    if constexpr (HasExpected<Spec>) {
      for (std::size_t i = 0; i < states_.size(); ++i) {
        try {
          emplace_result(wants[i], [&] { return Spec::expected(*cmd_, std::as_const(states_[i])); });
        } catch (...) {
          got_ = Result();
          if (trace) record_step(trace, last_command(), got_);
          return fail_here(trace, nullptr, threw("the model's expected()"));
        }
      }
    }
    if (trace) announce_call(trace, last_command());
    const Ran ran = run_candidate(trace ? &async_trace : nullptr);
    if (ran.crashed) return crashed(trace, ran, std::move(async_trace));
    if (trace) record_step(trace, last_command(), got_);
    if (!ran.error.empty()) return fail_here(trace, nullptr, ran.error);
    if (assertion_raised()) return with_async(assertion_failed(trace, assertion_message()), trace, async_trace);
    return std::nullopt;
  }

  // A crash interrupted the command: the candidate is rebuilt from what persisted, and the
  // model goes on in every state the command may have left (taken effect, or not).
  StepVerdict crashed(Trace* trace, const Ran& ran, std::string async_trace) {
    got_ = Result();
    ++crashes_;
    if (trace) {
      record_step(trace, last_command(), got_);
      trace->steps.back().crash = ran.where;
      trace->steps.back().async_trace = std::move(async_trace);
      trace->no_draft = "a crash was injected; the replay token reproduces it";
    }
    if constexpr (HasRecover<Spec>) {
      fire_crash_listeners(*src_);
      try {
        Spec::recover(*sut_);
      } catch (...) {
        return fail_here(trace, nullptr, threw("the spec's recover() after the crash at " + ran.where));
      }
      if (assertion_raised()) return assertion_failed(trace, assertion_message());
      try {
        states_.fork([this](State& taken) { apply_next<Spec>(*cmd_, taken); });
      } catch (...) {
        return fail_here(trace, nullptr, threw("the model's next()"));
      }
      states_.merge(same_state);
      if (states_.over_limit()) return StepVerdict::error(states_.limit_message("give State an operator=="));
    }
    return {};
  }

  // Equal model states merge where State can say so.
  static bool same_state(const State& a, const State& b) {
    if constexpr (std::equality_comparable<State>) return a == b;
    else return (void)a, (void)b, false;
  }

  // After a crash the model may be in several states: the candidate's result must be what one
  // of them allows; those that disagree are dropped.
  StepVerdict step_after_crash(Trace* trace) {
    const Cmd& cmd = *cmd_;
    std::vector<Result>& wants = expected_results();
    std::string async_trace;
    if (auto ended = expect_and_run(trace, wants, async_trace)) return std::move(*ended);
    std::string why;
    bool postcondition_threw = false;
    std::size_t at = 0;
    const std::size_t kept = states_.keep_if([&](const State& s) {
      const std::size_t i = at++;
      if constexpr (HasExpected<Spec>)
        if (!(got_ == wants[i])) return false;
      if constexpr (HasPostcondition<Spec>) {
        try {
          const Verdict v = Spec::postcondition(cmd, s, got_);
          if (!v.ok && why.empty()) why = v.why;
          return v.ok;
        } catch (...) {
          postcondition_threw = true;
          return false;
        }
      }
      return true;
    });
    if (postcondition_threw) return fail_here(trace, nullptr, threw("the model's postcondition"));
    if (kept == 0) {
      std::string allowed;
      if constexpr (HasExpected<Spec>) {
        std::vector<std::string> shown;
        for (const Result& w : wants) {
          const std::string t = w.show();
          if (std::find(shown.begin(), shown.end(), t) == shown.end()) shown.push_back(t);
        }
        for (std::size_t i = 0; i < shown.size(); ++i)
          allowed += (i == 0 ? "" : i + 1 == shown.size() ? " or " : ", ") + shown[i];
      }
      const std::string explanation = std::string("candidate ") + (got_.is_exception() ? "threw " : "returned ") +
                                      got_.show() + "; after the crash" + (crashes_ > 1 ? "es" : "") + " the model allows " +
                                      (allowed.empty() ? why : allowed) + States::interrupted(crashes_, "command");
      return with_async(fail_here(trace, wants.size() == 1 ? &wants[0] : nullptr, explanation), trace, async_trace);
    }
    for (State& s : states_) {
      try {
        apply_next<Spec>(cmd, s);
      } catch (...) {
        return fail_here(trace, nullptr, threw("the model's next()"));
      }
    }
    states_.merge(same_state);
    return {};
  }

  // A relaxed spec: every state the model may be in sees the result and says which states may
  // follow; the model goes on in all of them, and a result none allows is the failure.
  StepVerdict step_relaxed(Trace* trace) {
    std::vector<Result>& wants = expected_results();
    std::string async_trace;
    if (auto ended = expect_and_run(trace, wants, async_trace)) return std::move(*ended);
    States next;
    for (const State& s : states_) {
      std::vector<State> allowed;
      try {
        allowed = next_states_of<Spec>(*cmd_, s, got_, Caller{});
      } catch (...) {
        return fail_here(trace, nullptr, threw("the model's next_states()"));
      }
      for (State& t : allowed) next.add(std::move(t), same_state);
      if (next.over_limit())
        return StepVerdict::error("more than " + std::to_string(States::kLimit) +
                                  " model states are allowed so far (give State an operator== so that equal ones merge)");
    }
    if (next.empty()) {
      const std::string from =
          states_.size() == 1 ? "its state" : "any of its " + std::to_string(states_.size()) + " possible states";
      return with_async(fail_here(trace, nullptr,
                                  std::string("candidate ") + (got_.is_exception() ? "threw " : "returned ") + got_.show() +
                                      "; the model allows no state after that from " + from),
                        trace, async_trace);
    }
    states_ = std::move(next);
    return {};
  }

  // The failing step shows the async runs it made.
  static StepVerdict with_async(StepVerdict v, Trace* trace, std::string& async_trace) {
    if (trace && !trace->steps.empty() && !v.ok()) trace->steps.back().async_trace = std::move(async_trace);
    return v;
  }

  std::string last_command() const override { return show_command<Spec>(*cmd_); }

  using States = PossibleWorlds<State>;
  std::unique_ptr<typename Spec::Sut> sut_;
  States states_;              // one, except after crashes (or a relaxed step): every state the model may be in
  std::vector<Result> wants_;  // expected_results()
  std::optional<Cmd> cmd_;
  Source* src_ = nullptr;
  std::size_t crashes_ = 0;
};

/// One case of a state-machine spec. Each thread reuses one steps object, case after case, so
/// that a case allocates nothing of its own but the candidate and the model (two allocations
/// a case were a tenth of a sequential check); a case run inside a case gets a fresh one.
template <class Spec>
CaseOutcome run_state_machine_case(Source& src, const CaseParams& params, Trace* trace) {
  // On the heap, and left there when the thread ends in the middle of a case: exit() called by
  // the candidate (which duet reports) must not destroy the candidate and the model under the
  // call, as the thread's own objects are destroyed; a case's own object never was.
  struct PerThread {
    StateMachineSteps<Spec>* steps = nullptr;
    bool in_use = false;
    PerThread() = default;
    PerThread(const PerThread&) = delete;
    PerThread& operator=(const PerThread&) = delete;
    ~PerThread() {
      if (!in_use) delete steps;
    }
  };
  static thread_local PerThread reused;
  if (reused.in_use) {
    StateMachineSteps<Spec> steps;
    return run_case_loop(steps, src, params, trace);
  }
  if (!reused.steps) reused.steps = new StateMachineSteps<Spec>();
  struct Finish {
    PerThread& reused;
    ~Finish() {
      reused.steps->finish();
      reused.in_use = false;
    }
  };
  reused.in_use = true;
  const Finish finish{reused};
  return run_case_loop(*reused.steps, src, params, trace);
}

/// The engine-facing form of a state-machine spec.
template <class Spec>
Property state_machine_property() {
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
  if constexpr (requires { &Spec::domain; })
    static_assert(
        requires {
          { Spec::domain() } -> std::convertible_to<std::string>;
        },
        "duet: Spec::domain must be `static std::string domain()`");
  Property p;
  p.name = type_name<Spec>();
  p.spec_id = hash32(p.name);
  p.run_case = &run_state_machine_case<Spec>;
  if constexpr (requires {
                  { Spec::domain() } -> std::convertible_to<std::string>;
                })
    p.domain = Spec::domain();
  return p;
}

}  // namespace detail
}  // namespace duet
