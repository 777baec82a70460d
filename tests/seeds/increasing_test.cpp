// Increasing-sequence generators (Monolith, section 4.1): a nondeterministic spec accepts any
// strictly increasing candidate and finds one that wraps around.
#include <duet/gtest.hpp>

#include "increasing.hpp"

namespace {

using namespace increasing;

TEST(IncreasingSeeds, CounterPasses) {
  const duet::Api api = spec<counter::Generator>(counter::create, counter::next);
  const duet::CheckResult r = api.check({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

TEST(IncreasingSeeds, RandomStepsPass) {
  const duet::Api api = spec<random_steps::Generator>(random_steps::create, random_steps::next);
  const duet::CheckResult r = api.check({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

// The minimum: create, four nexts (0, 1, 2, 3), and a fifth that wraps to 0.
TEST(IncreasingSeeds, ModuloFourIsFoundOnTwentySeeds) {
  const duet::Api api = spec<modulo4::Generator>(modulo4::create, modulo4::next);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = api.check({.seed = seed, .output_dir = "duet-output/seeds"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, 6u) << r.report;
    EXPECT_NE(r.report.find("candidate finds"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("candidate finds 0: not above 3"), std::string::npos) << r.report;
  }
}

}  // namespace
