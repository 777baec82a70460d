// A negative test on fibers needs calls on two fibers, as on threads it needs calls on two
// threads: the prefix runs alone on the calling thread before any fiber starts, so a failure
// with calls of the prefix and of one branch ran them one after another, and proves no race.
// Each subject below fails sequentially from its third call on, so its shrunk counterexample is
// a full prefix and one call on one branch: expect_unsafe on duet::fibers() is an error showing
// that failure, in each front end (a model, duet::Lin, duet::Api).
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>
#include <memory>
#include <string>

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

constexpr const char* kNoRace = "the subject fails without concurrency";

duet::ParallelConfig on_fibers() {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  return pc;
}

void expect_sequential_error(const duet::CheckResult& r, const std::string& failing_call) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, kNoRace)) << r.report;
  EXPECT_TRUE(has(r.report, failing_call)) << r.report;  // the sequential failure, shown
  EXPECT_FALSE(has(r.report, "unsafe, as expected")) << r.report;
  // What a subject that keys on the thread's identity does instead.
  EXPECT_TRUE(has(r.report, "ParallelConfig{.prefix_length = 0}")) << r.report;
}

// get() is one more than the count once the count reaches 3 (an off-by-one at a boundary).
struct OffByOneAtThree {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) {
    const long n = c.load();
    return n >= 3 ? n + 1 : n;
  }
};

TEST(FiberSequentialFailure, ModelWhoseCounterexampleIsAPrefixAndOneBranchCallIsAnError) {
  const duet::CheckResult r =
      duet::expect_unsafe<duet::models::Counter<OffByOneAtThree>>(on_fibers(), {.seed = 1, .time = 5, .verbose = -1});
  expect_sequential_error(r, "c.get()");
}

// The same off-by-one, caught by an assertion in the call (duet::Lin's oracle is the candidate
// itself, which agrees with its own wrong result).
struct AssertingCounter {
  std::atomic<long> n{0};
  void incr() { n.fetch_add(1); }
  long get() {
    const long v = n.load();
    EXPECT_LT(v, 3) << "the third increment is lost";
    return v;
  }
};

TEST(FiberSequentialFailure, LinWhoseCounterexampleIsAPrefixAndOneBranchCallIsAnError) {
  const auto lin = duet::Lin<AssertingCounter>("AssertingCounter", "c")
                       .op("incr", [](AssertingCounter& c) { c.incr(); })
                       .op("get", [](AssertingCounter& c) { return c.get(); });
  const duet::CheckResult r = duet::expect_unsafe(lin, on_fibers(), {.seed = 1, .time = 5, .verbose = -1});
  expect_sequential_error(r, "the third increment is lost");
}

namespace bank {
inline long open_ref() { return 0; }
inline void deposit_ref(long& balance, int amount) { balance += amount; }
inline long balance_ref(const long& b) { return b; }
using Handle = std::shared_ptr<std::atomic<long>>;
inline Handle open() { return std::make_shared<std::atomic<long>>(0); }
inline void deposit(const Handle& a, int amount) { a->fetch_add(amount); }
// Wrong from 10 on: two deposits at least (of 1 to 9 each) after the open.
inline long balance(const Handle& a) {
  const long b = a->load();
  return b >= 10 ? b + 1 : b;
}
}  // namespace bank

TEST(FiberSequentialFailure, ApiWhoseCounterexampleIsAPrefixAndOneBranchCallIsAnError) {
  duet::Api api("WrongBankAtTen");
  auto account = api.abstract<long, bank::Handle>("acct");
  api.op("open", duet::args(), account, bank::open_ref, bank::open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), bank::deposit_ref, bank::deposit);
  api.op("balance", duet::args(account), duet::value<long>(), bank::balance_ref, bank::balance);
  const duet::CheckResult r = api.expect_unsafe(on_fibers(), {.seed = 1, .time = 5, .verbose = -1});
  expect_sequential_error(r, "balance(acct0)");
}

}  // namespace
