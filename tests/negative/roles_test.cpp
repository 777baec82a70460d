// Roles broken on purpose prove that a structure needs them: single-producer single-consumer
// queues, correct with one producer and one consumer (tests/parallel/roles_test.cpp), are found
// unsafe on threads with two producers or two consumers. No model is needed for Boost's: the
// candidate is its own oracle.
#include <duet/gtest.hpp>

#include <optional>

#include <boost/lockfree/spsc_queue.hpp>

#include <duet/models/spsc_ring.hpp>

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
  using Q = boost::lockfree::spsc_queue<int, boost::lockfree::capacity<4>>;
  auto lin = duet::Lin<Q>("boost::lockfree::spsc_queue", "q")
                 .op("push", [](Q& q, int x) { return q.push(x); }, duet::integers(0, 9))
                 .op("pop", [](Q& q) {
                   int x = 0;
                   return q.pop(x) ? std::optional<int>(x) : std::nullopt;
                 });
  const duet::CheckResult r = duet::expect_unsafe(lin, {.roles = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}}});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
