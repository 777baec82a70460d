// Generators: values drawn from the choice stream.
//
// A Gen<T> turns choices into a T. Generators never shrink anything themselves: the engine
// shrinks the recorded choices and replays them, and every generator here is written so
// that smaller choices give simpler values (0 for numbers, shorter vectors, the first
// alternative of one_of, std::nullopt for optionals).
//
//   auto small = duet::integers(0, 9);
//   auto pairs = duet::tuple_of(small, duet::booleans());
//   auto evens = small.map([](int x) { return 2 * x; });
//   auto sized = duet::integers(1, 5).bind([](int n) { return duet::vectors(duet::integers(0, 9), n, n); });
//
// Gen<T> is cheap to copy (a shared pointer), so specs can keep generators in statics.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "duet/source.hpp"

#include "duet/detail/gen_counted.hpp"

namespace duet {

template <class T>
class Gen {
 public:
  using value_type = T;

  /// Any callable `T(Source&)` is a generator.
  template <class F>
    requires(!std::is_same_v<std::remove_cvref_t<F>, Gen> && std::is_invocable_v<const F&, Source&> &&
             std::is_convertible_v<std::invoke_result_t<const F&, Source&>, T>)
  Gen(F f)  // NOLINT: implicit, so lambdas can be returned where a Gen is expected
      : impl_(new Impl<F>(std::move(f))) {}

  Gen(const Gen& o) noexcept : impl_(o.impl_) { impl_->retain(); }
  Gen(Gen&& o) noexcept : impl_(std::exchange(o.impl_, nullptr)) {}
  Gen& operator=(Gen o) noexcept {
    std::swap(impl_, o.impl_);
    return *this;
  }
  ~Gen() {
    if (impl_) impl_->release();
  }

  T operator()(Source& s) const { return impl_->generate(s); }

  /// Applies f to every generated value.
  template <class F>
  auto map(F f) const -> Gen<std::invoke_result_t<F, T>> {
    return [g = *this, f = std::move(f)](Source& s) { return f(g(s)); };
  }

  /// Keeps only values satisfying pred, trying up to `tries` draws; then the attempt is
  /// discarded (duet::Discard), which the engine counts and reports.
  template <class P>
  Gen filter(P pred, int tries = 100) const {
    return [g = *this, pred = std::move(pred), tries](Source& s) -> T {
      for (int i = 0; i < tries; ++i) {
        T v = g(s);
        if (pred(std::as_const(v))) return v;
      }
      throw Discard{};
    };
  }

  /// Dependent generation: f maps a value to the generator of the next value.
  template <class F>
  auto bind(F f) const -> Gen<typename std::invoke_result_t<F, T>::value_type> {
    return [g = *this, f = std::move(f)](Source& s) { return f(g(s))(s); };
  }

 private:
  struct Base : detail::GenCounted {
    virtual T generate(Source& s) const = 0;
  };
  template <class F>
  struct Impl final : Base {
    explicit Impl(F f) : f(std::move(f)) {}
    T generate(Source& s) const override { return f(s); }
    void destroy() const noexcept override { delete this; }
    F f;
  };
  // Null only in a moved-from Gen, which may only be destroyed or assigned to.
  const Base* impl_;
};

namespace detail {
template <class T>
struct gen_value;
template <class T>
struct gen_value<Gen<T>> {
  using type = T;
};
template <class G>
using gen_value_t = typename gen_value<std::remove_cvref_t<G>>::type;

/// integers(lo, hi) as 64-bit patterns (sign- or zero-extended from T), so that the work is
/// compiled once in the library rather than in every test file: the target the values shrink
/// toward, the span, and the edge values ordered nearest the target first.
struct IntegerRange {
  std::uint64_t hi = 0, target = 0, span = 0;
  std::uint64_t edges[7] = {};
  std::uint64_t edge_count = 0;
};
/// `candidates`: target, 1, -1, lo+1, hi-1, lo, hi as T spells them (in range or not).
IntegerRange integer_range(std::uint64_t lo, std::uint64_t hi, std::uint64_t target, bool is_signed,
                           const std::uint64_t (&candidates)[7]);
/// One draw: a quarter small values near the target, about one in five an edge, else uniform.
std::uint64_t draw_integer(const IntegerRange& range, Source& s);
}  // namespace detail

/// Integers in [lo, hi], shrinking toward 0 (or the end of the range nearest 0). A quarter of
/// draws are small, about one in five is an edge value: 0, ±1, lo, hi, lo+1, hi-1 (listed
/// nearest the target first, so edges shrink toward it too).
template <std::integral T>
Gen<T> integers(T lo, T hi) {
  static_assert(!std::is_same_v<T, bool>, "duet::integers: use duet::booleans() for bool");
  if (lo > hi) throw std::invalid_argument("duet::integers: empty range (lo > hi)");
  const T target = lo > 0 ? lo : (hi < 0 ? hi : T(0));
  // Sign-extends a signed T, zero-extends an unsigned one.
  auto bits = [](T v) {
    if constexpr (std::is_signed_v<T>) return static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    else return static_cast<std::uint64_t>(v);
  };
  const std::uint64_t candidates[7] = {bits(target),
                                       bits(T(1)),
                                       bits(static_cast<T>(-1)),
                                       bits(static_cast<T>(lo + (lo < hi))),
                                       bits(static_cast<T>(hi - (lo < hi))),
                                       bits(lo),
                                       bits(hi)};
  const detail::IntegerRange range =
      detail::integer_range(bits(lo), bits(hi), bits(target), std::is_signed_v<T>, candidates);
  return [range](Source& s) { return static_cast<T>(detail::draw_integer(range, s)); };
}

/// integers(lo, hi) over int, the common case.
Gen<int> range(int lo, int hi);

/// Small non-negative ints, [0, 100].
Gen<int> small_int();

/// Any value of an integral type (full range, edge-biased).
template <std::integral T>
Gen<T> arbitrary() {
  if constexpr (std::is_same_v<T, bool>) return [](Source& s) { return s.draw_value(1) == 1; };
  else return integers<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

Gen<bool> booleans();

/// Always v (draws nothing).
template <class T>
Gen<std::decay_t<T>> just(T v) {
  return [v = std::move(v)](Source&) { return v; };
}

/// Doubles in [lo, hi] (finite bounds): integral values first (simplest), then any value,
/// then edges (0, ±1, -0.0, lo, hi).
Gen<double> reals(double lo, double hi);

/// One of the listed values, shrinking toward the first.
template <class T>
Gen<T> element_of(std::vector<T> values) {
  if (values.empty()) throw std::invalid_argument("duet::element_of: no values to choose from");
  return [values = std::move(values)](Source& s) { return values[s.draw_value(values.size() - 1)]; };
}
template <class T>
Gen<T> element_of(std::initializer_list<T> values) {
  return element_of(std::vector<T>(values));
}

/// One of the generators, chosen uniformly, shrinking toward the first.
template <class G, class... Gs>
Gen<detail::gen_value_t<G>> one_of(G g, Gs... gs) {
  using T = detail::gen_value_t<G>;
  struct All {  // a plain array: cheaper to compile than a std::vector of generators
    Gen<T> gens[1 + sizeof...(Gs)];
  };
  return [all = All{{Gen<T>(std::move(g)), Gen<T>(std::move(gs))...}}](Source& s) {
    return all.gens[s.draw(sizeof...(Gs))](s);
  };
}

/// Weighted choice: frequency<Cmd>({{3, push}, {1, pop}}) picks push three times as often.
template <class T>
Gen<T> frequency(std::vector<std::pair<unsigned, Gen<T>>> weighted) {
  std::uint64_t total = 0;
  for (auto& [w, g] : weighted) total += w;
  if (total == 0) throw std::invalid_argument("duet::frequency: weights add up to 0");
  return [weighted = std::move(weighted), total](Source& s) {
    std::uint64_t r = s.draw(total - 1);
    for (auto& [w, g] : weighted) {
      if (r < w) return g(s);
      r -= w;
    }
    return weighted.back().second(s);
  };
}

/// Vectors of min_size to max_size elements (about 5 past min_size on average). Each element
/// past min_size is preceded by a "one more?" choice, so the shrinker deletes elements by
/// deleting choices.
template <class T>
Gen<std::vector<T>> vectors(Gen<T> element, std::size_t min_size = 0, std::size_t max_size = 64) {
  if (min_size > max_size) throw std::invalid_argument("duet::vectors: min_size > max_size");
  return [=](Source& s) {
    std::vector<T> v;
    while (v.size() < min_size) v.push_back(element(s));
    // Each optional element is a span, so the shrinker deletes elements whole.
    for (;;) {
      const std::size_t span = s.begin_span();
      // Enumerated: stop or go on, up to the enumeration's values elements past min_size.
      const std::size_t enumerated = s.enumerated_values();
      const bool room = enumerated == 0 || v.size() < min_size + enumerated;
      if (v.size() >= max_size || s.draw(5, room ? 1 : 0) == 0) break;
      v.push_back(element(s));
      s.end_span(span);
    }
    return v;
  };
}

/// Printable ASCII characters, shrinking toward 'a'.
Gen<char> printable_chars();

/// Strings of printable characters (or of `chars`), like vectors.
Gen<std::string> strings(std::size_t min_size = 0, std::size_t max_size = 32, Gen<char> chars = printable_chars());

/// std::nullopt a quarter of the time (and when shrunk), else a value.
template <class T>
Gen<std::optional<T>> optionals(Gen<T> g) {
  return [g = std::move(g)](Source& s) -> std::optional<T> {
    if (s.draw(3, 1) == 0) return std::nullopt;
    return g(s);
  };
}

/// A variant holding the alternative picked uniformly; alternative i comes from gens[i].
template <class... Ts>
Gen<std::variant<Ts...>> variants(Gen<Ts>... gens) {
  using V = std::variant<Ts...>;
  std::vector<std::function<V(Source&)>> all{[g = std::move(gens)](Source& s) { return V(g(s)); }...};
  return [all = std::move(all)](Source& s) { return all[s.draw(all.size() - 1)](s); };
}

/// Tuples of independently generated parts, drawn left to right.
template <class... Gs>
Gen<std::tuple<detail::gen_value_t<Gs>...>> tuple_of(Gs... gens) {
  return [=](Source& s) { return std::tuple<detail::gen_value_t<Gs>...>{gens(s)...}; };
}

/// T{a, b, ...} from one generator per member, drawn left to right:
///   duet::construct<Push>(duet::small_int())
template <class T, class... Gs>
Gen<T> construct(Gs... gens) {
  return [=](Source& s) { return T{gens(s)...}; };
}

/// 0, 1, 2, ... within each case (Monolith's `sequential`): fresh, distinct values such as
/// keys or identifiers. Replay gives the same numbers.
Gen<std::int64_t> sequential();

}  // namespace duet
