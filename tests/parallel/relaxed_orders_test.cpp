// Relaxed specifications that depend on who called (duet::Caller) or bound a result's staleness:
// a queue that is FIFO per producer passes FifoPerProducerQueue and is found against the strict
// FIFO Queue, a producer whose items overtake each other is found against the per-producer
// model; a batched counter passes StaleCounter with its lag and is found against Counter, and
// one that loses increments is found against StaleCounter.
#include <duet/gtest.hpp>

#include <array>
#include <atomic>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>

#include <duet/models/counter.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/relaxed_queue.hpp>

#include "support/emulation.hpp"

namespace {

using duet::models::EmptyPop;
using duet::models::FifoPerProducerQueue;

// This thread's number, given out in the order threads first ask (a pool's workers keep theirs).
std::size_t thread_number() {
  static std::atomic<std::size_t> next{0};
  thread_local const std::size_t mine = next.fetch_add(1);
  return mine;
}

// Each producer thread pushes into a shard of its own; try_pop takes every shard's lock and pops
// from the first non-empty shard after a rotating start. Each producer's items come out in order;
// across producers, a newer item may come out first.
template <bool kSplitProducers = false>
class ShardedQueue {
 public:
  void push(int x) {
    // kSplitProducers: a producer alternates between two shards, so its own items may overtake.
    const std::size_t shard = kSplitProducers ? (thread_number() * 2 + pushes_++ % 2) % kShards : thread_number() % kShards;
    std::lock_guard lock(shards_[shard].m);
    shards_[shard].items.push_back(x);
  }
  std::optional<int> try_pop() {
    std::array<std::unique_lock<std::mutex>, kShards> locks;
    for (std::size_t i = 0; i < kShards; ++i) locks[i] = std::unique_lock(shards_[i].m);
    const std::size_t start = rotation_++;
    for (std::size_t k = 0; k < kShards; ++k) {
      std::deque<int>& items = shards_[(start + k) % kShards].items;
      if (items.empty()) continue;
      const int x = items.front();
      items.pop_front();
      return x;
    }
    return std::nullopt;
  }

 private:
  static constexpr std::size_t kShards = 4;
  struct Shard {
    std::mutex m;
    std::deque<int> items;
  };
  std::array<Shard, kShards> shards_;
  std::atomic<std::size_t> rotation_{0};
  static inline thread_local std::size_t pushes_ = 0;
};

template <bool kSplitProducers>
struct ShardedBinding {
  using Sut = ShardedQueue<kSplitProducers>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

TEST(RelaxedOrders, AShardedQueueIsFifoPerProducer) {
  // One producer in a sequential check: FIFO.
  EXPECT_TRUE(duet::check_sequential<duet::models::Queue<ShardedBinding<false>>>({.seed = 1, .count = 1000}));
  const duet::CheckResult threads = duet::check_parallel<FifoPerProducerQueue<ShardedBinding<false>>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads({.seed = 1, .count = 2000}));
  EXPECT_TRUE(threads) << threads.report;
  EXPECT_TRUE(threads.passed());
}

TEST(RelaxedOrders, AShardedQueueIsFoundAgainstTheStrictQueue) {
  const duet::CheckResult r = duet::expect_unsafe<duet::models::Queue<ShardedBinding<false>>>({}, {.seed = 1});
  EXPECT_TRUE(r) << r.report;
}

// Its items overtake each other with one producer and no concurrency at all: a failure of
// check_parallel (expect_unsafe would call it an error: it proves no race).
TEST(RelaxedOrders, AProducerWhoseItemsOvertakeIsFoundAgainstThePerProducerModel) {
  const duet::CheckResult r =
      duet::check_parallel<FifoPerProducerQueue<ShardedBinding<true>>>({}, {.seed = 1, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("q.try_pop()"), std::string::npos) << r.report;
}

// The model itself: one producer's order is kept, producers' orders interleave freely, and an
// empty pop is allowed only when every producer's items are gone (or always, with may_give_up).
TEST(RelaxedOrders, ThePerProducerModelKeepsEachCallersOrder) {
  using Model = FifoPerProducerQueue<ShardedBinding<false>>;
  using Giving = FifoPerProducerQueue<ShardedBinding<false>, EmptyPop::may_give_up>;
  const Model::Cmd push1{duet::models::Push{1}}, push2{duet::models::Push{2}}, pop{duet::models::TryPop{}};
  const duet::Caller a{1}, b{2};
  Model::State s = Model::next_states(push1, {}, {}, a).at(0);
  s = Model::next_states(push2, s, {}, b).at(0);
  EXPECT_EQ(Model::next_states(pop, s, std::optional<int>(2), a).size(), 1u);  // b's item first: allowed
  EXPECT_EQ(Model::next_states(pop, s, std::optional<int>(1), a).size(), 1u);
  EXPECT_TRUE(Model::next_states(pop, s, std::optional<int>(), a).empty());
  EXPECT_EQ(Giving::next_states(pop, s, std::optional<int>(), a).size(), 1u);
  Model::State same = Model::next_states(push1, {}, {}, a).at(0);
  same = Model::next_states(push2, same, {}, a).at(0);
  EXPECT_TRUE(Model::next_states(pop, same, std::optional<int>(2), b).empty());  // a's 2 before a's 1: no
  const Model::State emptied =
      Model::next_states(pop, Model::next_states(push1, {}, {}, b).at(0), std::optional<int>(1), a).at(0);
  EXPECT_EQ(emptied, Model::State{});  // no empty producer queues left over: equal states compare equal
}

// Increments gather in a pending count, flushed into the total every 4: get() reads the total.
template <bool kLosesIncrements = false>
class BatchedCounter {
 public:
  void incr() {
    if (pending_.fetch_add(1) + 1 < kBatch) return;
    if constexpr (kLosesIncrements) {
      const long p = pending_.load();  // increments between this load and the store are lost
      pending_.store(0);
      total_.fetch_add(p);
    } else {
      total_.fetch_add(pending_.exchange(0));
    }
  }
  long get() const { return total_.load(); }

 private:
  static constexpr long kBatch = 4;
  std::atomic<long> pending_{0}, total_{0};
};

template <bool kLosesIncrements>
struct BatchedBinding {
  using Sut = BatchedCounter<kLosesIncrements>;
  static void incr(Sut& c) { c.incr(); }
  static long get(Sut& c) { return c.get(); }
};

// Sequentially a read misses at most 3 increments; with 3 threads, up to 3 more pending and a
// flush of up to 6 under way: 9 at most (the bound the counter's author would state).
TEST(RelaxedOrders, ABatchedCounterPassesWithItsLagAndIsFoundAgainstTheExactCounter) {
  EXPECT_TRUE((duet::check_sequential<duet::models::StaleCounter<BatchedBinding<false>, 3>>({.seed = 1, .count = 2000})));
  const duet::CheckResult threads = duet::check_parallel<duet::models::StaleCounter<BatchedBinding<false>, 9>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads({.seed = 1, .count = 2000}));
  EXPECT_TRUE(threads) << threads.report;
  const duet::CheckResult exact =
      duet::check_sequential<duet::models::Counter<BatchedBinding<false>>>({.seed = 1, .count = 2000});
  ASSERT_EQ(exact.status, duet::CheckResult::Status::failed) << exact.report;
  const duet::CheckResult too_tight =
      duet::check_sequential<duet::models::StaleCounter<BatchedBinding<false>, 2>>({.seed = 1, .count = 2000});
  ASSERT_EQ(too_tight.status, duet::CheckResult::Status::failed) << too_tight.report;
  EXPECT_NE(too_tight.report.find("stale by at most 2"), std::string::npos) << too_tight.report;
}

TEST(RelaxedOrders, ACounterThatLosesIncrementsIsFoundAgainstTheStaleModel) {
  const duet::CheckResult r = duet::expect_unsafe<duet::models::StaleCounter<BatchedBinding<true>, 9>>({}, {.seed = 1});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
