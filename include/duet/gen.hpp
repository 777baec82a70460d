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

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
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
      : impl_(std::make_shared<const Impl<F>>(std::move(f))) {}

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
  struct Base {
    virtual ~Base() = default;
    virtual T generate(Source& s) const = 0;
  };
  template <class F>
  struct Impl final : Base {
    explicit Impl(F f) : f(std::move(f)) {}
    T generate(Source& s) const override { return f(s); }
    F f;
  };
  std::shared_ptr<const Base> impl_;
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

template <class T>
T integer_near(T target, T hi, std::uint64_t r) {
  // Maps r = 0, 1, 2, ... to target, then values above it up to hi, then below it (down to
  // lo, which bounds r): uniform over [lo, hi] when r is uniform, and lowering r moves toward
  // the target.
  using U = std::make_unsigned_t<T>;
  const U above = static_cast<U>(static_cast<U>(hi) - static_cast<U>(target));
  if (r <= above) return static_cast<T>(static_cast<U>(target) + static_cast<U>(r));
  return static_cast<T>(static_cast<U>(target) - static_cast<U>(r - above));
}
}  // namespace detail

/// Integers in [lo, hi], shrinking toward 0 (or the end of the range nearest 0). A quarter of
/// draws are small, about one in five is an edge value: 0, ±1, lo, hi, lo+1, hi-1 (listed
/// nearest the target first, so edges shrink toward it too).
template <std::integral T>
Gen<T> integers(T lo, T hi) {
  static_assert(!std::is_same_v<T, bool>, "duet::integers: use duet::booleans() for bool");
  if (lo > hi) throw std::invalid_argument("duet::integers: empty range (lo > hi)");
  const T target = lo > 0 ? lo : (hi < 0 ? hi : T(0));
  using U = std::make_unsigned_t<T>;
  const std::uint64_t span = static_cast<U>(static_cast<U>(hi) - static_cast<U>(lo));
  std::array<T, 7> edges{};
  std::size_t n = 0;
  for (T e : {target, T(1), static_cast<T>(-1), static_cast<T>(lo + (lo < hi)), static_cast<T>(hi - (lo < hi)), lo, hi})
    if (e >= lo && e <= hi && std::find(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(n), e) ==
                                  edges.begin() + static_cast<std::ptrdiff_t>(n))
      edges[n++] = e;
  auto distance = [target](T e) {  // in unsigned arithmetic: INT64_MIN - 0 overflows T
    return e >= target ? static_cast<U>(static_cast<U>(e) - static_cast<U>(target))
                       : static_cast<U>(static_cast<U>(target) - static_cast<U>(e));
  };
  std::stable_sort(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(n),
                   [&](T a, T b) { return distance(a) < distance(b); });
  return [=](Source& s) -> T {
    const std::uint64_t mode = s.draw(15);
    if (mode < 4) return detail::integer_near(target, hi, s.draw(std::min<std::uint64_t>(span, 31)));
    if (mode < 13) return detail::integer_near(target, hi, s.draw(span));
    return edges[s.draw(n - 1)];
  };
}

/// integers(lo, hi) over int, the common case.
inline Gen<int> range(int lo, int hi) { return integers<int>(lo, hi); }

/// Small non-negative ints, [0, 100].
inline Gen<int> small_int() { return integers<int>(0, 100); }

/// Any value of an integral type (full range, edge-biased).
template <std::integral T>
Gen<T> arbitrary() {
  if constexpr (std::is_same_v<T, bool>) return [](Source& s) { return s.draw(1) == 1; };
  else return integers<T>(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
}

inline Gen<bool> booleans() {
  return [](Source& s) { return s.draw(1) == 1; };
}

/// Always v (draws nothing).
template <class T>
Gen<std::decay_t<T>> just(T v) {
  return [v = std::move(v)](Source&) { return v; };
}

/// Doubles in [lo, hi] (finite bounds): integral values first (simplest), then any value,
/// then edges (0, ±1, -0.0, lo, hi).
inline Gen<double> reals(double lo, double hi) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw std::invalid_argument("duet::reals: the range must be finite and lo <= hi");
  // Integral values within ±2^53 (where every integer is a double) and within the range.
  const double ilo = std::ceil(std::max(lo, -9007199254740992.0));
  const double ihi = std::floor(std::min(hi, 9007199254740992.0));
  const bool has_int = ilo <= ihi;
  const auto ints = has_int ? integers<std::int64_t>(static_cast<std::int64_t>(ilo), static_cast<std::int64_t>(ihi))
                            : just<std::int64_t>(0);
  return [=](Source& s) -> double {
    const std::uint64_t mode = s.draw(7);
    if (mode < 3 && has_int) return static_cast<double>(ints(s));
    if (mode < 7) {
      const double u = static_cast<double>(s.draw((std::uint64_t{1} << 53) - 1)) / 9007199254740992.0;
      const double x = lo * (1 - u) + hi * u;  // no overflow even for [-DBL_MAX, DBL_MAX]
      return std::clamp(x, lo, hi);
    }
    const double edges[] = {0.0, 1.0, -1.0, -0.0, lo, hi};
    const double e = edges[s.draw(5)];
    return e < lo || e > hi ? lo : e;
  };
}

/// One of the listed values, shrinking toward the first.
template <class T>
Gen<T> element_of(std::vector<T> values) {
  if (values.empty()) throw std::invalid_argument("duet::element_of: no values to choose from");
  return [values = std::move(values)](Source& s) { return values[s.draw(values.size() - 1)]; };
}
template <class T>
Gen<T> element_of(std::initializer_list<T> values) {
  return element_of(std::vector<T>(values));
}

/// One of the generators, chosen uniformly, shrinking toward the first.
template <class G, class... Gs>
Gen<detail::gen_value_t<G>> one_of(G g, Gs... gs) {
  using T = detail::gen_value_t<G>;
  std::vector<Gen<T>> all{Gen<T>(std::move(g)), Gen<T>(std::move(gs))...};
  return [all = std::move(all)](Source& s) { return all[s.draw(all.size() - 1)](s); };
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
      if (v.size() >= max_size || s.draw(5) == 0) break;
      v.push_back(element(s));
      s.end_span(span);
    }
    return v;
  };
}

/// Printable ASCII characters, shrinking toward 'a'.
inline Gen<char> printable_chars() {
  static const std::string alphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  return [](Source& s) { return alphabet[s.draw(alphabet.size() - 1)]; };
}

/// Strings of printable characters (or of `chars`), like vectors.
inline Gen<std::string> strings(std::size_t min_size = 0, std::size_t max_size = 32,
                                Gen<char> chars = printable_chars()) {
  return vectors(std::move(chars), min_size, max_size).map([](const std::vector<char>& v) {
    return std::string(v.begin(), v.end());
  });
}

/// std::nullopt a quarter of the time (and when shrunk), else a value.
template <class T>
Gen<std::optional<T>> optionals(Gen<T> g) {
  return [g = std::move(g)](Source& s) -> std::optional<T> {
    if (s.draw(3) == 0) return std::nullopt;
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
inline Gen<std::int64_t> sequential() {
  // Each sequential() generator gets its own id (not an address, which the allocator may
  // reuse), so every build and every replay numbers the same way.
  static std::atomic<std::uint64_t> next_id{1};
  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  return [id](Source& s) { return s.next_count(id); };
}

}  // namespace duet
