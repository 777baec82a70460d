// duet::Api's machinery, part 2: arguments. What each argument spec gives on each side, the
// checks Api::op runs on the argument specs, and drawing an operation's arguments.
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <any>
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "duet/detail/api/environment.hpp"
#include "duet/detail/api/erased_value.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/scenario_args.hpp"

namespace duet {
namespace detail {

/// An argument's reference-side and candidate-side types (a type only: what a call holds of an
/// argument is an ArgSlot).
template <class R, class C>
struct Arg {
  using ref_type = R;
  using cand_type = C;
};

/// An argument of a drawn call. Its values are the same for every operation of its types: a
/// concrete argument's two copies are held here; an abstract one points into a handle store.
struct ArgSlot {
  static constexpr std::size_t none = ~std::size_t{0};
  void* ref = nullptr;  // the reference-side value: into a handle store, or own_ref
  void* cand = nullptr;
  ErasedValue own_ref;  // a concrete argument's values, one copy for each side
  ErasedValue own_cand;
  std::string text;  // how it prints: "3", "a0"
  // For abstract arguments: which handle, so that a call can be re-pointed at another
  // environment holding the same handles (a new trial, a copy for the checker).
  std::size_t type_id = none, handle = none;
  void (*rebind_fn)(ArgSlot&, Env&) = nullptr;

  /// Forgets the argument (a new draw).
  void clear() noexcept {
    ref = cand = nullptr;
    own_ref.reset();
    own_cand.reset();
    text.clear();
    type_id = handle = none;
    rebind_fn = nullptr;
  }
};

template <class T>
struct is_gen : std::false_type {};
template <class T>
struct is_gen<Gen<T>> : std::true_type {};

template <class... T>
struct type_list {};

/// What is wrong with an argument spec, if anything.
enum class ArgProblem { none, not_a_spec, dependent_not_a_gen, map_outof };

// (R, C) of an argument spec, given the reference types of the earlier arguments; R and C
// are defined only when `problem` is none.
template <class Spec, class PriorRefs, class = void>
struct arg_types {
  static constexpr ArgProblem problem = ArgProblem::not_a_spec;
};
template <class T, class... P>
struct arg_types<Gen<T>, type_list<P...>> {
  static constexpr ArgProblem problem = ArgProblem::none;
  using R = T;
  using C = T;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<kind_of<S>() == SpecKind::abstract>> {
  static constexpr ArgProblem problem = ArgProblem::none;
  using R = typename S::ref_type;
  using C = typename S::cand_type;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<kind_of<S>() == SpecKind::abstract_where>> {
  static constexpr ArgProblem problem = ArgProblem::none;
  using R = typename decltype(S::type)::ref_type;
  using C = typename decltype(S::type)::cand_type;
};
// map_outof(spec, fr, fc): fr and fc applied to what spec gives on each side.
template <class S, class Inner, class = void>
struct mapped_arg_types {
  static constexpr ArgProblem problem = ArgProblem::map_outof;
};
template <class S, class Inner>
struct mapped_arg_types<
    S, Inner,
    std::enable_if_t<Inner::problem == ArgProblem::none && std::is_invocable_v<const decltype(S::fr)&, typename Inner::R&> &&
                     std::is_invocable_v<const decltype(S::fc)&, typename Inner::C&>>> {
  static constexpr ArgProblem problem = ArgProblem::none;
  using R = std::decay_t<std::invoke_result_t<const decltype(S::fr)&, typename Inner::R&>>;
  using C = std::decay_t<std::invoke_result_t<const decltype(S::fc)&, typename Inner::C&>>;
};
template <class S, class... P>
struct arg_types<S, type_list<P...>, std::enable_if_t<kind_of<S>() == SpecKind::map_outof>>
    : mapped_arg_types<S, arg_types<decltype(S::spec), type_list<>>> {};
template <class G>
struct generated_or_void {
  using type = void;
};
template <class T>
struct generated_or_void<Gen<T>> {
  using type = T;
};
// A dependent argument: a callable of the earlier reference values returning a generator.
template <class F, class... P>
struct arg_types<F, type_list<P...>,
                 std::enable_if_t<!is_gen<F>::value && !SpecType<F> && std::is_invocable_v<const F&, const P&...>>> {
  using G = std::decay_t<std::invoke_result_t<const F&, const P&...>>;
  static constexpr ArgProblem problem = is_gen<G>::value ? ArgProblem::none : ArgProblem::dependent_not_a_gen;
  using R = typename generated_or_void<G>::type;
  using C = R;
};

/// Api::op's check of one argument spec. Instantiated only by Api::op, so that a failure shows
/// the types in its "required from" line: the spec, then the reference-side types of the
/// arguments before it (what a dependent argument is called with).
template <class Spec, class... Earlier>
struct argument_spec_valid {
  static constexpr ArgProblem problem = arg_types<Spec, type_list<Earlier...>>::problem;
  static constexpr bool value = problem == ArgProblem::none;
  static_assert(problem != ArgProblem::not_a_spec,
                "duet::args: an argument must be a duet::Gen, an abstract type (possibly .where(...)), "
                "duet::map_outof(...), or a callable taking the reference-side values of all earlier "
                "arguments (as const&) and returning a duet::Gen (the types: argument_spec_valid<this "
                "argument, the earlier arguments' reference types...>)");
  static_assert(problem != ArgProblem::dependent_not_a_gen,
                "duet::args: a dependent argument must return a duet::Gen<T> (the types: "
                "argument_spec_valid<this argument, the earlier arguments' reference types...>)");
  static_assert(problem != ArgProblem::map_outof,
                "duet::map_outof(spec, fr, fc): spec must be a duet::Gen or an abstract type, fr must take "
                "the reference-side value it gives and fc the candidate-side value (the types: "
                "argument_spec_valid<the map_outof, the earlier arguments' reference types...>)");
};

/// Api::op's check of its argument specs, in order: the first bad one reports, alone.
template <class Earlier, class Rest>
struct arguments_valid;
template <class... Earlier>
struct arguments_valid<type_list<Earlier...>, type_list<>> : std::true_type {};
template <class... Earlier, class S, class... Rest>
struct arguments_valid<type_list<Earlier...>, type_list<S, Rest...>> {
  static constexpr bool value = [] {
    if constexpr (!argument_spec_valid<S, Earlier...>::value) return false;
    else
      return arguments_valid<type_list<Earlier..., typename arg_types<S, type_list<Earlier...>>::R>,
                             type_list<Rest...>>::value;
  }();
};

/// f(a...) compiles with the arguments as lvalues (as Op calls it).
template <class F, class... A>
concept callable_with = requires(const F& f, A&... a) {
  f(a...);
};
template <class F, class... A>
using call_result_t = decltype(std::declval<const F&>()(std::declval<A&>()...));

/// Api::op's check that the reference can be called with the arguments the specs give it (the
/// types: the reference, then each argument's reference-side type, in order).
template <class F, class... Args>
struct reference_takes {
  static constexpr bool value = callable_with<F, Args...>;
  static_assert(value, "duet::Api::op: the reference implementation cannot be called with the arguments "
                       "duet::args(...) gives it (the types: reference_takes<reference, argument types...>): check "
                       "the number of arguments, and that each argument's type converts to the parameter in its "
                       "place (a duet::Gen<T> gives T, an abstract type its reference type R)");
};
/// The same for the candidate (the types: the candidate, then each argument's candidate-side type).
template <class F, class... Args>
struct candidate_takes {
  static constexpr bool value = callable_with<F, Args...>;
  static_assert(value, "duet::Api::op: the candidate cannot be called with the arguments duet::args(...) gives it "
                       "(the types: candidate_takes<candidate, argument types...>): check the number of arguments, "
                       "and that each argument's type converts to the parameter in its place (a duet::Gen<T> gives "
                       "T, an abstract type its candidate type C)");
};

template <class Done, class Rest>
struct fold_args;
template <class... Done>
struct fold_args<type_list<Done...>, type_list<>> {
  using type = std::tuple<Done...>;
};
template <class... Done, class S, class... Rest>
struct fold_args<type_list<Done...>, type_list<S, Rest...>> {
  using T = arg_types<S, type_list<typename Done::ref_type...>>;
  using type = typename fold_args<type_list<Done..., Arg<typename T::R, typename T::C>>, type_list<Rest...>>::type;
};
/// The argument specs of duet::args(...) as a type_list.
template <class Tuple>
struct spec_list;
template <class... A>
struct spec_list<std::tuple<A...>> {
  using type = type_list<A...>;
};

template <class Tuple>
struct arg_values;
template <class... A>
struct arg_values<std::tuple<A...>> {
  using type = typename fold_args<type_list<>, type_list<A...>>::type;
};

/// Points an abstract argument at its handle in env (ArgSlot::rebind_fn).
template <class Declared, class C>
void rebind_handle(ArgSlot& slot, Env& env) {
  const HandleStore& store = *env.stores[slot.type_id];
  if (slot.handle >= store.size()) throw std::out_of_range("duet: a call names a handle its environment does not hold");
  auto& handle = handle_at<Declared, C>(store, slot.handle);
  slot.ref = &handle.r();
  slot.cand = &handle.c;
}

/// The precondition of an abstract argument without where(): any live value.
struct AnyHandle {
  template <class T>
  bool operator()(const T&) const {
    return true;
  }
};

/// Chooses argument `out` among the live values of abstract type (Declared, C) that satisfy
/// pred; false when none does.
template <class Declared, class C, class Pred>
bool pick_from(const HandleStore& store, Source& src, ArgSlot& out, const Pred& pred) {
  // Counted from the newest: choice 0 is the most recent suitable value, and deleting an
  // older, unused step while shrinking does not change which value later choices name.
  std::size_t n = 0;
  for (std::size_t i = 0; i < store.size(); ++i) n += pred(std::as_const(handle_at<Declared, C>(store, i).r())) ? 1 : 0;
  if (n == 0) return false;
  auto k = static_cast<std::size_t>(src.draw(n - 1));
  for (std::size_t i = store.size(); i-- > 0;) {
    auto& handle = handle_at<Declared, C>(store, i);
    if (!pred(std::as_const(handle.r()))) continue;
    if (k-- == 0) {
      out.ref = &handle.r();
      out.cand = &handle.c;
      out.text = store.name(i);
      out.handle = i;
      out.rebind_fn = &rebind_handle<Declared, C>;
      return true;
    }
  }
  return false;
}

/// A side's value of argument K of a call whose arguments have the types Types (a tuple of Arg).
template <std::size_t K, class Types>
typename std::tuple_element_t<K, Types>::ref_type& ref_value(ArgSlot* slots) {
  return *static_cast<typename std::tuple_element_t<K, Types>::ref_type*>(slots[K].ref);
}
template <std::size_t K, class Types>
typename std::tuple_element_t<K, Types>::cand_type& cand_value(ArgSlot* slots) {
  return *static_cast<typename std::tuple_element_t<K, Types>::cand_type*>(slots[K].cand);
}

template <class Types, std::size_t... I>
auto call_with_prefix(const auto& f, ArgSlot* slots, std::index_sequence<I...>) {
  return f(std::as_const(ref_value<I, Types>(slots))...);
}

/// A concrete argument: the same value on both sides, each side with its own copy.
template <class T>
void set_concrete(ArgSlot& out, T v) {
  out.text = duet::show(v);
  out.ref = &out.own_ref.emplace<T>(v);
  out.cand = &out.own_cand.emplace<T>(std::move(v));
}

// Fills argument K (of types Types) from its spec; false to back off (no suitable handle).
template <std::size_t K, class Types, class Spec>
bool make_arg(const Spec& spec, Source& src, Env& env, ArgSlot* slots) {
  ArgSlot& out = slots[K];
  if constexpr (is_gen<Spec>::value) {
    set_concrete(out, spec(src));
    return true;
  } else if constexpr (kind_of<Spec>() == SpecKind::abstract) {
    out.type_id = spec.id;
    return pick_from<typename Spec::declared_ref_type, typename Spec::cand_type>(*env.stores[spec.id], src, out,
                                                                                 AnyHandle{});
  } else if constexpr (kind_of<Spec>() == SpecKind::abstract_where) {
    using A = decltype(spec.type);
    out.type_id = spec.type.id;
    return pick_from<typename A::declared_ref_type, typename A::cand_type>(*env.stores[spec.type.id], src, out, spec.pred);
  } else if constexpr (kind_of<Spec>() == SpecKind::map_outof) {
    using Inner = arg_types<std::remove_cvref_t<decltype(spec.spec)>, type_list<>>;
    using InnerTypes = std::tuple<Arg<typename Inner::R, typename Inner::C>>;
    using Mapped = std::tuple_element_t<K, Types>;
    ArgSlot inner;
    if (!make_arg<0, InnerTypes>(spec.spec, src, env, &inner)) return false;
    out.text = std::move(inner.text);
    out.ref = &out.own_ref.emplace<typename Mapped::ref_type>(spec.fr(ref_value<0, InnerTypes>(&inner)));
    out.cand = &out.own_cand.emplace<typename Mapped::cand_type>(spec.fc(cand_value<0, InnerTypes>(&inner)));
    return true;
  } else {  // dependent: a callable of the earlier reference values
    set_concrete(out, call_with_prefix<Types>(spec, slots, std::make_index_sequence<K>{})(src));
    return true;
  }
}

/// Points argument `out` at the live value named `name` among the handles of abstract type
/// (Declared, C), if it satisfies `pred`; why not, or empty.
/// Why a scenario's argument names no live value of its type, or one its where() rejects (out of
/// line: the messages are compiled once).
std::string no_handle_named(const std::string& name);
std::string handle_fails_where(const std::string& name);

template <class Declared, class C, class Pred>
std::string give_handle(const HandleStore& store, const std::string& name, ArgSlot& out, const Pred& pred) {
  const std::size_t i = store.find(name);
  if (i == store.size()) return no_handle_named(name);
  auto& handle = handle_at<Declared, C>(store, i);
  if (!pred(std::as_const(handle.r()))) return handle_fails_where(name);
  out.ref = &handle.r();
  out.cand = &handle.c;
  out.text = name;
  out.handle = i;
  out.rebind_fn = &rebind_handle<Declared, C>;
  return {};
}

// Fills argument K (of types Types) of a call of `op` from a scenario's argument: a live
// value's name for an abstract type, else a value converted to the argument's type
// (scenario_arg); why it does not fit, or empty.
template <std::size_t K, class Types, class Spec>
std::string give_arg(const std::string& op, const Spec& spec, const std::any& given, Env& env, ArgSlot* slots) {
  ArgSlot& out = slots[K];
  if constexpr (kind_of<Spec>() == SpecKind::abstract || kind_of<Spec>() == SpecKind::abstract_where) {
    const std::optional<std::string> name = scenario_arg<std::string>(given);
    if (!name) return scenario_arg_error(op, K, given, "live value, named as reports name it (\"a0\")");
    if constexpr (kind_of<Spec>() == SpecKind::abstract) {
      out.type_id = spec.id;
      return give_handle<typename Spec::declared_ref_type, typename Spec::cand_type>(*env.stores[spec.id], *name, out,
                                                                                     AnyHandle{});
    } else {
      using A = decltype(spec.type);
      out.type_id = spec.type.id;
      return give_handle<typename A::declared_ref_type, typename A::cand_type>(*env.stores[spec.type.id], *name, out,
                                                                               spec.pred);
    }
  } else if constexpr (kind_of<Spec>() == SpecKind::map_outof) {
    using Inner = arg_types<std::remove_cvref_t<decltype(spec.spec)>, type_list<>>;
    using InnerTypes = std::tuple<Arg<typename Inner::R, typename Inner::C>>;
    using Mapped = std::tuple_element_t<K, Types>;
    ArgSlot inner;
    if (std::string why = give_arg<0, InnerTypes>(op, spec.spec, given, env, &inner); !why.empty()) return why;
    out.text = std::move(inner.text);
    out.ref = &out.own_ref.emplace<typename Mapped::ref_type>(spec.fr(ref_value<0, InnerTypes>(&inner)));
    out.cand = &out.own_cand.emplace<typename Mapped::cand_type>(spec.fc(cand_value<0, InnerTypes>(&inner)));
    return {};
  } else {  // a generator's or a dependent argument's value
    using T = typename std::tuple_element_t<K, Types>::ref_type;
    std::optional<T> value = scenario_arg<T>(given);
    if (!value) return scenario_arg_error(op, K, given, type_name<T>());
    set_concrete(out, std::move(*value));
    return {};
  }
}

template <class Types, class Specs, std::size_t... K>
bool make_args(const Specs& specs, Source& src, Env& env, [[maybe_unused]] ArgSlot* slots, std::index_sequence<K...>) {
  return (make_arg<K, Types>(std::get<K>(specs), src, env, slots) && ...);
}

}  // namespace detail
}  // namespace duet
