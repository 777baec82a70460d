// A state-machine spec as the engine reads it: the concepts that say which optional members a
// spec has, the accessors that supply their defaults (the candidate's maker, the model's initial
// state, how a command prints, the model's transition in either form), and draw_command, through
// which every front end over a state-machine spec draws, sequential or parallel.
// Included by duet/state_machine.hpp after the vocabulary it uses (Verdict, Caller, Result, Gen);
// not a public header.
#pragma once

#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/trace_steps.hpp"

namespace duet {
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
}
&&!requires(const typename Spec::Cmd& c, const typename Spec::State& s) {
  Spec::next(c, s);  // a void next() taking the state by value or const& could not change it
};

template <class Spec>
concept NextStatesOfCaller = requires(const typename Spec::State& s, const typename Spec::Cmd& c, const Result& r,
                                      Caller who) {
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
concept HasRecover = requires(typename Spec::Sut& sut) {
  Spec::recover(sut);
};

template <class Spec>
std::uint64_t crash_one_in() {
  if constexpr (requires {
                  { Spec::crash_one_in } -> std::convertible_to<std::uint64_t>;
                })
    return Spec::crash_one_in;
  else return 25;
}

template <class Spec>
std::string sut_name() {
  if constexpr (requires { Spec::sut_name; }) return std::string(Spec::sut_name);
  else return "sut";
}

/// "q.push(3)": a command as a call on the subject named `sut_name` (out of line, for
/// show_command).
std::string command_text(std::string_view sut_name, const std::string& shown);

template <class Spec>
std::string show_command(const typename Spec::Cmd& cmd) {
  std::string_view sut = "sut";
  if constexpr (requires { Spec::sut_name; }) sut = Spec::sut_name;
  if constexpr (requires {
                  { Spec::show(cmd) } -> std::convertible_to<std::string>;
                })
    return command_text(sut, std::string(Spec::show(cmd)));
  else return command_text(sut, duet::show(cmd));
}

/// A spec that prints its model's state for reports: `static std::string show_state(const
/// State&)`. Opt-in: a spec without it reports as before.
template <class Spec>
concept HasShowState = requires(const typename Spec::State& s) {
  { Spec::show_state(s) } -> std::convertible_to<std::string>;
};

/// A spec that prints its candidate for reports: `static std::string show_sut(const Sut&)`
/// (where a parallel program's run ended).
template <class Spec>
concept HasShowSut = requires(const typename Spec::Sut& s) {
  { Spec::show_sut(s) } -> std::convertible_to<std::string>;
};

/// The model's states as reports show them: the one state, or every state the model may be in
/// (after a crash, a relaxed step), "a or b". Empty when the spec does not print its state.
template <class Spec, class States>
std::string show_states(const States& states) {
  std::string text;
  if constexpr (HasShowState<Spec>) {
    for (const auto& s : states) {
      if (!text.empty()) text += " or ";
      text += std::string(Spec::show_state(s));
    }
  } else {
    (void)states;
  }
  return text;
}

template <class Spec>
typename Spec::State initial_state() {
  if constexpr (requires {
                  { Spec::init_state() } -> std::convertible_to<typename Spec::State>;
                })
    return Spec::init_state();
  else return typename Spec::State{};
}

/// The spec's maker (init_sut, Lin::init) returned a null pointer: there is nothing to test, and
/// it is the spec's mistake, so the check ends with an error naming `maker` (an EngineError),
/// never with a failure of the candidate found by dereferencing it.
[[noreturn]] void null_subject(const char* maker);

template <class Spec>
std::unique_ptr<typename Spec::Sut> make_sut() {
  using Sut = typename Spec::Sut;
  if constexpr (requires {
                  { Spec::init_sut() } -> std::convertible_to<std::unique_ptr<Sut>>;
                }) {
    std::unique_ptr<Sut> made = Spec::init_sut();
    if (!made) null_subject("the spec's `init_sut`");
    return made;
  } else if constexpr (requires { Spec::init_sut(); })
    return std::unique_ptr<Sut>(new Sut(Spec::init_sut()));  // prvalue: no move needed
  else return std::make_unique<Sut>();
}

/// A sequential case's candidate, made in place when the spec makes it by value (its default
/// constructor, or an init_sut returning a Sut): a steps object reused case after case then
/// allocates nothing for it (it was one allocation and one free per case, about 2% of a
/// sequential check). Behind the spec's own pointer when init_sut returns one.
template <class Spec>
class HeldCandidate {
  using Sut = typename Spec::Sut;
  static constexpr bool kByPointer = requires {
    { Spec::init_sut() } -> std::convertible_to<std::unique_ptr<Sut>>;
  };

 public:
  HeldCandidate() = default;
  HeldCandidate(const HeldCandidate&) = delete;
  HeldCandidate& operator=(const HeldCandidate&) = delete;
  ~HeldCandidate() { reset(); }

  /// Makes a new candidate (the one before, if any, goes first); when making it throws, none is held.
  void make() {
    reset();
    if constexpr (kByPointer) {
      pointer_ = Spec::init_sut();
      if (!pointer_) null_subject("the spec's `init_sut`");
    } else {
      if constexpr (requires { Spec::init_sut(); }) ::new (static_cast<void*>(storage_)) Sut(Spec::init_sut());
      else ::new (static_cast<void*>(storage_)) Sut();
      held_ = true;
    }
  }
  void reset() noexcept {
    if constexpr (kByPointer) {
      pointer_.reset();
    } else if (held_) {
      held_ = false;
      get().~Sut();
    }
  }
  Sut& operator*() noexcept {
    if constexpr (kByPointer) return *pointer_;
    else return get();
  }

 private:
  Sut& get() noexcept { return *std::launder(reinterpret_cast<Sut*>(storage_)); }

  struct Nothing {};
  [[no_unique_address]] std::conditional_t<kByPointer, std::unique_ptr<Sut>, Nothing> pointer_;
  alignas(Sut) unsigned char storage_[kByPointer ? 1 : sizeof(Sut)];
  bool held_ = false;
};

/// Who makes the candidate, as an error names it: the spec's init_sut or the constructor.
template <class Spec>
constexpr const char* sut_maker() {
  if constexpr (requires { Spec::init_sut(); }) return "the spec's `init_sut`";
  else return "the candidate's default constructor";
}

template <class Spec>
std::string setup_cpp() {
  if constexpr (requires {
                  { Spec::setup_cpp() } -> std::convertible_to<std::string>;
                })
    return Spec::setup_cpp();
  else return duet::type_name<typename Spec::Sut>() + " " + sut_name<Spec>() + ";";
}

/// What a draft test makes the subject with when that is not setup_cpp() (empty: setup_cpp()):
/// the ready-made models give an adapter that calls the subject through its binding, so that
/// the draft's calls (`q.push(0)`) compile whatever the subject's own names are.
template <class Spec>
std::string draft_setup_cpp() {
  if constexpr (requires {
                  { Spec::draft_setup_cpp() } -> std::convertible_to<std::string>;
                })
    return Spec::draft_setup_cpp();
  else return {};
}

/// What the calls' arguments are drawn from, when the spec says (Property::domain).
template <class Spec>
std::string spec_domain() {
  if constexpr (requires {
                  { Spec::domain() } -> std::convertible_to<std::string>;
                })
    return Spec::domain();
  else return {};
}

/// The model's transition, whichever form the spec gives: `void next(const Cmd&, State&)` or
/// `State next(const Cmd&, State)`.
template <class Spec>
void apply_next(const typename Spec::Cmd& cmd, typename Spec::State& state) {
  if constexpr (NextInPlace<Spec>) Spec::next(cmd, state);
  else if constexpr (NextByValue<Spec>) state = Spec::next(cmd, std::move(state));
  // else: a relaxed spec without next (generation stays in the state it had), or
  // check_state_machine_spec's static_assert says what is missing, once.
}


/// What a draw whose generator threw comes to (called in the catch block): duet::Discard is a
/// rejection, an engine signal goes on, anything else is the spec's generator failing (an error
/// in `failure`). Out of line, as the precondition's below: a spec's draw only calls.
CaseSteps::Drawn generator_threw(StepVerdict& failure);
/// The same for a precondition that threw on `command` (as the command prints).
CaseSteps::Drawn precondition_threw(StepVerdict& failure, const std::string& command);

/// Draws a command from `from` and checks the spec's precondition in every state of `states`
/// (a case after a crash has several; a parallel branch, one). The generator and the
/// precondition are the spec's own code: when they throw, the spec is wrong, not the candidate
/// (an error naming the function, not a failure to shrink). Every front end over a
/// state-machine spec draws through here, sequential or parallel.
template <class Spec>
CaseSteps::Drawn draw_command(Source& src, const typename Spec::State& from, std::span<const typename Spec::State> states,
                              std::optional<typename Spec::Cmd>& out, StepVerdict& failure) {
  try {
    const auto& generator = Spec::command(from);  // a spec may return a reference: no copy then
    out.emplace(generator(src));
  } catch (...) {
    return generator_threw(failure);
  }
  if constexpr (HasPrecondition<Spec>) {
    try {
      for (const auto& s : states)
        if (!Spec::precondition(*out, s)) return CaseSteps::Drawn::rejected;
    } catch (...) {
      return precondition_threw(failure, show_command<Spec>(*out));
    }
  } else {
    (void)states;
  }
  return CaseSteps::Drawn::command;
}

}  // namespace detail
}  // namespace duet
