// The parallel runner on the fiber scheduler: Y-programs whose branches are fibers, every
// interleaving drawn from the choice stream, so a race is found deterministically, shrunk with
// the program, reported with its interleaving, and replayed exactly from its token.
#include <duet/api.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/sync.hpp>

#include "support/fiber_subjects.hpp"
#include "support/report_text.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <unistd.h>

namespace {

using namespace fiber_subjects;

duet::ParallelConfig on_fibers(duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  return pc;
}

TEST(FiberUnsafe, RacyCounterIsFoundAndShrunkToTwoIncrements) {
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

TEST(FiberUnsafe, SameSeedSameReport) {
  duet::Config config;
  config.seed = 42;
  const duet::CheckResult a = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
  const duet::CheckResult b = duet::expect_unsafe<CounterSpec<true>>(on_fibers(), config);
  ASSERT_TRUE(a.passed()) << a.report;
  EXPECT_EQ(a.cases, b.cases);
  EXPECT_EQ(a.replay_token, b.replay_token);
  EXPECT_EQ(duet_test::without_time(a.report), duet_test::without_time(b.report));
}

// 100 seeds, each must find the lost update within the default budget.
TEST(FiberUnsafe, RacyCounterFoundOnEverySeed) {
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
  // The replay ran the one failing trial, and says so on its own line (the header reads as the
  // recorded run's).
  EXPECT_NE(again.report.find("\n  replayed:   DUET_REPLAY: failed as recorded, on its 1st trial\n"), std::string::npos)
      << again.report;
  EXPECT_EQ(again.trials, 1u);
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
TEST(FiberUnsafe, OppositeLockOrdersDeadlock) {
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

// A schedule prints as the call that makes it, so that a test over schedules has the same name
// in every build (GoogleTest printed a schedule's bytes, padding included).
TEST(FiberSchedule, PrintsAsTheCallThatMakesIt) {
  EXPECT_EQ(::testing::PrintToString(duet::random()), "duet::random()");
  EXPECT_EQ(::testing::PrintToString(duet::pct(3)), "duet::pct(3)");
  EXPECT_EQ(::testing::PrintToString(duet::pct(0)), "duet::pct(1)");  // what runs: depth 0 is depth 1
  EXPECT_EQ(::testing::PrintToString(duet::exhaustive(1)), "duet::exhaustive(1, 2)");
  EXPECT_EQ(::testing::PrintToString(duet::exhaustive(2, 0)), "duet::exhaustive(2, 0)");
}

INSTANTIATE_TEST_SUITE_P(Strategies, FiberStrategy,
                         ::testing::Values(duet::random(), duet::pct(2), duet::pct(3), duet::exhaustive(1),
                                           duet::exhaustive(2)),
                         [](const auto& info) { return "s" + std::to_string(info.index); });

// Exhaustively, the first program with two concurrent increments fails (no luck involved).
TEST(FiberUnsafe, ExhaustiveFindsTheLostUpdateInTheFirstFailingProgram) {
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
TEST(FiberUnsafe, LinFindsTheLostUpdateOnFibers) {
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
TEST(FiberUnsafe, ApiFindsTheRacyDepositOnFibers) {
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

// With MemoryModel::sc a weaker memory order runs as seq_cst on fibers; the check says so once,
// not per run.
TEST(FiberParallel, WeakMemoryOrdersUnderTheSeqCstModelAreNotedOnce) {
  duet::Config config;
  config.count = 200;
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), {.memory_model = duet::MemoryModel::sc});
  testing::internal::CaptureStderr();
  const duet::CheckResult r = duet::check_parallel<RelaxedCounterSpec>(pc, config);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.passed()) << r.report;
  const std::string note = "a memory order weaker than seq_cst was used (first at ";
  const std::size_t at = err.find(note);
  ASSERT_NE(at, std::string::npos) << err;
  EXPECT_EQ(err.find(note, at + 1), std::string::npos) << err;
  EXPECT_NE(err.find("parallel_test.cpp:", at), std::string::npos) << err;
}

// Under the C++ memory model (the default) the relaxed counter still passes: each call's invoke
// and response times are seq_cst fences, as the fenced clock is on threads, so a get() that
// starts after an incr() returned reads it; only overlapping calls may read older stores.
TEST(FiberParallel, RelaxedCounterPassesUnderTheCppModel) {
  duet::Config config;
  config.count = 300;
  testing::internal::CaptureStderr();
  const duet::CheckResult r = duet::check_parallel<RelaxedCounterSpec>(on_fibers(), config);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_EQ(err.find("a memory order weaker than seq_cst was used"), std::string::npos) << err;
}

// DUET_MEMORY_MODEL chooses the model for duet::fibers(); a value it does not know is an error,
// never a silent default.
TEST(FiberParallel, MemoryModelVariableIsReadAndAnUnknownValueIsAnError) {
  ::setenv("DUET_MEMORY_MODEL", "sc", 1);
  duet::Config config;
  config.count = 300;
  testing::internal::CaptureStderr();
  const duet::CheckResult sc = duet::check_parallel<RelaxedCounterSpec>(on_fibers(), config);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(sc.passed()) << sc.report;
  EXPECT_NE(err.find("with MemoryModel::sc fiber runs execute every atomic operation as seq_cst"), std::string::npos) << err;
  ::setenv("DUET_MEMORY_MODEL", "tso", 1);
  try {
    (void)duet::fibers();
    ADD_FAILURE() << "DUET_MEMORY_MODEL=tso was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("DUET_MEMORY_MODEL=tso is neither sc nor cpp"), std::string::npos) << e.what();
  }
  ::unsetenv("DUET_MEMORY_MODEL");
}

// Double-checked initialisation whose flag is published with a relaxed store: a get() on the
// fast path sees the flag and may read the value from before the initialisation.
template <bool RelaxedPublish>
class LazyAnswer {
 public:
  int get() {
    if (ready_.load(std::memory_order_acquire)) return value_.load(std::memory_order_relaxed);
    std::lock_guard<duet::mutex> g(m_);
    if (!ready_.load(std::memory_order_relaxed)) {
      value_.store(42, std::memory_order_relaxed);
      ready_.store(true, RelaxedPublish ? std::memory_order_relaxed : std::memory_order_release);
    }
    return value_.load(std::memory_order_relaxed);
  }

 private:
  duet::atomic<int> value_{0};
  duet::atomic<bool> ready_{false};
  duet::mutex m_;
};

struct GetAnswer {};
std::string duet_show(const GetAnswer&) { return "get()"; }

template <bool RelaxedPublish>
struct LazyAnswerSpec {
  using Sut = LazyAnswer<RelaxedPublish>;
  using State = int;
  using Cmd = std::variant<GetAnswer>;
  static constexpr const char* sut_name = "a";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(GetAnswer{})); }
  static duet::Result run(const Cmd&, Sut& s) { return s.get(); }
  static duet::Result expected(const Cmd&, const State&) { return 42; }
  static void next(const Cmd&, State&) {}
};

TEST(FiberParallel, RelaxedPublicationIsAStaleReadUnderTheCppModel) {
  duet::Config config;
  config.seed = 3;
  const duet::CheckResult r = duet::expect_unsafe<LazyAnswerSpec<true>>(on_fibers(), config);
  ASSERT_TRUE(r.passed()) << r.report;
  if (std::getenv("DUET_SHOW")) std::puts(r.report.c_str());
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  EXPECT_NE(r.report.find("(stale)"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("stale read: read the value from before the run, not step "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("no happens-before orders the newer store before this relaxed load"), std::string::npos)
      << r.report;
  // Shrunk to the one stale read the failure needs (the trace's mark, not the note's).
  std::size_t stale_marks = 0;
  for (std::size_t at = r.report.find("(stale)"); at != std::string::npos; at = r.report.find("(stale)", at + 1))
    ++stale_marks;
  EXPECT_EQ(stale_marks, 1u) << r.report;
  // The same check under MemoryModel::sc cannot see it; the release store fixes it.
  duet::ParallelConfig sc;
  sc.executor = duet::fibers(duet::random(), {.memory_model = duet::MemoryModel::sc});
  config.count = 300;
  testing::internal::CaptureStderr();
  EXPECT_TRUE(duet::check_parallel<LazyAnswerSpec<true>>(sc, config).passed());
  testing::internal::GetCapturedStderr();
  EXPECT_TRUE(duet::check_parallel<LazyAnswerSpec<false>>(on_fibers(), config).passed());
}

// A token binds the memory model its schedule ran under: under the other model the same picks
// and reads are another run, which may pass ("the failure did not come back"). The error names
// both models, whichever way round, and a token replays under the model that recorded it.
TEST(FiberParallel, ATokenReplaysOnlyUnderTheMemoryModelThatRecordedIt) {
  duet::Config config;
  config.seed = 3;
  config.output_dir = "duet-output/memory_model_tokens";
  const duet::CheckResult found = duet::check_parallel<LazyAnswerSpec<true>>(on_fibers(), config);
  ASSERT_EQ(found.status, duet::CheckResult::Status::failed) << found.report;
  ::setenv("DUET_MEMORY_MODEL", "sc", 1);
  const duet::ParallelConfig sc = on_fibers();
  ::unsetenv("DUET_MEMORY_MODEL");
  testing::internal::CaptureStderr();  // the note that a weaker order ran as seq_cst
  const duet::CheckResult under_sc = duet::check_parallel<LazyAnswerSpec<true>>(sc, {.replay = found.replay_token});
  testing::internal::GetCapturedStderr();
  EXPECT_EQ(under_sc.status, duet::CheckResult::Status::error) << under_sc.report;
  EXPECT_NE(under_sc.report.find("was recorded on fibers under MemoryModel::cpp, and LazyAnswerSpec<true> runs its "
                                 "fibers under MemoryModel::sc"),
            std::string::npos)
      << under_sc.report;
  // Found under sc: refused under cpp, replayed under sc, kept in a directory of its own.
  const std::string regressions = testing::TempDir() + "duet-memory-model-" + std::to_string(::getpid());
  std::filesystem::remove_all(regressions);
  duet::Config sc_config{.seed = 1, .regressions = regressions, .output_dir = "duet-output/memory_model_tokens"};
  const duet::CheckResult found_sc = duet::check_parallel<CounterSpec<true>>(sc, sc_config);
  ASSERT_EQ(found_sc.status, duet::CheckResult::Status::failed) << found_sc.report;
  EXPECT_NE(found_sc.report.find("/fibers_random_memory_model_sc/"), std::string::npos) << found_sc.report;
  const duet::CheckResult under_cpp =
      duet::check_parallel<CounterSpec<true>>(on_fibers(), {.replay = found_sc.replay_token});
  EXPECT_EQ(under_cpp.status, duet::CheckResult::Status::error) << under_cpp.report;
  EXPECT_NE(under_cpp.report.find("under MemoryModel::sc, and fiber_subjects::CounterSpec<true> runs its fibers under "
                                  "MemoryModel::cpp: a schedule replays only under the memory model that recorded it "
                                  "(set DUET_MEMORY_MODEL=sc"),
            std::string::npos)
      << under_cpp.report;
  const duet::CheckResult again = duet::check_parallel<CounterSpec<true>>(sc, {.replay = found_sc.replay_token});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_NE(again.report.find("replayed:   DUET_REPLAY: failed as recorded"), std::string::npos) << again.report;
  std::filesystem::remove_all(regressions);
}

}  // namespace

// ---- nondeterminism: a replay on fibers must run exactly as the failing run did ----
namespace {

// A counter that stamps each increment with the time: the result depends on the clock, which
// the scheduler does not control.
class StampedCounter {
 public:
  long long stamp() {
    value_.fetch_add(1);
    return static_cast<long long>(std::chrono::steady_clock::now().time_since_epoch().count());
  }

 private:
  duet::atomic<int> value_{0};
};

duet::Lin<StampedCounter> stamped_lin() {
  return duet::Lin<StampedCounter>("StampedCounter", "c").op("stamp", [](StampedCounter& c) { return c.stamp(); });
}

TEST(FiberNondeterminism, ClockInAResultIsReportedNotACounterexample) {
  duet::Config config;
  config.seed = 5;
  const duet::CheckResult r = duet::check_parallel(stamped_lin(), on_fibers(), config);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("error: the test is nondeterministic: the replay diverged at the result of `c.stamp()`"),
            std::string::npos)
      << r.report;
  EXPECT_NE(r.report.find("(expected "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("No counterexample is claimed"), std::string::npos) << r.report;
  EXPECT_EQ(r.report.find("step for step"), std::string::npos) << r.report;  // no claim that the token replays it
  EXPECT_TRUE(r.draft_path.empty()) << r.report;                             // and no draft of it
}

// A negative test cannot be proven by a failure that does not reproduce.
TEST(FiberNondeterminism, ExpectUnsafeIsNotSatisfiedByANondeterministicFailure) {
  duet::Config config;
  config.seed = 6;
  const duet::CheckResult r = duet::expect_unsafe(stamped_lin(), on_fibers(), config);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the test is nondeterministic"), std::string::npos) << r.report;
}

TEST(FiberNondeterminism, DivergingInterleavingNamesTheStep) {
  duet::Config config;
  config.seed = 1;
  moody_calls() = 0;
  const duet::CheckResult r = duet::check_parallel<MoodyCounterSpec>(on_fibers(), config);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the replay diverged at step "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("(expected `f"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("interleaving (fiber scheduler"), std::string::npos) << r.report;  // as first seen
}

// A token replayed on its own is checked the same way.
TEST(FiberNondeterminism, ReplayedTokenOfANondeterministicTestSaysSo) {
  duet::Config config;
  config.seed = 5;
  const duet::CheckResult first = duet::check_parallel(stamped_lin(), on_fibers(), config);
  ASSERT_FALSE(first.replay_token.empty()) << first.report;
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult r = duet::check_parallel(stamped_lin(), on_fibers(), replay);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the test is nondeterministic"), std::string::npos) << r.report;
}

// A deterministic failure is still a counterexample: the check does not cry wolf.
TEST(FiberNondeterminism, DeterministicFailuresAreNotFlagged) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    duet::Config config;
    config.seed = seed;
    const duet::CheckResult r = duet::check_parallel<CounterSpec<true>>(on_fibers(duet::pct(2)), config);
    EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.report.find("nondeterministic"), std::string::npos) << r.report;
  }
}

}  // namespace

// ---- duet::run_fibers: how draft tests replay a failing schedule ----
namespace {

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(RunFibers, ReplaysTheReportedSchedule) {
  // Its own output directory: other tests fail the same spec in parallel and would overwrite
  // the draft in the default one before it is read.
  const duet::CheckResult r =
      duet::check_parallel<CounterSpec<true>>(on_fibers(), {.seed = 1, .output_dir = "duet-output/run_fibers"});
  ASSERT_FALSE(r.passed()) << r.report;
  const std::string draft = read_file(r.draft_path);
  std::smatch schedule;
  ASSERT_TRUE(std::regex_search(draft, schedule, std::regex("as duet::run_fibers replays it: \"([0-9.]*)\""))) << draft;
  std::smatch steps;
  ASSERT_TRUE(std::regex_search(r.report, steps, std::regex("schedules\\), ([0-9]+) steps:"))) << r.report;
  auto run = [&] {
    Counter<true> c;
    duet::Result a, b;
    duet::FiberRun fr = duet::run_fibers(
        {[&] { a = duet::capture([&] { return c.incr(); }); }, [&] { b = duet::capture([&] { return c.incr(); }); }},
        schedule[1].str());
    EXPECT_TRUE(fr.completed) << fr.failure;
    // The lost update, as reported: both increments return 1.
    EXPECT_EQ(a.show(), "1");
    EXPECT_EQ(b.show(), "1");
    return fr.interleaving;
  };
  const std::vector<std::string> first = run();
  EXPECT_EQ(std::to_string(first.size()), steps[1].str());
  EXPECT_EQ(run(), first);  // the same schedule, the same run
}

TEST(RunFibers, PastTheScheduleTheCurrentFiberKeepsRunning) {
  Counter<true> c;
  duet::Result a, b;
  const duet::FiberRun fr = duet::run_fibers(
      {[&] { a = duet::capture([&] { return c.incr(); }); }, [&] { b = duet::capture([&] { return c.incr(); }); }}, "");
  ASSERT_TRUE(fr.completed) << fr.failure;
  EXPECT_EQ(a.show(), "1");  // fiber 0 ran to its end first: no lost update
  EXPECT_EQ(b.show(), "2");
}

TEST(RunFibers, MalformedSchedulesAreClearErrors) {
  for (const char* bad : {"1..2", "x", "1.", ".1", "1 2", "0.99999999999999999999", "1,2"}) {
    try {
      (void)duet::run_fibers({[] {}, [] {}}, bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("duet::run_fibers: bad schedule"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("like \"1.0.0.1\""), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)duet::run_fibers({}, ""), std::invalid_argument);
}

// Each malformed schedule is named for what is wrong with it: "1." has its dot, and lacks the
// number after it.
TEST(RunFibers, MalformedSchedulesSayWhatIsWrong) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"1.", "it ends in a dot (character 2): a number must follow it"},
      {"0.1.", "it ends in a dot (character 4)"},
      {"1 2", "expected a dot between numbers at character 2"},
      {"1..2", "expected a number at character 3"}};
  for (const auto& [schedule, why] : cases) {
    try {
      (void)duet::run_fibers({[] {}, [] {}}, schedule);
      ADD_FAILURE() << "accepted " << schedule;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("bad schedule " + schedule + ": " + why), std::string::npos) << e.what();
    }
  }
}

TEST(RunFibers, ReportsWhatEndedARun) {
  Accounts accounts;
  const duet::FiberRun fr = duet::run_fibers({[&] { accounts.transfer_ab(); }, [&] { accounts.transfer_ba(); }}, "0.0.1");
  EXPECT_FALSE(fr.completed);
  EXPECT_EQ(fr.failure.rfind("deadlock: no fiber can proceed", 0), 0u) << fr.failure;
  EXPECT_FALSE(fr.interleaving.empty());
}

TEST(RunFibers, ExceptionsEscapingABranchAreRethrown) {
  EXPECT_THROW((void)duet::run_fibers({[] { throw std::out_of_range("x"); }, [] {}}, ""), std::out_of_range);
}

TEST(RunFibers, CannotBeNestedInAFiberRun) {
  bool threw = false;
  const duet::FiberRun outer = duet::run_fibers({[&] {
                                                   try {
                                                     (void)duet::run_fibers({[] {}}, "");
                                                   } catch (const std::logic_error&) {
                                                     threw = true;
                                                   }
                                                 },
                                                 [] {}},
                                                "");
  EXPECT_TRUE(outer.completed) << outer.failure;
  EXPECT_TRUE(threw);
}

}  // namespace
