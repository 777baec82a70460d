// The reference-vs-candidate front end's machinery: the environment of live handles,
// argument construction, result deconstruction, one step of a scenario, and duet::Api.
// Included by duet/api.hpp; not a public header.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace duet {
namespace detail {

// ---------------------------------------------------------------------------------------
// The environment: live values of abstract types, for one scenario.

struct HandleStoreBase {
  virtual ~HandleStoreBase() = default;
  virtual std::size_t size() const = 0;
  /// Runs the well-formedness check on every live value; the first failure, if any.
  virtual std::optional<std::string> check_all() const = 0;
  /// A copy (the parallel checker's oracle state); throws when the types cannot be copied.
  virtual std::unique_ptr<HandleStoreBase> clone() const = 0;
};

std::string describe_current_exception();

template <class R0, class C>
struct HandleStore final : HandleStoreBase {
  static constexpr bool solo = std::is_same_v<R0, Solo>;
  using R = std::conditional_t<solo, C, R0>;
  struct Entry {
    [[no_unique_address]] std::conditional_t<solo, std::monostate, R0> r_;
    C c;
    std::string name;
    R& r() {
      if constexpr (solo) return c;
      else return r_;
    }
  };
  std::deque<Entry> entries;  // stable addresses: arguments point into it
  std::shared_ptr<const std::function<Verdict(const R&, const C&)>> check;

  std::size_t size() const override { return entries.size(); }
  std::unique_ptr<HandleStoreBase> clone() const override {
    if constexpr (std::is_copy_constructible_v<Entry>) {
      auto copy = std::make_unique<HandleStore>();
      copy->entries = entries;
      copy->check = check;
      return copy;
    } else {
      throw std::logic_error("duet::Api under threads needs copyable reference and candidate types");
    }
  }
  std::optional<std::string> check_all() const override {
    if (!check) return std::nullopt;
    for (const Entry& e : entries) {
      try {
        const Verdict v = (*check)(const_cast<Entry&>(e).r(), e.c);
        if (!v.ok) return "the well-formedness check fails on " + e.name + (v.why.empty() ? "" : ": " + v.why);
      } catch (...) {
        return "the well-formedness check fails on " + e.name + ": it threw " + describe_current_exception();
      }
    }
    return std::nullopt;
  }
};

struct Env {
  std::vector<std::unique_ptr<HandleStoreBase>> stores;  // by abstract type id
  const std::vector<std::string>* prefixes = nullptr;
  std::size_t next_var = 0;  // one counter for all variables, so names read in order: a0, s1, a2
  std::size_t max_handles = 32;
  std::string fresh(std::size_t type_id) { return (*prefixes)[type_id] + std::to_string(next_var++); }

  Env() = default;
  Env(Env&&) = default;
  Env& operator=(Env&&) = default;
  Env(const Env& o) : prefixes(o.prefixes), next_var(o.next_var), max_handles(o.max_handles) {
    for (const auto& s : o.stores) stores.push_back(s->clone());
  }
  Env& operator=(const Env& o) {
    if (this != &o) *this = Env(o);
    return *this;
  }
};

// ---------------------------------------------------------------------------------------
// Result specs as given to Api::op.

template <class S>
S spec_of(S s) {
  static_assert(SpecType<S>,
                "duet::Api::op: the result must be a result spec: an abstract type, duet::value<T>(), "
                "duet::unit(), duet::pair_of(...), duet::optional_of(...), duet::vector_of(...), "
                "duet::variant_of(...), duet::may_throw(...), duet::nondet(...) or duet::map_into(...)");
  return s;
}
template <class S>
using spec_of_t = S;

/// The kind of a result spec once may_throw / nondet are looked through.
template <class S>
constexpr SpecKind inner_kind() {
  if constexpr (S::spec_kind == SpecKind::may_throw || S::spec_kind == SpecKind::nondet)
    return inner_kind<decltype(S::spec)>();
  else return S::spec_kind;
}

/// What a call's result is stored as (void becomes std::monostate).
template <class T>
using stored_t = std::conditional_t<std::is_void_v<T>, std::monostate, std::remove_cvref_t<T>>;

// ---------------------------------------------------------------------------------------
// Arguments.

template <class R, class C>
struct Arg {
  R* r = nullptr;  // into a handle store (abstract arguments), else into r_own
  C* c = nullptr;
  std::optional<R> r_own;
  std::optional<C> c_own;
  std::string text;  // how it prints: "3", "a0"
  // For abstract arguments: which handle, so that a call can be re-pointed at another
  // environment holding the same handles (a new trial, a copy for the checker).
  std::size_t type_id = ~std::size_t{0}, handle = ~std::size_t{0};
  void (*rebind_fn)(Arg&, Env&) = nullptr;
  R& ref() { return r ? *r : *r_own; }
  C& cand() { return c ? *c : *c_own; }
};

template <class T>
struct is_gen : std::false_type {};
template <class T>
struct is_gen<Gen<T>> : std::true_type {};

template <class... T>
struct type_list {};

// (R, C) of an argument spec, given the reference types of the earlier arguments.
template <class Spec, class PriorRefs, class = void>
struct arg_types {
  // A dependent argument: a callable of the earlier reference values returning a generator.
  static_assert(!std::is_same_v<Spec, Spec>,
                "duet::args: an argument must be a duet::Gen, an abstract type (possibly .where(...)), "
                "duet::map_outof(...), or a callable taking the reference-side values of all earlier "
                "arguments (as const&) and returning a duet::Gen");
};
template <class T, class... P>
struct arg_types<Gen<T>, type_list<P...>> {
  using R = T;
  using C = T;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<S::spec_kind == SpecKind::abstract>> {
  using R = typename S::ref_type;
  using C = typename S::cand_type;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<S::spec_kind == SpecKind::abstract_where>> {
  using R = typename decltype(S::type)::ref_type;
  using C = typename decltype(S::type)::cand_type;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<S::spec_kind == SpecKind::map_outof>> {
  using inner = arg_types<decltype(S::spec), type_list<>>;
  using R = std::decay_t<std::invoke_result_t<const decltype(S::fr)&, typename inner::R&>>;
  using C = std::decay_t<std::invoke_result_t<const decltype(S::fc)&, typename inner::C&>>;
};
template <class F, class... P>
struct arg_types<F, type_list<P...>,
                 std::enable_if_t<!is_gen<F>::value && !SpecType<F> && std::is_invocable_v<const F&, const P&...>>> {
  using G = std::decay_t<std::invoke_result_t<const F&, const P&...>>;
  static_assert(is_gen<G>::value, "duet::args: a dependent argument must return a duet::Gen<T>");
  using R = typename G::value_type;
  using C = typename G::value_type;
};

template <class Done, class Rest>
struct fold_args;
template <class... Done>
struct fold_args<type_list<Done...>, type_list<>> {
  using type = std::tuple<Done...>;
};
template <class... Done, class S, class... Rest>
struct fold_args<type_list<Done...>, type_list<S, Rest...>> {
  using T = arg_types<S, type_list<std::remove_reference_t<decltype(std::declval<Done&>().ref())>...>>;
  using type = typename fold_args<type_list<Done..., Arg<typename T::R, typename T::C>>, type_list<Rest...>>::type;
};
template <class Tuple>
struct arg_values;
template <class... A>
struct arg_values<std::tuple<A...>> {
  using type = typename fold_args<type_list<>, type_list<A...>>::type;
};

template <class Declared, class C, class Pred>
bool pick_from(HandleStore<Declared, C>& store, Source& src, Arg<typename HandleStore<Declared, C>::R, C>& out,
               const Pred& pred) {
  // Counted from the newest: choice 0 is the most recent suitable value, and deleting an
  // older, unused step while shrinking does not change which value later choices name.
  std::size_t n = 0;
  for (auto& e : store.entries) n += pred(std::as_const(e.r())) ? 1 : 0;
  if (n == 0) return false;
  auto k = static_cast<std::size_t>(src.draw(n - 1));
  for (std::size_t i = store.entries.size(); i-- > 0;) {
    auto& e = store.entries[i];
    if (!pred(std::as_const(e.r()))) continue;
    if (k-- == 0) {
      out.r = &e.r();
      out.c = &e.c;
      out.text = e.name;
      out.handle = i;
      out.rebind_fn = [](Arg<typename HandleStore<Declared, C>::R, C>& a, Env& env) {
        auto& entry = static_cast<HandleStore<Declared, C>&>(*env.stores[a.type_id]).entries.at(a.handle);
        a.r = &entry.r();
        a.c = &entry.c;
      };
      return true;
    }
  }
  return false;
}

template <std::size_t K, class Vals, std::size_t... I>
auto call_with_prefix(const auto& f, Vals& vals, std::index_sequence<I...>) {
  return f(std::as_const(std::get<I>(vals).ref())...);
}

template <class Out, class T>
void set_concrete(Out& out, T v) {
  out.text = duet::show(v);
  out.r_own.emplace(v);
  out.c_own.emplace(std::move(v));
}

// Fills argument K of vals from its spec; false to back off (no suitable handle).
template <std::size_t K, class Spec, class Vals>
bool make_arg(const Spec& spec, Source& src, Env& env, Vals& vals) {
  auto& out = std::get<K>(vals);
  if constexpr (is_gen<Spec>::value) {
    set_concrete(out, spec(src));
    return true;
  } else if constexpr (kind_of<Spec>() == SpecKind::abstract) {
    using Store = HandleStore<typename Spec::declared_ref_type, typename Spec::cand_type>;
    out.type_id = spec.id;
    return pick_from(static_cast<Store&>(*env.stores[spec.id]), src, out, [](const auto&) { return true; });
  } else if constexpr (kind_of<Spec>() == SpecKind::abstract_where) {
    using A = decltype(spec.type);
    using Store = HandleStore<typename A::declared_ref_type, typename A::cand_type>;
    out.type_id = spec.type.id;
    return pick_from(static_cast<Store&>(*env.stores[spec.type.id]), src, out, spec.pred);
  } else if constexpr (kind_of<Spec>() == SpecKind::map_outof) {
    using Inner = arg_types<std::remove_cvref_t<decltype(spec.spec)>, type_list<>>;
    std::tuple<Arg<typename Inner::R, typename Inner::C>> inner;
    if (!make_arg<0>(spec.spec, src, env, inner)) return false;
    auto& in = std::get<0>(inner);
    out.text = in.text;
    out.r_own.emplace(spec.fr(in.ref()));
    out.c_own.emplace(spec.fc(in.cand()));
    return true;
  } else {  // dependent: a callable of the earlier reference values
    set_concrete(out, call_with_prefix<K>(spec, vals, std::make_index_sequence<K>{})(src));
    return true;
  }
}

template <class Specs, class Vals, std::size_t... K>
bool make_args(const Specs& specs, Source& src, Env& env, Vals& vals, std::index_sequence<K...>) {
  return (make_arg<K>(std::get<K>(specs), src, env, vals) && ...);
}

template <class Vals, std::size_t... K>
std::string argument_text(Vals& vals, std::index_sequence<K...>) {
  std::string out;
  ((out += (K == 0 ? "" : ", ") + std::get<K>(vals).text), ...);
  return out;
}

// ---------------------------------------------------------------------------------------
// Results.

struct Mismatch {
  std::string candidate, reference;
};

template <class S>
void collect_abstract_ids(const S& spec, std::vector<std::size_t>& ids) {
  constexpr SpecKind k = S::spec_kind;
  if constexpr (k == SpecKind::abstract) ids.push_back(spec.id);
  else if constexpr (k == SpecKind::pair) {
    collect_abstract_ids(spec.first, ids);
    collect_abstract_ids(spec.second, ids);
  } else if constexpr (k == SpecKind::optional) collect_abstract_ids(spec.inner, ids);
  else if constexpr (k == SpecKind::vector) collect_abstract_ids(spec.element, ids);
  else if constexpr (k == SpecKind::tuple) std::apply([&](const auto&... p) { (collect_abstract_ids(p, ids), ...); }, spec.parts);
  else if constexpr (k == SpecKind::variant)
    std::apply([&](const auto&... p) { (collect_abstract_ids(p, ids), ...); }, spec.alternatives);
  else if constexpr (k == SpecKind::may_throw || k == SpecKind::nondet || k == SpecKind::map_into)
    collect_abstract_ids(spec.spec, ids);
}

/// How a value prints under a spec (abstract parts print as "_": they have no printer).
template <class S, class X>
std::string show_under(const S& spec, const X& x) {
  constexpr SpecKind k = S::spec_kind;
  if constexpr (k == SpecKind::value) return spec.show(static_cast<const typename S::type&>(x));
  else if constexpr (k == SpecKind::abstract) return "_";
  else if constexpr (k == SpecKind::unit) return "(void)";
  else if constexpr (k == SpecKind::pair) return "{" + show_under(spec.first, x.first) + ", " + show_under(spec.second, x.second) + "}";
  else if constexpr (k == SpecKind::tuple)
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::string out = "{";
      ((out += (I == 0 ? "" : ", ") + show_under(std::get<I>(spec.parts), std::get<I>(x))), ...);
      return out + "}";
    }(std::make_index_sequence<std::tuple_size_v<decltype(spec.parts)>>{});
  else if constexpr (k == SpecKind::optional) return x ? show_under(spec.inner, *x) : std::string("std::nullopt");
  else if constexpr (k == SpecKind::vector) {
    std::string out = "{";
    for (std::size_t i = 0; i < x.size(); ++i) out += (i ? ", " : "") + show_under(spec.element, x[i]);
    return out + "}";
  } else if constexpr (k == SpecKind::variant)
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::string out;
      ((x.index() == I ? (out = show_under(std::get<I>(spec.alternatives), std::get<I>(x)), 0) : 0), ...);
      return out;
    }(std::make_index_sequence<std::tuple_size_v<decltype(spec.alternatives)>>{});
  else return "(a value)";
}

/// Deconstructs the two sides' results under spec: compares concrete parts (false and a
/// mismatch when they differ), binds abstract parts as new handles. Solo mode (no reference):
/// r is ignored, nothing is compared. `text` receives what the step prints.
template <bool Solo, class S, class RV, class CV>
bool deconstruct(const S& spec, RV&& r, CV&& c, Env& env, std::string& text, std::optional<Mismatch>& mismatch) {
  constexpr SpecKind k = S::spec_kind;
  if constexpr (k == SpecKind::abstract) {
    using Store = HandleStore<typename S::declared_ref_type, typename S::cand_type>;
    auto& store = static_cast<Store&>(*env.stores[spec.id]);
    std::string name = env.fresh(spec.id);
    if constexpr (Store::solo) store.entries.push_back({{}, typename S::cand_type(std::forward<CV>(c)), name});
    else
      store.entries.push_back(
          {typename S::declared_ref_type(std::forward<RV>(r)), typename S::cand_type(std::forward<CV>(c)), name});
    text = std::move(name);
    return true;
  } else if constexpr (k == SpecKind::value) {
    using T = typename S::type;
    const T& cv = c;
    text = spec.show(cv);
    if constexpr (!Solo) {
      const T& rv = r;
      if (!spec.same(rv, cv)) {
        mismatch = Mismatch{text, spec.show(rv)};
        return false;
      }
    }
    return true;
  } else if constexpr (k == SpecKind::unit) {
    return true;
  } else if constexpr (k == SpecKind::pair) {
    std::string a, b;
    if (!deconstruct<Solo>(spec.first, std::forward<RV>(r).first, std::forward<CV>(c).first, env, a, mismatch)) return false;
    if (!deconstruct<Solo>(spec.second, std::forward<RV>(r).second, std::forward<CV>(c).second, env, b, mismatch))
      return false;
    text = "{" + a + ", " + b + "}";
    return true;
  } else if constexpr (k == SpecKind::tuple) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::string parts[sizeof...(I)];
      const bool ok = (deconstruct<Solo>(std::get<I>(spec.parts), std::get<I>(std::forward<RV>(r)),
                                         std::get<I>(std::forward<CV>(c)), env, parts[I], mismatch) &&
                       ...);
      if (ok) {
        text = "{";
        for (std::size_t i = 0; i < sizeof...(I); ++i) text += (i ? ", " : "") + parts[i];
        text += "}";
      }
      return ok;
    }(std::make_index_sequence<std::tuple_size_v<decltype(spec.parts)>>{});
  } else if constexpr (k == SpecKind::optional) {
    if constexpr (!Solo) {
      if (static_cast<bool>(r) != static_cast<bool>(c)) {
        mismatch = Mismatch{show_under(spec, c), show_under(spec, r)};
        return false;
      }
    }
    if (!c) {
      text = "std::nullopt";
      return true;
    }
    if constexpr (Solo) return deconstruct<Solo>(spec.inner, std::as_const(*c), *std::forward<CV>(c), env, text, mismatch);
    else return deconstruct<Solo>(spec.inner, *std::forward<RV>(r), *std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::vector) {
    if constexpr (!Solo) {
      if (r.size() != c.size()) {
        mismatch = Mismatch{show_under(spec, c), show_under(spec, r)};
        return false;
      }
    }
    text = "{";
    for (std::size_t i = 0; i < c.size(); ++i) {
      std::string part;
      bool ok;
      if constexpr (Solo) ok = deconstruct<Solo>(spec.element, std::as_const(c[i]), std::move(c[i]), env, part, mismatch);
      else ok = deconstruct<Solo>(spec.element, std::move(r[i]), std::move(c[i]), env, part, mismatch);
      if (!ok) return false;
      text += (i ? ", " : "") + part;
    }
    text += "}";
    return true;
  } else if constexpr (k == SpecKind::variant) {
    if constexpr (!Solo) {
      if (r.index() != c.index()) {
        mismatch = Mismatch{show_under(spec, c), show_under(spec, r)};
        return false;
      }
    }
    return [&]<std::size_t... I>(std::index_sequence<I...>) {
      bool ok = true;
      auto one = [&]<std::size_t J>(std::integral_constant<std::size_t, J>) {
        if (c.index() != J) return;
        if constexpr (Solo)
          ok = deconstruct<Solo>(std::get<J>(spec.alternatives), std::as_const(std::get<J>(c)),
                                 std::get<J>(std::forward<CV>(c)), env, text, mismatch);
        else
          ok = deconstruct<Solo>(std::get<J>(spec.alternatives), std::get<J>(std::forward<RV>(r)),
                                 std::get<J>(std::forward<CV>(c)), env, text, mismatch);
      };
      (one(std::integral_constant<std::size_t, I>{}), ...);
      return ok;
    }(std::make_index_sequence<std::tuple_size_v<decltype(spec.alternatives)>>{});
  } else if constexpr (k == SpecKind::map_into) {
    if constexpr (Solo) {
      auto mapped = spec.fc(std::forward<CV>(c));
      return deconstruct<Solo>(spec.spec, std::as_const(mapped), std::move(mapped), env, text, mismatch);
    }
    else return deconstruct<Solo>(spec.spec, spec.fr(std::forward<RV>(r)), spec.fc(std::forward<CV>(c)), env, text, mismatch);
  } else {
    static_assert(k != SpecKind::may_throw && k != SpecKind::nondet,
                  "duet: may_throw and nondet apply to a whole result, not to a part of one");
    static_assert(k == SpecKind::may_throw, "duet: an argument spec (where, map_outof) cannot describe a result");
    return false;
  }
}

// ---------------------------------------------------------------------------------------
// One operation.

struct StepOutcome {
  enum class Status { done, declined, failed, abandoned } status = Status::done;
  std::string message;
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
  /// abstract result into env. False (with why, if given) when they disagree.
  virtual bool check_reference(Env& env, std::string* why) = 0;
};

struct OpBase {
  std::string name;
  std::vector<std::size_t> result_ids;  // abstract types this operation's result binds
  bool parallel_ok = true;              // false for nondet and reference-less operations
  virtual ~OpBase() = default;
  virtual StepOutcome step(Source& src, Env& env, Trace* trace) const = 0;
  /// Draws a call (nullptr: no suitable handle here).
  virtual std::shared_ptr<ApiCall> draw(Source& src, Env& env) const = 0;
};

void record_api_step(Trace* trace, std::string code, std::string observed, bool binds = false);
/// "{s2, s3}": braces around comma-separated C++ identifiers.
bool is_name_list(const std::string& text);
void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation);
Step api_failure_step(std::string code, std::string expected, std::string explanation);
std::string exception_text(const Result& r);  // "std::out_of_range(\"...\")"

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

/// Runs f() capturing its value or its exception. Unimplemented and BackOff pass through.
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
  }



  static StepOutcome failed(std::string message) { return {StepOutcome::Status::failed, std::move(message), {}}; }
  // A failure at a call: traced, or kept as the failing step when the case runs without a trace.
  static StepOutcome failed_at(Trace* trace, const std::string& call, std::string expected, std::string explanation,
                               std::string message) {
    StepOutcome out = failed(std::move(message));
    Step step = api_failure_step(call, std::move(expected), std::move(explanation));
    if (trace) {
      trace->steps.push_back(std::move(step));
      trace->failed = true;
    } else {
      out.failing_step = std::move(step);
    }
    return out;
  }

  StepOutcome step(Source& src, Env& env, Trace* trace) const override {
    for (std::size_t id : result_ids)
      if (env.stores[id]->size() >= env.max_handles) return {StepOutcome::Status::declined, {}, {}};
    Vals vals;
    try {
      if (!make_args(specs, src, env, vals, Idx{})) return {StepOutcome::Status::declined, {}, {}};
    } catch (const Discard&) {
      return {StepOutcome::Status::declined, {}, {}};
    } catch (const Overrun&) {
      throw;
    } catch (...) {
      return failed("the spec's argument generator for " + name + " threw " + describe_current_exception());
    }
    const std::string call = name + "(" + argument_text(vals, Idx{}) + ")";
    try {
      if constexpr (Res::spec_kind == SpecKind::nondet) return step_nondet(vals, call, env, trace);
      else if constexpr (Res::spec_kind == SpecKind::may_throw) return step_may_throw(vals, call, env, trace);
      else return step_plain(vals, call, env, trace);
    } catch (const BackOff&) {
      return {StepOutcome::Status::declined, {}, {}};
    } catch (const Unimplemented&) {
      return {StepOutcome::Status::abandoned, name + " is not implemented by the candidate", {}};
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
    bool check_reference(Env& env, std::string* why) override {
      rebind(env);
      if constexpr (Solo || Res::spec_kind == SpecKind::nondet) {
        if (why) *why = "not supported under threads";
        return false;
      } else {
        try {
          return op->judge(vals, cand, env, why, &bound);
        } catch (const BackOff&) {
          if (why) *why = "the reference declines " + op->name + " here";
          return false;
        }
      }
    }
  };

  std::shared_ptr<ApiCall> draw(Source& src, Env& env) const override {
    for (std::size_t id : result_ids)
      if (env.stores[id]->size() >= env.max_handles) return nullptr;
    auto call = std::make_shared<Call>();
    call->op = this;
    try {
      if (!make_args(specs, src, env, call->vals, Idx{})) return nullptr;
    } catch (const Discard&) {
      return nullptr;
    }
    call->text = name + "(" + argument_text(call->vals, Idx{}) + ")";
    return call;
  }

  // The reference's verdict on a kept candidate outcome (the parallel runner's oracle step):
  // the same comparison as a sequential step, without moving the candidate's value.
  template <class KeptOutcome>
  bool judge(Vals& vals, const KeptOutcome& c, Env& env, std::string* why, std::string* bound) const {
    if constexpr (Solo || Res::spec_kind == SpecKind::nondet) {
      return false;
    } else {
      auto r = run_capturing<RR>([&]() -> decltype(auto) { return call_ref(fr, vals, Idx{}); });
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

  // Prints and records a finished step: "auto a3 = op(...)", "auto [s2, s3] = split(...)",
  // "op(...)  // 7".
  void record_done(Trace* trace, Env& env, const std::string& call, const std::string& text) const {
    if (!trace) return;
    constexpr SpecKind k = inner_kind<Res>();
    if constexpr (k == SpecKind::abstract) {
      record_api_step(trace, "auto " + text + " = " + call, "", true);
    } else if constexpr (contains_abstract<Res>()) {
      // A pair or tuple of variables only: a structured binding. Anything else: a named
      // result, with what it holds in the comment.
      const bool all_names = (k == SpecKind::pair || k == SpecKind::tuple) && is_name_list(text);
      if (all_names) record_api_step(trace, "auto [" + text.substr(1, text.size() - 2) + "] = " + call, "", true);
      else record_api_step(trace, "auto r" + std::to_string(env.next_var++) + " = " + call, text, true);
    } else {
      record_api_step(trace, call, text, false);
    }
  }

  // The whole (concrete) result differs: the step reads as an assertion of the reference's value.
  StepOutcome whole_mismatch(Trace* trace, const std::string& call, const std::string& reference,
                             const std::string& candidate) const {
    return failed_at(trace, call, reference, "candidate finds " + candidate, "candidate finds " + candidate + "; the reference finds " + reference + " (" + call + ")");
  }

  StepOutcome mismatch_failure(Trace* trace, const std::string& call, const Mismatch& m) const {
    const std::string why = "candidate finds " + m.candidate + "; the reference finds " + m.reference;
    // A whole concrete result reads as an assertion; a part of a composite one does not.
    if constexpr (inner_kind<Res>() == SpecKind::value)
      return failed_at(trace, call, m.reference, "candidate finds " + m.candidate, why + " (" + call + ")");
    else return failed_at(trace, call, "", why, why + " (" + call + ")");
  }

  // The candidate threw where the spec does not say it may.
  StepOutcome undeclared_throw(Trace* trace, const std::string& call, const Result& exception) const {
    const std::string why =
        "candidate throws " + exception_text(exception) + " (declare the result duet::may_throw(...) if it may)";
    return failed_at(trace, call, "", why, why + " (" + call + ")");
  }

  StepOutcome step_plain(Vals& vals, const std::string& call, Env& env, Trace* trace) const {
    if constexpr (Solo) {
      auto c = run_capturing<CR>([&]() -> decltype(auto) { return call_cand(fc, vals, Idx{}); });
      if (c.threw()) return undeclared_throw(trace, call, c.exception);
      std::string text;
      std::optional<Mismatch> m;
      if constexpr (std::is_void_v<CV>) {
        static_assert(Res::spec_kind == SpecKind::unit, "duet: an operation returning void needs the result spec duet::unit()");
      } else {
        deconstruct<true>(res, std::as_const(*c.value), std::move(*c.value), env, text, m);
      }
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
        static_assert(std::is_void_v<CV> && std::is_void_v<RV> && Res::spec_kind == SpecKind::unit,
                      "duet: an operation returning void needs the result spec duet::unit(), on both sides");
        ok = true;
      } else if constexpr (!contains_abstract<Res>()) {
        // A concrete result: compared in place, so that a failure can print both whole values.
        ok = deconstruct<false>(res, std::as_const(*r.value), std::as_const(*c.value), env, text, m);
        if (!ok) return whole_mismatch(trace, call, show_under(res, *r.value), show_under(res, *c.value));
      } else {
        ok = deconstruct<false>(res, std::move(*r.value), std::move(*c.value), env, text, m);
      }
      if (!ok) return mismatch_failure(trace, call, *m);
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
      if constexpr (!std::is_void_v<CV>) deconstruct<true>(inner, std::as_const(*c.value), std::move(*c.value), env, text, m);
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
        return failed_at(trace, call, "", "candidate finds " + cand_text + "; the reference finds " + ref_text, "candidate finds " + cand_text + "; the reference finds " + ref_text + " (" + call + ")");
      }
      bool ok = true;
      if constexpr (!std::is_void_v<CV> && !contains_abstract<Res>()) {
        ok = deconstruct<false>(inner, std::as_const(*r.value), std::as_const(*c.value), env, text, m);
        if (!ok) return whole_mismatch(trace, call, show_under(inner, *r.value), show_under(inner, *c.value));
      } else if constexpr (!std::is_void_v<CV>) {
        ok = deconstruct<false>(inner, std::move(*r.value), std::move(*c.value), env, text, m);
      }
      if (!ok) return mismatch_failure(trace, call, *m);
      record_done(trace, env, call, text);
      return {};
    }
  }

  StepOutcome step_nondet(Vals& vals, const std::string& call, Env& env, Trace* trace) const {
    static_assert(!Solo, "duet::nondet needs a reference implementation to judge the candidate");
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
      static_assert(!std::is_void_v<CV>, "duet::nondet: the operation must return a value");
      const CV& cv = *c.value;
      auto diag = call_ref_judging(fr, vals, cv, Idx{});
      if (!diag.is_valid()) {
        const std::string why = "candidate finds " + show_under(inner, cv) + (diag.why.empty() ? "" : ": " + diag.why);
        return failed_at(trace, call, "", why, why + " (" + call + ")");
      }
      std::string text;
      std::optional<Mismatch> m;
      if (!deconstruct<false>(inner, std::move(*diag.value), std::move(*c.value), env, text, m))
        return mismatch_failure(trace, call, *m);
      record_done(trace, env, call, text);
      return {};
    }
  }
};

}  // namespace detail

/// A library's API described once, with a reference and a candidate implementation of each
/// operation (or only the candidate, for abstract types declared with duet::Solo).
class Api {
 public:
  explicit Api(std::string name) : name_(std::move(name)) {}

  /// Declares an abstract type with reference type R (or duet::Solo) and candidate type C.
  /// Variables of this type print as prefix0, prefix1, ...
  template <class R, class C>
  Abstract<R, C> abstract(std::string prefix) {
    return abstract<R, C>(std::move(prefix), nullptr);
  }

  /// The same, with a well-formedness check run after every operation on every live value:
  /// `bool|Verdict check(const R&, const C&)`, or `(const C&)` for duet::Solo types. It may also
  /// throw to fail.
  template <class R, class C, class Check>
  Abstract<R, C> abstract(std::string prefix, Check check) {
    using Store = detail::HandleStore<R, C>;
    using RR = typename Store::R;
    std::shared_ptr<const std::function<Verdict(const RR&, const C&)>> fn;
    if constexpr (!std::is_same_v<Check, std::nullptr_t>) {
      if constexpr (std::is_invocable_v<const Check&, const RR&, const C&>) {
        fn = std::make_shared<const std::function<Verdict(const RR&, const C&)>>(
            [check](const RR& r, const C& c) { return Verdict(check(r, c)); });
      } else {
        static_assert(std::is_invocable_v<const Check&, const C&>,
                      "duet::Api::abstract: the check must be callable as check(const R&, const C&) (or "
                      "check(const C&)) and return bool or duet::Verdict");
        fn = std::make_shared<const std::function<Verdict(const RR&, const C&)>>(
            [check](const RR&, const C& c) { return Verdict(check(c)); });
      }
    }
    const std::size_t id = factories_.size();
    factories_.push_back([fn] {
      auto store = std::make_unique<Store>();
      store->check = fn;
      return std::unique_ptr<detail::HandleStoreBase>(std::move(store));
    });
    prefixes_.push_back(prefix);
    return Abstract<R, C>(id, std::move(prefix));
  }

  /// Declares an operation: its arguments (duet::args(...)), its result spec, and its
  /// reference and candidate implementations, called with the arguments in order.
  template <class... A, class Res, class FR, class FC>
  Api& op(std::string name, std::tuple<A...> arguments, Res result, FR reference, FC candidate) {
    ops_.push_back(std::make_shared<detail::Op<false, std::tuple<A...>, detail::spec_of_t<Res>, FR, FC>>(
        std::move(name), std::move(arguments), detail::spec_of(std::move(result)), std::move(reference),
        std::move(candidate)));
    return *this;
  }

  /// Declares an operation with only a candidate implementation (invariant-only mode: the
  /// abstract types it uses are declared with duet::Solo; results are not compared).
  template <class... A, class Res, class FC>
  Api& op(std::string name, std::tuple<A...> arguments, Res result, FC candidate) {
    ops_.push_back(std::make_shared<detail::Op<true, std::tuple<A...>, detail::spec_of_t<Res>, int, FC>>(
        std::move(name), std::move(arguments), detail::spec_of(std::move(result)), 0, std::move(candidate)));
    return *this;
  }

  /// Runs scenarios until the budget runs out (about a second by default), shrinking and
  /// reporting the first disagreement, as duet::check_sequential does.
  CheckResult check(const Config& config = {}, const ApiOptions& options = {}) const;
  /// Y-shaped programs on threads with the reference as the oracle: the prefix runs on both
  /// sides and must agree step by step; the branches run on the candidate at once; an outcome
  /// passes if some order of the branch calls that respects real time, run on (a copy of) the
  /// reference, gives the same results. Abstract values must be copyable; nondet operations
  /// and operations with no reference are not supported here.
  ///
  ///   EXPECT_TRUE(api.check_parallel({.branches = 2}));
  CheckResult check_parallel(const ParallelConfig& pc = {}, const Config& config = {},
                             const ApiOptions& options = {}) const;
  /// The negative test: passes when a program with an unexplainable outcome is found.
  CheckResult expect_unsafe(const ParallelConfig& pc = {}, const Config& config = {},
                            const ApiOptions& options = {}) const;

  /// One scenario from raw bytes (a fuzzer's input); see duet::check_sequential_bytes.
  CheckResult check_bytes(std::span<const std::uint8_t> bytes, const Config& config = {},
                          const ApiOptions& options = {}) const;

  const std::string& name() const { return name_; }

 private:
  detail::Property property(const ApiOptions& options) const;
  detail::Property parallel_property(const ParallelConfig& pc, const ApiOptions& options) const;

  std::string name_;
  std::vector<std::function<std::unique_ptr<detail::HandleStoreBase>()>> factories_;
  std::vector<std::string> prefixes_;
  std::vector<std::shared_ptr<const detail::OpBase>> ops_;
};

}  // namespace duet
