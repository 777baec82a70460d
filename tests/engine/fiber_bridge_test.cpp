// A parallel check that fails on threads searches its failing program again on the fiber
// scheduler (src/engine/fiber_bridge.cpp): code written with duet's types gets its
// interleaving and a token; plain code that the fibers cannot interleave is said so; a program
// no schedule fails says what was searched. (Instrumented code: tests/instrumented, the six bug
// classes and a memory-order bug.)
#include <duet/api.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>

#include "duet/detail/lin_y_steps.hpp"
#include "engine/fiber_bridge.hpp"
#include "support/emulation.hpp"

namespace {

// A load, a wait wide enough for threads to meet in it (so that the failure on threads comes
// in a few trials, also on a loaded machine), then a store: two increments can both read the
// same value. Atomic is duet::atomic (a switch point on fibers) or std::atomic (none in code
// not compiled through duet_instrument).
template <class Atomic, bool Racy = true>
class SlowCounter {
 public:
  int incr() {
    if constexpr (!Racy) return value_.fetch_add(1) + 1;
    const int x = value_.load();
    std::this_thread::sleep_for(std::chrono::microseconds(50));
    value_.store(x + 1);
    return x + 1;
  }

 private:
  Atomic value_{0};
};

template <class Atomic, bool Racy = true>
duet::Lin<SlowCounter<Atomic, Racy>> slow_counter(const char* name) {
  return duet::Lin<SlowCounter<Atomic, Racy>>(name, "c").op("incr", [](SlowCounter<Atomic, Racy>& c) { return c.incr(); });
}

duet::Config quiet(std::uint64_t seed) {
  duet::Config c;
  c.seed = seed;
  c.verbose = -1;
  c.time = 30;
  c.shrink_time = 2;  // on threads, each shrink candidate runs its trials again (seconds)
  return c;
}

// The report's replay line for the fiber search's failure: DUET_EXECUTOR and the token.
std::string replay_line_of_fiber_search(const std::string& report) {
  const std::size_t section = report.find("on fibers:");
  const std::size_t line = report.find("replay:     DUET_EXECUTOR=fibers:", section);
  if (section == std::string::npos || line == std::string::npos) return {};
  return report.substr(line + 12, report.find('\n', line) - line - 12);
}

TEST(FiberSearch, AFailureOnThreadsOfCodeWrittenWithDuetTypesComesWithItsInterleaving) {
  const auto lin = slow_counter<duet::atomic<int>>("SlowCounter");
  const duet::CheckResult r = duet::check_parallel(lin, {}, quiet(1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("on fibers:  the same program fails on the fiber scheduler, with fibers:random schedules"),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("    interleaving (fiber scheduler, random schedules)"), std::string::npos) << r.report;
  // Its replay line replays it on fibers: the check moved there by DUET_EXECUTOR, as the line says.
  const std::string line = replay_line_of_fiber_search(r.report);
  ASSERT_EQ(line.rfind("DUET_EXECUTOR=fibers:random DUET_REPLAY=duet1.", 0), 0u) << r.report;
  duet::ParallelConfig on_fibers;
  on_fibers.executor = duet::fibers(duet::random());
  duet::Config replay = quiet(1);
  replay.replay = line.substr(line.find("DUET_REPLAY=") + 12);
  const duet::CheckResult again = duet::check_parallel(lin, on_fibers, replay);
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
}

// The same through duet::Api: a bank account whose deposit reads, waits and writes, against a
// reference balance.
namespace bank {
struct Account {
  duet::atomic<long> balance{0};
};
using Handle = std::shared_ptr<Account>;
long open_reference() { return 0; }
void deposit_reference(long& balance, int amount) { balance += amount; }
long balance_reference(const long& balance) { return balance; }
Handle open() { return std::make_shared<Account>(); }
void racy_deposit(const Handle& a, int amount) {
  const long b = a->balance.load();
  std::this_thread::sleep_for(std::chrono::microseconds(50));
  a->balance.store(b + amount);
}
long balance(const Handle& a) { return a->balance.load(); }
}  // namespace bank

TEST(FiberSearch, AnApiFailingOnThreadsComesWithItsInterleaving) {
  duet::Api api("RacyBank");
  auto account = api.abstract<long, bank::Handle>("acct");
  api.op("open", duet::args(), account, bank::open_reference, bank::open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), bank::deposit_reference, bank::racy_deposit);
  api.op("balance", duet::args(account), duet::value<long>(), bank::balance_reference, bank::balance);
  // The race on threads is a matter of chance and ends the search when met: under emulation
  // (and a busy machine beside it) 30 s once met none, so the budget scales with emulation.
  duet::Config config = quiet(1);
  config.time = *config.time * duet_test::time_scale();
  const duet::CheckResult r = api.check_parallel({}, config);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("on fibers:  the same program fails on the fiber scheduler, with fibers:random schedules"),
            std::string::npos)
      << r.report;
  EXPECT_FALSE(replay_line_of_fiber_search(r.report).empty()) << r.report;
}

TEST(FiberSearch, PlainCodeFailingOnThreadsSaysTheFibersCannotShowIt) {
  const duet::CheckResult r = duet::check_parallel(slow_counter<std::atomic<int>>("PlainSlowCounter"), {}, quiet(1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("on fibers:  cannot show it: the fibers met no switch point in any run"), std::string::npos)
      << r.report;
}

// The program a failure carries, searched on a subject that no schedule fails (the same calls,
// counted correctly): every strategy ran it, and the line says how far.
TEST(FiberSearch, AProgramNoScheduleFailsIsNotReproducedAndTheReportSaysWhatRan) {
  duet::ParallelConfig on_fibers;
  on_fibers.executor = duet::fibers(duet::random());
  const duet::CheckResult found = duet::check_parallel(slow_counter<duet::atomic<int>>("SlowCounter"), on_fibers, quiet(1));
  ASSERT_EQ(found.status, duet::CheckResult::Status::failed) << found.report;
  duet::CheckResult failure;
  failure.status = duet::CheckResult::Status::failed;
  failure.replay_token = found.replay_token;
  const auto correct = slow_counter<duet::atomic<int>, false>("Counter");
  const duet::detail::Property threads =
      duet::detail::lin_parallel_property(correct, duet::detail::LinMode::oracle, duet::ParallelConfig{});
  const std::string text = duet::detail::search_on_fibers(threads, duet::detail::resolve(quiet(1), "Counter"), failure);
  std::printf("%s", text.c_str());  // what was searched, for the log
  EXPECT_NE(text.find("on fibers:  not reproduced in a search of 3 s, DUET_FIBER_SEARCH: "), std::string::npos) << text;
  EXPECT_NE(text.find("of fibers:random; "), std::string::npos) << text;
  EXPECT_NE(text.find("of fibers:pct(3); and exhaustive(2), complete for "), std::string::npos) << text;
}

TEST(FiberSearch, NotSearchedWhenTheSettingIsZeroNorForANegativeTest) {
  const auto lin = slow_counter<duet::atomic<int>>("SlowCounter");
  duet::Config off = quiet(1);
  off.fiber_search = 0;
  const duet::CheckResult r = duet::check_parallel(lin, {}, off);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.report.find("on fibers:"), std::string::npos) << r.report;
  // A negative test's counterexample is its pass: it is not searched again.
  const duet::CheckResult unsafe = duet::expect_unsafe(lin, {}, quiet(1));
  ASSERT_TRUE(unsafe.passed()) << unsafe.report;
  EXPECT_EQ(unsafe.report.find("on fibers:"), std::string::npos) << unsafe.report;
}

}  // namespace
