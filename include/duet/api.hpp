// Reference-vs-candidate API specs (the Monolith design): describe each operation once, give
// a simple reference implementation and the candidate, and duet generates well-typed scenarios
// over live values of abstract types, runs every step on both sides and compares every
// observable result.
//
//   duet::Api api("PersistentArray");
//   auto arr = api.abstract<Ref::Array, Cand::Array>("a");
//   auto elem = duet::sequential();
//   auto index = [](const Ref::Array& a) { return duet::integers<std::size_t>(0, a.size() - 1); };
//   api.op("make", duet::args(duet::integers<std::size_t>(1, 16), elem), arr, Ref::make, Cand::make);
//   api.op("get", duet::args(arr, index), duet::value<std::int64_t>(), Ref::get, Cand::get);
//   api.op("set", duet::args(arr, index, elem), arr, Ref::set, Cand::set);
//   EXPECT_TRUE(api.check({.count = 10000}));
//
// A failing scenario prints as C++ with named variables:
//        auto a0 = make(1, 0);
//        auto a1 = set(a0, 0, 1);
//        assert(get(a0, 0) == 0);  // candidate finds 1
//
// Without a reference (ArtiCheck's "build values only through the API"), declare abstract
// types with `duet::Solo` as the reference type and give operations only the candidate:
//   auto set = api.abstract<duet::Solo, AvlSet>("s", [](const AvlSet& s) { return s.balanced(); });
//   api.op("add", duet::args(set, duet::small_int()), set, &AvlSet::add_copy);
#pragma once

#include <cstddef>
#include <cstdint>
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

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/gen.hpp"
#include "duet/result.hpp"
#include "duet/show.hpp"
#include "duet/parallel_config.hpp"  // ParallelConfig: the parallel runner itself is in the library
#include "duet/scenario.hpp"
#include "duet/state_machine.hpp"  // Verdict

#include "duet/detail/engine.hpp"

namespace duet {

/// Thrown by a reference implementation to decline an operation in the current state (before
/// changing anything): duet chooses another operation instead.
struct BackOff {};

/// Thrown by a candidate to say it does not support an operation: the scenario is abandoned,
/// not failed.
struct Unimplemented {};

/// The reference type of an abstract type that has no reference (invariant-only mode).
struct Solo {};

/// The answer of a nondeterministic reference: the candidate's result is valid (with the
/// reference-side value to continue with) or invalid (with an explanation).
///
///   [](Ref::Gen& g, int got) -> duet::Diagnostic<int> {
///     if (got > g.last) { g.last = got; return duet::valid(got); }
///     return duet::invalid("not above " + std::to_string(g.last));
///   }
template <class R>
struct Diagnostic {
  std::optional<R> value;  // set when valid
  std::string why;         // set when invalid
  bool is_valid() const { return value.has_value(); }
};
template <class R>
Diagnostic<std::decay_t<R>> valid(R&& r) {
  return {std::forward<R>(r), {}};
}
struct invalid {
  explicit invalid(std::string why) : why(std::move(why)) {}
  template <class R>
  operator Diagnostic<R>() const {  // NOLINT: converts to any Diagnostic
    return {std::nullopt, why};
  }
  std::string why;
};

namespace detail {
// What kind of spec a type is (dispatch without guessing from members).
enum class SpecKind {
  none,
  abstract,
  abstract_where,
  value,
  unit,
  pair,
  tuple,
  optional,
  vector,
  variant,
  may_throw,
  nondet,
  map_into,
  map_outof
};
template <class S>
concept SpecType = requires {
  S::spec_kind;
};
/// S's kind, or none for types that are not specs (generators, callables).
template <class S>
constexpr SpecKind kind_of() {
  if constexpr (SpecType<S>) return S::spec_kind;
  else return SpecKind::none;
}
}  // namespace detail

template <class R, class C, class Pred>
class AbstractWhere;

/// An abstract type: reference type R and candidate type C, never generated nor compared
/// directly. Results of this type become named handles; arguments are chosen among them.
/// R = duet::Solo: no reference side (invariant-only mode).
template <class R, class C>
class Abstract {
 public:
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::abstract;
  using ref_type = std::conditional_t<std::is_same_v<R, Solo>, C, R>;  // what predicates see
  using cand_type = C;
  using declared_ref_type = R;
  explicit Abstract(std::size_t id) : id(id) {}

  /// Only handles whose reference value satisfies pred may be chosen (a precondition).
  template <class Pred>
  AbstractWhere<R, C, Pred> where(Pred pred) const {
    static_assert(std::is_invocable_r_v<bool, const Pred&, const ref_type&>,
                  "duet: where() takes a predicate on the reference-side value: bool(const R&)");
    return {*this, std::move(pred)};
  }

  std::size_t id;
};

template <class R, class C, class Pred>
class AbstractWhere {
 public:
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::abstract_where;
  AbstractWhere(Abstract<R, C> type, Pred pred) : type(std::move(type)), pred(std::move(pred)) {}
  Abstract<R, C> type;
  Pred pred;
};

/// The argument list of an operation: generators (concrete values, the same on both sides),
/// abstract types (a live handle, possibly `.where(precondition)`), or callables taking the
/// reference values of all earlier arguments and returning a generator (dependent arguments).
template <class... A>
std::tuple<A...> args(A... a) {
  return std::tuple<A...>(std::move(a)...);
}

/// Transforms a generated argument on each side (Monolith's map_outof):
///   duet::map_outof(duet::small_int(), [](int n) { return Ref::Key(n); }, [](int n) { return Cand::Key(n); })
template <class S, class FR, class FC>
struct MapOutof {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::map_outof;
  S spec;
  FR fr;
  FC fc;
};
template <class S, class FR, class FC>
MapOutof<S, FR, FC> map_outof(S spec, FR fr, FC fc) {
  return {std::move(spec), std::move(fr), std::move(fc)};
}

// ---- result specs ----

/// A concrete result compared with == and printed with duet::show (or given functions).
template <class T>
struct Value {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::value;
  using type = T;
  std::function<bool(const T&, const T&)> equal;  // empty: ==
  std::function<std::string(const T&)> print;     // empty: duet::show
  std::string show(const T& x) const { return print ? print(x) : duet::show(x); }
  bool same(const T& a, const T& b) const {
    if (equal) return equal(a, b);
    if constexpr (detail::EqualityComparable<T>) return static_cast<bool>(a == b);
    else return false;
  }
};
template <class T>
Value<T> value() {
  static_assert(detail::EqualityComparable<T>,
                "duet::value<T>: the result type has no operator== (pass an equality: duet::value<T>(eq, print))");
  static_assert(printable<T>(), "duet::value<T>: the result type has no printer (define duet_show or operator<<, or pass "
                                "one: duet::value<T>(eq, print))");
  return {};
}
template <class T, class Eq, class Print>
Value<T> value(Eq equal, Print print) {
  return {std::move(equal), std::move(print)};
}

/// No result (void on both sides).
struct Unit {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::unit;
};
inline Unit unit() { return {}; }

template <class A, class B>
struct PairSpec {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::pair;
  A first;
  B second;
};
/// A std::pair result: deconstructed on both sides, parts compared or bound.
template <class A, class B>
PairSpec<A, B> pair_of(A a, B b) {
  return {std::move(a), std::move(b)};
}
template <class... S>
struct TupleSpec {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::tuple;
  std::tuple<S...> parts;
};
/// A std::tuple result, deconstructed like a pair.
template <class... S>
TupleSpec<S...> tuple_of_specs(S... s) {
  return {std::tuple<S...>(std::move(s)...)};
}
template <class S>
struct OptionalSpec {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::optional;
  S inner;
};
/// A std::optional result: both sides must agree on empty or not.
template <class S>
OptionalSpec<S> optional_of(S s) {
  return {std::move(s)};
}
template <class S>
struct VectorSpec {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::vector;
  S element;
};
/// A std::vector result: same length on both sides, elements compared or bound.
template <class S>
VectorSpec<S> vector_of(S s) {
  return {std::move(s)};
}
template <class... S>
struct VariantSpec {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::variant;
  std::tuple<S...> alternatives;
};
/// A std::variant result (and std::expected-like outcomes): the same alternative on both sides.
template <class... S>
VariantSpec<S...> variant_of(S... s) {
  return {std::tuple<S...>(std::move(s)...)};
}

/// The operation may throw: both sides throw equivalent exceptions (by default: of the same
/// type), or both return results that agree under `spec`.
template <class S>
struct MayThrow {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::may_throw;
  S spec;
  std::function<bool(const Result&, const Result&)> equivalent;  // (reference's, candidate's); empty: same type
};
template <class S>
MayThrow<S> may_throw(S spec) {
  return {std::move(spec), {}};
}
template <class S, class Eq>
MayThrow<S> may_throw(S spec, Eq equivalent) {
  return {std::move(spec), std::move(equivalent)};
}

/// A nondeterministic result: the reference receives the candidate's result as an extra last
/// argument and returns a Diagnostic (valid, with its own value, or invalid, with why). Around
/// may_throw, the reference receives a `const duet::Result&` saying what the candidate did (a
/// value or an exception) and returns a duet::Verdict (or bool) accepting or rejecting it.
template <class S>
struct Nondet {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::nondet;
  S spec;
};

template <class S>
Nondet<S> nondet(S spec);

/// Transforms results on each side before comparing them under `spec` (Monolith's map_into).
template <class S, class FR, class FC>
struct MapInto {
  static constexpr detail::SpecKind spec_kind = detail::SpecKind::map_into;
  S spec;
  FR fr;
  FC fc;
};
template <class S, class FR, class FC>
MapInto<S, FR, FC> map_into(S spec, FR fr, FC fc) {
  return {std::move(spec), std::move(fr), std::move(fc)};
}

/// f with its first two parameters swapped (Monolith's rot2): declare remove(x, s) as taking
/// the set first, so that the element can be chosen from it.
template <class F>
auto flip(F f) {
  return [f = std::move(f)](auto&& a, auto&& b, auto&&... rest) -> decltype(auto) {
    return f(std::forward<decltype(b)>(b), std::forward<decltype(a)>(a), std::forward<decltype(rest)>(rest)...);
  };
}

namespace detail {

template <class S>
constexpr bool contains_abstract() {
  constexpr SpecKind k = S::spec_kind;
  if constexpr (k == SpecKind::abstract) return true;
  else if constexpr (k == SpecKind::pair)
    return contains_abstract<decltype(S::first)>() || contains_abstract<decltype(S::second)>();
  else if constexpr (k == SpecKind::optional) return contains_abstract<decltype(S::inner)>();
  else if constexpr (k == SpecKind::vector) return contains_abstract<decltype(S::element)>();
  else if constexpr (k == SpecKind::tuple)
    return []<class... X>(std::type_identity<std::tuple<X...>>) {
      return (contains_abstract<X>() || ...);
    }(std::type_identity<decltype(S::parts)>{});
  else if constexpr (k == SpecKind::variant)
    return []<class... X>(std::type_identity<std::tuple<X...>>) {
      return (contains_abstract<X>() || ...);
    }(std::type_identity<decltype(S::alternatives)>{});
  else if constexpr (k == SpecKind::may_throw || k == SpecKind::nondet || k == SpecKind::map_into)
    return contains_abstract<decltype(S::spec)>();
  else return false;
}

}  // namespace detail

template <class S>
Nondet<S> nondet(S spec) {
  static_assert(!detail::contains_abstract<S>(),
                "duet::nondet: a nondeterministic result cannot contain an abstract type (the reference "
                "could not produce its own value of it to continue with)");
  return {std::move(spec)};
}

struct ApiOptions {
  std::size_t fuel = 0;          // operations per scenario at most; 0: the Config's max_length
  std::size_t max_handles = 32;  // live values per abstract type at most
  // With Api::recover declared: one duet::fault_point in this many crashes the candidate.
  std::uint64_t crash_one_in = 25;
};

}  // namespace duet

// The machinery under duet::Api (not public; each part uses the vocabulary above): the live
// values of a scenario, arguments, results, one operation.
#include "duet/detail/api/environment.hpp"
#include "duet/detail/api/arguments.hpp"
#include "duet/detail/api/results.hpp"
#include "duet/detail/api/operation.hpp"

namespace duet {

/// A library's API described once, with a reference and a candidate implementation of each
/// operation (or only the candidate, for abstract types declared with duet::Solo).
///
///   duet::Api api("PersistentArray");
class Api {
 public:
  explicit Api(std::string name);
  Api(const Api&);
  Api(Api&&) noexcept;
  Api& operator=(const Api&);
  Api& operator=(Api&&) noexcept;
  ~Api();

  /// Declares an abstract type with reference type R (or duet::Solo) and candidate type C.
  /// Variables of this type print as prefix0, prefix1, ...
  ///
  ///   auto arr = api.abstract<Ref::Array, Cand::Array>("a");
  template <class R, class C>
  Abstract<R, C> abstract(const std::string& prefix) {
    return abstract<R, C>(prefix, nullptr);
  }

  /// The same, with a well-formedness check run after every operation on every live value:
  /// `bool|Verdict check(const R&, const C&)`, or `(const C&)` for duet::Solo types. It may also
  /// throw to fail.
  ///
  ///   auto set = api.abstract<duet::Solo, AvlSet>("s", [](const AvlSet& s) { return s.balanced(); });
  template <class R, class C, class Check>
  Abstract<R, C> abstract(const std::string& prefix, Check check) {
    return Abstract<R, C>(add_abstract(detail::empty_store<R, C>(std::move(check)), prefix));
  }

  /// Crash injection (duet/faults.hpp): every duet::fault_point the candidate passes during a
  /// sequential check may crash it (one in ApiOptions::crash_one_in). After a crash, recover
  /// rebuilds each live candidate value of `type` in place from what persisted (a device the
  /// value points to); values of types without recover are kept as they were. The reference
  /// goes on in every world the interrupted call may have left (taken effect, or not), and
  /// every later result must be explained by one of them. Needs copyable reference and
  /// candidate types (each world is a copy); nondeterministic operations are not crash points.
  ///
  ///   auto db = api.abstract<std::map<std::string, std::string>, KvHandle>("db");
  ///   api.recover(db, [](KvHandle& h) { h.remount(); });
  template <class R, class C, class F>
  Api& recover(Abstract<R, C> type, F fn) {
    recovers_.resize(stores_.size());
    recovers_[type.id] = detail::store_recovery<R, C>(std::move(fn));
    return *this;
  }

  /// How the values of abstract type `type` print in reports: `show(const R&)` (the reference
  /// value; the candidate's for duet::Solo types). A failing check then shows every live value
  /// of the type after each step of a sequential scenario ("a0 = ..., a1 = ..."), and along the
  /// closest sequential witness of a parallel one (the reference run from the prefix's values).
  ///
  ///   api.state(arr, [](const Ref::Array& a) { return duet::show(a); });
  template <class R, class C, class F>
  Api& state(Abstract<R, C> type, F show) {
    shows_.resize(stores_.size());
    shows_[type.id] = detail::handle_printer<R, C>(std::move(show));
    return *this;
  }

  /// Declares an operation: its arguments (duet::args(...)), its result spec, and its
  /// reference and candidate implementations, called with the arguments in order. A spec that
  /// does not fit the implementations (an argument they cannot take, a result spec that does
  /// not describe what they return) fails to compile here, with one message.
  ///
  ///   api.op("get", duet::args(arr, index), duet::value<std::int64_t>(), Ref::get, Cand::get);
  template <class... A, class Res, class FR, class FC>
  Api& op(std::string name, std::tuple<A...> arguments, Res result, FR reference, FC candidate) {
    if constexpr (detail::op_fits<false, std::tuple<A...>, Res, FR, FC>())
      add_op(std::make_unique<detail::Op<false, std::tuple<A...>, Res, FR, FC>>(
          std::move(name), std::move(arguments), std::move(result), std::move(reference), std::move(candidate)));
    return *this;
  }

  /// Declares an operation with only a candidate implementation (invariant-only mode: the
  /// abstract types it uses are declared with duet::Solo; results are not compared).
  ///
  ///   api.op("add", duet::args(set, duet::small_int()), set, &add_copy);
  template <class... A, class Res, class FC>
  Api& op(std::string name, std::tuple<A...> arguments, Res result, FC candidate) {
    if constexpr (detail::op_fits<true, std::tuple<A...>, Res, int, FC>())
      add_op(std::make_unique<detail::Op<true, std::tuple<A...>, Res, int, FC>>(std::move(name), std::move(arguments),
                                                                                std::move(result), 0, std::move(candidate)));
    return *this;
  }

  /// Runs scenarios until the budget runs out (about a second by default), shrinking and
  /// reporting the first disagreement, as duet::check_sequential does.
  ///
  ///   EXPECT_TRUE(api.check({.count = 10000}));
  CheckResult check(const Config& config = {}, const ApiOptions& options = {}) const;
  /// Y-shaped programs on threads with the reference as the oracle: the prefix runs on both
  /// sides and must agree step by step; the branches run on the candidate at once; an outcome
  /// passes if some order of the branch calls that respects real time, run on (a copy of) the
  /// reference, gives the same results. Abstract values must be copyable; nondet operations
  /// and operations with no reference are not supported here.
  ///
  ///   EXPECT_TRUE(api.check_parallel({.branches = 2}));
  CheckResult check_parallel(const ParallelConfig& pc = {}, const Config& config = {}, const ApiOptions& options = {}) const;
  /// The negative test: passes when a program with an unexplainable outcome is found.
  ///
  ///   EXPECT_TRUE(api.expect_unsafe({.branches = 2}));
  CheckResult expect_unsafe(const ParallelConfig& pc = {}, const Config& config = {}, const ApiOptions& options = {}) const;

  /// A hand-written Y-program (duet/scenario.hpp), checked as check_parallel checks a drawn
  /// one: each call names an operation with its arguments (duet::call), a live value by the
  /// name reports give it ("a0": the first value of the abstract type declared with prefix
  /// "a"). An unknown operation, a wrong number of arguments or one that does not fit, or a
  /// suffix (API programs have none) is an error.
  ///
  ///   const duet::Scenario<> two_gets{.prefix = {duet::call("make", 4)}, .branches = {{duet::call("get", "a0", 1)}, {duet::call("get", "a0", 2)}}};
  ///   EXPECT_TRUE(api.check_scenario(two_gets));
  CheckResult check_scenario(const Scenario<>& scenario, const ParallelConfig& pc = {}, const Config& config = {},
                             const ApiOptions& options = {}) const;

  /// One scenario from raw bytes (a fuzzer's input); see duet::check_sequential_bytes.
  ///
  ///   auto r = api.check_bytes(std::span<const std::uint8_t>(data, size));
  CheckResult check_bytes(std::span<const std::uint8_t> bytes, const Config& config = {},
                          const ApiOptions& options = {}) const;

  /// The name given to the constructor (the report's title).
  const std::string& name() const { return name_; }

 private:
  detail::Property property(const ApiOptions& options) const;
  detail::Property parallel_property(const ParallelConfig& pc, const ApiOptions& options,
                                     const Scenario<>* scenario = nullptr) const;
  // Out of line, so that a test file does not compile the bookkeeping of each declaration.
  std::size_t add_abstract(std::unique_ptr<detail::HandleStore> empty_store, const std::string& prefix);
  void add_op(std::unique_ptr<detail::OpBase> op);

  std::string name_;
  std::vector<std::shared_ptr<const detail::HandleStore>> stores_;  // by abstract type id: an empty store each
  std::vector<std::string> prefixes_;
  std::vector<std::shared_ptr<const detail::OpBase>> ops_;
  std::vector<std::function<void(detail::HandleStore&)>> recovers_;  // by abstract type id; empty: none
  std::vector<std::function<std::string(const void*)>> shows_;       // by abstract type id; empty: none
};

}  // namespace duet
