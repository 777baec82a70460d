// Model domains: a ready-made model draws the binding's keys() and values() when it has them,
// spread default keys otherwise, and names what it drew in a pass line, CheckResult::coverage
// and a negative test's "found none" report. On fibers (deterministic); the 20-seed search on
// threads is in tests/negative/domains_test.cpp.
#include <duet/gtest.hpp>

#include <deque>
#include <optional>
#include <stdexcept>
#include <string>

#include <duet/models/queue.hpp>

#include "support/striped_map.hpp"

namespace {

using duet::models::FiberSync;
using striped::Size;
using striped::Stripe;

template <Size S, Stripe T>
using FiberMap = duet::models::Map<striped::Binding<S, T, FiberSync>>;
template <Size S, Stripe T>
using AdjacentFiberMap = duet::models::Map<striped::AdjacentKeysBinding<S, T, FiberSync>>;

duet::ParallelConfig on_fibers() { return {.executor = duet::fibers(duet::pct(3))}; }

TEST(Domains, DefaultKeysFindAPerStripeSizeOverLowBitStripes) {
  const duet::CheckResult r =
      duet::expect_unsafe<FiberMap<Size::per_stripe, Stripe::low_bits>>(on_fibers(), {.seed = 1, .count = 20000});
  EXPECT_TRUE(r) << r.report;
}

TEST(Domains, DefaultKeysFindAPerStripeSizeOverHighBitStripes) {
  const duet::CheckResult r =
      duet::expect_unsafe<FiberMap<Size::per_stripe, Stripe::high_bits>>(on_fibers(), {.seed = 1, .count = 20000});
  EXPECT_TRUE(r) << r.report;
}

// Keys 0..3 share one high-bit stripe: the per-stripe size is then never wrong, and the pass names
// the keys it drew, so that a reader can tell why nothing was found.
TEST(Domains, AdjacentKeysCannotSeeIt_AndThePassSaysWhichKeys) {
  const duet::CheckResult r =
      duet::check_parallel<AdjacentFiberMap<Size::per_stripe, Stripe::high_bits>>(on_fibers(), {.seed = 1, .count = 2000});
  ASSERT_TRUE(r) << r.report;
  EXPECT_NE(r.coverage.find("the calls drew keys 0..3 and values 0..9"), std::string::npos) << r.coverage;
}

TEST(Domains, LockedSizePassesAndANegativeTestThatFindsNoneNamesTheDomain) {
  const duet::CheckResult pass =
      duet::check_parallel<FiberMap<Size::locked, Stripe::low_bits>>(on_fibers(), {.seed = 1, .count = 2000});
  EXPECT_TRUE(pass) << pass.report;
  const duet::CheckResult none =
      duet::expect_unsafe<FiberMap<Size::locked, Stripe::low_bits>>(on_fibers(), {.seed = 1, .count = 300});
  ASSERT_EQ(none.status, duet::CheckResult::Status::failed) << none.report;
  EXPECT_NE(none.report.find("found none in 300 programs"), std::string::npos) << none.report;
  EXPECT_NE(none.report.find("  The calls drew keys 0, 1026, 5121, 1073744899 and values 0..9.\n"), std::string::npos)
      << none.report;
}

// A queue that refuses 0 (as xenium's ramalhete_queue does): its binding's values() keep 0 out,
// with no shim around the subject.
class NoZeroQueue {
 public:
  void push(int x) {
    if (x == 0) throw std::invalid_argument("NoZeroQueue: 0 is reserved");
    items_.push_back(x);
  }
  std::optional<int> try_pop() {
    if (items_.empty()) return std::nullopt;
    const int x = items_.front();
    items_.pop_front();
    return x;
  }

 private:
  std::deque<int> items_;
};

struct NoZeroBinding {
  using Sut = NoZeroQueue;
  static duet::Gen<int> values() { return duet::integers(1, 9); }
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

TEST(Domains, BindingValuesAreWhatTheModelPushes) {
  const duet::CheckResult r = duet::check_sequential<duet::models::Queue<NoZeroBinding>>({.seed = 1, .count = 2000});
  EXPECT_TRUE(r) << r.report;
  EXPECT_NE(r.coverage.find("the calls drew values 1..9"), std::string::npos) << r.coverage;
}

TEST(Domains, DescribeIntsNamesWhatAGeneratorDraws) {
  using duet::models::detail::describe_ints;
  EXPECT_EQ(describe_ints(duet::integers(0, 9)), "0..9");
  EXPECT_EQ(describe_ints(duet::models::default_keys()), "0, 1026, 5121, 1073744899");
  EXPECT_EQ(describe_ints(duet::element_of({5, 7})), "5, 7");
  const std::string evens = describe_ints(duet::integers(0, 1000).map([](int x) { return 2 * x; }));
  EXPECT_NE(evens.find(" values from 0 to "), std::string::npos) << evens;
}

}  // namespace
