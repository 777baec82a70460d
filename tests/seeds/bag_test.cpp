// Bags: a FIFO candidate disagrees with a LIFO reference under a deterministic spec, and
// passes under the nondeterministic spec that says what a bag really promises.
#include <duet/gtest.hpp>

#include "bag.hpp"

namespace {

// The minimum: two different elements in, one out.
TEST(BagSeeds, FifoDisagreesWithStackOnTwentySeeds) {
  const duet::Api api = bag::lifo_spec(bag::fifo::extract);
  const char* const minimal[] = {"auto b0 = create();", "insert(b0, 0);", "insert(b0, 1);",
                                 "assert(extract(b0) == 1);  // <-- candidate finds 0"};
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = api.check({.seed = seed, .output_dir = "duet-output/seeds"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, 4u) << r.report;
    std::size_t at = 0;
    for (const char* step : minimal) {
      at = r.report.find(step, at);
      ASSERT_NE(at, std::string::npos) << "missing " << step << " in\n" << r.report;
    }
  }
}

TEST(BagSeeds, FifoPassesTheNondeterministicSpec) {
  const duet::Api api = bag::any_spec(bag::fifo::extract);
  const duet::CheckResult r = api.check({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
  EXPECT_GT(r.commands, 50000u);
}

// The nondeterministic spec still has teeth: an extract that does not remove is found.
TEST(BagSeeds, ForgetfulExtractIsFoundByTheNondeterministicSpec) {
  const duet::Api api = bag::any_spec(bag::forgetful::extract);
  const duet::CheckResult r = api.check({.seed = 1, .output_dir = "duet-output/seeds"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 4u) << r.report;
  EXPECT_NE(r.report.find("candidate finds 0: 0 is not in the bag"), std::string::npos) << r.report;
}

}  // namespace
