// A user's test of plain std:: code on duet's fiber scheduler, built with duet_instrument as
// docs/instrumented.md says: a counter whose increment is a load then a store is found, and the
// fetch_add one passes.
#include <duet/gtest.hpp>

#include <atomic>

namespace {

template <bool Racy>
class Counter {
 public:
  int incr() {
    if constexpr (Racy) {
      const int v = value_.load();
      value_.store(v + 1);
      return v + 1;
    }
    return value_.fetch_add(1) + 1;
  }

 private:
  std::atomic<int> value_{0};
};

template <bool Racy>
duet::Lin<Counter<Racy>> counter() {
  return duet::Lin<Counter<Racy>>("counter", "c").op("incr", [](Counter<Racy>& c) { return c.incr(); });
}

duet::ParallelConfig on_fibers() {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  return pc;
}

TEST(ConsumerInstrumented, LostUpdateIsFound) {
  duet::Config config;
  config.seed = 1;
  EXPECT_TRUE(duet::expect_unsafe(counter<true>(), on_fibers(), config));
}

TEST(ConsumerInstrumented, FetchAddPasses) {
  duet::Config config;
  config.seed = 1;
  config.count = 200;
  EXPECT_TRUE(duet::check_parallel(counter<false>(), on_fibers(), config));
}

}  // namespace
