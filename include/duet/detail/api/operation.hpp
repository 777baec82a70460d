// duet::Api's machinery, part 4: one operation. Op holds an operation's specs and its two
// implementations and gives the engine, as function pointers, what needs its types: drawing
// the arguments and calling each side (one function each per operation), deconstructing and
// printing results (one function per result type, shared by the operations that return it).
// A drawn call (ApiCall) holds its arguments and results erased, so that running a call,
// judging it and reporting it is compiled once, in the library (src/frontends/api_call.cpp and
// api_judge.cpp); so are the checks Api::op runs before declaring an operation, at the end of this
// file.
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <any>
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
#include "duet/detail/api/erased_value.hpp"
#include "duet/detail/api/results.hpp"
#include "duet/detail/trace_steps.hpp"

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
/// and has the reference judge it again on each state the search tries. Compiled once, in the
/// library: what needs the operation's types is in OpBase::typed.
class ApiCall {
 public:
  explicit ApiCall(const OpBase& op);
  ~ApiCall();
  ApiCall(const ApiCall&) = delete;
  ApiCall& operator=(const ApiCall&) = delete;

  const OpBase* op;
  std::string text;                      // the call as the report shows it: "set(a0, 0, 1)"
  std::string bound;                     // what the last judgement bound its result to: "a3", "{s2, s3}"
  Result reference_threw;                // is_exception() when the reference threw
  Result candidate_threw;                // is_exception() when the candidate threw
  std::unique_ptr<ArgSlot[]> arguments;  // the operation's arity of them
  ErasedValue reference;                 // what the reference returned (a nondet reference: the value it judged valid)
  ErasedValue candidate;                 // what the candidate returned

  /// Forgets the last arguments and results, draws new arguments (false: no suitable handle)
  /// and sets `text`. Argument generators may throw.
  bool draw_arguments(Source& src, Env& env);
  /// The same from a scenario's arguments (duet::call): why they do not fit, or empty.
  std::string give_arguments(const std::vector<std::any>& args, Env& env);
  /// Points the call's handle arguments at the same handles in another environment.
  void rebind(Env& env);
  /// Runs one side, keeping its value or its exception. Unimplemented, BackOff and the
  /// engine's signals (an injected crash, the end of the choice stream) pass through.
  void run_reference();
  void run_candidate();
  /// A nondet operation's reference judges the candidate's outcome (`seen`: its exception, or
  /// void, on entry; its value is added here). False, with the reference's why, when invalid.
  bool judge_candidate(Result& seen, std::string& why);
  /// Deconstructs the two results under the spec: concrete parts compared, abstract parts
  /// bound as new handles in env (the candidate's value copied when `keep_candidate`, for a
  /// parallel call judged again). `shown` receives what the step prints.
  bool deconstruct(Env& env, bool keep_candidate, std::string& shown, std::optional<Mismatch>& mismatch);
  /// A side's value as its result spec prints it.
  std::string show_reference() const;
  std::string show_candidate() const;
  /// Drops the arguments' values and the results (a sequential step's call, kept for the next draw).
  void release();
};

/// What needs an operation's types, as functions the library calls (none where it does not
/// apply). `op` is the operation itself, `spec` its result spec under may_throw and nondet.
struct OpTypedPart {
  bool (*draw)(const OpBase& op, ApiCall& call, Source& src, Env& env) = nullptr;
  // A scenario's arguments (duet::call) bound in env: why they do not fit, or empty.
  std::string (*give)(const OpBase& op, ApiCall& call, const std::vector<std::any>& args, Env& env) = nullptr;
  void (*run_reference)(const OpBase& op, ApiCall& call) = nullptr;  // none: solo and nondet
  void (*run_candidate)(const OpBase& op, ApiCall& call) = nullptr;
  bool (*judge)(const OpBase& op, ApiCall& call, Result& seen, std::string& why) = nullptr;  // nondet only
  // None when nothing is compared nor bound: a void result, a judged outcome.
  bool (*deconstruct)(const void* spec, void* reference, void* candidate, Env& env, bool keep_candidate, std::string& shown,
                      std::optional<Mismatch>& mismatch) = nullptr;
  std::string (*show_reference)(const void* spec, const void* value) = nullptr;  // none: nothing to show
  std::string (*show_candidate)(const void* spec, const void* value) = nullptr;
};

struct OpBase {
  std::string name;
  std::vector<std::size_t> result_ids;  // abstract types this operation's result binds
  OpShape shape;
  bool parallel_ok = true;  // false for nondet and reference-less operations
  // false for nondet operations: the reference needs the candidate's result, which a crash
  // never gives, so "taken effect" could not be judged; their fault points do not fire.
  bool crash_ok = true;
  std::size_t arity = 0;
  const void* result_spec = nullptr;  // what OpTypedPart's deconstruct and show take as `spec`
  OpTypedPart typed;
  OpBase(std::string name, const OpShape& shape);
  virtual ~OpBase();
  OpBase(const OpBase&) = delete;
  OpBase& operator=(const OpBase&) = delete;
  /// A new call of this operation, before its arguments are drawn.
  std::unique_ptr<ApiCall> new_call() const;
};

template <class T>
struct is_diagnostic : std::false_type {};
template <class T>
struct is_diagnostic<Diagnostic<T>> : std::true_type {
  using value_type = T;
};

/// Calls a side's implementation with the arguments of a call (Types: a tuple of Arg).
template <class Types>
struct call_sides;
template <class... R, class... C>
struct call_sides<std::tuple<Arg<R, C>...>> {
  template <class F, std::size_t... K>
  static decltype(auto) reference(const F& f, ArgSlot* slots, std::index_sequence<K...>) {
    return f(*static_cast<R*>(slots[K].ref)...);
  }
  template <class F, std::size_t... K>
  static decltype(auto) candidate(const F& f, ArgSlot* slots, std::index_sequence<K...>) {
    return f(*static_cast<C*>(slots[K].cand)...);
  }
  template <class F, class Extra, std::size_t... K>
  static decltype(auto) judging(const F& f, ArgSlot* slots, const Extra& extra, std::index_sequence<K...>) {
    return f(*static_cast<R*>(slots[K].ref)..., extra);
  }
  template <class F>
  using reference_result = call_result_t<F, R...>;
  template <class F>
  using candidate_result = call_result_t<F, C...>;
  template <class F, class Extra>
  using judged_result = call_result_t<F, R..., const Extra>;
};

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

/// OpTypedPart::deconstruct for results of spec Inner kept as RefKept and CandKept: one
/// function for all the operations returning them.
template <bool Solo, class Inner, class RefKept, class CandKept>
bool deconstruct_kept(const void* spec, void* reference, void* candidate, Env& env, bool keep_candidate, std::string& shown,
                      std::optional<Mismatch>& mismatch) {
  const Inner& inner = *static_cast<const Inner*>(spec);
  CandKept& c = *static_cast<CandKept*>(candidate);
  if constexpr (Solo) {
    return detail::deconstruct<true>(inner, std::as_const(c), std::move(c), env, shown, mismatch);
  } else {
    RefKept& r = *static_cast<RefKept*>(reference);
    if constexpr (!contains_abstract<Inner>()) {
      // Concrete results are compared in place, so that a failure can print both whole.
      return detail::deconstruct<false>(inner, std::as_const(r), std::as_const(c), env, shown, mismatch);
    } else if (keep_candidate) {
      return detail::deconstruct<false>(inner, std::move(r), std::as_const(c), env, shown, mismatch);
    } else {
      return detail::deconstruct<false>(inner, std::move(r), std::move(c), env, shown, mismatch);
    }
  }
}

/// OpTypedPart::show_reference and show_candidate for a value of type T under spec Inner.
template <class Inner, class T>
std::string show_kept(const void* spec, const void* value) {
  return show_under(*static_cast<const Inner*>(spec), *static_cast<const T*>(value));
}

template <bool Solo, class ArgSpecs, class Res, class FR, class FC>
struct Op final : OpBase {
  using Types = typename arg_values<ArgSpecs>::type;  // a tuple of Arg
  using Sides = call_sides<Types>;
  static constexpr std::size_t N = std::tuple_size_v<ArgSpecs>;
  using Idx = std::make_index_sequence<N>;
  static constexpr SpecKind kind = Res::spec_kind;
  static constexpr bool nondet = kind == SpecKind::nondet;

  // The candidate's result (CR) and the reference's (RR: void in solo and nondet modes).
  using CR = typename Sides::template candidate_result<FC>;
  template <bool S = Solo>
  static auto ref_type_probe() {
    if constexpr (S || nondet) return std::type_identity<void>{};
    else return std::type_identity<typename Sides::template reference_result<FR>>{};
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
      using Judged = typename Sides::template judged_result<FR, std::remove_cvref_t<CR>>;
      return std::type_identity<typename is_diagnostic<std::remove_cvref_t<Judged>>::value_type>{};
    } else {
      return std::type_identity<stored_t<RR>>{};
    }
  }
  using RefKept = typename decltype(kept_type_probe())::type;
  using CandKept = stored_t<CR>;

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
    arity = N;
    result_spec = &inner();
    typed = typed_part();
  }

  const Inner& inner() const {
    if constexpr (kind == SpecKind::may_throw || nondet) return res.spec;
    else return res;
  }

  static const Op& self(const OpBase& op) { return static_cast<const Op&>(op); }

  static bool draw(const OpBase& op, ApiCall& call, Source& src, Env& env) {
    return make_args<Types>(self(op).specs, src, env, call.arguments.get(), Idx{});
  }
  static std::string give(const OpBase& op, ApiCall& call, const std::vector<std::any>& args, Env& env) {
    if (std::string why = scenario_arity_error(op.name, args.size(), N); !why.empty()) return why;
    std::string why;
    [&]<std::size_t... K>(std::index_sequence<K...>) {
      ((why = why.empty() ? give_arg<K, Types>(op.name, std::get<K>(self(op).specs), args[K], env, call.arguments.get())
                          : why),
       ...);
    }
    (Idx{});
    return why;
  }
  static void run_reference(const OpBase& op, ApiCall& call) {
    call.reference.emplace_result<RefKept>(
        [&]() -> decltype(auto) { return Sides::reference(self(op).fr, call.arguments.get(), Idx{}); });
  }
  static void run_candidate(const OpBase& op, ApiCall& call) {
    call.candidate.emplace_result<CandKept>(
        [&]() -> decltype(auto) { return Sides::candidate(self(op).fc, call.arguments.get(), Idx{}); });
  }
  static bool judge(const OpBase& op, ApiCall& call, Result& seen, std::string& why) {
    if constexpr (judges_outcome) {
      if constexpr (!std::is_void_v<CR>)
        if (!call.candidate_threw.is_exception()) seen = Result(*static_cast<CandKept*>(call.candidate.get()));
      const Verdict v = Sides::judging(self(op).fr, call.arguments.get(), std::as_const(seen), Idx{});
      why = v.why;
      return v.ok;
    } else {
      const auto& candidate = *static_cast<const CandKept*>(call.candidate.get());
      auto diagnostic = Sides::judging(self(op).fr, call.arguments.get(), candidate, Idx{});
      if (!diagnostic.is_valid()) {
        why = std::move(diagnostic.why);
        return false;
      }
      call.reference.emplace<RefKept>(std::move(*diagnostic.value));
      return true;
    }
  }

  static OpTypedPart typed_part() {
    OpTypedPart part;
    part.draw = &draw;
    part.give = &give;
    if constexpr (!Solo && !nondet) part.run_reference = &run_reference;
    part.run_candidate = &run_candidate;
    if constexpr (nondet) part.judge = &judge;
    if constexpr (!std::is_void_v<CR> && !judges_outcome) {
      part.deconstruct = &deconstruct_kept<Solo, Inner, RefKept, CandKept>;
      if constexpr (!Solo) part.show_reference = &show_kept<Inner, RefKept>;
    }
    if constexpr (!std::is_void_v<CR>) part.show_candidate = &show_kept<Inner, CandKept>;
    return part;
  }
};

// ---------------------------------------------------------------------------------------
// Api::op's checks, before it instantiates Op: each failure is one static_assert, from a
// template whose arguments name the types involved, and Op is then not instantiated (no
// cascade of errors from inside it).


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
