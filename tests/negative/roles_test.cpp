// Roles broken on purpose prove that a structure needs them: single-producer single-consumer
// queues, correct with one producer and one consumer (tests/parallel/roles_test.cpp), are found
// unsafe on threads with two producers or two consumers. No model is needed for Boost's: the
// candidate is its own oracle.
#include <duet/gtest.hpp>

#include <optional>


#include <duet/models/spsc_ring.hpp>

#include "support/boost_spsc.hpp"

namespace {

using Ring = duet::models::BoundedQueue<duet::models::SpscRingBinding<>>;

TEST(NegativeRoles, SpscRingWithTwoProducersLosesAPush) {
  const duet::CheckResult r = duet::expect_unsafe<Ring>({.roles = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}}});
  EXPECT_TRUE(r) << r.report;
}

TEST(NegativeRoles, SpscRingWithTwoConsumersPopsAnItemTwice) {
  const duet::CheckResult r = duet::expect_unsafe<Ring>({.roles = {{"producer", 1, {"push"}}, {"consumer", 2, {"pop"}}}});
  EXPECT_TRUE(r) << r.report;
}

TEST(NegativeRoles, BoostSpscQueueWithTwoProducersIsUnsafe) {
  const duet::CheckResult r =
      duet::expect_unsafe(boost_spsc::lin(), {.roles = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}}});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
