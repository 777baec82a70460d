// Progress guarantees (duet/progress.hpp) on plain std:: code compiled with duet_instrument: the
// episodes suspend fibers inside std::atomic and std::mutex code as they do inside duet's own
// types. A Treiber stack on std::atomic is lock-free and not wait-free; a queue behind a
// std::mutex is not even obstruction-free (the suspended fiber holds the lock: the other blocks
// in pthread_mutex_lock); a std::atomic fetch_add counter is wait-free with bound 1.
//
// The seed is in the code; DUET_SEED overrides it (the 10-seed loop in docs/parallel.md).
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/progress.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include "instrumented/checks.hpp"
#include "instrumented/std_subjects.hpp"

namespace {

using instrumented_test::seeded;

bool has(const duet::CheckResult& r, const std::string& text) { return r.report.find(text) != std::string::npos; }

duet::ParallelConfig on_fibers(duet::Progress p, duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc = instrumented_test::on_fibers(schedule);
  pc.progress = std::move(p);
  return pc;
}

// A failure of the stated guarantee: failed (not an error), the guarantee named, a token given.
void expect_broken(const duet::CheckResult& r, const std::string& guarantee) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r, "progress guarantee broken: " + guarantee)) << r.report;
  EXPECT_FALSE(r.replay_token.empty()) << r.report;
}

// A call that waits for a suspended fiber breaks lock-freedom and obstruction-freedom (which
// lock-freedom implies) alike: a lock episode suspends the fiber the other waits for, a solo
// episode runs the waiting call alone. The shrinker keeps whichever it reaches.
void expect_not_lock_free(const duet::CheckResult& r, const std::string& bound) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r, "progress guarantee broken: lock-freedom (bound " + bound + ")") ||
              has(r, "progress guarantee broken: obstruction-freedom (bound " + bound + ")"))
      << r.report;
  EXPECT_FALSE(r.replay_token.empty()) << r.report;
}

// A FIFO queue behind a std::mutex, as a user writes it.
class StdMutexQueue {
 public:
  void push(int x) {
    std::lock_guard<std::mutex> g(m_);
    items_.push_back(x);
  }
  std::optional<int> try_pop() {
    std::lock_guard<std::mutex> g(m_);
    if (items_.empty()) return std::nullopt;
    const int x = items_.front();
    items_.pop_front();
    return x;
  }

 private:
  std::mutex m_;
  std::deque<int> items_;
};

// A counter behind a lock built on C++20 std::atomic wait and notify (a futex underneath, on
// Linux): a waiter sleeps in the wait until the holder's notify.
class AtomicWaitCounter {
 public:
  long incr() {
    for (int expected = 0; !locked_.compare_exchange_strong(expected, 1); expected = 0) locked_.wait(1);
    const long n = ++n_;
    locked_.store(0);
    locked_.notify_one();
    return n;
  }

 private:
  std::atomic<int> locked_{0};
  long n_ = 0;
};

class StdCounter {
 public:
  long incr() { return n_.fetch_add(1) + 1; }
  long get() const { return n_.load(); }

 private:
  std::atomic<long> n_{0};
};

using Stack = std_subjects::TreiberStack<false>;

duet::Lin<Stack> stack_spec() {
  return duet::Lin<Stack>("StdTreiberStack", "s")
      .op(
          "push", [](Stack& s, int v) { s.push(v); }, duet::integers(0, 9))
      .op("pop", [](Stack& s) { return s.pop(); });
}

duet::Lin<StdMutexQueue> queue_spec() {
  return duet::Lin<StdMutexQueue>("StdMutexQueue", "q")
      .op(
          "push", [](StdMutexQueue& q, int x) { q.push(x); }, duet::integers(0, 9))
      .op("try_pop", [](StdMutexQueue& q) { return q.try_pop(); });
}

duet::Lin<StdCounter> counter_spec() {
  return duet::Lin<StdCounter>("StdCounter", "c")
      .op("incr", [](StdCounter& c) { return c.incr(); })
      .op("get", [](StdCounter& c) { return c.get(); });
}

TEST(InstrumentedProgress, StdTreiberStackIsLockFree) {
  const duet::CheckResult r = duet::check_parallel(stack_spec(), on_fibers(duet::lock_free()), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(r.coverage.find("lock-freedom held in") != std::string::npos) << r.coverage;
}

TEST(InstrumentedProgress, StdTreiberStackIsNotWaitFree) {
  // An uncontended push takes 3 steps of its own (its node, the head, the CAS); a CAS lost to
  // another call, more.
  const duet::CheckResult r = duet::check_parallel(stack_spec(), on_fibers(duet::wait_free(3)), seeded(1, 2000));
  expect_broken(r, "wait-freedom (bound 3 steps)");
  EXPECT_TRUE(has(r, "a starving call")) << r.report;
  EXPECT_TRUE(has(r, "std_subjects.hpp:")) << r.report;  // where the starving call stopped
}

TEST(InstrumentedProgress, StdMutexQueueIsNotObstructionFree) {
  const duet::CheckResult r = duet::check_parallel(queue_spec(), on_fibers(duet::obstruction_free()), seeded(1, 2000));
  expect_broken(r, "obstruction-freedom");
  EXPECT_TRUE(has(r, "waits in `lock mutex#")) << r.report;
  EXPECT_TRUE(has(r, "progress_test.cpp:")) << r.report;  // the std::lock_guard's line
  EXPECT_LE(r.failing_length, 2u) << r.report;
}

TEST(InstrumentedProgress, StdMutexQueueIsNotLockFree) {
  const duet::CheckResult r = duet::check_parallel(queue_spec(), on_fibers(duet::lock_free()), seeded(1, 2000));
  expect_not_lock_free(r, "100 steps");
  EXPECT_TRUE(has(r, "waits in `lock mutex#")) << r.report;
}

TEST(InstrumentedProgress, LockOnAtomicWaitIsNotObstructionFree) {
  const auto spec =
      duet::Lin<AtomicWaitCounter>("AtomicWaitCounter", "c").op("incr", [](AtomicWaitCounter& c) { return c.incr(); });
  const duet::CheckResult r = duet::check_parallel(spec, on_fibers(duet::obstruction_free()), seeded(1, 2000));
  expect_broken(r, "obstruction-freedom");
  EXPECT_TRUE(has(r, "waits in `wait atomic#")) << r.report;
  EXPECT_EQ(r.failing_length, 2u) << r.report;
}

TEST(InstrumentedProgress, StdFetchAddCounterIsWaitFreeWithBoundOne) {
  const duet::CheckResult r = duet::check_parallel(counter_spec(), on_fibers(duet::wait_free(1)), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(r.coverage.find("wait-freedom held for") != std::string::npos) << r.coverage;
}

TEST(InstrumentedProgress, AViolationReplaysFromItsToken) {
  const duet::CheckResult first = duet::check_parallel(queue_spec(), on_fibers(duet::lock_free()), seeded(1, 2000));
  ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult again = duet::check_parallel(queue_spec(), on_fibers(duet::lock_free()), replay);
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  expect_not_lock_free(again, "100 steps");
  // The same verdict, word for word: the episode's place is in the token.
  auto verdict = [](const std::string& report) {
    const std::size_t at = report.find("progress guarantee broken:");
    return at == std::string::npos ? std::string() : report.substr(at, report.find('\n', at) - at);
  };
  EXPECT_EQ(verdict(first.report), verdict(again.report));
}

}  // namespace
