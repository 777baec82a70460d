// State-machine front end (qcheck-stm shape): a model state, commands generated from it,
// run in lockstep on the model and the real object; the first disagreement is shrunk and
// printed as C++.
//
//   struct Push { int x; };  struct Pop {};
//   std::string duet_show(const Push& p) { return "push(" + duet::show(p.x) + ")"; }
//   std::string duet_show(const Pop&) { return "pop()"; }
//
//   struct QueueSpec {
//     using Sut = MyQueue;                    // the candidate
//     using State = std::deque<int>;          // the model
//     using Cmd = std::variant<Push, Pop>;
//     static constexpr const char* sut_name = "q";            // optional ("sut")
//     static Sut init_sut() { return MyQueue(3); }            // optional (default-constructed)
//     static std::string setup_cpp() { return "MyQueue q(3);"; }  // optional, for the draft test
//     static std::string draft_setup_cpp();  // optional: the draft's instead (several lines may)
//     static duet::Gen<Cmd> command(const State& s);          // may depend on the state
//     static bool precondition(const Cmd&, const State&);     // optional
//     static duet::Result run(const Cmd&, Sut&);              // exceptions are captured
//     static duet::Result expected(const Cmd&, const State&);  // what the model returns, or:
//     // static duet::Verdict postcondition(const Cmd&, const State& before, const duet::Result&);
//     static State next(const Cmd&, State);                    // or void next(const Cmd&, State&)
//     // Relaxed instead (several results allowed): the states the model allows after seeing the
//     // result, none if it is wrong; replaces expected, postcondition and (for judging) next.
//     // static std::vector<State> next_states(const Cmd&, const State& before, const duet::Result&);
//     // ... or with a fourth parameter, duet::Caller, when the rules depend on who called
//     // (FIFO per producer): the thread of the call in a parallel program.
//     // Crash injection (duet/faults.hpp), optional: with recover, every duet::fault_point the
//     // candidate passes may crash it; recover rebuilds it from what persisted, and the model
//     // goes on with the interrupted command taken effect or not, whichever explains what follows.
//     static void recover(Sut&);
//     static constexpr std::uint64_t crash_one_in = 25;          // optional
//   };
//   TEST(Queue, Agrees) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/case_loop.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/possible_worlds.hpp"
#include "duet/faults.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"

namespace duet {

/// A postcondition's answer: a bool, or a failure with an explanation for the report.
///   return r == duet::Result(3) ? duet::Verdict(true) : duet::Verdict::fail("expected 3");
struct Verdict {
  Verdict(bool ok) : ok(ok) {}  // NOLINT: implicit, so postconditions may return bool
  static Verdict fail(std::string why) {
    Verdict v(false);
    v.why = std::move(why);
    return v;
  }
  bool ok;
  std::string why;
};

namespace detail {

template <class Spec>
concept StateMachineSpec = requires(const typename Spec::State& state, const typename Spec::Cmd& cmd,
                                    typename Spec::Sut& sut) {
  typename Spec::Sut;
  typename Spec::State;
  typename Spec::Cmd;
  { Spec::command(state) } -> std::convertible_to<Gen<typename Spec::Cmd>>;
  { Spec::run(cmd, sut) } -> std::convertible_to<Result>;
};

template <class Spec>
concept HasExpected = requires(const typename Spec::State& s, const typename Spec::Cmd& c) {
  { Spec::expected(c, s) } -> std::convertible_to<Result>;
};
template <class Spec>
concept HasPostcondition = requires(const typename Spec::State& s, const typename Spec::Cmd& c, const Result& r) {
  { Spec::postcondition(c, s, r) } -> std::convertible_to<Verdict>;
};
template <class Spec>
concept HasPrecondition = requires(const typename Spec::State& s, const typename Spec::Cmd& c) {
  { Spec::precondition(c, s) } -> std::convertible_to<bool>;
};
template <class Spec>
concept NextByValue = requires(const typename Spec::Cmd& c, typename Spec::State s) {
  { Spec::next(c, std::move(s)) } -> std::convertible_to<typename Spec::State>;
};
template <class Spec>
concept NextInPlace = requires(const typename Spec::Cmd& c, typename Spec::State& s) {
  { Spec::next(c, s) } -> std::same_as<void>;
} && !requires(const typename Spec::Cmd& c, const typename Spec::State& s) {
  Spec::next(c, s);  // a void next() taking the state by value or const& could not change it
};

}  // namespace detail

/// Who made a call, for a relaxed spec whose rules depend on it (a queue that is FIFO per
/// producer): next_states may take it as a fourth parameter.
///
///   static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& r,
///                                         duet::Caller who);   // who.thread: 0, 1, 2...
struct Caller {
  /// A sequential check's calls, and a parallel program's prefix and suffix (they run on the
  /// thread that runs the check).
  static constexpr std::size_t main_thread = 0;
  /// Branch b of a parallel program is thread b + 1 (a thread, or a fiber).
  std::size_t thread = main_thread;
  friend bool operator==(const Caller&, const Caller&) = default;
};

namespace detail {

template <class Spec>
concept NextStatesOfCaller =
    requires(const typename Spec::State& s, const typename Spec::Cmd& c, const Result& r, Caller who) {
      { Spec::next_states(c, s, r, who) } -> std::convertible_to<std::vector<typename Spec::State>>;
    };

/// A relaxed spec: the model sees the candidate's result and says which states it allows next
/// (none: the result is not allowed; several: the model goes on in all of them). It replaces
/// expected, postcondition and next for judging a step; `next`, if the spec also has one, is
/// what generation follows where results are not known yet (the branches of a parallel program).
template <class Spec>
concept HasNextStates = NextStatesOfCaller<Spec> ||
                        requires(const typename Spec::State& s, const typename Spec::Cmd& c, const Result& r) {
                          { Spec::next_states(c, s, r) } -> std::convertible_to<std::vector<typename Spec::State>>;
                        };

/// A relaxed spec's next_states, given the caller when it takes one.
template <class Spec>
std::vector<typename Spec::State> next_states_of(const typename Spec::Cmd& c, const typename Spec::State& s, const Result& r,
                                                 Caller who) {
  if constexpr (NextStatesOfCaller<Spec>) return Spec::next_states(c, s, r, who);
  else return Spec::next_states(c, s, r);
}

/// A spec that says how to rebuild the candidate after a crash: crash injection is on.
template <class Spec>
concept HasRecover = requires(typename Spec::Sut& sut) { Spec::recover(sut); };

template <class Spec>
std::uint64_t crash_one_in() {
  if constexpr (requires { { Spec::crash_one_in } -> std::convertible_to<std::uint64_t>; }) return Spec::crash_one_in;
  else return 25;
}

template <class Spec>
std::string sut_name() {
  if constexpr (requires { Spec::sut_name; }) return std::string(Spec::sut_name);
  else return "sut";
}

template <class Spec>
std::string show_command(const typename Spec::Cmd& cmd) {
  if constexpr (requires { { Spec::show(cmd) } -> std::convertible_to<std::string>; })
    return sut_name<Spec>() + "." + std::string(Spec::show(cmd));
  else
    return sut_name<Spec>() + "." + duet::show(cmd);
}

template <class Spec>
typename Spec::State initial_state() {
  if constexpr (requires { { Spec::init_state() } -> std::convertible_to<typename Spec::State>; })
    return Spec::init_state();
  else return typename Spec::State{};
}

template <class Spec>
std::unique_ptr<typename Spec::Sut> make_sut() {
  using Sut = typename Spec::Sut;
  if constexpr (requires { { Spec::init_sut() } -> std::convertible_to<std::unique_ptr<Sut>>; })
    return Spec::init_sut();
  else if constexpr (requires { Spec::init_sut(); })
    return std::unique_ptr<Sut>(new Sut(Spec::init_sut()));  // prvalue: no move needed
  else return std::make_unique<Sut>();
}

/// Who makes the candidate, as an error names it: the spec's init_sut or the constructor.
template <class Spec>
constexpr const char* sut_maker() {
  if constexpr (requires { Spec::init_sut(); }) return "the spec's `init_sut`";
  else return "the candidate's default constructor";
}

template <class Spec>
std::string setup_cpp() {
  if constexpr (requires { { Spec::setup_cpp() } -> std::convertible_to<std::string>; })
    return Spec::setup_cpp();
  else return duet::type_name<typename Spec::Sut>() + " " + sut_name<Spec>() + ";";
}

/// What a draft test makes the subject with when that is not setup_cpp() (empty: setup_cpp()):
/// the ready-made models give an adapter that calls the subject through its binding, so that
/// the draft's calls (`q.push(0)`) compile whatever the subject's own names are.
template <class Spec>
std::string draft_setup_cpp() {
  if constexpr (requires { { Spec::draft_setup_cpp() } -> std::convertible_to<std::string>; })
    return Spec::draft_setup_cpp();
  else return {};
}

/// The model's transition, whichever form the spec gives: `void next(const Cmd&, State&)` or
/// `State next(const Cmd&, State)`.
template <class Spec>
void apply_next(const typename Spec::Cmd& cmd, typename Spec::State& state) {
  if constexpr (NextInPlace<Spec>) Spec::next(cmd, state);
  else if constexpr (NextByValue<Spec>) state = Spec::next(cmd, std::move(state));
  // else: a relaxed spec without next (generation stays in the state it had), or
  // state_machine_property's static_assert says what is missing, once.
}


/// "candidate returned 0; the model allows 1" (want given), or
/// "candidate threw std::out_of_range(\"...\"); the model does not allow it: why".
std::string disagreement(const Result& got, const Result* want, const std::string& why);
void record_step(Trace* trace, std::string code, const Result& observed);
void record_failure(Trace* trace, const Result* expected, std::string explanation);
/// The failing step as record_step and record_failure would have traced it.
Step failing_step(std::string code, const Result& observed, const Result* expected, std::string explanation);

/// Draws a command from `from` and checks the spec's precondition in every state of `states`
/// (a case after a crash has several; a parallel branch, one). The generator and the
/// precondition are the spec's own code: when they throw, the spec is wrong, not the candidate
/// (an error naming the function, not a failure to shrink). Every front end over a
/// state-machine spec draws through here, sequential or parallel.
template <class Spec>
CaseSteps::Drawn draw_command(Source& src, const typename Spec::State& from,
                              std::span<const typename Spec::State> states, std::optional<typename Spec::Cmd>& out,
                              StepVerdict& failure) {
  using Drawn = CaseSteps::Drawn;
  try {
    out.emplace(Spec::command(from)(src));
  } catch (const Discard&) {
    return Drawn::rejected;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    failure = StepVerdict::error(threw("the spec's generator `command`"));
    return Drawn::failed;
  }
  if constexpr (HasPrecondition<Spec>) {
    try {
      for (const auto& s : states)
        if (!Spec::precondition(*out, s)) return Drawn::rejected;
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      failure = StepVerdict::error(threw("the spec's `precondition`") + " on " + show_command<Spec>(*out));
      return Drawn::failed;
    }
  } else {
    (void)states;
  }
  return Drawn::command;
}

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
      states_ = States(initial_state<Spec>());
    } catch (...) {
      return StepVerdict::error(threw("the model's initial state"));
    }
    return {};
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
    FaultPlan plan;
    std::optional<FaultScope> faults;
    if constexpr (HasRecover<Spec>) {
      plan.src = src_;
      plan.one_in = crash_one_in<Spec>();
      faults.emplace(plan);
    }
    try {
      got_ = Spec::run(*cmd_, *sut_);
    } catch (const duet::crash&) {
      ran.crashed = true;
    } catch (const detail::EngineSignal&) {
      throw;
    } catch (...) {
      got_ = Result::current_exception();
    }
    ran_ = true;
    if (!plan.where.empty()) {
      ran.where = plan.where + " (" + plan.location + ")";
      if (!ran.crashed)
        ran.error = "the candidate caught duet::crash (injected at " + ran.where +
                    ") and went on: a crash must end the operation (let duet::crash through any catch (...))";
    }
    return ran;
  }

  // What each model state expects of this step: one vector for the case, so that a step
  // allocates nothing for it (the hot path).
  std::vector<Result>& expected_results() {
    wants_.clear();
    return wants_;
  }

  // The first phases of a step: what each model state expects (if the spec says), then the
  // candidate's run, recorded. A verdict when the step ends there (a crash, a failure).
  std::optional<StepVerdict> expect_and_run(Trace* trace, std::vector<Result>& wants, std::string& async_trace) {
    if constexpr (HasExpected<Spec>) {
      for (const State& s : states_) {
        try {
          wants.push_back(Spec::expected(*cmd_, s));
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
        for (std::size_t i = 0; i < shown.size(); ++i) allowed += (i == 0 ? "" : i + 1 == shown.size() ? " or " : ", ") + shown[i];
      }
      const std::string explanation =
          std::string("candidate ") + (got_.is_exception() ? "threw " : "returned ") + got_.show() + "; after the crash" +
          (crashes_ > 1 ? "es" : "") + " the model allows " + (allowed.empty() ? why : allowed) +
          States::interrupted(crashes_, "command");
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
      const std::string from = states_.size() == 1 ? "its state" : "any of its " + std::to_string(states_.size()) + " possible states";
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
  States states_;  // one, except after crashes (or a relaxed step): every state the model may be in
  std::vector<Result> wants_;  // expected_results()
  std::optional<Cmd> cmd_;
  Source* src_ = nullptr;
  std::size_t crashes_ = 0;
};

/// One case of a state-machine spec.
template <class Spec>
CaseOutcome run_state_machine_case(Source& src, const CaseParams& params, Trace* trace) {
  StateMachineSteps<Spec> steps;
  return run_case_loop(steps, src, params, trace);
}

/// The engine-facing form of a state-machine spec.
template <class Spec>
Property state_machine_property() {
  static_assert(StateMachineSpec<Spec>,
                "duet: a state-machine spec (check_sequential, check_parallel, expect_unsafe) needs types Sut, State, Cmd and functions "
                "`Gen<Cmd> command(const State&)` and `Result run(const Cmd&, Sut&)`");
  static_assert(HasExpected<Spec> || HasPostcondition<Spec> || HasNextStates<Spec>,
                "duet: a state-machine spec (check_sequential, check_parallel, expect_unsafe) needs `Result expected(const Cmd&, const State&)` "
                "or `Verdict postcondition(const Cmd&, const State& before, const Result&)`, or, relaxed, "
                "`std::vector<State> next_states(const Cmd&, const State& before, const Result&)`");
  if constexpr (HasNextStates<Spec>) {
    static_assert(!HasExpected<Spec> && !HasPostcondition<Spec>,
                  "duet: a relaxed spec's next_states judges every result: leave expected and postcondition out");
    static_assert(!HasRecover<Spec>, "duet: crash injection (recover) does not combine with a relaxed spec (next_states) yet");
  }
  if constexpr (requires { &Spec::next_states; })
    static_assert(HasNextStates<Spec>,
                  "duet: Spec::next_states must be `static std::vector<State> next_states(const Cmd&, const State& before, const Result&)` "
                  "(or take a duet::Caller after the Result)");
  static_assert(NextByValue<Spec> || NextInPlace<Spec> || HasNextStates<Spec>,
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
    static_assert(requires { { Spec::init_state() } -> std::convertible_to<typename Spec::State>; },
                  "duet: Spec::init_state must be `static State init_state()`");
  if constexpr (requires { &Spec::init_sut; })
    static_assert(requires { Spec::init_sut(); }, "duet: Spec::init_sut must be `static Sut init_sut()` "
                                                  "(or return std::unique_ptr<Sut>)");
  if constexpr (requires { &Spec::setup_cpp; })
    static_assert(requires { { Spec::setup_cpp() } -> std::convertible_to<std::string>; },
                  "duet: Spec::setup_cpp must be `static std::string setup_cpp()`");
  if constexpr (requires { &Spec::show; })
    static_assert(requires(const typename Spec::Cmd& c) { { Spec::show(c) } -> std::convertible_to<std::string>; },
                  "duet: Spec::show must be `static std::string show(const Cmd&)`");
  if constexpr (requires { &Spec::domain; })
    static_assert(requires { { Spec::domain() } -> std::convertible_to<std::string>; },
                  "duet: Spec::domain must be `static std::string domain()`");
  Property p;
  p.name = type_name<Spec>();
  p.spec_id = hash32(p.name);
  p.run_case = &run_state_machine_case<Spec>;
  if constexpr (requires { { Spec::domain() } -> std::convertible_to<std::string>; }) p.domain = Spec::domain();
  return p;
}

}  // namespace detail

/// Runs the state-machine spec in lockstep against the candidate: random command sequences
/// until the budget runs out (about a second by default), shrinking and reporting the first
/// disagreement.
///
///   TEST(RingBuffer, AgreesWithDeque) {
///     EXPECT_TRUE(duet::check_sequential<RingBufferSpec>({.count = 10000}));
///   }
template <class Spec>
CheckResult check_sequential(const Config& config = {}) {
  return detail::run_property(detail::searching_case_runs(detail::state_machine_property<Spec>()), config);
}

/// Runs the one case that `bytes` describe: the entry point for coverage-guided fuzzers
/// (libFuzzer, AFL++), which then steer generation. Running out of bytes ends the case
/// cleanly; a failure is shrunk and reported as usual, with a replay token.
///
///   extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
///     auto r = duet::check_sequential_bytes<QueueSpec>({data, size});
///     if (r.status != duet::CheckResult::Status::passed) { std::fputs(r.report.c_str(), stderr); std::abort(); }
///     return 0;
///   }
template <class Spec>
CheckResult check_sequential_bytes(std::span<const std::uint8_t> bytes, const Config& config = {}) {
  return detail::run_property(detail::searching_case_runs(detail::state_machine_property<Spec>()), config, bytes);
}



}  // namespace duet
