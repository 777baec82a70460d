// The models' default keys are spread (duet::models::default_keys()): a striped map whose size()
// locks one stripe at a time is found on threads within expect_unsafe's default search budget on
// every seed, for stripes chosen by the low bits and by bits 10 and up: 8 seeds each here, 20
// with DUET_SOAK=1 (the search takes 0.1 to 1.5 s a seed; the shrinker is given 0.2 s, since
// finding is what this measures).
#include <duet/gtest.hpp>

#include <cstdlib>
#include <string>

#include "support/striped_map.hpp"

namespace {

template <striped::Stripe T>
void expect_found_on_20_seeds() {
  using Spec = duet::models::Map<striped::Binding<striped::Size::per_stripe, T>>;
  const std::uint64_t seeds = std::getenv("DUET_SOAK") ? 20 : 8;
  for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::expect_unsafe<Spec>({}, {.seed = seed, .shrink_time = 0.2, .verbose = -1});
    ASSERT_TRUE(r) << r.report;
  }
}

TEST(NegativeDomains, PerStripeSizeOverLowBitStripesIsFoundOnEverySeed) {
  expect_found_on_20_seeds<striped::Stripe::low_bits>();
}

TEST(NegativeDomains, PerStripeSizeOverHighBitStripesIsFoundOnEverySeed) {
  expect_found_on_20_seeds<striped::Stripe::high_bits>();
}

}  // namespace
