// Plugging existing async code into duet (docs/async.md): a callback-based library through
// its I/O interface, and a future-based library through its backend, each tested unchanged
// with duet::check_async; a planted bug in each is found, shrunk and replayed.
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <duet/gtest.hpp>

#include "callback_log.hpp"
#include "duet/async.hpp"
#include "duet/testing/block_device.hpp"
#include "future_cache.hpp"

using namespace std::chrono_literals;

namespace {

// ---- a callback-based API: the library's I/O interface over duet::BlockDevice ----

// Each call starts the device operation on a fiber of its own (duet::post), and the completion
// callback runs there when it is done: when completions run is the schedule's choice.
struct CallbackDisk {
  duet::BlockDevice& disk;

  void write(std::uint64_t slot, std::string data, std::function<void()> done) {
    duet::post([this, slot, data = std::move(data), done = std::move(done)] {
      std::vector<std::byte> block(disk.sector_size());
      std::memcpy(block.data(), data.data(), std::min(data.size(), block.size()));
      duet::run(disk.write(slot, block));  // inside a fiber: runs inline
      done();
    });
  }
  void read(std::uint64_t slot, std::function<void(std::string)> done) {
    duet::post([this, slot, done = std::move(done)] {
      std::vector<std::byte> block(disk.sector_size());
      duet::run(disk.read(slot, block));
      done(std::string(reinterpret_cast<const char*>(block.data())));
    });
  }
};

// Two tasks append a record each; every record must be readable afterwards.
template <cblog::Reserve reserve>
duet::task<void> two_appends() {
  duet::BlockDevice disk({.sector_size = 16, .sectors = 8});
  CallbackDisk io{disk};
  cblog::Log<CallbackDisk, reserve> log(io);
  auto append = [&](std::string record) -> duet::task<std::uint64_t> {
    duet::promise<std::uint64_t> written;
    auto f = written.get_future();
    log.append(std::move(record), [&written](std::uint64_t slot) { written.set_value(slot); });
    co_return co_await f;
  };
  auto a = duet::spawn(append("x"));
  auto b = duet::spawn([&]() -> duet::task<std::uint64_t> {
    co_await duet::switch_point();
    co_return co_await append("y");
  });
  co_await a;
  co_await b;
  std::set<std::string> records;
  for (std::uint64_t slot = 0; slot < log.size(); ++slot) {
    duet::promise<std::string> p;
    auto f = p.get_future();
    log.read(slot, [&p](std::string r) { p.set_value(std::move(r)); });
    records.insert(co_await f);
  }
  EXPECT_EQ(records, (std::set<std::string>{"x", "y"}));
}

TEST(PlugInCallbacks, CorrectLogKeepsEveryRecordUnderEverySchedule) {
  const duet::CheckResult r = duet::check_async("two_appends", two_appends<cblog::Reserve::at_submission>, {.count = 2000});
  EXPECT_TRUE(r) << r.report;
}

TEST(PlugInCallbacks, SlotClaimedAtCompletionLosesARecordFoundAndReplayed) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::check_async("two_appends", two_appends<cblog::Reserve::at_completion>,
                                                  {.seed = seed, .output_dir = std::string("duet-output/async")});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_NE(r.report.find("assertion failed"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("| duet::run at"), std::string::npos) << r.report;  // the interleaving is shown
    const duet::CheckResult again =
        duet::check_async("two_appends", two_appends<cblog::Reserve::at_completion>,
                          {.replay = r.replay_token, .output_dir = std::string("duet-output/async")});
    EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

// ---- a future-based API: the cache's backend gives duet futures ----

struct Backend {
  template <class T>
  using promise = duet::promise<T>;
  std::map<std::string, std::string> data;
  int fetches = 0;
  // Reads the value now; the answer arrives 1 ms of virtual time later (a network round trip).
  duet::future<std::string> fetch(std::string key) {
    ++fetches;
    return duet::spawn([v = data[key]]() -> duet::task<std::string> {
      co_await duet::sleep_for(1ms);
      co_return v;
    });
  }
};

template <fcache::Stale stale>
duet::task<void> update_during_get() {
  Backend backend{{{"k", "v1"}}};
  fcache::Cache<Backend, stale> cache(backend);
  auto reader = duet::spawn(cache.get("k"));
  auto writer = duet::spawn([&]() -> duet::task<void> {
    co_await duet::switch_point();
    backend.data["k"] = "v2";
    cache.invalidate("k");
  });
  const std::string first = co_await reader;
  co_await writer;
  EXPECT_TRUE(first == "v1" || first == "v2") << first;
  EXPECT_EQ(co_await cache.get("k"), "v2") << "a get after the invalidation sees the old value";
}

TEST(PlugInFutures, ConcurrentMissesShareOneFetch) {
  auto body = []() -> duet::task<void> {
    Backend backend{{{"k", "v"}}};
    fcache::Cache<Backend> cache(backend);
    std::vector<duet::future<std::string>> gets;
    for (int i = 0; i < 4; ++i) gets.push_back(duet::spawn(cache.get("k")));
    for (auto& g : gets) EXPECT_EQ(co_await g, "v");
    EXPECT_EQ(backend.fetches, 1);
  };
  EXPECT_TRUE(duet::check_async("coalesce", body, {.count = 1000}));
}

TEST(PlugInFutures, CorrectCacheNeverServesAStaleValue) {
  EXPECT_TRUE(duet::check_async("update_during_get", update_during_get<fcache::Stale::dropped>, {.count = 2000}));
}

TEST(PlugInFutures, StaleFetchKeptFoundOnEverySeed) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::check_async("update_during_get", update_during_get<fcache::Stale::kept>,
                                                  {.seed = seed, .output_dir = std::string("duet-output/async")});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_NE(r.report.find("sees the old value"), std::string::npos) << r.report;
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

}  // namespace
