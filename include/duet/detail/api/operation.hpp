// duet::Api's machinery, part 4: one operation. The outcome of a step, a drawn call for the
// parallel runner, and Op, which draws, runs, compares and binds one operation; with the checks
// Api::op runs before declaring it.
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "duet/detail/api/arguments.hpp"
#include "duet/detail/api/results.hpp"
#include "duet/faults.hpp"

namespace duet {
namespace detail {

struct StepOutcome {
  // spec_error: the spec's own code (an argument generator, a where() predicate) threw.
  enum class Status { done, declined, failed, abandoned, crashed, spec_error } status = Status::done;
  std::string message;               // crashed: the interrupted call, as the report shows it
  std::optional<Step> failing_step;  // failed without a trace: the step as it would be traced
};

/// A drawn call with its arguments bound, for the parallel runner: run on the candidate (on a
/// thread), then judged by the reference on a copy of the reference environment.
struct ApiCall {
  std::string text;
  virtual ~ApiCall() = default;
  /// Points the call's handle arguments at the same handles in another environment.
  virtual void rebind(Env& env) = 0;
  /// Runs the candidate side, keeping what it did.
  virtual void run_candidate() = 0;
  virtual std::string outcome_text() const = 0;
  /// The call as the report shows it: "auto a1 = set(a0, 0, 1)" once its result has been bound.
  virtual std::string shown_call() const = 0;
  /// Runs the reference on env, compares with the candidate's kept outcome, and binds any
  /// abstract result into env. False (with why, if given) when they disagree; `expected`, if
  /// given, receives what the reference found ("7", "throws std::out_of_range").
  virtual bool check_reference(Env& env, std::string* why, std::string* expected = nullptr) = 0;
  /// Runs only the reference on env, for its effect on the arguments (a call a crash
  /// interrupted, taken effect): its result is dropped.
  virtual void apply_reference(Env& env) = 0;
};

struct OpBase {
  std::string name;
  std::vector<std::size_t> result_ids;  // abstract types this operation's result binds
  bool parallel_ok = true;              // false for nondet and reference-less operations
  // false for nondet operations: the reference needs the candidate's result, which a crash
  // never gives, so "taken effect" could not be judged; their fault points do not fire.
  bool crash_ok = true;
  virtual ~OpBase() = default;
  /// The spec error for an argument generator (or where() predicate) that threw: call in a
  /// catch block.
  std::string argument_generator_threw() const { return threw("the spec's argument generator for " + name); }
  virtual StepOutcome step(Source& src, Env& env, Trace* trace) const = 0;
  /// Draws a call (nullptr: no suitable handle here, or the spec's argument generator threw,
  /// which `spec_error` then says, as step() would).
  virtual std::shared_ptr<ApiCall> draw(Source& src, Env& env, std::string& spec_error) const = 0;
};

void record_api_step(Trace* trace, std::string code, std::string observed, bool binds = false);
/// "{s2, s3}": braces around comma-separated C++ identifiers.
bool is_name_list(const std::string& text);
void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation);
Step api_failure_step(std::string code, std::string expected, std::string explanation);
std::string exception_text(const Result& r);  // "std::out_of_range(\"...\")"

// A step's failures and records, as the report shows them (src/frontends/api.cpp).
StepOutcome step_failed(std::string message);
/// A failure at a call: traced, or kept as the failing step when the case runs without a trace.
StepOutcome failed_at(Trace* trace, const std::string& call, std::string expected, std::string explanation,
                      std::string message);
/// The whole (concrete) result differs: the step reads as an assertion of the reference's value.
StepOutcome whole_mismatch(Trace* trace, const std::string& call, const std::string& reference,
                           const std::string& candidate);
/// The results differ at m. A whole concrete result (whole_value) reads as an assertion; a part
/// of a composite one does not.
StepOutcome mismatch_failure(Trace* trace, const std::string& call, const Mismatch& m, bool whole_value);
/// The candidate threw where the spec does not say it may.
StepOutcome undeclared_throw(Trace* trace, const std::string& call, const Result& exception);
/// Prints and records a finished step: "auto a3 = op(...)", "auto [s2, s3] = split(...)",
/// "op(...)  // 7". `kind`: the result spec's kind under may_throw / nondet; `binds`: it holds
/// an abstract type.
void record_finished_step(Trace* trace, Env& env, const std::string& call, const std::string& text, SpecKind kind,
                          bool binds);

/// What a call did: a value (if any) or an exception.
template <class T>
struct Outcome {
  std::optional<T> value;
  Result exception;  // is_exception() when it threw
  bool threw() const { return exception.is_exception(); }
};

template <class F, class Vals, std::size_t... K>
decltype(auto) call_ref(const F& f, Vals& vals, std::index_sequence<K...>) {
  return f(std::get<K>(vals).ref()...);
}
template <class F, class Vals, std::size_t... K>
decltype(auto) call_cand(const F& f, Vals& vals, std::index_sequence<K...>) {
  return f(std::get<K>(vals).cand()...);
}
template <class F, class Vals, class Extra, std::size_t... K>
decltype(auto) call_ref_judging(const F& f, Vals& vals, const Extra& extra, std::index_sequence<K...>) {
  return f(std::get<K>(vals).ref()..., extra);
}

/// Runs f() capturing its value or its exception. Unimplemented, BackOff and the engine's
/// signals (an injected crash, the end of the choice stream) pass through.
template <class T, class F>
Outcome<stored_t<T>> run_capturing(F&& f) {
  Outcome<stored_t<T>> o;
  try {
    if constexpr (std::is_void_v<T>) {
      f();
      o.value.emplace();
    } else {
      o.value.emplace(f());
    }
  } catch (const Unimplemented&) {
    throw;
  } catch (const BackOff&) {
    throw;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    o.exception = Result::current_exception();
  }
  return o;
}

template <bool Solo, class ArgSpecs, class Res, class FR, class FC>
struct Op final : OpBase {
  using Vals = typename arg_values<ArgSpecs>::type;
  static constexpr std::size_t N = std::tuple_size_v<ArgSpecs>;
  using Idx = std::make_index_sequence<N>;

  ArgSpecs specs;
  Res res;
  FR fr;  // unused in solo mode
  FC fc;

  Op(std::string n, ArgSpecs s, Res r, FR ref, FC cand)
      : specs(std::move(s)), res(std::move(r)), fr(std::move(ref)), fc(std::move(cand)) {
    name = std::move(n);
    collect_abstract_ids(res, result_ids);
    parallel_ok = !Solo && Res::spec_kind != SpecKind::nondet;
    crash_ok = Res::spec_kind != SpecKind::nondet;
  }

  StepOutcome step(Source& src, Env& env, Trace* trace) const override {
    for (std::size_t id : result_ids)
      if (env.stores[id]->size() >= env.max_handles) return {StepOutcome::Status::declined, {}, {}};
    Vals vals;
    try {
      if (!make_args(specs, src, env, vals, Idx{})) return {StepOutcome::Status::declined, {}, {}};
    } catch (const Discard&) {
      return {StepOutcome::Status::declined, {}, {}};
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      return {StepOutcome::Status::spec_error, argument_generator_threw(), {}};
    }
    const std::string call = name + "(" + argument_text(vals, Idx{}) + ")";
    announce_call(trace, call);
    try {
      if constexpr (Res::spec_kind == SpecKind::nondet) return step_nondet(vals, call, env, trace);
      else if constexpr (Res::spec_kind == SpecKind::may_throw) return step_may_throw(vals, call, env, trace);
      else return step_plain(vals, call, env, trace);
    } catch (const BackOff&) {
      return {StepOutcome::Status::declined, {}, {}};
    } catch (const Unimplemented&) {
      return {StepOutcome::Status::abandoned, name + " is not implemented by the candidate", {}};
    } catch (const duet::crash&) {
      return {StepOutcome::Status::crashed, call, {}};
    }
  }

  using CR = decltype(call_cand(std::declval<const FC&>(), std::declval<Vals&>(), Idx{}));
  using CV = std::remove_cvref_t<CR>;
  template <bool S = Solo>
  static auto ref_type_probe() {
    if constexpr (S || Res::spec_kind == SpecKind::nondet) return std::type_identity<void>{};
    else return std::type_identity<decltype(call_ref(std::declval<const FR&>(), std::declval<Vals&>(), Idx{}))>{};
  }
  using RR = typename decltype(ref_type_probe())::type;  // void in solo and nondet modes

  struct Call final : ApiCall {
    const Op* op;
    Vals vals;
    Outcome<stored_t<CR>> cand;
    std::string bound;  // what the last check bound, e.g. "a3" or "{s2, s3}"
    void rebind(Env& env) override {
      std::apply([&](auto&... a) { ((a.rebind_fn ? a.rebind_fn(a, env) : void()), ...); }, vals);
    }
    void run_candidate() override {
      cand = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(op->fc, vals, Idx{}); });
    }
    std::string shown_call() const override {
      if constexpr (contains_abstract<Res>()) {
        if (bound.empty()) return text;
        if (is_name_list(bound)) return "auto [" + bound.substr(1, bound.size() - 2) + "] = " + text;
        if (bound.find_first_of("{}") == std::string::npos) return "auto " + bound + " = " + text;
      }
      return text;
    }
    std::string outcome_text() const override {
      if (cand.threw()) return "throws " + cand.exception.exception_type();
      if constexpr (inner_kind<Res>() == SpecKind::abstract) return "";
      if constexpr (std::is_void_v<CV>) return "()";
      else if constexpr (Res::spec_kind == SpecKind::may_throw || Res::spec_kind == SpecKind::nondet)
        return show_under(op->res.spec, *cand.value);
      else return show_under(op->res, *cand.value);
    }
    bool check_reference(Env& env, std::string* why, std::string* expected) override {
      rebind(env);
      if constexpr (Solo || Res::spec_kind == SpecKind::nondet) {
        if (why) *why = "not supported under threads";
        return false;
      } else {
        try {
          return op->judge(vals, cand, env, why, &bound, expected);
        } catch (const BackOff&) {
          if (why) *why = "the reference declines " + op->name + " here";
          return false;
        }
      }
    }
    void apply_reference(Env& env) override {
      rebind(env);
      if constexpr (!Solo && Res::spec_kind != SpecKind::nondet) {
        try {
          (void)run_capturing<RR>([&]() -> decltype(auto) { return call_ref(op->fr, vals, Idx{}); });
        } catch (const BackOff&) {
        }
      }
    }
  };

  std::shared_ptr<ApiCall> draw(Source& src, Env& env, std::string& spec_error) const override {
    for (std::size_t id : result_ids)
      if (env.stores[id]->size() >= env.max_handles) return nullptr;
    auto call = std::make_shared<Call>();
    call->op = this;
    try {
      if (!make_args(specs, src, env, call->vals, Idx{})) return nullptr;
    } catch (const Discard&) {
      return nullptr;
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      spec_error = argument_generator_threw();
      return nullptr;
    }
    call->text = name + "(" + argument_text(call->vals, Idx{}) + ")";
    return call;
  }

  // The reference's verdict on a kept candidate outcome (the parallel runner's oracle step):
  // the same comparison as a sequential step, without moving the candidate's value.
  template <class KeptOutcome>
  bool judge(Vals& vals, const KeptOutcome& c, Env& env, std::string* why, std::string* bound,
             std::string* expected = nullptr) const {
    if constexpr (Solo || Res::spec_kind == SpecKind::nondet) {
      return false;
    } else {
      auto r = run_capturing<RR>([&]() -> decltype(auto) { return call_ref(fr, vals, Idx{}); });
      if (expected) *expected = shown_outcome(r);
      std::string text;
      std::optional<Mismatch> m;
      if constexpr (Res::spec_kind == SpecKind::may_throw) {
        if (r.threw() || c.threw()) {
          if (!(r.threw() && c.threw())) return false;
          return res.equivalent ? res.equivalent(r.exception, c.exception)
                                : r.exception.exception_type() == c.exception.exception_type();
        }
        if constexpr (std::is_void_v<CV>) return true;
        else {
          const bool ok = deconstruct<false>(res.spec, std::move(*r.value), std::as_const(*c.value), env, text, m);
          if (bound) *bound = text;
          return ok;
        }
      } else {
        if (r.threw()) {
          if (why) *why = "the reference implementation of " + name + " threw " + exception_text(r.exception);
          return false;
        }
        if (c.threw()) return false;
        if constexpr (std::is_void_v<CV>) return true;
        else {
          const bool ok = deconstruct<false>(res, std::move(*r.value), std::as_const(*c.value), env, text, m);
          if (bound) *bound = text;
          return ok;
        }
      }
    }
  }

  // What the reference found, as a failure after a crash lists it.
  template <class RefOutcome>
  std::string shown_outcome(const RefOutcome& r) const {
    if (r.threw()) return "that it throws " + exception_text(r.exception);
    if constexpr (contains_abstract<Res>() || std::is_void_v<std::remove_cvref_t<RR>>) {
      return "a result";
    } else if constexpr (Res::spec_kind == SpecKind::may_throw) {
      return show_under(res.spec, *r.value);
    } else {
      return show_under(res, *r.value);
    }
  }

  static constexpr bool whole_value = inner_kind<Res>() == SpecKind::value;
  static void record_done(Trace* trace, Env& env, const std::string& call, const std::string& text) {
    record_finished_step(trace, env, call, text, inner_kind<Res>(), contains_abstract<Res>());
  }

  StepOutcome step_plain(Vals& vals, const std::string& call, Env& env, Trace* trace) const {
    if constexpr (Solo) {
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      if (c.threw()) return undeclared_throw(trace, call, c.exception);
      std::string text;
      std::optional<Mismatch> m;
      if constexpr (!std::is_void_v<CV>) deconstruct<true>(res, std::as_const(*c.value), std::move(*c.value), env, text, m);
      record_done(trace, env, call, text);
      return {};
    } else {
      using RV = std::remove_cvref_t<RR>;
      auto r = run_capturing<RR>([&]() -> decltype(auto) { return call_ref(fr, vals, Idx{}); });
      if (r.threw()) {
        const std::string why = "the reference implementation of " + name + " threw " + exception_text(r.exception) +
                                " (declare the result duet::may_throw(...) if it may)";
        return failed_at(trace, call, "", why, why);
      }
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      if (c.threw()) return undeclared_throw(trace, call, c.exception);
      std::string text;
      std::optional<Mismatch> m;
      bool ok;
      if constexpr (std::is_void_v<CV> || std::is_void_v<RV>) {
        ok = true;  // void on both sides, and the spec unit(): Api::op checked
      } else if constexpr (!contains_abstract<Res>()) {
        // A concrete result: compared in place, so that a failure can print both whole values.
        ok = deconstruct<false>(res, std::as_const(*r.value), std::as_const(*c.value), env, text, m);
        if (!ok) return whole_mismatch(trace, call, show_under(res, *r.value), show_under(res, *c.value));
      } else {
        ok = deconstruct<false>(res, std::move(*r.value), std::move(*c.value), env, text, m);
      }
      if (!ok) return mismatch_failure(trace, call, *m, whole_value);
      record_done(trace, env, call, text);
      return {};
    }
  }

  StepOutcome step_may_throw(Vals& vals, const std::string& call, Env& env, Trace* trace) const {
    const auto& inner = res.spec;
    std::string text;
    std::optional<Mismatch> m;
    if constexpr (Solo) {
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      if (c.threw()) {
        if (trace) record_api_step(trace, call, "throws " + c.exception.exception_type());
        return {};
      }
      if constexpr (!std::is_void_v<CV>)
        deconstruct<true>(inner, std::as_const(*c.value), std::move(*c.value), env, text, m);
      record_done(trace, env, call, text);
      return {};
    } else {
      // The reference runs first, so that it can back off before the candidate runs.
      auto r = run_capturing<RR>([&]() -> decltype(auto) { return call_ref(fr, vals, Idx{}); });
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      const bool rt = r.threw(), ct = c.threw();
      if (rt && ct) {
        const bool same = res.equivalent ? res.equivalent(r.exception, c.exception)
                                         : r.exception.exception_type() == c.exception.exception_type();
        if (same) {
          if (trace) record_api_step(trace, call, "throws " + c.exception.exception_type());
          return {};
        }
        const std::string why =
            "candidate throws " + exception_text(c.exception) + "; the reference throws " + exception_text(r.exception);
        return failed_at(trace, call, "", why, why + " (" + call + ")");
      }
      if (rt || ct) {
        std::string cand_text = ct ? "that it throws " + exception_text(c.exception) : std::string("a result");
        std::string ref_text = rt ? "that it throws " + exception_text(r.exception) : std::string("a result");
        if constexpr (!std::is_void_v<CV>)
          if (!ct) cand_text = show_under(inner, *c.value);
        if constexpr (!std::is_void_v<RR>)
          if (!rt) ref_text = show_under(inner, *r.value);
        return failed_at(trace, call, "", "candidate finds " + cand_text + "; the reference finds " + ref_text,
                         "candidate finds " + cand_text + "; the reference finds " + ref_text + " (" + call + ")");
      }
      bool ok = true;
      if constexpr (!std::is_void_v<CV> && !contains_abstract<Res>()) {
        ok = deconstruct<false>(inner, std::as_const(*r.value), std::as_const(*c.value), env, text, m);
        if (!ok) return whole_mismatch(trace, call, show_under(inner, *r.value), show_under(inner, *c.value));
      } else if constexpr (!std::is_void_v<CV>) {
        ok = deconstruct<false>(inner, std::move(*r.value), std::move(*c.value), env, text, m);
      }
      if (!ok) return mismatch_failure(trace, call, *m, whole_value);
      record_done(trace, env, call, text);
      return {};
    }
  }

  StepOutcome step_nondet(Vals& vals, const std::string& call, Env& env, Trace* trace) const {
    const auto& inner = res.spec;
    if constexpr (decltype(res.spec)::spec_kind == SpecKind::may_throw) {
      // The reference judges the whole outcome: a value or an exception.
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      Result seen = c.threw() ? c.exception : Result();
      if constexpr (!std::is_void_v<CV>)
        if (!c.threw()) seen = Result(*c.value);
      const Verdict v = call_ref_judging(fr, vals, std::as_const(seen), Idx{});
      const std::string shown = c.threw() ? "that it throws " + exception_text(c.exception) : seen.show();
      if (!v.ok) {
        const std::string why = "candidate finds " + shown + (v.why.empty() ? "" : ": " + v.why);
        return failed_at(trace, call, "", why, why + " (" + call + ")");
      }
      if (trace) record_api_step(trace, call, c.threw() ? "throws " + c.exception.exception_type() : shown);
      return {};
    } else {
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      if (c.threw()) {
        const std::string why = "candidate throws " + exception_text(c.exception) +
                                " (declare the result duet::nondet(duet::may_throw(...)) if it may)";
        return failed_at(trace, call, "", why, why + " (" + call + ")");
      }
      const CV& cv = *c.value;
      auto diag = call_ref_judging(fr, vals, cv, Idx{});
      if (!diag.is_valid()) {
        const std::string why = "candidate finds " + show_under(inner, cv) + (diag.why.empty() ? "" : ": " + diag.why);
        return failed_at(trace, call, "", why, why + " (" + call + ")");
      }
      std::string text;
      std::optional<Mismatch> m;
      if (!deconstruct<false>(inner, std::move(*diag.value), std::move(*c.value), env, text, m))
        return mismatch_failure(trace, call, *m, whole_value);
      record_done(trace, env, call, text);
      return {};
    }
  }
};

// ---------------------------------------------------------------------------------------
// Api::op's checks, before it instantiates Op: each failure is one static_assert, from a
// template whose arguments name the types involved, and Op is then not instantiated (no
// cascade of errors from inside it).

template <class>
inline constexpr bool dependent_false = false;

template <class T>
struct is_diagnostic : std::false_type {};
template <class T>
struct is_diagnostic<Diagnostic<T>> : std::true_type {
  using value_type = T;
};

/// An operation with no reference cannot be nondeterministic (the types: the result spec).
template <class Spec>
struct nondet_needs_a_reference {
  static constexpr bool value = false;
  static_assert(dependent_false<Spec>,
                "duet::Api::op: duet::nondet needs a reference implementation to judge the candidate");
};
/// A nondet operation must return a value (the types: the spec, the candidate's return type).
template <class Spec, class CandResult>
struct nondet_needs_a_result {
  static constexpr bool value = false;
  static_assert(dependent_false<Spec>, "duet::Api::op: duet::nondet: the operation must return a value");
};
/// nondet(s): the reference takes the arguments and then the candidate's result, and returns
/// duet::Diagnostic<T> (the types: the reference, the argument types, the candidate's result).
template <class F, class... Args>
struct nondet_reference_judges {
  static constexpr bool value = [] {
    if constexpr (callable_with<F, Args...>) return is_diagnostic<std::remove_cvref_t<call_result_t<F, Args...>>>::value;
    else return false;
  }();
  static_assert(value, "duet::Api::op: the reference of a duet::nondet(...) operation must take the arguments and then "
                       "the candidate's result (as const&), and return duet::Diagnostic<T>: duet::valid(its own value) "
                       "or duet::invalid(why) (the types: nondet_reference_judges<reference, argument types..., "
                       "the candidate's result>)");
};
/// nondet(may_throw(s)): the reference takes the arguments and then a const duet::Result&, and
/// returns a duet::Verdict (or bool).
template <class F, class... Args>
struct nondet_reference_judges_outcome {
  static constexpr bool value = [] {
    if constexpr (callable_with<F, Args...>) return std::is_convertible_v<call_result_t<F, Args...>, Verdict>;
    else return false;
  }();
  static_assert(value, "duet::Api::op: the reference of a duet::nondet(duet::may_throw(...)) operation must take the "
                       "arguments and then a const duet::Result& (what the candidate returned or threw), and return "
                       "a duet::Verdict (the types: nondet_reference_judges_outcome<reference, argument types..., "
                       "const duet::Result>)");
};

/// reference_takes, unless the reference is not called with the arguments alone (Skip).
template <bool Skip, class F, class... Args>
constexpr bool reference_callable() {
  if constexpr (Skip) return true;
  else return reference_takes<F, Args...>::value;
}

/// All of Api::op's checks, in order; false (after exactly one failed static_assert) when the
/// operation cannot be declared.
template <bool Solo, class ArgSpecs, class Res, class FR, class FC>
constexpr bool op_fits() {
  if constexpr (!result_is_a_spec<Res>::value) {
    return false;
  } else if constexpr (!arguments_valid<type_list<>, typename spec_list<ArgSpecs>::type>::value) {
    return false;
  } else {
    return []<class... R, class... C>(std::type_identity<std::tuple<Arg<R, C>...>>) {
      constexpr SpecKind k = Res::spec_kind;
      if constexpr (Solo && k == SpecKind::nondet) {
        return nondet_needs_a_reference<Res>::value;
      } else if constexpr (!reference_callable < Solo || k == SpecKind::nondet, FR, R... > ()) {
        return false;
      } else if constexpr (!candidate_takes<FC, C...>::value) {
        return false;
      } else {
        using CR = call_result_t<FC, C...>;
        if constexpr (Solo) {
          return result_spec_fits<Res, duet::Solo, CR>::value;
        } else if constexpr (k != SpecKind::nondet) {
          return result_spec_fits<Res, call_result_t<FR, R...>, CR>::value;
        } else if constexpr (std::is_void_v<CR>) {
          return nondet_needs_a_result<Res, CR>::value;
        } else if constexpr (decltype(Res::spec)::spec_kind == SpecKind::may_throw) {
          return nondet_reference_judges_outcome<FR, R..., const Result>::value;
        } else if constexpr (!nondet_reference_judges<FR, R..., const std::remove_cvref_t<CR>>::value) {
          return false;
        } else {
          using Judged = std::remove_cvref_t<call_result_t<FR, R..., const std::remove_cvref_t<CR>>>;
          return result_spec_fits<decltype(Res::spec), typename is_diagnostic<Judged>::value_type, CR>::value;
        }
      }
    }(std::type_identity<typename arg_values<ArgSpecs>::type>{});
  }
}

}  // namespace detail
}  // namespace duet
