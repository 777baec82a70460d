// The reference-vs-candidate front end under threads: the reference implementation is the
// oracle for the branches' outcomes.
#include <duet/gtest.hpp>

#include <atomic>
#include <memory>
#include <thread>

#include "persistent_array.hpp"

namespace {

// Persistent arrays are values: reading and copying them from several threads is safe.
TEST(ApiParallel, PersistentArraysAreLinearizable) {
  using namespace persistent;
  const duet::Api api = spec(fixed::make, fixed::get, fixed::set);
  const duet::CheckResult r = api.check_parallel({}, {.count = 2000}, {.fuel = 5});
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.trials, 2000u);
}

// Bank accounts: the reference is a plain number, the candidate a shared object.
namespace bank {
namespace ref {
inline long open() { return 0; }
inline void deposit(long& balance, int amount) { balance += amount; }
inline long balance(const long& b) { return b; }
}  // namespace ref
struct Account {
  std::atomic<long> balance{0};
};
using Handle = std::shared_ptr<Account>;
inline Handle open() { return std::make_shared<Account>(); }
inline long balance(const Handle& a) { return a->balance.load(); }
inline void deposit(const Handle& a, int amount) { a->balance.fetch_add(amount); }
inline void racy_deposit(const Handle& a, int amount) {
  const long b = a->balance.load(std::memory_order_relaxed);
  std::this_thread::yield();
  a->balance.store(b + amount, std::memory_order_relaxed);
}

template <class Deposit>
duet::Api spec(Deposit deposit_fn) {
  duet::Api api("Bank");
  auto account = api.abstract<long, Handle>("acct");
  api.op("open", duet::args(), account, ref::open, open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), ref::deposit, deposit_fn);
  api.op("balance", duet::args(account), duet::value<long>(), ref::balance, balance);
  return api;
}
}  // namespace bank

TEST(ApiParallel, AtomicDepositsAreLinearizable) {
  const duet::CheckResult r = bank::spec(bank::deposit).check_parallel({}, {.count = 2000});
  EXPECT_TRUE(r) << r.report;
}

TEST(ApiParallel, RacyDepositsAreFoundWithTheReferenceAsOracle) {
  const duet::CheckResult r = bank::spec(bank::racy_deposit).expect_unsafe({}, {.time = 30});
  EXPECT_TRUE(r) << r.report;
  EXPECT_NE(r.report.find("the oracle: the reference implementation"), std::string::npos) << r.report;
  // The minimal shape is promised only when shrinking reached its fixed point; on a loaded
  // machine the race may stop recurring, or the budget run out, and the report must say so.
  if (r.shrink_end == duet::CheckResult::ShrinkEnd::fixed_point) {
    EXPECT_NE(r.report.find("auto acct0 = open()"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("deposit(acct0, 1) : ()"), std::string::npos) << r.report;
  } else {
    EXPECT_TRUE(r.report.find("shrinking stopped by its") != std::string::npos ||
                r.report.find("not shrunk: the failure did not come back") != std::string::npos)
        << r.report;
  }
}

TEST(ApiParallel, NondeterministicOperationsAreRejected) {
  duet::Api api("Gen");
  auto t = api.abstract<int, int>("t");
  api.op(
      "create", duet::args(), t, [] { return 0; }, [] { return 0; });
  api.op(
      "next", duet::args(t), duet::nondet(duet::value<int>()),
      [](int&, int got) -> duet::Diagnostic<int> { return duet::valid(got); }, [](int& g) { return ++g; });
  const duet::CheckResult r = api.check_parallel();
  EXPECT_EQ(r.status, duet::CheckResult::Status::error);
  EXPECT_NE(r.report.find("not supported under threads"), std::string::npos) << r.report;
}

}  // namespace

namespace {

// A disagreement in the prefix, which runs on both sides step by step, is a failure as in
// sequential mode; a candidate wrong even sequentially shrinks to a prefix-only program.
TEST(ApiParallel, SequentialDisagreementInThePrefixFails) {
  auto off_by_one = [](const bank::Handle& a) { return bank::balance(a) + 1; };
  duet::Api api("Bank");
  auto account = api.abstract<long, bank::Handle>("acct");
  api.op("open", duet::args(), account, bank::ref::open, bank::open);
  api.op("balance", duet::args(account), duet::value<long>(), bank::ref::balance, off_by_one);
  const duet::CheckResult r = api.check_parallel({}, {.seed = 1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("in the sequential prefix: balance(acct0): candidate finds 1"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("auto acct0 = open();"), std::string::npos) << r.report;
}

}  // namespace
