// A signature-only description (duet::Lin) as the runners read it: its operations, how a call
// is drawn and run, how a subject is made and reset, the signature replay tokens are bound to.
// The subject's type is erased (LinSubject): duet::Lin<T> binds the operations, the maker and
// the checks to T, and everything that runs them (the sequential stress check, the parallel
// runner's steps in lin_y_steps.hpp) is compiled once in the library (src/frontends/lin.cpp),
// not in every test file.
// Included by duet/lin.hpp after the vocabulary it uses (Result, Gen, Verdict); not a public
// header.
#pragma once

#include <any>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/scenario_args.hpp"

namespace duet {

template <class T>
class Lin;

namespace detail {

/// A subject of a duet::Lin, its type erased: `object` is the T the operations run on (they
/// cast it back; Lin<T> bound them). Deleting it destroys the T.
struct LinSubject {
  void* object = nullptr;
  LinSubject() = default;
  LinSubject(const LinSubject&) = delete;
  LinSubject& operator=(const LinSubject&) = delete;
  virtual ~LinSubject() = default;
};

/// A subject made by T's default constructor, in place (one allocation, as make_unique<T>()).
template <class T>
struct LinSubjectValue final : LinSubject {
  T value = T();
  LinSubjectValue() { object = &value; }
};

/// A subject made by Lin::init's function.
template <class T>
struct LinSubjectHeld final : LinSubject {
  std::unique_ptr<T> held;
  explicit LinSubjectHeld(std::unique_ptr<T> made) : held(std::move(made)) { object = held.get(); }
};

/// A call with its arguments bound: what it prints as, and how to run it on a subject (the
/// LinSubject's object).
struct LinCall {
  std::size_t op = 0;
  std::string text;                  // "t.push(3)"
  std::function<Result(void*)> run;  // exceptions propagate
};

/// One operation of a description: its name, how a call of it is drawn or bound to a
/// scenario's arguments (why they do not fit, or empty), whether it may throw.
struct LinOp {
  std::string name;
  std::function<LinCall(Source&)> generate;
  std::function<std::string(const std::vector<std::any>&, LinCall&)> bind;
  bool may_throw = false;
  // Its arguments are numbers, chars or strings: a call prints as a scenario's (duet::call).
  bool literal_args = false;
};

/// A call of `f` with its arguments `bound` (by value), printed as `var.name(args)`.
template <class T, class F, class... A>
LinCall lin_bound_call(const std::string& name, const std::string& var, const F& f, std::tuple<A...> bound) {
  using R = std::invoke_result_t<F&, T&, A&...>;
  std::string text = var + "." + name + "(";
  std::apply(
      [&](const auto&... a) {
        std::size_t i = 0;
        ((text += (i++ == 0 ? "" : ", ") + duet::show(a)), ...);
      },
      bound);
  text += ")";
  LinCall call;
  call.text = std::move(text);
  call.run = [f, bound = std::move(bound)](void* object) mutable -> Result {
    T& subject = *static_cast<T*>(object);
    auto args = bound;  // a copy: an operation that changes its arguments must not change the call
    return std::apply(
        [&](auto&... a) -> Result {
          if constexpr (std::is_void_v<R>) {
            f(subject, a...);
            return Result();
          } else {
            return Result(f(subject, a...));
          }
        },
        args);
  };
  return call;
}

/// How a call of operation `name` is drawn: arguments drawn left to right from `gens`, printed
/// as `var.name(args)`, bound by value into the call.
template <class T, class F, class... A>
std::function<LinCall(Source&)> lin_call_generator(std::string name, std::string var, F f, std::tuple<Gen<A>...> gens) {
  return [name = std::move(name), var = std::move(var), f = std::move(f), gens = std::move(gens)](Source& src) {
    return lin_bound_call<T>(name, var, f, std::apply([&](const auto&... g) { return std::tuple<A...>{g(src)...}; }, gens));
  };
}

/// How a scenario's call of operation `name` is bound: each argument converted to its
/// parameter's type (duet::detail::scenario_arg); why they do not fit, or empty.
template <class T, class F, class... A>
std::function<std::string(const std::vector<std::any>&, LinCall&)> lin_call_binder(std::string name, std::string var, F f) {
  return [name = std::move(name), var = std::move(var), f = std::move(f)](const std::vector<std::any>& args,
                                                                          LinCall& call) -> std::string {
    if (std::string why = scenario_arity_error(name, args.size(), sizeof...(A)); !why.empty()) return why;
    std::string why;
    auto converted = [&]<std::size_t... K>(std::index_sequence<K...>) {
      return std::tuple<std::optional<A>...>{scenario_arg<A>(args[K])...};
    }
    (std::index_sequence_for<A...>{});
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((why.empty() && !std::get<K>(converted) ? (void)(why = scenario_arg_error(name, K, args[K], type_name<A>()))
                                               : (void)0),
       ...);
    }
    (std::index_sequence_for<A...>{});
    if (!why.empty()) return why;
    call = lin_bound_call<T>(name, var, f,
                             std::apply([](auto&... a) { return std::tuple<A...>{std::move(*a)...}; }, converted));
    return {};
  };
}

/// What a duet::Lin describes (copies of a Lin share one): the runners' view of it.
struct LinDescription {
  std::string name, var, setup;
  std::string subject_type;  // the subject's type as C++ spells it (a draft's declarations)
  std::function<std::unique_ptr<LinSubject>()> make;
  std::function<void(void*)> reset;
  bool custom_init = false;  // make is the spec's (Lin::init), not the default constructor
  std::vector<LinOp> ops;
  std::function<Verdict(const void*)> invariant;
  std::string invariant_cpp;
  std::function<std::string(const void*)> show_state;  // Lin::state, or none

  /// A description of the check `name` over a subject of the type C++ spells `subject_type`,
  /// whose variable in reports is `var` (made by its default constructor unless Lin::init says).
  LinDescription(std::string name, std::string var, std::string subject_type);

  /// Adds an operation (Lin::op): out of line, so that a test file compiles no vector growth.
  void add_op(LinOp op);

  /// The subject as Lin::state prints it; a printer that throws says so in its place.
  std::string printed_state(const LinSubject& t) const;

  /// Draws one call of one of the operations `among` (indices; empty: any) into `call`
  /// (sequential stress and the parallel runner alike). A generator that throws is the spec's
  /// mistake: `failed`, with an error naming the operation's generator in `failure`.
  CaseSteps::Drawn draw_call(Source& src, LinCall& call, StepVerdict& failure,
                             std::span<const std::size_t> among = {}) const;

  /// Why the description cannot be checked, or empty: no operation, no way to make the subject,
  /// two operations of one name (their calls would print alike), or a name a report cannot print
  /// (empty, or with a newline). Every entry point (check_stress, and check_parallel,
  /// expect_unsafe and stress_parallel on any executor) ends with this error before any case.
  std::string spec_error() const;

  /// The operations' names, in the order they were declared.
  std::vector<std::string> op_names() const;

  std::unique_ptr<LinSubject> make_subject() const { return make(); }

  /// A reset was given (Lin::reset).
  bool resets() const { return static_cast<bool>(reset); }

  /// Returns `t` to a fresh subject's state with the reset given (Lin::reset); false without one.
  bool reset_subject(LinSubject& t) const;

  /// Who makes the subject, as an error names it when that throws.
  const char* maker() const;

  bool op_may_throw(std::size_t op) const { return ops[op].may_throw; }

  /// A scenario's call bound to its operation (found by name) into `call`; why it cannot be (an
  /// unknown operation, arguments that do not fit), or empty.
  std::string bind_call(const Call& given, LinCall& call) const;

  /// "<name>/lin/<op>/<op>...", so that a replay token (which carries its hash) replays only
  /// against the description it came from.
  std::string signature() const;
};

/// A new description (LinDescription's constructor), made in the library: a test file then
/// compiles no shared_ptr control block of its own.
std::shared_ptr<LinDescription> new_lin_description(std::string name, std::string var, std::string subject_type);

/// How the runners reach the description behind a duet::Lin (its friend).
struct LinAccess {
  template <class T>
  static const std::shared_ptr<LinDescription>& description(const Lin<T>& lin) {
    return lin.data_;
  }
};

/// Lin::check_stress, sequential stress: calls drawn from the operations, run on one subject;
/// an undeclared exception, an assertion or a broken invariant fails the call. Nothing tested
/// when the description has a mistake (LinDescription::spec_error).
CheckResult check_lin_stress(std::shared_ptr<const LinDescription> description, const Config& config);

}  // namespace detail
}  // namespace duet
