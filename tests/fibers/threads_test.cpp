// Outside a fiber run the instrumented types are the std ones: the same code runs on real
// threads (the threads mode, and production builds of classes written with the idiom).
#include <gtest/gtest.h>

#include <duet/sync.hpp>

#include <atomic>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "execute/fibers/scheduler.hpp"

namespace {

namespace fb = duet::detail::fiber;

template <class F>
void on_threads(int n, F f) {
  std::vector<std::thread> ts;
  for (int i = 0; i < n; ++i) ts.emplace_back([&, i] { f(i); });
  for (auto& t : ts) t.join();
}

TEST(FiberTypesOnThreads, AtomicsCountExactly) {
  duet::atomic<long> c{0};
  duet::atomic<unsigned> bits{0};
  on_threads(4, [&](int i) {
    EXPECT_EQ(fb::current(), nullptr);
    for (int k = 0; k < 20'000; ++k) {
      c.fetch_add(1, std::memory_order_relaxed);
      ++c;
      c += 2;
      c.fetch_sub(1);
    }
    bits.fetch_or(1u << i);
  });
  EXPECT_EQ(c.load(), 4 * 20'000 * 3);
  EXPECT_EQ(bits.load(), 0xFu);
  long expected = c.load();
  EXPECT_TRUE(c.compare_exchange_strong(expected, 7));
  EXPECT_EQ(c.exchange(8), 7);
  EXPECT_EQ(static_cast<long>(c), 8);
}

TEST(FiberTypesOnThreads, MutexesProtectAVar) {
  duet::mutex m;
  duet::recursive_mutex rm;
  duet::shared_mutex sm;
  duet::var<int> x{0}, y{0}, z{0};
  on_threads(4, [&](int) {
    for (int k = 0; k < 5'000; ++k) {
      {
        std::lock_guard g(m);
        x = x.get() + 1;
      }
      {
        std::scoped_lock a(rm);
        std::unique_lock b(rm);
        y.set(y.get() + 1);
      }
      {
        std::lock_guard w(sm);
        z = z.get() + 1;
      }
      {
        std::shared_lock r(sm);
        EXPECT_GT(z.get(), 0);
      }
    }
  });
  EXPECT_EQ(x.get(), 20'000);
  EXPECT_EQ(y.get(), 20'000);
  EXPECT_EQ(z.get(), 20'000);
  std::unique_lock<duet::mutex> lk(m, std::try_to_lock);
  EXPECT_TRUE(lk.owns_lock());
  lk.unlock();
  EXPECT_THROW(lk.unlock(), std::system_error);
}

TEST(FiberTypesOnThreads, ConditionVariableProducerConsumer) {
  duet::mutex m;
  duet::condition_variable cv;
  std::optional<int> slot;
  std::vector<int> got;
  std::thread consumer([&] {
    for (int i = 0; i < 1'000; ++i) {
      std::unique_lock lk(m);
      cv.wait(lk, [&] { return slot.has_value(); });
      got.push_back(*slot);
      slot.reset();
      cv.notify_all();
    }
  });
  for (int i = 0; i < 1'000; ++i) {
    std::unique_lock lk(m);
    cv.wait(lk, [&] { return !slot; });
    slot = i;
    cv.notify_all();
  }
  consumer.join();
  ASSERT_EQ(got.size(), 1'000u);
  for (int i = 0; i < 1'000; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], i);
  std::unique_lock lk(m);
  EXPECT_EQ(cv.wait_for(lk, std::chrono::milliseconds(1)), std::cv_status::timeout);
  EXPECT_FALSE(cv.wait_for(lk, std::chrono::milliseconds(1), [] { return false; }));
}

TEST(FiberTypesOnThreads, AtomicWaitNotifyAndYield) {
  duet::atomic<int> state{0};
  std::thread t([&] {
    state.wait(0);
    duet::yield();
    state.store(2);
    state.notify_one();
  });
  state.store(1);
  state.notify_one();
  state.wait(1);
  t.join();
  EXPECT_EQ(state.load(), 2);
}

// The idiom from duet/sync.hpp: one class, std types in production, duet types in tests.
template <template <class> class Atomic = std::atomic, class Mutex = std::mutex>
class Account {
 public:
  void deposit(int n) {
    std::lock_guard g(m_);
    balance_.store(balance_.load() + n);
  }
  int balance() const { return balance_.load(); }

 private:
  Atomic<int> balance_{0};
  mutable Mutex m_;
};

TEST(FiberTypesOnThreads, OneClassWithStdOrDuetTypes) {
  Account<> production;
  Account<duet::atomic, duet::mutex> tested;
  on_threads(4, [&](int) {
    for (int k = 0; k < 1'000; ++k) {
      production.deposit(1);
      tested.deposit(1);
    }
  });
  EXPECT_EQ(production.balance(), 4'000);
  EXPECT_EQ(tested.balance(), 4'000);
  static_assert(std::is_same_v<duet::atomic<int>::value_type, int>);
  static_assert(std::is_same_v<duet::atomic<int*>::difference_type, std::ptrdiff_t>);
  static_assert(!std::is_copy_assignable_v<duet::atomic<int>>);
}

}  // namespace
