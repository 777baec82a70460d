// AVL sets whose join rebalances only at the root: every result agrees with std::set, so only
// the well-formedness check finds the bug, with a reference or with none at all (duet::Solo).
#include <cstdio>

#include <duet/gtest.hpp>

#include "avl.hpp"

namespace {

// Several sets per scenario, so that unions of sets of quite different sizes happen.
constexpr duet::ApiOptions kFuel{.fuel = 30};

TEST(AvlSeeds, RootOnlyJoinFoundByTheCheckOnly) {
  const duet::Api api = avl::spec(avl::union_root_only, avl::balanced);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // A count, not a time, so that a slow machine runs the same cases (seed 5 needs 23,534).
    const duet::CheckResult r = api.check({.seed = seed, .count = 100000, .output_dir = "duet-output/seeds"}, kFuel);
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_NE(r.report.find("the well-formedness check fails on"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("is unbalanced"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("union("), std::string::npos) << r.report;
    EXPECT_EQ(r.report.find("candidate finds"), std::string::npos) << r.report;  // no result differs
    std::printf("avl seed %llu: found in %.3f s (%llu cases), shrunk to %zu steps\n", static_cast<unsigned long long>(seed),
                r.seconds, static_cast<unsigned long long>(r.cases), r.failing_length);
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

TEST(AvlSeeds, RootOnlyJoinInvisibleWithoutTheCheck) {
  // The same buggy union against std::set with no check: every result agrees.
  const duet::Api api = avl::spec(avl::union_root_only, nullptr);
  const duet::CheckResult r = api.check({.seed = 1, .count = 10000}, kFuel);
  EXPECT_TRUE(r);
}

TEST(AvlSeeds, CorrectJoinPassesTenThousandScenarios) {
  const duet::Api api = avl::spec(avl::union_, avl::balanced);
  const duet::CheckResult r = api.check({.count = 10000}, kFuel);
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

TEST(AvlSeeds, InvariantOnlyFindsRootOnlyJoin) {
  const duet::Api api = avl::solo_spec(avl::union_root_only);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // A count, not a time, so that a slow machine runs the same cases (seed 5 needs 23,534).
    const duet::CheckResult r = api.check({.seed = seed, .count = 100000, .output_dir = "duet-output/seeds"}, kFuel);
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_NE(r.report.find("the well-formedness check fails on"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("is unbalanced"), std::string::npos) << r.report;
    std::printf("avl solo seed %llu: found in %.3f s (%llu cases), shrunk to %zu steps\n",
                static_cast<unsigned long long>(seed), r.seconds, static_cast<unsigned long long>(r.cases),
                r.failing_length);
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

TEST(AvlSeeds, InvariantOnlyCorrectJoinPasses) {
  const duet::Api api = avl::solo_spec(avl::union_);
  const duet::CheckResult r = api.check({.count = 10000}, kFuel);
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

}  // namespace
