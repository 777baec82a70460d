// Real concurrent containers that must pass: no false alarm over 10,000 programs each.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/map.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/stack.hpp>

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>
#include <deque>
#include <mutex>
#include <oneapi/tbb/concurrent_hash_map.h>
#include <oneapi/tbb/concurrent_queue.h>
#include <oneapi/tbb/concurrent_unordered_map.h>

namespace {

constexpr duet::Config kTenThousand{.count = 10000};

struct AtomicCounter {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load(); }
};

TEST(RealSubjects, StdAtomicCounter) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Counter<AtomicCounter>>({}, kTenThousand));
}

// A deque behind a mutex.
struct LockedDeque {
  std::mutex m;
  std::deque<int> d;
};
struct MutexQueue {
  using Sut = LockedDeque;
  static void push(Sut& q, int x) {
    std::lock_guard lock(q.m);
    q.d.push_back(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    std::lock_guard lock(q.m);
    if (q.d.empty()) return std::nullopt;
    int x = q.d.front();
    q.d.pop_front();
    return x;
  }
  static std::size_t size(Sut& q) {
    std::lock_guard lock(q.m);
    return q.d.size();
  }
};

TEST(RealSubjects, MutexGuardedDeque) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<MutexQueue>>({}, kTenThousand));
}

struct TbbQueue {
  using Sut = tbb::concurrent_queue<int>;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

TEST(RealSubjects, TbbConcurrentQueue) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<TbbQueue>>({}, kTenThousand));
}

struct TbbHashMap {
  using Sut = tbb::concurrent_hash_map<int, int>;
  static bool insert(Sut& m, int k, int v) { return m.insert({k, v}); }
  static std::optional<int> find(Sut& m, int k) {
    Sut::const_accessor a;
    return m.find(a, k) ? std::optional<int>(a->second) : std::nullopt;
  }
  static bool erase(Sut& m, int k) { return m.erase(k); }
};

TEST(RealSubjects, TbbConcurrentHashMap) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Map<TbbHashMap>>({}, kTenThousand));
}

struct TbbUnorderedMap {
  using Sut = tbb::concurrent_unordered_map<int, int>;
  static bool insert(Sut& m, int k, int v) { return m.insert({k, v}).second; }
  static std::optional<int> find(Sut& m, int k) {
    auto it = m.find(k);
    return it == m.end() ? std::nullopt : std::optional<int>(it->second);
  }
  static std::size_t count(Sut& m, int k) { return m.count(k); }
};

TEST(RealSubjects, TbbConcurrentUnorderedMap) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Map<TbbUnorderedMap>>({}, kTenThousand));
}

struct LockfreeQueue {
  using Sut = boost::lockfree::queue<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) {
    int x;
    return q.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

TEST(RealSubjects, BoostLockfreeQueue) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<LockfreeQueue>>({}, kTenThousand));
}

struct LockfreeStack {
  using Sut = boost::lockfree::stack<int>;
  static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
  static void push(Sut& s, int x) { s.push(x); }
  static std::optional<int> pop(Sut& s) {
    int x;
    return s.pop(x) ? std::optional<int>(x) : std::nullopt;
  }
};

TEST(RealSubjects, BoostLockfreeStack) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Stack<LockfreeStack>>({}, kTenThousand));
}

// The same queue with the candidate as its own oracle: no model.
TEST(RealSubjects, TbbConcurrentQueueAsItsOwnOracle) {
  auto lin = duet::Lin<tbb::concurrent_queue<int>>("tbb::concurrent_queue", "q")
                 .op("push", [](tbb::concurrent_queue<int>& q, int x) { q.push(x); }, duet::integers(0, 9))
                 .op("try_pop", [](tbb::concurrent_queue<int>& q) {
                   int x;
                   return q.try_pop(x) ? std::optional<int>(x) : std::nullopt;
                 });
  EXPECT_TRUE(duet::check_parallel(lin, {}, kTenThousand));
}

}  // namespace
