// A signature-only description (duet::Lin) as the runners read it: its operations, how a call
// is drawn and run, how a subject is made and reset, the signature replay tokens are bound to;
// and the sequential stress check over it (StressSteps). duet::Lin builds a description and
// hands it to the runners through LinAccess; the parallel runner's steps are in
// lin_y_steps.hpp.
// Included by duet/lin.hpp; not a public header.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/case_loop.hpp"
#include "duet/detail/engine.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"
#include "duet/state_machine.hpp"

namespace duet {

template <class T>
class Lin;

namespace detail {

/// A call with its arguments bound: what it prints as, and how to run it on a subject.
template <class T>
struct LinCall {
  std::size_t op = 0;
  std::string text;               // "t.push(3)"
  std::function<Result(T&)> run;  // exceptions propagate
};

/// One operation of a description: its name, how a call of it is drawn, whether it may throw.
template <class T>
struct LinOp {
  std::string name;
  std::function<LinCall<T>(Source&)> generate;
  bool may_throw = false;
};

/// How a call of operation `name` is drawn: arguments drawn left to right from `gens`, printed
/// as `var.name(args)`, bound by value into the call.
template <class T, class F, class... A>
std::function<LinCall<T>(Source&)> lin_call_generator(std::string name, std::string var, F f, std::tuple<Gen<A>...> gens) {
  using R = std::invoke_result_t<F&, T&, A&...>;
  return [name = std::move(name), var = std::move(var), f = std::move(f), gens = std::move(gens)](Source& src) {
    auto bound = std::apply([&](const auto&... g) { return std::tuple<A...>{g(src)...}; }, gens);
    std::string text = var + "." + name + "(";
    std::apply(
        [&](const auto&... a) {
          std::size_t i = 0;
          ((text += (i++ == 0 ? "" : ", ") + duet::show(a)), ...);
        },
        bound);
    text += ")";
    LinCall<T> call;
    call.text = std::move(text);
    call.run = [f, bound](T& subject) mutable -> Result {
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
  };
}

/// What a duet::Lin describes (copies of a Lin share one): the runners' view of it.
template <class T>
struct LinDescription {
  std::string name, var, setup;
  std::function<std::unique_ptr<T>()> make;
  std::function<void(T&)> reset;
  bool custom_init = false;  // make is the spec's (Lin::init), not the default constructor
  std::vector<LinOp<T>> ops;
  std::function<Verdict(const T&)> invariant;
  std::string invariant_cpp;

  /// Draws one call of one of the operations `among` (indices; empty: any) into `call`
  /// (sequential stress and the parallel runner alike). A generator that throws is the spec's
  /// mistake: `failed`, with an error naming the operation's generator in `failure`.
  CaseSteps::Drawn draw_call(Source& src, LinCall<T>& call, StepVerdict& failure,
                             std::span<const std::size_t> among = {}) const {
    using Drawn = CaseSteps::Drawn;
    const std::size_t k = among.empty() ? static_cast<std::size_t>(src.draw(ops.size() - 1))
                                        : among[static_cast<std::size_t>(src.draw(among.size() - 1))];
    try {
      call = ops[k].generate(src);
    } catch (const Discard&) {
      return Drawn::rejected;
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      failure = StepVerdict::error(threw("the spec's argument generator for " + ops[k].name));
      return Drawn::failed;
    }
    call.op = k;
    return Drawn::command;
  }

  /// The operations' names, in the order they were declared.
  std::vector<std::string> op_names() const {
    std::vector<std::string> names;
    for (const LinOp<T>& op : ops) names.push_back(op.name);
    return names;
  }

  std::unique_ptr<T> make_subject() const { return make(); }

  /// A reset was given (Lin::reset).
  bool resets() const { return static_cast<bool>(reset); }

  /// Returns `t` to a fresh subject's state with the reset given (Lin::reset); false without one.
  bool reset_subject(T& t) const {
    if (!reset) return false;
    try {
      reset(t);
    } catch (const std::exception& e) {  // named, wherever it surfaces (a trial, the search)
      throw std::runtime_error(std::string("the spec's `reset` threw: ") + e.what());
    } catch (...) {
      throw std::runtime_error("the spec's `reset` threw");
    }
    return true;
  }

  /// Who makes the subject, as an error names it when that throws.
  const char* maker() const {
    if (reset)
      return custom_init ? "the spec's `init` or `reset`" : "the subject's default constructor or the spec's `reset`";
    return custom_init ? "the spec's `init`" : "the subject's default constructor";
  }

  bool op_may_throw(std::size_t op) const { return ops[op].may_throw; }

  /// "<name>/lin/<op>/<op>...", so that a replay token (which carries its hash) replays only
  /// against the description it came from.
  std::string signature() const {
    std::string s = name + "/lin";
    for (const LinOp<T>& op : ops) s += "/" + op.name;
    return s;
  }
};

/// How the runners reach the description behind a duet::Lin (its friend).
struct LinAccess {
  template <class T>
  static const std::shared_ptr<LinDescription<T>>& description(const Lin<T>& lin) {
    return lin.data_;
  }
};

/// Sequential stress for the case loop: calls drawn from the operations, run on one subject;
/// an undeclared exception, an assertion or a broken invariant fails the call.
template <class T>
class StressSteps final : public CaseSteps {
 public:
  explicit StressSteps(const LinDescription<T>& d) : d_(d) {}
  StepVerdict start(Trace* trace) override {
    if (trace) trace->setup = d_.setup;
    try {
      subject_ = d_.make();
    } catch (...) {
      return StepVerdict::error(threw(d_.maker()));
    }
    return {};
  }
  Drawn draw(Source& src, StepVerdict& failure) override {
    const Drawn drawn = d_.draw_call(src, call_, failure);
    if (drawn == Drawn::command) op_ = call_.op;
    return drawn;
  }
  StepVerdict step(Trace* trace) override {
    announce_call(trace, call_.text);
    try {
      got_ = call_.run(*subject_);
    } catch (...) {
      got_ = Result::current_exception();
    }
    ran_ = true;
    if (trace) record_step(trace, call_.text, got_);
    if (got_.is_exception() && !d_.ops[op_].may_throw)
      return fail_here(trace,
                       "threw " + got_.exception_type() +
                           (got_.exception_message().empty() ? "" : "(" + duet::show(got_.exception_message()) + ")") +
                           " (declare the operation .may_throw() if it may)");
    if (assertion_raised()) return assertion_failed(trace, assertion_message());
    if (d_.invariant) return check_invariant(trace);
    return {};
  }
  StepVerdict assertion_failed(Trace* trace, std::string why) override {
    if (ran_) return fail_here(trace, std::move(why));
    if (trace) record_failure(trace, nullptr, why);
    return StepVerdict::fail(std::move(why));
  }

 private:
  // The invariant after the call; the draft test re-runs the check after the call, instead of
  // failing unconditionally.
  StepVerdict check_invariant(Trace* trace) const {
    Verdict v(true);
    try {
      v = d_.invariant(*subject_);
    } catch (...) {
      v = Verdict::fail(threw("it"));
    }
    if (v.ok) return {};
    Step check;
    check.check = d_.invariant_cpp.empty() ? "duet_invariant(" + d_.var + ")" : d_.invariant_cpp;
    if (d_.invariant_cpp.empty())
      check.check_declaration = "bool duet_invariant(const " + type_name<T>() + "& " + d_.var + ");";
    return fail_here(trace, "the invariant fails" + (v.why.empty() ? std::string() : ": " + v.why), &check);
  }

  // why: what the failing step's comment says; the one-line message adds the call.
  // check: the check that failed after the call, for the draft (Step::check).
  StepVerdict fail_here(Trace* trace, std::string why, const Step* check = nullptr) const {
    std::string message = call_.text + ": " + why;
    auto with_check = [check](Step& step) {
      if (!check) return;
      step.check = check->check;
      step.check_declaration = check->check_declaration;
    };
    if (trace) {
      record_failure(trace, nullptr, std::move(why));
      if (!trace->steps.empty()) with_check(trace->steps.back());
      return StepVerdict::fail(std::move(message));
    }
    Step step = failing_step(call_.text, got_, nullptr, std::move(why));
    with_check(step);
    return StepVerdict::fail(std::move(message), std::move(step));
  }

  const LinDescription<T>& d_;
  std::unique_ptr<T> subject_;
  std::size_t op_ = 0;
  LinCall<T> call_;
  Result got_;
  bool ran_ = false;
};

/// Lin::check_stress: nothing tested without operations or a way to make the subject.
template <class T>
CheckResult check_lin_stress(std::shared_ptr<const LinDescription<T>> description, const Config& config) {
  if (description->ops.empty()) return nothing_tested(description->name, "no operation declared");
  if (!description->make)
    return nothing_tested(description->name,
                          "the subject type is not default-constructible: give duet::Lin::init(make, setup)");
  Property p;
  p.name = description->name;
  p.spec_id = hash32(description->signature());
  p.run_case = [description](Source& src, const CaseParams& params, Trace* trace) {
    StressSteps<T> steps(*description);
    return run_case_loop(steps, src, params, trace);
  };
  return run_property(p, config);
}

}  // namespace detail
}  // namespace duet
