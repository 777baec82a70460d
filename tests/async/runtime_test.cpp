// duet/async.hpp: tasks, spawn, futures, channels and the virtual clock on the fiber scheduler.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "duet/async.hpp"
#include "duet/faults.hpp"
#include "duet/source.hpp"
#include "duet/sync.hpp"
#include "support/emulation.hpp"

using namespace std::chrono_literals;

namespace {

duet::task<int> add(int a, int b) { co_return a + b; }

duet::task<int> twice_add(int a, int b) {
  int x = co_await add(a, b);
  int y = co_await add(x, x);
  co_return y;
}

TEST(AsyncRun, ReturnsTheRootTasksValue) {
  EXPECT_EQ(duet::run(add(1, 2)), 3);
  EXPECT_EQ(duet::run(twice_add(1, 2)), 6);
}

duet::task<void> thrower() {
  co_await duet::sleep_for(1ms);
  throw std::runtime_error("boom");
}

TEST(AsyncRun, ExceptionsComeBackThroughAwaitSpawnAndRun) {
  EXPECT_THROW(duet::run(thrower()), std::runtime_error);
  auto via_spawn = []() -> duet::task<std::string> {
    auto f = duet::spawn(thrower());
    try {
      co_await f;
    } catch (const std::runtime_error& e) {
      co_return e.what();
    }
    co_return "no exception";
  };
  EXPECT_EQ(duet::run(via_spawn()), "boom");
}

// Two tasks append to a shared log with a switch point between appends: the interleaving is
// chosen by the schedule.
duet::task<std::string> interleave() {
  std::string log;
  auto writer = [&log](char c) -> duet::task<void> {
    for (int i = 0; i < 3; ++i) {
      log += c;
      duet::yield();
    }
    co_return;
  };
  auto a = duet::spawn(writer('a'));
  auto b = duet::spawn(writer('b'));
  co_await a;
  co_await b;
  co_return log;
}

TEST(AsyncRun, TheSeedChoosesTheInterleavingAndTheSameSeedGivesTheSameOne) {
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 40; ++seed) {
    const std::string first = duet::run(interleave(), {.seed = seed});
    EXPECT_EQ(first.size(), 6u);
    EXPECT_EQ(duet::run(interleave(), {.seed = seed}), first) << "seed " << seed;
    seen.insert(first);
  }
  EXPECT_GE(seen.size(), 5u) << "the schedules explore few interleavings";
}

// A retry loop with exponential back-off: 1 s, 2 s, 4 s ... up to 60 s of virtual time.
duet::task<int> retry_with_backoff(int fail_times, int* attempts) {
  auto delay = std::chrono::seconds(1);
  const auto give_up = duet::virtual_clock::now() + 60s;
  while (true) {
    ++*attempts;
    if (*attempts > fail_times) co_return *attempts;
    if (duet::virtual_clock::now() + delay > give_up) co_return -1;
    co_await duet::sleep_for(delay);
    delay *= 2;
  }
}

TEST(AsyncClock, BackOffUpToAMinuteRunsInMicrosecondsDeterministically) {
  const auto real_start = std::chrono::steady_clock::now();
  int attempts = 0;
  const auto before = duet::virtual_clock::now();
  EXPECT_EQ(duet::run(retry_with_backoff(100, &attempts)), -1);
  const auto slept = duet::virtual_clock::now() - before;
  const auto real = std::chrono::steady_clock::now() - real_start;
  EXPECT_EQ(attempts, 6);  // tries at 0, 1, 3, 7, 15, 31 s; 63 s would pass the minute
  EXPECT_EQ(slept, 31s);   // 1 + 2 + 4 + 8 + 16
  // The shortest sleep is a second: one that really slept would take longer than this bound,
  // which a loaded machine's scheduling does not reach (10 ms did: 12.8 ms under a build, an
  // emulated test run and a search beside it).
  EXPECT_LT(real, 500ms * duet_test::time_scale()) << "virtual sleeps must not sleep";
  attempts = 0;
  EXPECT_EQ(duet::run(retry_with_backoff(3, &attempts)), 4);
}

TEST(AsyncClock, TheEarliestDeadlineWakesFirstAndTimeStandsStillWhileAnyFiberRuns) {
  auto root = []() -> duet::task<std::vector<std::string>> {
    std::vector<std::string> order;
    const auto t0 = duet::virtual_clock::now();
    auto sleeper = [&](std::string name, std::chrono::seconds d) -> duet::task<void> {
      co_await duet::sleep_for(d);
      order.push_back(
          name + "@" +
          std::to_string(std::chrono::duration_cast<std::chrono::seconds>(duet::virtual_clock::now() - t0).count()));
    };
    auto busy = [&]() -> duet::task<void> {
      for (int i = 0; i < 50; ++i) duet::yield();  // time does not pass while this can run
      order.push_back("busy@" + std::to_string((duet::virtual_clock::now() - t0).count()));
      co_return;
    };
    auto a = duet::spawn(sleeper("a", 3s));
    auto b = duet::spawn(sleeper("b", 1s));
    auto c = duet::spawn(busy());
    co_await a;
    co_await b;
    co_await c;
    co_return order;
  };
  for (std::uint64_t seed = 0; seed < 10; ++seed)
    EXPECT_EQ(duet::run(root(), {.seed = seed}), (std::vector<std::string>{"busy@0", "b@1", "a@3"})) << seed;
}

TEST(AsyncClock, AFutureWaitTimesOutInVirtualTime) {
  auto root = []() -> duet::task<bool> {
    duet::promise<int> p;
    auto f = p.get_future();
    const bool ready = f.wait_for(30s);
    co_return ready || duet::virtual_clock::now().time_since_epoch() < 30s;
  };
  EXPECT_FALSE(duet::run(root()));
}

TEST(AsyncStarved, AFutureNobodyCompletesIsReportedWithItsWaitingLocation) {
  duet::promise<int> never;
  auto root = [&]() -> duet::task<int> {
    auto f = never.get_future();
    co_return co_await f;  // the line the report must name
  };
  const int line = __LINE__ - 2;
  try {
    duet::run(root());
    FAIL() << "no starved report";
  } catch (const duet::starved& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("starved"), std::string::npos) << what;
    EXPECT_NE(what.find("fiber 0 waits in await future#"), std::string::npos) << what;
    EXPECT_NE(what.find("runtime_test.cpp:" + std::to_string(line)), std::string::npos) << what;
  }
}

TEST(AsyncStarved, EveryWaitingFiberIsListed) {
  auto root = []() -> duet::task<void> {
    duet::channel<int> ch(1);
    auto reader = duet::spawn([&]() -> duet::task<int> { co_return (co_await ch.receive()).value_or(-1); });
    co_await reader;
  };
  try {
    duet::run(root());
    FAIL() << "no starved report";
  } catch (const duet::starved& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("fiber 0 waits in await future#"), std::string::npos) << what;
    EXPECT_NE(what.find("fiber 1 waits in receive channel#"), std::string::npos) << what;
  }
}

TEST(AsyncFuture, ABrokenPromiseIsAnErrorNotAHang) {
  auto root = []() -> duet::task<int> {
    duet::future<int> f;
    {
      duet::promise<int> p;
      f = p.get_future();
    }
    co_return co_await f;
  };
  EXPECT_THROW(duet::run(root()), duet::broken_promise);
}

TEST(AsyncChannel, ABoundedChannelCarriesEveryValueInOrderUnderEverySchedule) {
  auto root = []() -> duet::task<std::vector<int>> {
    duet::channel<int> ch(2);
    auto producer = duet::spawn([&]() -> duet::task<void> {
      for (int i = 0; i < 10; ++i) {
        co_await ch.send(i);
        EXPECT_LE(ch.size(), 2u);
      }
      ch.close();
    });
    std::vector<int> got;
    while (auto v = co_await ch.receive()) got.push_back(*v);
    co_await producer;
    EXPECT_THROW(ch.send(99), duet::channel_closed);
    co_return got;
  };
  for (std::uint64_t seed = 0; seed < 20; ++seed)
    EXPECT_EQ(duet::run(root(), {.seed = seed}), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(AsyncSpawn, ManyShortTasksReuseFiberSlots) {
  auto root = []() -> duet::task<int> {
    int sum = 0;
    for (int i = 0; i < 100; ++i) sum += co_await duet::spawn(add(i, 0));
    co_return sum;
  };
  EXPECT_EQ(duet::run(root()), 4950);
}

TEST(AsyncSpawn, OutsideARunIsAnError) {
  EXPECT_THROW((void)duet::spawn(add(1, 2)), std::logic_error);
  duet::promise<int> p;
  auto f = p.get_future();
  EXPECT_THROW(f.get(), std::logic_error);
}

// A library's own awaitable, resumed by a callback it posts onto the scheduler (how a
// callback-based API plugs in): the task suspends for real and finishes on the callback's fiber.
struct CallbackAwaitable {
  int* slot;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    duet::post([h, s = slot] {
      *s = 42;
      h.resume();
    });
  }
  int await_resume() const { return *slot; }
};

TEST(AsyncForeign, ACoroutineResumedByAPostedCallbackCompletes) {
  auto root = []() -> duet::task<int> {
    int slot = 0;
    int v = co_await CallbackAwaitable{&slot};
    co_await duet::sleep_for(1s);
    co_return v + 1;
  };
  for (std::uint64_t seed = 0; seed < 5; ++seed) EXPECT_EQ(duet::run(root(), {.seed = seed}), 43);
}

TEST(AsyncSync, ConditionVariableTimeoutsFollowTheirDeadlines) {
  auto root = []() -> duet::task<std::vector<int>> {
    duet::mutex m;
    duet::condition_variable cv;
    std::vector<int> order;
    auto waiter = [&](int seconds) -> duet::task<void> {
      std::unique_lock lk(m);
      cv.wait_for(lk, std::chrono::seconds(seconds), [] { return false; });  // re-waits after spurious wake-ups
      order.push_back(seconds);
      co_return;
    };
    auto a = duet::spawn(waiter(5));
    auto b = duet::spawn(waiter(2));
    co_await a;
    co_await b;
    co_return order;
  };
  for (std::uint64_t seed = 0; seed < 10; ++seed) EXPECT_EQ(duet::run(root(), {.seed = seed}), (std::vector<int>{2, 5}));
}

}  // namespace
