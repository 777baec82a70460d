// "How Ed got fired": Ed's in-place set is found on every seed and shrunk to exactly three
// operations: make, set, and a get on the old array.
#include <duet/gtest.hpp>

#include "persistent_array.hpp"

namespace {

TEST(PersistentArraySeeds, EdIsFoundOnTwentySeedsInThreeSteps) {
  const duet::Api api = persistent::spec(persistent::ed::make, persistent::ed::get, persistent::ed::set);
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = api.check({.seed = seed, .output_dir = "duet-output/seeds"}, {.fuel = 5});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, 3u) << r.report;
    EXPECT_NE(r.report.find("auto a0 = make(1, 0);"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("auto a1 = set(a0, 0, 1);"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("assert(get(a0, 0) == 0);"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("candidate finds 1"), std::string::npos) << r.report;
  }
}

TEST(PersistentArraySeeds, CopyingSetPasses) {
  const duet::Api api = persistent::spec(persistent::fixed::make, persistent::fixed::get, persistent::fixed::set);
  const duet::CheckResult r = api.check({.count = 10000}, {.fuel = 5});
  EXPECT_TRUE(r);
  EXPECT_GT(r.commands, 20000u);
}

}  // namespace
