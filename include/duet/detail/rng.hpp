// Small, fast, seedable pseudo-random generator behind the choice stream.
#pragma once

#include <cstdint>

namespace duet::detail {

/// One splitmix64 step: also used to derive independent case seeds from a run's seed.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// splitmix64: statistically sound for test generation, one add and two multiplies a draw.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  /// Where the sequence stands: Rng(state()) goes on with the same numbers.
  std::uint64_t state() const { return state_; }
  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, max] without modulo bias (Lemire's multiply-shift with rejection).
  std::uint64_t below_or_equal(std::uint64_t max) {
    __extension__ using u128 = unsigned __int128;  // GCC and Clang; quiet under -Wpedantic
    if (max == ~std::uint64_t{0}) return next();
    const std::uint64_t range = max + 1;
    u128 m = static_cast<u128>(next()) * range;
    auto low = static_cast<std::uint64_t>(m);
    if (low < range) {
      const std::uint64_t threshold = (0 - range) % range;
      while (low < threshold) {
        m = static_cast<u128>(next()) * range;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }

 private:
  std::uint64_t state_;
};

}  // namespace duet::detail
