// Roles (ParallelConfig::roles): branches that may call only some operations. A
// single-producer single-consumer ring is correct with one producer and one consumer, on
// threads and fibers, through a model, a signature-only description and an API spec; with two
// producers it is found unsafe on fibers (on threads: tests/negative/roles_test.cpp). Roles that
// cannot shape a program are errors, never passes.
#include <duet/gtest.hpp>

#include <deque>
#include <memory>
#include <optional>
#include <string>


#include <duet/models/spsc_ring.hpp>

#include "support/boost_spsc.hpp"
#include "support/verdicts.hpp"

namespace {

using duet::models::BoundedQueue;
using duet::models::FiberSync;
using duet::models::SpscRingBinding;
using StdRing = BoundedQueue<SpscRingBinding<>>;
using FiberRing = BoundedQueue<SpscRingBinding<FiberSync>>;

const std::vector<duet::Role> kOneToOne = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}};
const std::vector<duet::Role> kTwoProducers = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}};

// The checks on threads accept the honest "inconclusive" of branches that never overlapped on
// a loaded machine (tests/support/verdicts.hpp); a failure still fails.
TEST(Roles, SpscRingPassesWithOneProducerAndOneConsumerOnThreads) {
  const duet::CheckResult r = duet::check_parallel<StdRing>({.roles = kOneToOne}, {.seed = 1, .count = 2000});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
}

TEST(Roles, SpscRingPassesWithOneProducerAndOneConsumerOnFibers) {
  for (auto schedule : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel<FiberRing>({.roles = kOneToOne, .executor = duet::fibers(schedule)},
                                                                {.seed = 1, .count = 2000});
    EXPECT_TRUE(r) << r.report;
  }
  const duet::CheckResult r = duet::check_parallel<FiberRing>(
      {.roles = kOneToOne, .branch_length = 3, .prefix_length = 2, .executor = duet::fibers(duet::exhaustive(2))},
      {.seed = 1, .count = 200});
  EXPECT_TRUE(r) << r.report;
}

// Without roles every branch may push: the same ring fails, and the report's program has two
// branches pushing. With roles, the failing program is labelled by role.
TEST(Roles, SpscRingWithTwoProducersIsFoundOnFibers) {
  for (auto schedule : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::expect_unsafe<FiberRing>({.roles = kTwoProducers, .executor = duet::fibers(schedule)},
                                                               {.seed = 1, .count = 5000});
    ASSERT_TRUE(r) << r.report;
    EXPECT_NE(r.report.find("[producer 1]"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("[producer 2]"), std::string::npos) << r.report;
  }
}

// The roles are what makes the ring pass: without them, two branches push at once.
TEST(Roles, SpscRingWithoutRolesIsFoundOnFibers) {
  const duet::CheckResult r = duet::expect_unsafe<FiberRing>({.executor = duet::fibers()}, {.seed = 1, .count = 5000});
  EXPECT_TRUE(r) << r.report;
}

// Every branch call of a found program is one its role allows: the shrinker keeps roles.
TEST(Roles, ShrunkProgramsKeepEachBranchToItsRole) {
  const duet::CheckResult r = duet::expect_unsafe<FiberRing>(
      {.roles = {{"producer", 2, {"push"}}, {"consumer", 1, {"pop"}}}, .executor = duet::fibers()},
      {.seed = 3, .count = 5000});
  ASSERT_TRUE(r) << r.report;
  // Rows of the diagram after the role row: each column holds its role's calls only.
  const std::size_t labels = r.report.find("[producer 1]");
  ASSERT_NE(labels, std::string::npos) << r.report;
  std::size_t at = r.report.find('\n', labels) + 1;
  for (std::size_t end; (end = r.report.find('\n', at)) != std::string::npos && end > at; at = end + 1) {
    const std::string line = r.report.substr(at, end - at);
    if (line.find('|') == std::string::npos) break;
    const std::size_t bar1 = line.find('|'), bar2 = line.find('|', bar1 + 1);
    ASSERT_NE(bar2, std::string::npos) << line;
    EXPECT_EQ(line.substr(0, bar1).find("pop("), std::string::npos) << line;
    EXPECT_EQ(line.substr(bar1, bar2 - bar1).find("pop("), std::string::npos) << line;
    EXPECT_EQ(line.substr(bar2).find("push("), std::string::npos) << line;
  }
}

// The same ring through the candidate-as-oracle front end.
duet::Lin<duet::models::SpscRing<int>> ring_lin() {
  using Ring = duet::models::SpscRing<int>;
  return duet::Lin<Ring>("SpscRing", "q")
      .init([] { return std::make_unique<Ring>(2); }, "duet::models::SpscRing<int> q(2);")
      .op(
          "push", [](Ring& q, int x) { return q.push(x); }, duet::integers(0, 9))
      .op("try_pop", [](Ring& q) { return q.try_pop(); });
}

TEST(Roles, SpscRingThroughLinPassesWithRoles) {
  const duet::CheckResult r = duet::check_parallel(
      ring_lin(), {.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"try_pop"}}}}, {.seed = 1, .count = 1000});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
}

// Boost.Lockfree's spsc_queue, as its documentation says: one producer, one consumer.
TEST(Roles, BoostSpscQueuePassesWithOneProducerAndOneConsumer) {
  const duet::CheckResult r = duet::check_parallel(
      boost_spsc::lin(), {.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}}, {.seed = 1, .count = 2000});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
}

// An API spec with roles: the reference is a deque.
TEST(Roles, SpscRingThroughAnApiSpecPassesWithRoles) {
  using Ring = duet::models::SpscRing<int>;
  using Handle = std::shared_ptr<Ring>;
  duet::Api api("SpscRing");
  auto ring = api.abstract<std::deque<int>, Handle>("q");
  api.op(
      "make", duet::args(), ring, [] { return std::deque<int>(); }, [] { return std::make_shared<Ring>(2); });
  api.op(
      "push", duet::args(ring, duet::integers(0, 9)), duet::value<bool>(),
      [](std::deque<int>& d, int x) {
        if (d.size() == 2) return false;
        d.push_back(x);
        return true;
      },
      [](const Handle& q, int x) { return q->push(x); });
  api.op(
      "pop", duet::args(ring), duet::value<std::optional<int>>(),
      [](std::deque<int>& d) {
        if (d.empty()) return std::optional<int>();
        const int x = d.front();
        d.pop_front();
        return std::optional<int>(x);
      },
      [](const Handle& q) { return q->try_pop(); });
  const duet::CheckResult r = api.check_parallel(
      {.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}, .prefix_length = 1}, {.seed = 1, .count = 1000});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
}

// ---- roles that cannot shape a program: errors that say why, never passes ----

void expect_config_error(const duet::CheckResult& r, const std::string& why) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find(why), std::string::npos) << r.report;
}

TEST(Roles, AnOperationTheSpecDoesNotHaveIsAnError) {
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"try_pop"}}}}),
                      "role consumer names the operation `try_pop`, which the spec does not have (its operations: ");
  expect_config_error(
      duet::check_parallel(ring_lin(), {.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}}),
      "role consumer names the operation `pop`, which the spec does not have (its operations: push, try_pop)");
  expect_config_error(duet::expect_unsafe<StdRing>({.roles = {{"producer", 2, {"enqueue"}}, {"consumer", 1, {"pop"}}}}),
                      "names the operation `enqueue`");
}

TEST(Roles, CountsThatDoNotMakeTwoToEightBranchesAreErrors) {
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"producer", 1, {"push"}}}}),
                      "the roles' counts add up to 1 branches (2 to 8)");
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"producer", 5, {"push"}}, {"consumer", 4, {"pop"}}}}),
                      "the roles' counts add up to 9 branches (2 to 8)");
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"producer", 0, {"push"}}, {"consumer", 2, {"pop"}}}}),
                      "role producer has count 0");
  expect_config_error(duet::check_parallel<StdRing>({.branches = 3, .roles = kOneToOne}),
                      "branches is 3 but the roles' counts add up to 2");
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"producer", 1, {}}, {"consumer", 1, {"pop"}}}}),
                      "role producer names no operation");
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"p", 1, {"push"}}, {"p", 1, {"pop"}}}}),
                      "two roles are named p");
  expect_config_error(duet::check_parallel<StdRing>({.roles = {{"", 1, {"push"}}, {"c", 1, {"pop"}}}}),
                      "a role has no name");
}

TEST(Roles, BranchesThatAgreeWithTheRolesAreAccepted) {
  const duet::CheckResult r = duet::check_parallel<FiberRing>(
      {.branches = 3, .roles = {{"producer", 1, {"push"}}, {"consumer", 2, {"pop"}}}, .executor = duet::fibers()},
      {.seed = 1, .count = 50});
  // Two consumers break the ring's contract too: whatever the verdict, it is not a refusal.
  EXPECT_NE(r.status, duet::CheckResult::Status::error) << r.report;
}

TEST(Roles, OpNameIsTheWordBeforeTheParenthesis) {
  EXPECT_EQ(duet::detail::op_name("push(3)"), "push");
  EXPECT_EQ(duet::detail::op_name("q.try_pop()"), "try_pop");
  EXPECT_EQ(duet::detail::op_name("auto a1 = set(a0, 0, 1)"), "set");
  EXPECT_EQ(duet::detail::op_name("ns::f(g(1))"), "ns::f");
  EXPECT_EQ(duet::detail::op_name("size"), "size");
  EXPECT_EQ(duet::detail::op_name(""), "");
}

}  // namespace
