// Async runs follow the C++ memory model (AsyncOptions::memory_model, the default): a task that
// sees a flag published with a relaxed store may still read the data from before it; with a
// release store it never does, nor with MemoryModel::sc.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "duet/async.hpp"
#include "duet/sync.hpp"

namespace {

duet::atomic<int> g_data{0}, g_flag{0};

duet::task<int> publication(bool release) {
  auto writer = duet::spawn([release]() -> duet::task<void> {
    g_data.store(42, std::memory_order_relaxed);
    g_flag.store(1, release ? std::memory_order_release : std::memory_order_relaxed);
    co_return;
  });
  auto reader = duet::spawn([]() -> duet::task<int> {
    while (g_flag.load(std::memory_order_acquire) == 0) duet::yield();
    co_return g_data.load(std::memory_order_relaxed);
  });
  co_await writer;
  co_return co_await reader;
}

std::set<int> read_values(bool release, duet::MemoryModel model) {
  std::set<int> seen;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    g_data.store(0);
    g_flag.store(0);
    seen.insert(duet::run(publication(release), {.seed = seed, .memory_model = model}));
  }
  return seen;
}

TEST(AsyncMemoryModel, RelaxedPublicationReadsStaleData) {
  EXPECT_EQ(read_values(false, duet::MemoryModel::cpp), (std::set<int>{0, 42}));
}

TEST(AsyncMemoryModel, ReleasePublicationNeverDoes) {
  EXPECT_EQ(read_values(true, duet::MemoryModel::cpp), (std::set<int>{42}));
}

TEST(AsyncMemoryModel, SeqCstModelNeverDoes) { EXPECT_EQ(read_values(false, duet::MemoryModel::sc), (std::set<int>{42})); }

}  // namespace
