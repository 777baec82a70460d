// A negative test whose subject fails without any concurrency (every call wrong, or ending the
// process) proves no race: the check is an error that shows the sequential failure, never a pass,
// in each front end (a model, duet::Lin, duet::Api), on threads and on fibers.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>
#include <cstdlib>
#include <memory>

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kNoRace = "the subject fails without concurrency: the counterexample's calls all run on one thread";

// Its get() is one more than the count, whatever runs around it.
struct OffByOneCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load() + 1; }
};

TEST(NegativeSequentialFailure, ModelOnFibersIsAnErrorShowingTheFailure) {
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Counter<OffByOneCounter>>(
      {.executor = duet::fibers()}, {.seed = 1, .time = 5, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, kNoRace)) << r.report;
  EXPECT_TRUE(has(r.report, "c.get()")) << r.report;  // the sequential failure, shown
  EXPECT_FALSE(has(r.report, "unsafe, as expected")) << r.report;
  EXPECT_FALSE(r.replay_token.empty()) << r.report;
}

struct Aborts {
  int calls = 0;
  int call() {
    std::abort();
    return ++calls;
  }
};

// On threads the cases run in a child process, so an abort is a failure of a trial: one call on
// one thread, which no race explains.
TEST(NegativeSequentialFailure, LinSubjectThatAbortsOnEveryCallIsAnError) {
  const auto lin = duet::Lin<Aborts>("Aborts", "a").op("call", [](Aborts& a) { return a.call(); });
  const duet::CheckResult r = duet::expect_unsafe(lin, {}, {.seed = 1, .time = 5, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, kNoRace)) << r.report;
  EXPECT_TRUE(has(r.report, "an abort (SIGABRT)")) << r.report;
}

namespace bank {
inline long open_ref() { return 0; }
inline void deposit_ref(long& balance, int amount) { balance += amount; }
inline long balance_ref(const long& b) { return b; }
using Handle = std::shared_ptr<std::atomic<long>>;
inline Handle open() { return std::make_shared<std::atomic<long>>(0); }
inline void deposit(const Handle& a, int amount) { a->fetch_add(amount); }
inline long wrong_balance(const Handle& a) { return a->load() + 1; }
}  // namespace bank

TEST(NegativeSequentialFailure, ApiWhoseCandidateDisagreesSequentiallyIsAnError) {
  duet::Api api("WrongBank");
  auto account = api.abstract<long, bank::Handle>("acct");
  api.op("open", duet::args(), account, bank::open_ref, bank::open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), bank::deposit_ref, bank::deposit);
  api.op("balance", duet::args(account), duet::value<long>(), bank::balance_ref, bank::wrong_balance);
  const duet::CheckResult r = api.expect_unsafe({}, {.seed = 1, .time = 5, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, kNoRace)) << r.report;
  EXPECT_TRUE(has(r.report, "balance(acct0)")) << r.report;
}

}  // namespace
