// Lifetimes in the async runtime: what a run spawned is destroyed in that run, or left for good
// when the run is abandoned; a crash on a spawned fiber is recovered like one on the root; the
// fiber limit is duet's error, not the code's failure; traces point at the caller's line.
#include <cstdio>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <duet/async.hpp>
#include <duet/faults.hpp>
#include <duet/gtest.hpp>
#include <duet/sync.hpp>

#include "write_back_cache.hpp"

using namespace std::chrono_literals;

namespace {

constexpr const char* kOut = "duet-output/async";

std::string traced(const std::function<void()>& f) {
  std::string text;
  const duet::detail::AsyncTraceScope scope(&text);
  f();
  return text;
}

// ---- a crash on the flusher's fiber (spawned), in both front ends ----

// The correct cache: 10,000 cases with crashes injected (many of them on the flusher's fiber),
// no false alarm, no abort; the same seed again gives the same cases and the same crashes.
TEST(AsyncLifetime, ACrashOnASpawnedWriterIsRecoveredInCheckSequential) {
  const std::uint64_t before = wbc::recoveries;
  const duet::CheckResult r = duet::check_sequential<wbc::Spec<wbc::Bug::none>>({.seed = 3, .count = 10000});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 10000u);
  const std::uint64_t crashes = wbc::recoveries - before;
  EXPECT_GT(crashes, 3000u) << "crash injection hardly happened";
  std::printf("write-back cache: 10000 cases, %llu commands, %llu crashes recovered, %.2f s\n",
              static_cast<unsigned long long>(r.commands), static_cast<unsigned long long>(crashes), r.seconds);
  const duet::CheckResult again = duet::check_sequential<wbc::Spec<wbc::Bug::none>>({.seed = 3, .count = 10000});
  ASSERT_TRUE(again) << again.report;
  EXPECT_EQ(again.commands, r.commands);
  EXPECT_EQ(wbc::recoveries - before, 2 * crashes);
}

TEST(AsyncLifetime, ACrashOnASpawnedWriterIsRecoveredInAnApi) {
  const std::uint64_t before = wbc::recoveries;
  const duet::CheckResult r = wbc::api<wbc::Bug::none>().check({.seed = 4, .count = 1000});
  ASSERT_TRUE(r) << r.report;
  EXPECT_GT(wbc::recoveries - before, 100u) << "crash injection hardly happened";
}

// The flush that returns with its write in flight: found on every seed, shrunk to
//   cache.put(s, v); cache.put(..) /* crash */; cache.get(s) -> 0
// and replayed from its token to the same scenario.
TEST(AsyncLifetime, AFlushThatReturnsWithAWriteInFlightIsFoundOnEverySeed) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::check_sequential<wbc::Spec<wbc::Bug::flush_returns_early>>(
        {.seed = seed, .output_dir = std::string(kOut), .name = "wbc_flush_returns_early"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, 3u) << r.report;
    EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
    EXPECT_NE(r.report.find("// crash at disk."), std::string::npos) << r.report;
    EXPECT_EQ(r.report.find("nondeterministic"), std::string::npos) << r.report;
    const duet::CheckResult again = duet::check_sequential<wbc::Spec<wbc::Bug::flush_returns_early>>(
        {.replay = r.replay_token, .output_dir = std::string(kOut), .name = "wbc_flush_returns_early"});
    ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
    EXPECT_EQ(again.failing_length, 3u);
    EXPECT_EQ(again.replay_token, r.replay_token);
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

// ---- a run abandoned by a data race, then a run that spawns ----

// Two spawned writers race on x; each holds a duet::var of its own, alive in its coroutine
// frame when the race stops the run.
duet::task<void> racing() {
  duet::var<int> x{0};
  auto writer = [&x](int v) -> duet::task<void> {
    duet::var<int> mine{v};
    x.set(v);
    mine.set(v + 1);
    co_return;
  };
  auto a = duet::spawn(writer(1));
  auto b = duet::spawn(writer(2));
  co_await a;
  co_await b;
}

duet::task<int> add(int a, int b) { co_return a + b; }
duet::task<int> spawner() {
  auto a = duet::spawn(add(1, 2));
  auto b = duet::spawn(add(3, 4));
  co_return co_await a + co_await b;
}

TEST(AsyncLifetime, ARunAbandonedByARaceLeavesNothingForTheNextRun) {
  auto spawner_trace = [](std::uint64_t seed) {
    return traced([&] { EXPECT_EQ(duet::run(spawner(), {.seed = seed}), 10); });
  };
  for (std::uint64_t seed = 0; seed < 1000; ++seed) {
    const std::string clean = spawner_trace(seed);
    EXPECT_THROW(duet::run(racing(), {.seed = seed}), duet::async_failure);
    ASSERT_EQ(spawner_trace(seed), clean) << "seed " << seed;
  }
}

// A race only some schedules show (b writes when it looks before a's flag): check_async finds
// it, shrinks it and replays it, every run after the racing ones spawning again.
TEST(AsyncLifetime, CheckAsyncFindsAScheduleDependentRaceAndReplaysIt) {
  auto body = []() -> duet::task<void> {
    duet::var<int> x{0};
    duet::atomic<bool> done{false};
    auto a = duet::spawn([&]() -> duet::task<void> {
      x.set(1);
      done.store(true);
      co_return;
    });
    auto b = duet::spawn([&]() -> duet::task<void> {
      if (!done.load()) x.set(2);
      co_return;
    });
    co_await a;
    co_await b;
  };
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r =
        duet::check_async("racing flag", body, {.seed = seed, .count = 1000, .output_dir = std::string(kOut)});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_NE(r.report.find("data race on var#"), std::string::npos) << r.report;
    EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
    const duet::CheckResult again =
        duet::check_async("racing flag", body, {.replay = r.replay_token, .output_dir = std::string(kOut)});
    ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  }
}

// ---- the fiber limit ----

duet::task<void> alive_at_once(int n) {
  duet::promise<void> gate;
  auto opened = std::make_shared<duet::future<void>>(gate.get_future());
  std::vector<duet::future<void>> all;
  for (int i = 0; i < n; ++i) all.push_back(duet::spawn([]() -> duet::task<void> { co_await duet::sleep_for(1s); }));
  gate.set_value();
  for (auto& f : all) co_await f;
}

TEST(AsyncLimit, SixtyThreeSpawnedFibersAliveAtOnceRun) { EXPECT_NO_THROW(duet::run(alive_at_once(63))); }

TEST(AsyncLimit, PastTheLimitIsDuetsErrorNamingTheLimitAndHowToRaiseIt) {
  try {
    duet::run(alive_at_once(100));
    FAIL() << "no error";
  } catch (const duet::fiber_limit& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("64 fibers are alive already, duet's limit per run"), std::string::npos) << what;
    EXPECT_NE(what.find("cmake -DDUET_MAX_FIBERS=128"), std::string::npos) << what;
    EXPECT_NE(what.find("duet::spawn at lifetime_test.cpp:"), std::string::npos) << what;
  }
  // Inside a check: an error of the check, not a failure of the code.
  const duet::CheckResult r = duet::check_async("too many", [] { return alive_at_once(100); }, {.seed = 1, .count = 3});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("duet's limit per run"), std::string::npos) << r.report;
  // And the next run on this thread is clean.
  EXPECT_EQ(duet::run(spawner()), 10);
}

// ---- locations ----

TEST(AsyncLocations, PromiseAndSpawnEventsPointAtTheCallersLine) {
  int set_line = 0, spawn_line = 0;
  auto root = [&]() -> duet::task<void> {
    duet::promise<int> p;
    auto f = p.get_future();
    set_line = __LINE__ + 1;
    p.set_value(7);
    (void)co_await f;
    spawn_line = __LINE__ + 1;
    auto g = duet::spawn(add(1, 2));
    (void)co_await g;
  };
  const std::string text = traced([&] { duet::run(root()); });
  EXPECT_TRUE(std::regex_search(text, std::regex("set +future#0 +lifetime_test.cpp:" + std::to_string(set_line) + "\n")))
      << text;
  EXPECT_TRUE(std::regex_search(text, std::regex("set +future#1 +lifetime_test.cpp:" + std::to_string(spawn_line) + "\n")))
      << text;
  EXPECT_EQ(text.find("async.hpp"), std::string::npos) << text;
}

}  // namespace
