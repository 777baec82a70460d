// duet::models::PriorityQueue: the model itself (which item each order hands out, a bounded
// queue's refused push, the calls a binding may leave out), real priority queues that pass
// against it (std::priority_queue behind a mutex, tbb::concurrent_priority_queue: sequentially
// and on threads), and planted bugs it finds (a pop that hands out the second best, a pop whose
// top and pop are two critical sections, a min-heap checked as a max-queue).
#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <string>
#include <vector>

#include <duet/duet.hpp>
#include <duet/parallel.hpp>
#include <duet/models/bindings_std.hpp>
#include <duet/models/bindings_tbb.hpp>
#include <duet/models/priority_queue.hpp>
#include <duet/models/sync_traits.hpp>

#include "support/emulation.hpp"

namespace {

using duet::Result;
using duet::models::MutexPriorityQueue;
using duet::models::Priority;
using duet::models::PriorityQueue;
using duet::models::Push;
using duet::models::QueueEmpty;
using duet::models::QueueSize;
using duet::models::QueueTop;
using duet::models::TbbPriorityQueue;
using duet::models::TryPop;

// No line per check, and drafts in a scratch directory rather than the working directory.
duet::Config quiet(duet::Config c) {
  c.verbose = -1;
  c.output_dir = testing::TempDir() + "duet_priority_queue";
  return c;
}

const Result none{std::optional<int>()};
Result some(int x) { return std::optional<int>(x); }

// Runs `calls` through a model's expected/next from an empty queue; the results in order.
template <class Model>
std::vector<Result> play(const std::vector<typename Model::Cmd>& calls) {
  typename Model::State s{};
  std::vector<Result> got;
  for (const auto& c : calls) {
    got.push_back(Model::expected(c, s));
    Model::next(c, s);
  }
  return got;
}

// A std::priority_queue of at most `capacity` items behind a mutex: push on a full one refuses.
template <class Compare = std::less<int>>
struct BoundedHeap {
  explicit BoundedHeap(std::size_t capacity) : capacity(capacity) {}
  const std::size_t capacity;
  std::mutex m;
  std::priority_queue<int, std::vector<int>, Compare> q;
};
template <class Compare = std::less<int>>
struct BoundedHeapOf3 {
  using Sut = BoundedHeap<Compare>;
  static constexpr std::size_t capacity = 3;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
  static bool push(Sut& h, int x) {
    std::lock_guard lock(h.m);
    if (h.q.size() >= h.capacity) return false;
    h.q.push(x);
    return true;
  }
  static std::optional<int> try_pop(Sut& h) {
    std::lock_guard lock(h.m);
    if (h.q.empty()) return std::nullopt;
    const int x = h.q.top();
    h.q.pop();
    return x;
  }
  static std::size_t size(Sut& h) {
    std::lock_guard lock(h.m);
    return h.q.size();
  }
};

TEST(PriorityQueueModel, MaxHandsOutTheLargestAndMinTheSmallest) {
  using Max = PriorityQueue<MutexPriorityQueue<>>;
  using Min = PriorityQueue<MutexPriorityQueue<std::greater<int>>, Priority::min>;
  const std::vector<Max::Cmd> calls = {Push{3},     Push{7},      Push{5},  Push{7},  QueueTop{}, TryPop{},   TryPop{},
                                       QueueSize{}, QueueEmpty{}, TryPop{}, TryPop{}, TryPop{},   QueueTop{}, QueueEmpty{}};
  EXPECT_EQ(play<Max>(calls), (std::vector<Result>{Result(), Result(), Result(), Result(), some(7), some(7), some(7),
                                                   std::size_t{2}, false, some(5), some(3), none, none, true}));
  EXPECT_EQ(play<Min>(calls), (std::vector<Result>{Result(), Result(), Result(), Result(), some(3), some(3), some(5),
                                                   std::size_t{2}, false, some(7), some(7), none, none, true}));
  // Equal queues are equal states, whatever order their items came in.
  Max::State a, b;
  for (int x : {4, 1, 4}) Max::next(Push{x}, a);
  for (int x : {1, 4, 4}) Max::next(Push{x}, b);
  EXPECT_EQ(a, b);
}

TEST(PriorityQueueModel, ABoundedQueueRefusesAPushWhenFullAndStaysAsItWas) {
  using Bounded = PriorityQueue<BoundedHeapOf3<>>;
  static_assert(Bounded::bounded && !PriorityQueue<MutexPriorityQueue<>>::bounded);
  const std::vector<Bounded::Cmd> calls = {Push{1}, Push{9}, Push{4}, Push{8}, QueueSize{}, TryPop{}, Push{8}, TryPop{}};
  EXPECT_EQ(play<Bounded>(calls), (std::vector<Result>{true, true, true, false, std::size_t{3}, some(9), true, some(8)}));
  EXPECT_EQ(Bounded::setup_cpp().substr(Bounded::setup_cpp().size() - 6), " q(3);");
}

// Only the calls the binding has are drawn, and the draft's adapter has only those members.
TEST(PriorityQueueModel, DrawsOnlyTheCallsTheBindingHas) {
  using Tbb = PriorityQueue<TbbPriorityQueue<>>;
  using Mutex = PriorityQueue<MutexPriorityQueue<>>;
  static_assert(!Tbb::has_top && !Tbb::has_size && !Tbb::has_empty);
  static_assert(Mutex::has_top && Mutex::has_size && Mutex::has_empty);
  std::vector<bool> tbb_drew(5), mutex_drew(5);
  duet::Source src = duet::Source::from_seed(1);
  for (int i = 0; i < 400; ++i) {
    tbb_drew[Tbb::command({})(src).index()] = true;
    mutex_drew[Mutex::command({})(src).index()] = true;
  }
  EXPECT_EQ(tbb_drew, (std::vector<bool>{true, true, false, false, false}));
  EXPECT_EQ(mutex_drew, (std::vector<bool>{true, true, true, true, true}));
  EXPECT_EQ(Tbb::draft_setup_cpp().find("top()"), std::string::npos) << Tbb::draft_setup_cpp();
  EXPECT_NE(Mutex::draft_setup_cpp().find("std::optional<int> top() { return B::top(s); }"), std::string::npos)
      << Mutex::draft_setup_cpp();
}

TEST(PriorityQueueModel, RealPriorityQueuesPassSequentially) {
  const duet::Config config = quiet({.seed = 1, .count = 500});
  for (const duet::CheckResult& r :
       {duet::check_sequential<PriorityQueue<MutexPriorityQueue<>>>(config),
        duet::check_sequential<PriorityQueue<MutexPriorityQueue<std::greater<int>>, Priority::min>>(config),
        duet::check_sequential<PriorityQueue<TbbPriorityQueue<>>>(config),
        duet::check_sequential<PriorityQueue<TbbPriorityQueue<std::greater<int>>, Priority::min>>(config),
        duet::check_sequential<PriorityQueue<BoundedHeapOf3<>>>(config)})
    EXPECT_TRUE(r) << r.report;
}

TEST(PriorityQueueModel, RealPriorityQueuesPassOnThreads) {
  const duet::Config config = quiet({.seed = 1, .count = 150});
  for (const duet::CheckResult& r :
       {duet::check_parallel<PriorityQueue<MutexPriorityQueue<>>>({}, config),
        duet::check_parallel<PriorityQueue<TbbPriorityQueue<>>>({}, config),
        duet::check_parallel<PriorityQueue<TbbPriorityQueue<std::greater<int>>, Priority::min>>({}, config),
        duet::check_parallel<PriorityQueue<BoundedHeapOf3<std::greater<int>>, Priority::min>>({}, config)})
    EXPECT_TRUE(r) << r.report;
}

// Planted: try_pop hands out the second-best item when there are two or more.
struct SecondBest : MutexPriorityQueue<> {
  static std::optional<int> try_pop(Sut& h) {
    std::lock_guard lock(h.m);
    if (h.q.empty()) return std::nullopt;
    const int best = h.q.top();
    h.q.pop();
    if (h.q.empty()) return best;
    const int second = h.q.top();
    h.q.pop();
    h.q.push(best);
    return second;
  }
};

TEST(PriorityQueueModel, APopThatHandsOutTheSecondBestIsFound) {
  const duet::CheckResult seq = duet::check_sequential<PriorityQueue<SecondBest>>(quiet({.seed = 1, .count = 2000}));
  ASSERT_FALSE(seq) << seq.report;
  EXPECT_EQ(seq.failing_length, 3u) << seq.report;  // two pushes of different values, one pop
  // On threads too (a bug without concurrency: check_parallel fails, expect_unsafe would call it
  // an error, not the race it looks for).
  const duet::CheckResult threads = duet::check_parallel<PriorityQueue<SecondBest>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads(quiet({.seed = 1, .count = 200, .shrink_steps = 50})));
  EXPECT_FALSE(threads) << threads.report;
}

// Planted, a concurrency bug: try_pop reads the top in one critical section and pops in another,
// so two concurrent pops can hand out the same item (and drop another).
template <duet::models::SyncTraits Sync>
struct SplitPopHeap {
  typename Sync::mutex m;
  std::priority_queue<int> q;
};
template <duet::models::SyncTraits Sync>
struct SplitPop {
  using Sut = SplitPopHeap<Sync>;
  static void push(Sut& h, int x) {
    std::lock_guard lock(h.m);
    h.q.push(x);
  }
  static std::optional<int> try_pop(Sut& h) {
    std::optional<int> x;
    {
      std::lock_guard lock(h.m);
      if (h.q.empty()) return std::nullopt;
      x = h.q.top();
    }
    std::lock_guard lock(h.m);
    if (!h.q.empty()) h.q.pop();
    return x;
  }
};

TEST(PriorityQueueModel, TopThenPopInTwoCriticalSectionsIsFoundOnFibers) {
  using Model = PriorityQueue<SplitPop<duet::models::FiberSync>>;
  EXPECT_TRUE(duet::check_sequential<Model>(quiet({.seed = 1, .count = 500})));  // alone, it is right
  const duet::CheckResult r =
      duet::expect_unsafe<Model>({.executor = duet::fibers(duet::pct(3))}, quiet({.seed = 1, .count = 3000}));
  ASSERT_TRUE(r) << r.report;
  EXPECT_NE(r.report.find("q.try_pop()"), std::string::npos) << r.report;
}

// A min-heap is no max-queue: the order is part of the model.
TEST(PriorityQueueModel, TheWrongOrderIsFound) {
  const duet::CheckResult r =
      duet::check_sequential<PriorityQueue<MutexPriorityQueue<std::greater<int>>>>(quiet({.seed = 1, .count = 2000}));
  ASSERT_FALSE(r) << r.report;
  EXPECT_NE(r.report.find("q.try_pop()"), std::string::npos) << r.report;
}

}  // namespace
