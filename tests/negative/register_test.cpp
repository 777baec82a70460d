// A compare-and-set that checks, then writes, under no lock, found with four branches.
#include <duet/gtest.hpp>
#include <duet/models/register.hpp>

#include <atomic>
#include <thread>

#include "support/negative_subjects.hpp"

namespace {

using negative_subjects::RacyCasRegister;

TEST(NegativeRegister, RacyCasFoundWithFourBranches) {
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Register<RacyCasRegister>>({.branches = 4});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
