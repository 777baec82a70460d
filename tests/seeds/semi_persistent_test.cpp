// Semi-persistent arrays (Monolith, section 4.2): the precondition ref::valid keeps scenarios
// within the API; a length that reroots (invalidating descendants) is found.
#include <duet/gtest.hpp>

#include "semi_persistent.hpp"

namespace {

TEST(SemiPersistentSeeds, RerootingArraysPass) {
  const duet::Api api = semi::spec(semi::baker::length);
  const duet::CheckResult r = api.check({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
  EXPECT_GT(r.commands, 50000u);
}

// The candidate's notion of validity is exactly the reference's, after every step.
TEST(SemiPersistentSeeds, RerootingArraysAgreeOnValidity) {
  const duet::Api api = semi::spec(semi::baker::length, /*white_box=*/true);
  EXPECT_TRUE(api.check({.count = 10000}));
}

// Looking inside the candidate, the rerooting length is caught as soon as it invalidates a1.
TEST(SemiPersistentSeeds, RerootingLengthBreaksValidityAtOnce) {
  const duet::Api api = semi::spec(semi::baker::rerooting_length, /*white_box=*/true);
  const duet::CheckResult r = api.check({.seed = 1, .output_dir = "duet-output/seeds"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 3u) << r.report;
  EXPECT_NE(r.report.find("the well-formedness check fails on a1"), std::string::npos) << r.report;
}

// The minimum is four steps, for example: a length on a0 silently invalidates a1, whose length
// then throws.
//   auto a0 = make(1, 0);
//   auto a1 = set(a0, 0, 1);
//   length(a0);              // 1
//   length(a1);              // <-- candidate throws std::logic_error(...)
TEST(SemiPersistentSeeds, RerootingLengthIsFoundOnTwentySeeds) {
  const duet::Api api = semi::spec(semi::baker::rerooting_length);
  // Several 4-step minima: a third step on a0 — length(a0) (the bug itself), get(a0, 0) or a
  // second set on a0 — moves the tree's root away from a1, and length(a1), which the spec
  // allows on any array, then throws in the candidate whose length reroots.
  int shortest = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = api.check({.seed = seed, .output_dir = "duet-output/seeds"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_LE(r.failing_length, 5u) << r.report;  // a budget-bound shrink may keep one extra step
    EXPECT_NE(r.report.find("auto a0 = make(1, 0);"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("candidate throws std::logic_error"), std::string::npos) << r.report;
    if (r.failing_length != 4) continue;
    ++shortest;
    const auto line = [&](int n) {
      const auto at = r.report.find("     " + std::to_string(n) + "  ");
      return at == std::string::npos ? std::string() : r.report.substr(at, r.report.find('\n', at) - at);
    };
    EXPECT_NE(line(1).find("auto a0 = make(1, 0);"), std::string::npos) << r.report;
    EXPECT_NE(line(2).find("auto a1 = set(a0, 0, 1);"), std::string::npos) << r.report;
    EXPECT_NE(line(3).find("(a0"), std::string::npos) << r.report;
    EXPECT_NE(line(4).find("length(a1);              // <-- candidate throws std::logic_error"), std::string::npos)
        << r.report;
  }
  EXPECT_GE(shortest, 15);
}

}  // namespace
