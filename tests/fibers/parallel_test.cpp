// The parallel runner on the fiber scheduler: Y-programs whose branches are fibers, every
// interleaving drawn from the choice stream, so a race is found deterministically, shrunk with
// the program, reported with its interleaving, and replayed exactly from its token.
#include <duet/api.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/sync.hpp>

#include "support/fiber_subjects.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <mutex>
#include <string>
#include <variant>

namespace {

using namespace fiber_subjects;

duet::ParallelConfig on_fibers(duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  return pc;
}

// The report without its timing line, which differs between runs.
std::string without_time(const std::string& report) {
  std::string out;
  std::size_t at = 0;
  while (at < report.size()) {
    std::size_t end = report.find('\n', at);
    if (end == std::string::npos) end = report.size();
    const std::string line = report.substr(at, end - at);
    // "  time:" is the report's timing line (format_report); the others, older forms of it.
    if (!line.starts_with("  time:") && line.find(" s (") == std::string::npos && line.find("seconds") == std::string::npos)
      out += line + "\n";
    at = end + 1;
  }
  return out;
}

TEST(FiberParallel, RacyCounterIsFoundAndShrunkToTwoIncrements) {
  duet::Config config;
  config.seed = 1;
  const duet::CheckResult r = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
  // Two branches of one increment each: both read 0, both return 1.
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  EXPECT_NE(r.report.find("interleaving (fiber scheduler, random schedules)"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("fiber_subjects.hpp:"), std::string::npos) << r.report;  // the load's location
  EXPECT_NE(r.report.find("with this interleaving, step for step"), std::string::npos) << r.report;
}

TEST(FiberParallel, SameSeedSameReport) {
  duet::Config config;
  config.seed = 42;
  const duet::CheckResult a = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
  const duet::CheckResult b = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
  ASSERT_TRUE(a.passed()) << a.report;
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.replay_token, b.replay_token);
  EXPECT_EQ(without_time(a.report), without_time(b.report));
}

// 100 seeds, each must find the lost update within the default budget.
TEST(FiberParallel, RacyCounterFoundOnEverySeed) {
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    duet::Config config;
    config.seed = seed;
    config.shrink_steps = 0;  // finding is what is measured here
    const duet::CheckResult r = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
  }
}

TEST(FiberParallel, CorrectCounterPasses) {
  duet::Config config;
  config.count = 2000;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<false>>(on_fibers(), config);
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_GE(r.trials, 2000u);
}

// The token of a fiber failure replays the same program and interleaving: the same report.
TEST(FiberParallel, TokenReplaysTheInterleaving) {
  duet::Config config;
  config.seed = 7;
  const duet::CheckResult first = duet::check_parallel<CounterSpec<true>>(on_fibers(), config);
  ASSERT_FALSE(first.passed());
  ASSERT_FALSE(first.replay_token.empty());
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult again = duet::check_parallel<CounterSpec<true>>(on_fibers(), replay);
  ASSERT_FALSE(again.passed()) << again.report;
  const auto interleaving = [](const std::string& report) {
    const std::size_t at = report.find("interleaving (");
    return at == std::string::npos ? std::string() : report.substr(at, report.find("(The replay", at) - at);
  };
  EXPECT_FALSE(interleaving(first.report).empty()) << first.report;
  EXPECT_EQ(interleaving(first.report), interleaving(again.report));
}

// A token found on fibers does not replay on threads (another executor, another test).
TEST(FiberParallel, TokenIsBoundToTheExecutor) {
  duet::Config config;
  config.seed = 7;
  const duet::CheckResult first = duet::check_parallel<CounterSpec<true>>(on_fibers(), config);
  ASSERT_FALSE(first.passed());
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult on_threads = duet::check_parallel<CounterSpec<true>>({}, replay);
  EXPECT_EQ(on_threads.status, duet::CheckResult::Status::error) << on_threads.report;
}

// Two operations that take two locks in opposite orders: a deadlock, reported with where each
// fiber waits, shrunk to one call per branch.
TEST(FiberParallel, OppositeLockOrdersDeadlock) {
  duet::Config config;
  config.seed = 3;
  const duet::CheckResult r = duet::check_parallel<AccountsSpec>(on_fibers(), config);
  ASSERT_FALSE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("deadlock"), std::string::npos) << r.report;
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
}

}  // namespace

namespace {

// Every strategy finds the lost update, shrinks it to two increments, and its token replays.
class FiberStrategy : public ::testing::TestWithParam<duet::Schedule> {};

TEST_P(FiberStrategy, FindsTheLostUpdateAndReplaysIt) {
  duet::Config config;
  config.seed = 5;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<true>>(on_fibers(GetParam()), config);
  ASSERT_FALSE(r.passed()) << r.report;
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  duet::Config replay;
  replay.replay = r.replay_token;
  const duet::CheckResult again = duet::check_parallel<CounterSpec<true>>(on_fibers(GetParam()), replay);
  EXPECT_FALSE(again.passed()) << again.report;
  EXPECT_EQ(again.failing_length, 2u) << again.report;
}

TEST_P(FiberStrategy, CorrectCounterPasses) {
  duet::Config config;
  config.count = 300;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<false>>(on_fibers(GetParam()), config);
  EXPECT_TRUE(r.passed()) << r.report;
}

INSTANTIATE_TEST_SUITE_P(Strategies, FiberStrategy,
                         ::testing::Values(duet::random(), duet::pct(2), duet::pct(3), duet::exhaustive(1),
                                           duet::exhaustive(2)),
                         [](const auto& info) { return "s" + std::to_string(info.index); });

// Exhaustively, the first program with two concurrent increments fails (no luck involved).
TEST(FiberParallel, ExhaustiveFindsTheLostUpdateInTheFirstFailingProgram) {
  duet::Config config;
  config.seed = 9;
  config.shrink_steps = 0;
  duet::ParallelConfig pc = on_fibers(duet::exhaustive(1));
  pc.branches = 2;
  pc.branch_length = 1;
  pc.prefix_length = 0;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<true>>(pc, config);
  ASSERT_FALSE(r.passed()) << r.report;
}

}  // namespace

namespace {

// The signature-only front end on fibers: the racy counter is its own (sequential) oracle.
TEST(FiberParallel, LinFindsTheLostUpdateOnFibers) {
  auto lin = duet::Lin<Counter<true>>("Counter<true>", "c").op("incr", [](Counter<true>& c) { return c.incr(); });
  duet::Config config;
  config.seed = 2;
  config.count = 10'000;
  const duet::CheckResult r = duet::expect_unsafe(lin, on_fibers(), config);
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("interleaving (fiber scheduler"), std::string::npos) << r.report;
  auto correct = duet::Lin<Counter<false>>("Counter<false>", "c").op("incr", [](Counter<false>& c) { return c.incr(); });
  config.count = 500;
  const duet::CheckResult ok = duet::check_parallel(correct, on_fibers(), config);
  EXPECT_TRUE(ok.passed()) << ok.report;
}

}  // namespace

namespace fiber_bank {
namespace ref {
inline long open() { return 0; }
inline void deposit(long& balance, int amount) { balance += amount; }
inline long balance(const long& b) { return b; }
}  // namespace ref
struct Account {
  duet::atomic<long> balance{0};
};
using Handle = std::shared_ptr<Account>;
inline Handle open() { return std::make_shared<Account>(); }
inline long balance(const Handle& a) { return a->balance.load(); }
inline void racy_deposit(const Handle& a, int amount) {
  const long b = a->balance.load();
  a->balance.store(b + amount);
}
inline void deposit(const Handle& a, int amount) { a->balance.fetch_add(amount); }

template <class Deposit>
duet::Api spec(Deposit deposit_fn) {
  duet::Api api("FiberBank");
  auto account = api.abstract<long, Handle>("acct");
  api.op("open", duet::args(), account, ref::open, open);
  api.op("deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), ref::deposit, deposit_fn);
  api.op("balance", duet::args(account), duet::value<long>(), ref::balance, balance);
  return api;
}
}  // namespace fiber_bank

namespace {

// The reference-vs-candidate front end on fibers: the racy deposit is found deterministically.
TEST(FiberParallel, ApiFindsTheRacyDepositOnFibers) {
  duet::Config config;
  config.seed = 4;
  config.count = 20'000;
  const duet::CheckResult r = fiber_bank::spec(fiber_bank::racy_deposit).expect_unsafe(on_fibers(), config);
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("interleaving (fiber scheduler"), std::string::npos) << r.report;
  config.count = 500;
  const duet::CheckResult ok = fiber_bank::spec(fiber_bank::deposit).check_parallel(on_fibers(), config);
  EXPECT_TRUE(ok.passed()) << ok.report;
}

}  // namespace

namespace {

class RelaxedCounter {
 public:
  int incr() { return value_.fetch_add(1, std::memory_order_relaxed) + 1; }
  int get() const { return value_.load(std::memory_order_relaxed); }

 private:
  duet::atomic<int> value_{0};
};

struct RelaxedCounterSpec : CounterSpec<false> {
  using Sut = RelaxedCounter;
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) return s.incr();
    return s.get();
  }
};

// A weaker memory order runs as seq_cst on fibers; the check says so once, not per run.
TEST(FiberParallel, WeakMemoryOrdersAreNotedOnce) {
  duet::Config config;
  config.count = 200;
  testing::internal::CaptureStderr();
  const duet::CheckResult r = duet::check_parallel<RelaxedCounterSpec>(on_fibers(), config);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.passed()) << r.report;
  const std::string note = "a memory order weaker than seq_cst was used (first at ";
  const std::size_t at = err.find(note);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(note, at + 1), std::string::npos) << err;
  EXPECT_NE(err.find("parallel_test.cpp:", at), std::string::npos) << err;
}

}  // namespace
