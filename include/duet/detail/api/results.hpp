// duet::Api's machinery, part 3: results. Which result spec fits which return type (the check
// Api::op runs), how a result prints under its spec, and deconstructing the two sides' results:
// concrete parts compared, abstract parts bound as new handles.
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "duet/detail/api/environment.hpp"

namespace duet {
namespace detail {

/// The kind of a result spec once may_throw / nondet are looked through.
template <class S>
constexpr SpecKind inner_kind() {
  if constexpr (S::spec_kind == SpecKind::may_throw || S::spec_kind == SpecKind::nondet)
    return inner_kind<decltype(S::spec)>();
  else return S::spec_kind;
}

// ---------------------------------------------------------------------------------------
// Which result spec fits which return type: Api::op's check, before anything is instantiated
// (a spec that does not fit would otherwise fail deep inside deconstruct()).

/// Whether Spec describes a (non-void) value of type X, on the reference side (Ref) or the
/// candidate's: the operations deconstruct() applies to it compile. unit() fits any value
/// (the result is not compared); may_throw and nondet fit no part of a result.
template <class Spec, class X, bool Ref>
constexpr bool spec_fits() {
  using T = std::remove_cvref_t<X>;
  constexpr SpecKind k = kind_of<Spec>();
  if constexpr (k == SpecKind::abstract) {
    if constexpr (!Ref) return std::is_constructible_v<typename Spec::cand_type, T>;
    else if constexpr (std::is_same_v<typename Spec::declared_ref_type, Solo>) return true;
    else return std::is_constructible_v<typename Spec::declared_ref_type, T>;
  } else if constexpr (k == SpecKind::value) {
    return std::is_convertible_v<const T&, const typename Spec::type&>;
  } else if constexpr (k == SpecKind::unit) {
    return true;
  } else if constexpr (k == SpecKind::pair) {
    if constexpr (requires(T & t) {
                    t.first;
                    t.second;
                  })
      return spec_fits<decltype(Spec::first), decltype(std::declval<T&>().first), Ref>() &&
             spec_fits<decltype(Spec::second), decltype(std::declval<T&>().second), Ref>();
    else return false;
  } else if constexpr (k == SpecKind::tuple) {
    return []<class... P>(std::type_identity<std::tuple<P...>>) {
      if constexpr (requires { std::tuple_size<T>::value; }) {
        if constexpr (std::tuple_size_v<T> == sizeof...(P)) return []<std::size_t... I>(std::index_sequence<I...>) {
            return (spec_fits<P, std::tuple_element_t<I, T>, Ref>() && ...);
          }
        (std::index_sequence_for<P...>{});
        else return false; } else {
        return false;
      }
    }(std::type_identity<decltype(Spec::parts)>{});
  } else if constexpr (k == SpecKind::optional) {
    if constexpr (requires(T & t) {
                    static_cast<bool>(t);
                    *t;
                  })
      return spec_fits<decltype(Spec::inner), decltype(*std::declval<T&>()), Ref>();
    else return false;
  } else if constexpr (k == SpecKind::vector) {
    if constexpr (requires(T & t) {
                    t.size();
                    t[0];
                  })
      return spec_fits<decltype(Spec::element), decltype(std::declval<T&>()[0]), Ref>();
    else return false;
  } else if constexpr (k == SpecKind::variant) {
    return []<class... P>(std::type_identity<std::tuple<P...>>) {
      if constexpr (requires { std::variant_size<T>::value; }) {
        if constexpr (std::variant_size_v<T> == sizeof...(P)) return []<std::size_t... I>(std::index_sequence<I...>) {
            return (spec_fits<P, std::variant_alternative_t<I, T>, Ref>() && ...);
          }
        (std::index_sequence_for<P...>{});
        else return false; } else {
        return false;
      }
    }(std::type_identity<decltype(Spec::alternatives)>{});
  } else if constexpr (k == SpecKind::map_into) {
    using F = std::conditional_t<Ref, decltype(Spec::fr), decltype(Spec::fc)>;
    // deconstruct() passes a concrete result as const&, one holding abstract parts as an rvalue.
    if constexpr (std::is_invocable_v<const F&, const T&>)
      return spec_fits<decltype(Spec::spec), std::invoke_result_t<const F&, const T&>, Ref>();
    else if constexpr (std::is_invocable_v<const F&, T>)
      return spec_fits<decltype(Spec::spec), std::invoke_result_t<const F&, T>, Ref>();
    else return false;
  } else {
    return false;
  }
}

/// Whether Spec describes a whole result of type X (void: only unit(), possibly may_throw(unit())).
template <class Spec>
struct whole_spec {
  using type = Spec;
};
template <class Spec>
  requires(Spec::spec_kind == SpecKind::may_throw)
struct whole_spec<Spec> {
  using type = decltype(Spec::spec);
};
template <class Spec, class X, bool Ref>
constexpr bool result_fits() {
  using Whole = typename whole_spec<Spec>::type;
  if constexpr (std::is_void_v<X>) return Whole::spec_kind == SpecKind::unit;
  else return spec_fits<Whole, X, Ref>();
}

/// How a result spec fits the two sides' return types.
enum class ResultFit { both, void_needs_unit, not_the_candidate, neither, only_the_reference, only_the_candidate };

template <class Spec, class RefResult, class CandResult>
constexpr ResultFit result_fit() {
  constexpr bool solo = std::is_same_v<RefResult, Solo>;
  if constexpr (std::is_void_v<CandResult> || std::is_void_v<RefResult>) {
    constexpr bool both_void = std::is_void_v<CandResult> && (solo || std::is_void_v<RefResult>);
    return both_void && result_fits<Spec, void, false>() ? ResultFit::both : ResultFit::void_needs_unit;
  } else if constexpr (solo) {
    return result_fits<Spec, CandResult, false>() ? ResultFit::both : ResultFit::not_the_candidate;
  } else {
    constexpr bool ref = result_fits<Spec, RefResult, true>(), cand = result_fits<Spec, CandResult, false>();
    if constexpr (ref && cand) return ResultFit::both;
    else if constexpr (ref) return ResultFit::only_the_reference;
    else if constexpr (cand) return ResultFit::only_the_candidate;
    else return ResultFit::neither;
  }
}

/// Api::op's check of a result spec against what the reference and the candidate return
/// (RefResult is duet::Solo for an operation with no reference). Instantiated only by Api::op,
/// so that a failure shows the three types in its "required from" line; at most one of the
/// assertions below fails.
template <class Spec, class RefResult, class CandResult>
struct result_spec_fits {
  static constexpr ResultFit fit = result_fit<Spec, RefResult, CandResult>();
  static constexpr bool value = fit == ResultFit::both;

  static_assert(fit != ResultFit::void_needs_unit,
                "duet::Api::op: an operation returning void needs the result spec duet::unit(), on both sides "
                "(the types: result_spec_fits<spec, reference's return type, candidate's return type>)");
  static_assert(fit != ResultFit::not_the_candidate,
                "duet::Api::op: the result spec does not fit the candidate's return type (the types: "
                "result_spec_fits<spec, duet::Solo, candidate's return type>). duet::value<T>() fits T; "
                "duet::unit() void; duet::optional_of(s) a std::optional; duet::pair_of(a, b) a std::pair; "
                "duet::tuple_of_specs(...) a std::tuple; duet::vector_of(s) a std::vector; "
                "duet::variant_of(...) a std::variant; an abstract type its candidate type C");
  static_assert(fit != ResultFit::neither,
                "duet::Api::op: the result spec fits neither the reference's return type nor the candidate's "
                "(the types: result_spec_fits<spec, reference's return type, candidate's return type>). "
                "duet::value<T>() fits T; duet::unit() void; duet::optional_of(s) a std::optional; "
                "duet::pair_of(a, b) a std::pair; duet::tuple_of_specs(...) a std::tuple; duet::vector_of(s) "
                "a std::vector; duet::variant_of(...) a std::variant; an abstract type its reference type R "
                "and candidate type C; duet::may_throw(s) and duet::nondet(s) wrap a whole result");
  static_assert(fit != ResultFit::only_the_reference,
                "duet::Api::op: the result spec fits the reference's return type but not the candidate's "
                "(the types: result_spec_fits<spec, reference's return type, candidate's return type>): "
                "return the same type on both sides, or convert each side's result with "
                "duet::map_into(spec, fr, fc)");
  static_assert(fit != ResultFit::only_the_candidate,
                "duet::Api::op: the result spec fits the candidate's return type but not the reference's "
                "(the types: result_spec_fits<spec, reference's return type, candidate's return type>): "
                "return the same type on both sides, or convert each side's result with "
                "duet::map_into(spec, fr, fc)");
};

/// Api::op's check that the result is a result spec at all.
template <class Spec>
struct result_is_a_spec {
  static constexpr bool value =
      SpecType<Spec> && kind_of<Spec>() != SpecKind::abstract_where && kind_of<Spec>() != SpecKind::map_outof;
  static_assert(value, "duet::Api::op: the result must be a result spec: an abstract type, duet::value<T>(), "
                       "duet::unit(), duet::pair_of(...), duet::optional_of(...), duet::vector_of(...), "
                       "duet::variant_of(...), duet::may_throw(...), duet::nondet(...) or duet::map_into(...) "
                       "(where(...) and map_outof(...) describe arguments)");
};

// ---------------------------------------------------------------------------------------
// Results compared and bound.

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
  else if constexpr (k == SpecKind::tuple)
    std::apply([&](const auto&... p) { (collect_abstract_ids(p, ids), ...); }, spec.parts);
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
  else if constexpr (k == SpecKind::pair)
    return "{" + show_under(spec.first, x.first) + ", " + show_under(spec.second, x.second) + "}";
  else if constexpr (k == SpecKind::tuple) return [&]<std::size_t... I>(std::index_sequence<I...>) {
      std::string out = "{";
      ((out += (I == 0 ? "" : ", ") + show_under(std::get<I>(spec.parts), std::get<I>(x))), ...);
      return out + "}";
    }
  (std::make_index_sequence<std::tuple_size_v<decltype(spec.parts)>>{});
  else if constexpr (k == SpecKind::optional) return x ? show_under(spec.inner, *x) : std::string("std::nullopt");
  else if constexpr (k == SpecKind::vector) {
    std::string out = "{";
    for (std::size_t i = 0; i < x.size(); ++i) out += (i ? ", " : "") + show_under(spec.element, x[i]);
    return out + "}";
  }
  else if constexpr (k == SpecKind::variant) return [&]<std::size_t... I>(std::index_sequence<I...>) {
    std::string out;
    ((x.index() == I ? (out = show_under(std::get<I>(spec.alternatives), std::get<I>(x)), 0) : 0), ...);
    return out;
  }
  (std::make_index_sequence<std::tuple_size_v<decltype(spec.alternatives)>>{});
  else return "(a value)"; }

/// Deconstructs the two sides' results under spec: compares concrete parts (false and a
/// mismatch when they differ), binds abstract parts as new handles. Solo mode (no reference):
/// r is ignored, nothing is compared. `text` receives what the step prints. One part per kind
/// of spec below; each recurses through this one.
template <bool Solo, class S, class RV, class CV>
bool deconstruct(const S& spec, RV&& r, CV&& c, Env& env, std::string& text, std::optional<Mismatch>& mismatch);

/// The two sides differ in shape (one optional empty, vector sizes, variant alternatives): the
/// mismatch shows both whole.
template <class S, class RV, class CV>
bool shape_mismatch(const S& spec, const RV& r, const CV& c, std::optional<Mismatch>& mismatch) {
  mismatch = Mismatch{show_under(spec, c), show_under(spec, r)};
  return false;
}

/// An abstract part: bound as a new handle (both sides' values, or the candidate's alone).
template <class S, class RV, class CV>
bool deconstruct_abstract(const S& spec, [[maybe_unused]] RV&& r, CV&& c, Env& env, std::string& text) {
  using R0 = typename S::declared_ref_type;
  using C = typename S::cand_type;
  using H = Handle<R0, C>;
  struct Sides {
    RV&& r;
    CV&& c;
  } sides{std::forward<RV>(r), std::forward<CV>(c)};
  std::string name = env.fresh(spec.id);
  env.stores[spec.id]->add(
      name,
      [](void* where, void* context) {
        Sides& made = *static_cast<Sides*>(context);
        if constexpr (H::solo) ::new (where) H{{}, C(std::forward<CV>(made.c))};
        else ::new (where) H{R0(std::forward<RV>(made.r)), C(std::forward<CV>(made.c))};
      },
      &sides);
  text = std::move(name);
  return true;
}

/// A concrete value: printed, and compared with the reference's.
template <bool Solo, class S, class RV, class CV>
bool deconstruct_value(const S& spec, [[maybe_unused]] const RV& r, const CV& c, std::string& text,
                       std::optional<Mismatch>& mismatch) {
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
}

/// A std::pair: both parts, "{first, second}".
template <bool Solo, class S, class RV, class CV>
bool deconstruct_pair(const S& spec, RV&& r, CV&& c, Env& env, std::string& text, std::optional<Mismatch>& mismatch) {
  std::string a, b;
  if (!deconstruct<Solo>(spec.first, std::forward<RV>(r).first, std::forward<CV>(c).first, env, a, mismatch)) return false;
  if (!deconstruct<Solo>(spec.second, std::forward<RV>(r).second, std::forward<CV>(c).second, env, b, mismatch))
    return false;
  text = "{" + a + ", " + b + "}";
  return true;
}

/// A std::tuple: every part in order, "{a, b, ...}".
template <bool Solo, class S, class RV, class CV>
bool deconstruct_tuple(const S& spec, RV&& r, CV&& c, Env& env, std::string& text, std::optional<Mismatch>& mismatch) {
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
  }
  (std::make_index_sequence<std::tuple_size_v<decltype(spec.parts)>>{});
}

/// A std::optional: both empty, or both holding values that agree.
template <bool Solo, class S, class RV, class CV>
bool deconstruct_optional(const S& spec, [[maybe_unused]] RV&& r, CV&& c, Env& env, std::string& text,
                          std::optional<Mismatch>& mismatch) {
  if constexpr (!Solo) {
    if (static_cast<bool>(r) != static_cast<bool>(c)) return shape_mismatch(spec, r, c, mismatch);
  }
  if (!c) {
    text = "std::nullopt";
    return true;
  }
  if constexpr (Solo) return deconstruct<Solo>(spec.inner, std::as_const(*c), *std::forward<CV>(c), env, text, mismatch);
  else return deconstruct<Solo>(spec.inner, *std::forward<RV>(r), *std::forward<CV>(c), env, text, mismatch);
}

/// A std::vector: the same size on both sides, then element by element.
template <bool Solo, class S, class RV, class CV>
bool deconstruct_vector(const S& spec, [[maybe_unused]] RV&& r, CV&& c, Env& env, std::string& text,
                        std::optional<Mismatch>& mismatch) {
  if constexpr (!Solo) {
    if (r.size() != c.size()) return shape_mismatch(spec, r, c, mismatch);
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
}

/// A std::variant: the same alternative on both sides, then that alternative.
template <bool Solo, class S, class RV, class CV>
bool deconstruct_variant(const S& spec, [[maybe_unused]] RV&& r, CV&& c, Env& env, std::string& text,
                         std::optional<Mismatch>& mismatch) {
  if constexpr (!Solo) {
    if (r.index() != c.index()) return shape_mismatch(spec, r, c, mismatch);
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
  }
  (std::make_index_sequence<std::tuple_size_v<decltype(spec.alternatives)>>{});
}

/// A mapped result (map_into): each side mapped by its function, then deconstructed.
template <bool Solo, class S, class RV, class CV>
bool deconstruct_mapped(const S& spec, [[maybe_unused]] RV&& r, CV&& c, Env& env, std::string& text,
                        std::optional<Mismatch>& mismatch) {
  if constexpr (Solo) {
    auto mapped = spec.fc(std::forward<CV>(c));
    return deconstruct<Solo>(spec.spec, std::as_const(mapped), std::move(mapped), env, text, mismatch);
  } else
    return deconstruct<Solo>(spec.spec, spec.fr(std::forward<RV>(r)), spec.fc(std::forward<CV>(c)), env, text, mismatch);
}

template <bool Solo, class S, class RV, class CV>
bool deconstruct(const S& spec, RV&& r, CV&& c, Env& env, std::string& text, std::optional<Mismatch>& mismatch) {
  constexpr SpecKind k = S::spec_kind;
  if constexpr (k == SpecKind::abstract) {
    return deconstruct_abstract(spec, std::forward<RV>(r), std::forward<CV>(c), env, text);
  } else if constexpr (k == SpecKind::value) {
    return deconstruct_value<Solo>(spec, r, c, text, mismatch);
  } else if constexpr (k == SpecKind::unit) {
    return true;
  } else if constexpr (k == SpecKind::pair) {
    return deconstruct_pair<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::tuple) {
    return deconstruct_tuple<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::optional) {
    return deconstruct_optional<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::vector) {
    return deconstruct_vector<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::variant) {
    return deconstruct_variant<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else if constexpr (k == SpecKind::map_into) {
    return deconstruct_mapped<Solo>(spec, std::forward<RV>(r), std::forward<CV>(c), env, text, mismatch);
  } else {
    static_assert(k != SpecKind::may_throw && k != SpecKind::nondet,
                  "duet: may_throw and nondet apply to a whole result, not to a part of one");
    static_assert(k == SpecKind::may_throw, "duet: an argument spec (where, map_outof) cannot describe a result");
    return false;
  }
}


}  // namespace detail
}  // namespace duet
