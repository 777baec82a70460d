// Real concurrent containers that must pass: no false alarm over 10,000 programs each.
#include <duet/gtest.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/map.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/stack.hpp>

#include "support/emulation.hpp"

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>
#include <deque>
#include <mutex>
#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/concurrent_unordered_map.h>

namespace {

using namespace duet::models;  // the models and the bindings of real subjects

constexpr duet::Config kTenThousand{.count = 10000};

TEST(RealSubjects, StdAtomicCounter) { EXPECT_TRUE(duet::check_parallel<Counter<AtomicCounter>>({}, kTenThousand)); }

TEST(RealSubjects, MutexGuardedDeque) { EXPECT_TRUE(duet::check_parallel<Queue<MutexQueue>>({}, kTenThousand)); }

TEST(RealSubjects, TbbConcurrentQueue) { EXPECT_TRUE(duet::check_parallel<Queue<TbbQueue>>({}, kTenThousand)); }

TEST(RealSubjects, TbbConcurrentHashMap) { EXPECT_TRUE(duet::check_parallel<Map<TbbHashMap>>({}, kTenThousand)); }

TEST(RealSubjects, TbbConcurrentUnorderedMap) { EXPECT_TRUE(duet::check_parallel<Map<TbbUnorderedMap>>({}, kTenThousand)); }

// Boost.Lockfree's node-based containers use a 16-byte compare-exchange off x86-64 and arm64.
TEST(RealSubjects, BoostLockfreeQueue) {
  if (!duet_test::sixteen_byte_cas_completes()) GTEST_SKIP() << duet_test::kSixteenByteCasReason;
  EXPECT_TRUE(duet::check_parallel<Queue<LockfreeQueue>>({}, kTenThousand));
}

TEST(RealSubjects, BoostLockfreeStack) {
  if (!duet_test::sixteen_byte_cas_completes()) GTEST_SKIP() << duet_test::kSixteenByteCasReason;
  EXPECT_TRUE(duet::check_parallel<Stack<LockfreeStack>>({}, kTenThousand));
}

// The same queue with the candidate as its own oracle: no model.
TEST(RealSubjects, TbbConcurrentQueueAsItsOwnOracle) {
  auto lin = duet::Lin<tbb::concurrent_queue<int>>("tbb::concurrent_queue", "q")
                 .op(
                     "push", [](tbb::concurrent_queue<int>& q, int x) { q.push(x); }, duet::integers(0, 9))
                 .op("try_pop", [](tbb::concurrent_queue<int>& q) {
                   int x;
                   return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
                 });
  EXPECT_TRUE(duet::check_parallel(lin, {}, kTenThousand));
}

}  // namespace
