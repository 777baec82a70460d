// The non-template generators, and the part of integers(lo, hi) that does not depend on the
// integer type: compiled once here instead of in every test file that includes gen.hpp.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <stdexcept>

#include "duet/gen.hpp"

namespace duet {
namespace detail {

void GenCounted::drop(long count) const noexcept {
  if (refs_.fetch_sub(count, std::memory_order_acq_rel) == count) destroy();
}

// Inside a scope, the reference is held back (one generator at a time: holding another gives
// up the one held). The slot is updated before anything is given up, since deleting a
// generator releases the generators it holds.
void GenCounted::release_elsewhere() const noexcept {
  HeldGenReferences& held = held_gen_references;
  if (held.depth == 0) return drop(1);
  const std::uintptr_t previous = held.gen;
  const long previous_count = held.count;
  held.gen = address();
  held.count = 1;
  drop_held(previous, previous_count);
}

void GenCounted::drop_held(std::uintptr_t gen, long count) noexcept {
  if (count > 0) reinterpret_cast<const GenCounted*>(gen)->drop(count);  // alive: references are held
}

DeferredGenReleases::~DeferredGenReleases() {
  HeldGenReferences& held = held_gen_references;
  if (--held.depth > 0) return;
  const std::uintptr_t gen = held.gen;
  const long count = held.count;
  held.gen = 0;
  held.count = 0;
  GenCounted::drop_held(gen, count);
}

namespace {

// Maps r = 0, 1, 2, ... to target, then values above it up to hi, then below it (down to lo,
// which bounds r): uniform over [lo, hi] when r is uniform, and lowering r moves toward the
// target. In 64-bit patterns: for a narrower T the result, cast back, is the same value.
std::uint64_t integer_near(std::uint64_t target, std::uint64_t hi, std::uint64_t r) {
  const std::uint64_t above = hi - target;
  if (r <= above) return target + r;
  return target - (r - above);
}

}  // namespace

IntegerRange integer_range(std::uint64_t lo, std::uint64_t hi, std::uint64_t target, bool is_signed,
                           const std::uint64_t (&candidates)[7]) {
  // Compares patterns as the integer type would: flipping the sign bit maps signed order onto
  // unsigned order.
  const std::uint64_t flip = is_signed ? std::uint64_t{1} << 63 : 0;
  auto less = [flip](std::uint64_t a, std::uint64_t b) { return (a ^ flip) < (b ^ flip); };
  IntegerRange range;
  range.hi = hi;
  range.target = target;
  range.span = hi - lo;
  std::size_t n = 0;
  for (std::uint64_t e : candidates)
    if (!less(e, lo) && !less(hi, e) && std::find(range.edges, range.edges + n, e) == range.edges + n) range.edges[n++] = e;
  auto distance = [&](std::uint64_t e) { return less(e, target) ? target - e : e - target; };
  std::stable_sort(range.edges, range.edges + n,
                   [&](std::uint64_t a, std::uint64_t b) { return distance(a) < distance(b); });
  range.edge_count = n;
  return range;
}

// Every mode draws from the same values: an enumeration takes mode 0 and the values nearest
// the target (Source::draw_datum: alike up to renaming where the walk says so), so each value is
// drawn one way only.
std::uint64_t draw_integer(const IntegerRange& range, Source& s) {
  const std::uint64_t mode = s.draw(15, 0);
  if (mode < 4) return integer_near(range.target, range.hi, s.draw_datum(std::min<std::uint64_t>(range.span, 31)));
  if (mode < 13) return integer_near(range.target, range.hi, s.draw(range.span));
  return range.edges[s.draw(range.edge_count - 1)];
}

}  // namespace detail

Gen<int> range(int lo, int hi) { return integers<int>(lo, hi); }

Gen<int> small_int() { return integers<int>(0, 100); }

Gen<bool> booleans() {
  return [](Source& s) { return s.draw_value(1) == 1; };
}

Gen<double> reals(double lo, double hi) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi))
    throw std::invalid_argument("duet::reals: the range must be finite and lo <= hi");
  // Integral values within ±2^53 (where every integer is a double) and within the range.
  const double ilo = std::ceil(std::max(lo, -9007199254740992.0));
  const double ihi = std::floor(std::min(hi, 9007199254740992.0));
  const bool has_int = ilo <= ihi;
  const auto ints = has_int ? integers<std::int64_t>(static_cast<std::int64_t>(ilo), static_cast<std::int64_t>(ihi))
                            : just<std::int64_t>(0);
  return [=](Source& s) -> double {
    const std::uint64_t mode = s.draw(7, 0);  // enumerated: the integral values, simplest first
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

Gen<char> printable_chars() {
  static const std::string alphabet =
      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 !\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";
  return [](Source& s) { return alphabet[s.draw_value(alphabet.size() - 1)]; };
}

Gen<std::string> strings(std::size_t min_size, std::size_t max_size, Gen<char> chars) {
  return vectors(std::move(chars), min_size, max_size).map([](const std::vector<char>& v) {
    return std::string(v.begin(), v.end());
  });
}

Gen<std::int64_t> sequential() {
  // Each sequential() generator gets its own id (not an address, which the allocator may
  // reuse), so every build and every replay numbers the same way.
  static std::atomic<std::uint64_t> next_id{1};
  const std::uint64_t id = next_id.fetch_add(1, std::memory_order_relaxed);
  return [id](Source& s) { return s.next_count(id); };
}

}  // namespace duet
