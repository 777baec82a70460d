// Scheduling strategies for async code (AsyncOptions::schedule): duet::check_async with PCT and
// with the exhaustive search, and PCT in the duet::run calls of a spec's commands. Subjects: a
// barrier and a latch whose last arrival notifies without the lock, so a waiter that checked
// and has not yet waited misses the wake-up (the run starves); their correct twins pass, the
// exhaustive pass saying what it covered.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>
#include <mutex>
#include <stdexcept>
#include <string>
#include <variant>

#include "duet/async.hpp"
#include "duet/gtest.hpp"
#include "duet/state_machine.hpp"
#include "duet/sync.hpp"

namespace {

// Parties arrive; the last one releases every waiter for this generation.
template <bool kLostWakeup>
class Barrier {
 public:
  explicit Barrier(int parties) : parties_(parties) {}
  void arrive_and_wait() {
    if constexpr (kLostWakeup) {
      const int gen = generation_.load();
      if (arrived_.fetch_add(1) + 1 == parties_) {
        arrived_.store(0);
        generation_.fetch_add(1);
        cv_.notify_all();  // without the lock: a waiter between its check and its wait misses it
        return;
      }
      std::unique_lock lock(m_);
      while (generation_.load() == gen) cv_.wait(lock);
    } else {
      std::unique_lock lock(m_);
      const int gen = generation_.load();
      if (arrived_.fetch_add(1) + 1 == parties_) {
        arrived_.store(0);
        generation_.fetch_add(1);
        cv_.notify_all();
        return;
      }
      cv_.wait(lock, [&] { return generation_.load() != gen; });
    }
  }

 private:
  const int parties_;
  duet::mutex m_;
  duet::condition_variable cv_;
  duet::atomic<int> arrived_{0};
  duet::atomic<int> generation_{0};
};

// Counts down to zero; wait() returns once it is there.
template <bool kLostWakeup>
class Latch {
 public:
  explicit Latch(int count) : count_(count) {}
  void count_down() {
    if constexpr (kLostWakeup) {
      if (count_.fetch_sub(1) == 1) cv_.notify_all();  // without the lock
    } else {
      std::lock_guard lock(m_);
      if (count_.fetch_sub(1) == 1) cv_.notify_all();
    }
  }
  void wait() {
    std::unique_lock lock(m_);
    while (count_.load() != 0) cv_.wait(lock);
  }

 private:
  duet::mutex m_;
  duet::condition_variable cv_;
  duet::atomic<int> count_;
};

template <class B>
duet::task<void> party(B& barrier, std::array<bool, 3>& arrived, int i) {
  arrived[i] = true;
  barrier.arrive_and_wait();
  for (bool a : arrived)
    if (!a) throw std::logic_error("a party passed the barrier before every party arrived");
  co_return;
}

template <bool kLostWakeup>
duet::task<void> three_parties() {
  Barrier<kLostWakeup> barrier(3);
  std::array<bool, 3> arrived{};
  auto a = duet::spawn(party(barrier, arrived, 0));
  auto b = duet::spawn(party(barrier, arrived, 1));
  auto c = duet::spawn(party(barrier, arrived, 2));
  co_await a;
  co_await b;
  co_await c;
}

template <class L>
duet::task<void> worker(L& latch, int& done) {
  ++done;
  latch.count_down();
  co_return;
}

template <class L>
duet::task<void> waiter(L& latch, const int& done) {
  latch.wait();
  if (done != 2) throw std::logic_error("the latch opened before both workers were done");
  co_return;
}

template <bool kLostWakeup>
duet::task<void> two_workers_one_waiter() {
  Latch<kLostWakeup> latch(2);
  int done = 0;
  auto w = duet::spawn(waiter(latch, done));
  auto a = duet::spawn(worker(latch, done));
  auto b = duet::spawn(worker(latch, done));
  co_await a;
  co_await b;
  co_await w;
}

void expect_starved(const duet::CheckResult& r) {
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("starved"), std::string::npos) << r.report;
}

TEST(AsyncStrategies, ALostWakeupInABarrierIsFoundWithPctAndExhaustive) {
  expect_starved(duet::check_async("barrier", three_parties<true>, {.seed = 1, .count = 2000}, {.schedule = duet::pct(2)}));
  expect_starved(duet::check_async("barrier", three_parties<true>, {.seed = 1}, {.schedule = duet::exhaustive(1)}));
  expect_starved(duet::check_async("barrier", three_parties<true>, {.seed = 1}, {.schedule = duet::exhaustive(2)}));
}

TEST(AsyncStrategies, ALostWakeupInALatchIsFoundWithPctAndExhaustive) {
  expect_starved(
      duet::check_async("latch", two_workers_one_waiter<true>, {.seed = 1, .count = 2000}, {.schedule = duet::pct(2)}));
  expect_starved(duet::check_async("latch", two_workers_one_waiter<true>, {.seed = 1}, {.schedule = duet::exhaustive(2)}));
}

TEST(AsyncStrategies, TheExhaustivePassSaysWhatItCovered) {
  for (auto* body : {&three_parties<false>, &two_workers_one_waiter<false>}) {
    const duet::CheckResult r = duet::check_async("correct", body, {.seed = 1}, {.schedule = duet::exhaustive(2)});
    ASSERT_TRUE(r.passed()) << r.report;
    EXPECT_EQ(r.cases, 1u) << "one complete search covers the body: it is the same program in every case";
    EXPECT_NE(r.coverage.find("exhaustive(2), complete for the body of \"correct\": all "), std::string::npos) << r.coverage;
    EXPECT_NE(r.coverage.find("with at most 2 preemptions and at most 2 stale reads explored"), std::string::npos)
        << r.coverage;
  }
}

TEST(AsyncStrategies, TheCorrectTwinsPassUnderPct) {
  const duet::CheckResult barrier =
      duet::check_async("barrier", three_parties<false>, {.seed = 1, .count = 500}, {.schedule = duet::pct(3)});
  EXPECT_TRUE(barrier.passed()) << barrier.report;
  EXPECT_NE(barrier.coverage.find("schedules drawn by pct(3)"), std::string::npos) << barrier.coverage;
  const duet::CheckResult latch =
      duet::check_async("latch", two_workers_one_waiter<false>, {.seed = 1, .count = 500}, {.schedule = duet::pct(3)});
  EXPECT_TRUE(latch.passed()) << latch.report;
}

// Five parties and four preemptions: more schedules than half of a 0.4 s case timeout can run.
// The search stops there and the pass says it is incomplete and why, rather than claiming
// coverage or being taken for a hang.
duet::task<void> five_parties() {
  Barrier<false> barrier(5);
  std::vector<duet::future<void>> parties;
  for (int i = 0; i < 5; ++i)
    parties.push_back(duet::spawn([](Barrier<false>& b) -> duet::task<void> {
      b.arrive_and_wait();
      co_return;
    }(barrier)));
  for (auto& p : parties) co_await p;
}

TEST(AsyncStrategies, AnExhaustiveSearchPastTheCasesAllowanceSaysItIsIncomplete) {
  const duet::CheckResult r =
      duet::check_async("five", five_parties, {.seed = 1, .case_timeout = 0.4}, {.schedule = duet::exhaustive(4)});
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("exhaustive(4), incomplete for the body of \"five\": the search stopped at the case's "
                            "time allowance (half its case_timeout); "),
            std::string::npos)
      << r.coverage;
  // How far it got: its runs of about how many (execute/fibers/search_share.hpp).
  EXPECT_NE(r.coverage.find(" in all (estimated from the share of the search tree behind them)"), std::string::npos)
      << r.coverage;
  EXPECT_EQ(r.cases, 1u);
}

// pct(0) has no meaning of its own: it runs as pct(1), and the pass names what ran.
TEST(AsyncStrategies, PctZeroRunsAndIsNamedAsPctOne) {
  const duet::CheckResult r =
      duet::check_async("correct", three_parties<false>, {.seed = 1, .count = 20}, {.schedule = duet::pct(0)});
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("schedules drawn by pct(1)"), std::string::npos) << r.coverage;
  EXPECT_EQ(duet::pct(0).depth, 1u);
}

// A depth PCT cannot run is the check's error before any case, as on check_parallel's fibers,
// never the body's failure (the picker threw it from inside the body's duet::run).
TEST(AsyncStrategies, APctDepthAbove64IsAnError) {
  for (const std::size_t depth : {65u, 1000000000u}) {
    const duet::CheckResult r =
        duet::check_async("correct", three_parties<false>, {.seed = 1, .count = 20}, {.schedule = duet::pct(depth)});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    EXPECT_NE(r.report.find("bad AsyncOptions::schedule, pct(" + std::to_string(depth) + "): PCT depth above 64"),
              std::string::npos)
        << r.report;
    EXPECT_EQ(r.cases, 0u);
  }
  EXPECT_TRUE(duet::check_async("correct", three_parties<false>, {.seed = 1, .count = 20}, {.schedule = duet::pct(64)}));
}

// A body that throws is named with its exception once ("the body threw std::runtime_error(...)").
TEST(AsyncStrategies, ABodyThatThrowsIsNamedWithItsException) {
  const duet::CheckResult r = duet::check_async("thrower",
                                                []() -> duet::task<void> {
                                                  co_await duet::switch_point();
                                                  throw std::runtime_error("no round today");
                                                },
                                                {.seed = 1, .count = 20});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("the body threw std::runtime_error(\"no round today\")"), std::string::npos) << r.report;
  EXPECT_EQ(r.report.find("threw throws"), std::string::npos) << r.report;
}

// A failure found by a strategy replays from its token (picks read back with the plain picker)
// and gives the same report twice from the same seed.
TEST(AsyncStrategies, FailuresReplayFromTheirTokenAndRepeatFromTheSeed) {
  for (const duet::Schedule& s : {duet::pct(2), duet::exhaustive(1)}) {
    const duet::CheckResult first =
        duet::check_async("barrier", three_parties<true>, {.seed = 7, .count = 2000}, {.schedule = s});
    const duet::CheckResult again =
        duet::check_async("barrier", three_parties<true>, {.seed = 7, .count = 2000}, {.schedule = s});
    ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
    EXPECT_EQ(first.replay_token, again.replay_token);
    const duet::CheckResult replayed =
        duet::check_async("barrier", three_parties<true>, {.replay = first.replay_token}, {.schedule = s});
    EXPECT_EQ(replayed.status, duet::CheckResult::Status::failed) << replayed.report;
    EXPECT_NE(replayed.report.find("starved"), std::string::npos) << replayed.report;
  }
}

// The commands of a spec each run a round of the barrier with duet::run under PCT.
struct Round {};
std::string duet_show(const Round&) { return "round()"; }

template <bool kLostWakeup, duet::Schedule::Kind kKind>
struct BarrierRoundsSpec {
  struct Sut {};
  using State = int;
  using Cmd = std::variant<Round>;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Round{})); }
  static duet::Result run(const Cmd&, Sut&) {
    const duet::Schedule schedule = kKind == duet::Schedule::Kind::pct ? duet::pct(2) : duet::exhaustive(1);
    duet::run(three_parties<kLostWakeup>(), {.schedule = schedule});
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State& rounds) { ++rounds; }
};

TEST(AsyncStrategies, PctInTheRunsOfASpec) {
  const duet::CheckResult lost =
      duet::check_sequential<BarrierRoundsSpec<true, duet::Schedule::Kind::pct>>({.seed = 1, .count = 500});
  ASSERT_EQ(lost.status, duet::CheckResult::Status::failed) << lost.report;
  EXPECT_NE(lost.report.find("duet::starved"), std::string::npos) << lost.report;
  EXPECT_TRUE((duet::check_sequential<BarrierRoundsSpec<false, duet::Schedule::Kind::pct>>({.seed = 1, .count = 200})));
}

// exhaustive() in a spec's runs: each run searched from the state its case's commands left
// (tests/async/spec_runs_test.cpp has more); a duet::run outside any check refuses it, as an
// error of the caller.
TEST(AsyncStrategies, ExhaustiveInTheRunsOfASpec) {
  const duet::CheckResult lost = duet::check_sequential<BarrierRoundsSpec<true, duet::Schedule::Kind::exhaustive>>(
      {.seed = 1, .count = 3, .max_length = 3});
  ASSERT_EQ(lost.status, duet::CheckResult::Status::failed) << lost.report;
  EXPECT_NE(lost.report.find("duet::starved"), std::string::npos) << lost.report;
  const duet::CheckResult r = duet::check_sequential<BarrierRoundsSpec<false, duet::Schedule::Kind::exhaustive>>(
      {.seed = 1, .count = 3, .max_length = 3});
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("exhaustive(1) for the duet::run calls of "), std::string::npos) << r.coverage;
  EXPECT_THROW(duet::run(three_parties<false>(), {.schedule = duet::exhaustive()}), std::runtime_error);
  duet::run(three_parties<false>(), {.schedule = duet::pct(2)});  // outside a check: priorities alone
}


// The figure docs/async.md gives: on 20 seeds, each strategy finds each lost wake-up within
// 2,000 cases (one run each), and how many cases it took (median, most).
TEST(AsyncStrategies, CasesToFindOnTwentySeeds) {
  struct Subject {
    const char* name;
    duet::task<void> (*body)();
  };
  for (const Subject& subject : {Subject{"barrier", &three_parties<true>}, Subject{"latch", &two_workers_one_waiter<true>}})
    for (const duet::Schedule& s : {duet::random(), duet::pct(2), duet::pct(3)}) {
      std::vector<std::uint64_t> cases;
      for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const duet::CheckResult r =
            duet::check_async(subject.name, subject.body, {.seed = seed, .count = 2000, .verbose = -1}, {.schedule = s});
        EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << subject.name << " seed " << seed << "\n" << r.report;
        if (!r.passed()) cases.push_back(r.cases);
      }
      std::sort(cases.begin(), cases.end());
      if (cases.empty()) continue;
      std::printf("%s, %s: found on %zu of 20 seeds, cases to find: median %llu, most %llu\n", subject.name,
                  s.kind == duet::Schedule::Kind::random ? "random" : ("pct(" + std::to_string(s.depth) + ")").c_str(),
                  cases.size(), static_cast<unsigned long long>(cases[cases.size() / 2]),
                  static_cast<unsigned long long>(cases.back()));
    }
}

}  // namespace
