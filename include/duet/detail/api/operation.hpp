// duet::Api's machinery, part 4: one operation. Op holds an operation's specs and its two
// implementations; each call drawn of it is an ApiCall, whose typed part (Op::Call) does only
// what needs the user's types: drawing the arguments, calling the reference and the candidate,
// deconstructing and printing their results. Running a call, judging it and reporting it is
// compiled once, in the library (src/frontends/api.cpp); so are the checks Api::op runs before
// declaring an operation, at the end of this file.
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "duet/detail/api/arguments.hpp"
#include "duet/detail/api/results.hpp"

namespace duet {
namespace detail {

/// What the engine needs to know of an operation's result spec to run and judge its calls.
struct OpShape {
  SpecKind kind = SpecKind::value;   // the result spec's own kind: may_throw, nondet, or the result's
  SpecKind inner = SpecKind::value;  // the result's kind under may_throw and nondet
  bool solo = false;                 // no reference (invariant-only mode)
  bool binds = false;                // the result holds an abstract type
  bool returns_void = false;         // the candidate returns void (and so does the reference)
  bool judges_outcome = false;       // nondet(may_throw(...)): the reference judges a duet::Result
  /// may_throw's equivalence of the two sides' exceptions, when one was given.
  const std::function<bool(const Result&, const Result&)>* equivalent = nullptr;
  /// The reference runs before the candidate, so that it can decline (duet::BackOff) first.
  bool reference_first() const { return !solo && kind != SpecKind::nondet; }
};

struct OpBase;

/// One drawn call of an operation: its arguments and what each side did. The engine runs and
/// judges it through the functions below; the parallel runner keeps the candidate's outcome
/// and has the reference judge it again on each state the search tries.
class ApiCall {
 public:
  explicit ApiCall(const OpBase& op) : op(&op) {}
  virtual ~ApiCall() = default;
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  const OpBase* op;
  std::string text;        // the call as the report shows it: "set(a0, 0, 1)"
  std::string bound;       // what the last judgement bound its result to: "a3", "{s2, s3}"
  Result reference_threw;  // is_exception() when the reference threw
  Result candidate_threw;  // is_exception() when the candidate threw

  /// Forgets the last arguments and results, draws new arguments (false: no suitable handle)
  /// and sets `text`. Argument generators may throw.
  virtual bool draw_arguments(Source& src, Env& env) = 0;
  /// Points the call's handle arguments at the same handles in another environment.
  virtual void rebind(Env& env) = 0;
  /// Runs one side, keeping its value or its exception. Unimplemented, BackOff and the
  /// engine's signals (an injected crash, the end of the choice stream) pass through.
  virtual void run_reference() = 0;
  virtual void run_candidate() = 0;
  /// A nondet operation's reference judges the candidate's outcome (`seen`: its exception, or
  /// void, on entry; its value is added here). False, with the reference's why, when invalid.
  virtual bool judge_candidate(Result& seen, std::string& why) = 0;
  /// Deconstructs the two results under the spec: concrete parts compared, abstract parts
  /// bound as new handles in env (the candidate's value copied when `keep_candidate`, for a
  /// parallel call judged again). `shown` receives what the step prints.
  virtual bool deconstruct(Env& env, bool keep_candidate, std::string& shown, std::optional<Mismatch>& mismatch) = 0;
  /// A side's value as its result spec prints it.
  virtual std::string show_reference() const = 0;
  virtual std::string show_candidate() const = 0;
  /// Drops the arguments and the results (a sequential step's call, kept for the next draw).
  virtual void release() = 0;
};

struct OpBase {
  std::string name;
  std::vector<std::size_t> result_ids;  // abstract types this operation's result binds
  OpShape shape;
  bool parallel_ok = true;  // false for nondet and reference-less operations
  // false for nondet operations: the reference needs the candidate's result, which a crash
  // never gives, so "taken effect" could not be judged; their fault points do not fire.
  bool crash_ok = true;
  OpBase(std::string name, const OpShape& shape);
  virtual ~OpBase();
  OpBase(const OpBase&) = delete;
  OpBase& operator=(const OpBase&) = delete;
  /// A new call of this operation, before its arguments are drawn.
  virtual std::unique_ptr<ApiCall> new_call() const = 0;
};

// A step's lines in a trace (src/report/trace.cpp).
void record_api_step(Trace* trace, std::string code, std::string observed, bool binds = false);
void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation);
Step api_failure_step(std::string code, std::string expected, std::string explanation);
std::string exception_text(const Result& r);  // "std::out_of_range(\"...\")"

/// Runs `call`, keeping its exception in `exception` (compiled once; see ApiCall::run_reference).
void run_captured(Result& exception, void* context, void (*call)(void*));
template <class F>
void run_captured(Result& exception, F&& f) {
  run_captured(exception, static_cast<void*>(std::addressof(f)),
               [](void* context) { (*static_cast<std::remove_reference_t<F>*>(context))(); });
}
/// "name(a, b, c)" from the arguments' texts.
std::string call_text(const std::string& name, const std::string* const* arguments, std::size_t count);

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

template <class T>
struct is_diagnostic : std::false_type {};
template <class T>
struct is_diagnostic<Diagnostic<T>> : std::true_type {
  using value_type = T;
};

/// A value a call keeps from its run to its release(): an optional that leaves its destruction
/// to release() (which the call's destructor calls too), so that each call type destroys its
/// values in one function rather than in each of its destructors.
template <class T>
class Kept {
 public:
  Kept() noexcept {}  // the union member is not constructed (= default would be deleted)
  ~Kept() {}          // nor destroyed: the owner's release() destroys it
  Kept(const Kept&) = delete;
  Kept& operator=(const Kept&) = delete;

  template <class... A>
  T& emplace(A&&... args) {
    reset();
    ::new (static_cast<void*>(std::addressof(value_))) T(std::forward<A>(args)...);
    engaged_ = true;
    return value_;
  }
  void reset() noexcept {
    if (!engaged_) return;
    value_.~T();
    engaged_ = false;
  }
  T& operator*() { return value_; }
  const T& operator*() const { return value_; }
  /// Whether a value is held: a call drawn but not run yet has none (a program shown before
  /// its trials).
  bool engaged() const noexcept { return engaged_; }

 private:
  union {
    T value_;
  };
  bool engaged_ = false;
};

/// What a call's result is kept as: `slot` holds f()'s value (std::monostate for void).
template <class Slot, class F>
void keep_result(Kept<Slot>& slot, F&& f) {
  if constexpr (std::is_void_v<decltype(f())>) {
    f();
    slot.emplace();
  } else {
    slot.emplace(f());
  }
}

/// The spec a result is deconstructed and printed under: the one inside may_throw and nondet.
template <class S>
struct inner_spec {
  using type = S;
};
template <class S>
  requires(S::spec_kind == SpecKind::may_throw || S::spec_kind == SpecKind::nondet)
struct inner_spec<S> {
  using type = decltype(S::spec);
};

template <bool Solo, class ArgSpecs, class Res, class FR, class FC>
struct Op final : OpBase {
  using Vals = typename arg_values<ArgSpecs>::type;
  static constexpr std::size_t N = std::tuple_size_v<ArgSpecs>;
  using Idx = std::make_index_sequence<N>;
  static constexpr SpecKind kind = Res::spec_kind;
  static constexpr bool nondet = kind == SpecKind::nondet;

  // The candidate's result (CR) and the reference's (RR: void in solo and nondet modes).
  using CR = decltype(call_cand(std::declval<const FC&>(), std::declval<Vals&>(), Idx{}));
  template <bool S = Solo>
  static auto ref_type_probe() {
    if constexpr (S || nondet) return std::type_identity<void>{};
    else return std::type_identity<decltype(call_ref(std::declval<const FR&>(), std::declval<Vals&>(), Idx{}))>{};
  }
  using RR = typename decltype(ref_type_probe())::type;
  // The spec the results are deconstructed and printed under: may_throw's and nondet's inside.
  using Inner = typename inner_spec<Res>::type;
  static constexpr bool judges_outcome = [] {
    if constexpr (nondet) return Inner::spec_kind == SpecKind::may_throw;
    else return false;
  }();
  // What the reference side keeps: its result, or the value a nondet reference's judgement gives.
  template <bool S = Solo>
  static auto kept_type_probe() {
    if constexpr (S || judges_outcome) {
      return std::type_identity<std::monostate>{};
    } else if constexpr (nondet) {
      using Judged = decltype(call_ref_judging(std::declval<const FR&>(), std::declval<Vals&>(),
                                               std::declval<const std::remove_cvref_t<CR>&>(), Idx{}));
      return std::type_identity<typename is_diagnostic<std::remove_cvref_t<Judged>>::value_type>{};
    } else {
      return std::type_identity<stored_t<RR>>{};
    }
  }
  using RefKept = typename decltype(kept_type_probe())::type;

  ArgSpecs specs;
  Res res;
  FR fr;  // unused in solo mode
  FC fc;

  Op(std::string n, ArgSpecs s, Res r, FR ref, FC cand)
      : OpBase(std::move(n), {kind, inner_kind<Res>(), Solo, contains_abstract<Res>(), std::is_void_v<CR>, judges_outcome}),
        specs(std::move(s)),
        res(std::move(r)),
        fr(std::move(ref)),
        fc(std::move(cand)) {
    collect_abstract_ids(res, result_ids);
    if constexpr (kind == SpecKind::may_throw)
      if (res.equivalent) shape.equivalent = &res.equivalent;
  }

  const Inner& inner() const {
    if constexpr (kind == SpecKind::may_throw || nondet) return res.spec;
    else return res;
  }

  struct Call final : ApiCall {
    explicit Call(const Op& op) : ApiCall(op) {}
    ~Call() override { release(); }
    Call(const Call&) = delete;
    Call& operator=(const Call&) = delete;
    const Op& self() const { return static_cast<const Op&>(*op); }
    Kept<Vals> vals;
    Kept<RefKept> reference;
    Kept<stored_t<CR>> candidate;

    bool draw_arguments(Source& src, Env& env) override {
      reference.reset();
      candidate.reset();
      vals.emplace();
      if (!make_args(self().specs, src, env, *vals, Idx{})) return false;
      std::apply(
          [&](const auto&... a) {
            const std::string* texts[N + 1] = {&a.text..., nullptr};
            text = call_text(self().name, texts, N);
          },
          *vals);
      return true;
    }
    void rebind(Env& env) override {
      std::apply([&](auto&... a) { ((a.rebind_fn ? a.rebind_fn(a, env) : void()), ...); }, *vals);
    }
    void run_reference() override {
      if constexpr (!Solo && !nondet) {
        reference.reset();
        run_captured(reference_threw,
                     [&] { keep_result(reference, [&]() -> decltype(auto) { return call_ref(self().fr, *vals, Idx{}); }); });
      }
    }
    void run_candidate() override {
      candidate.reset();
      run_captured(candidate_threw,
                   [&] { keep_result(candidate, [&]() -> decltype(auto) { return call_cand(self().fc, *vals, Idx{}); }); });
    }
    bool judge_candidate(Result& seen, std::string& why) override {
      if constexpr (judges_outcome) {
        if constexpr (!std::is_void_v<CR>)
          if (!candidate_threw.is_exception()) seen = Result(*candidate);
        const Verdict v = call_ref_judging(self().fr, *vals, std::as_const(seen), Idx{});
        why = v.why;
        return v.ok;
      } else if constexpr (nondet) {
        auto diagnostic = call_ref_judging(self().fr, *vals, std::as_const(*candidate), Idx{});
        if (!diagnostic.is_valid()) {
          why = std::move(diagnostic.why);
          return false;
        }
        reference.emplace(std::move(*diagnostic.value));
        return true;
      } else {
        return false;
      }
    }
    bool deconstruct(Env& env, bool keep_candidate, std::string& shown, std::optional<Mismatch>& mismatch) override {
      if constexpr (std::is_void_v<CR> || judges_outcome) {
        return true;
      } else if constexpr (Solo) {
        return detail::deconstruct<true>(self().inner(), std::as_const(*candidate), std::move(*candidate), env, shown,
                                         mismatch);
      } else if constexpr (!contains_abstract<Res>()) {
        // Concrete results are compared in place, so that a failure can print both whole.
        return detail::deconstruct<false>(self().inner(), std::as_const(*reference), std::as_const(*candidate), env, shown,
                                          mismatch);
      } else if (keep_candidate) {
        return detail::deconstruct<false>(self().inner(), std::move(*reference), std::as_const(*candidate), env, shown,
                                          mismatch);
      } else {
        return detail::deconstruct<false>(self().inner(), std::move(*reference), std::move(*candidate), env, shown,
                                          mismatch);
      }
    }
    std::string show_reference() const override {
      if constexpr (Solo || judges_outcome || std::is_void_v<CR>) return {};
      else return reference.engaged() ? show_under(self().inner(), *reference) : std::string();
    }
    std::string show_candidate() const override {
      if constexpr (std::is_void_v<CR>) return {};
      else return candidate.engaged() ? show_under(self().inner(), *candidate) : std::string();
    }
    void release() override {
      reference.reset();
      candidate.reset();
      vals.reset();
    }
  };

  std::unique_ptr<ApiCall> new_call() const override { return std::make_unique<Call>(*this); }
};

// ---------------------------------------------------------------------------------------
// Api::op's checks, before it instantiates Op: each failure is one static_assert, from a
// template whose arguments name the types involved, and Op is then not instantiated (no
// cascade of errors from inside it).

template <class>
inline constexpr bool dependent_false = false;

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
/// operation cannot be declared. Each check is instantiated only when those before it passed,
/// and a failed one gives its own (false) value.
template <bool Solo, class ArgSpecs, class Res, class FR, class FC>
constexpr bool op_fits() {
  using Arguments = arguments_valid<type_list<>, typename spec_list<ArgSpecs>::type>;
  if constexpr (!result_is_a_spec<Res>::value) {
    return result_is_a_spec<Res>::value;
  } else if constexpr (!Arguments::value) {
    return Arguments::value;
  } else {
    return []<class... R, class... C>(std::type_identity<std::tuple<Arg<R, C>...>>) {
      constexpr SpecKind k = Res::spec_kind;
      if constexpr (Solo && k == SpecKind::nondet) {
        return nondet_needs_a_reference<Res>::value;
      } else if constexpr (!reference_callable < Solo || k == SpecKind::nondet, FR, R... > ()) {
        return reference_callable < Solo || k == SpecKind::nondet, FR, R... > ();
      } else if constexpr (!candidate_takes<FC, C...>::value) {
        return candidate_takes<FC, C...>::value;
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
