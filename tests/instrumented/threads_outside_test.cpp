// A subject whose constructor starts a thread (a library's worker, a storage engine's background
// thread): the constructor runs on the calling thread, outside the fiber run, so the worker is a
// real thread the scheduler neither schedules nor sees. A fiber waiting for it would wait for
// ever: the check is an error that says why, never a deadlock reported as the subject's (a
// false alarm) nor a pass. On threads the same subject is checked as it is.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// add(v) queues v for the worker; total() waits until the worker has added everything queued.
class Adder {
 public:
  Adder() : worker_([this] { work(); }) {}
  ~Adder() {
    {
      std::lock_guard g(m_);
      stop_ = true;
    }
    queued_.notify_all();
    worker_.join();
  }
  Adder(const Adder&) = delete;
  Adder& operator=(const Adder&) = delete;
  void add(int v) {
    std::lock_guard g(m_);
    q_.push_back(v);
    queued_.notify_all();
  }
  int total() {
    std::unique_lock g(m_);
    drained_.wait(g, [&] { return q_.empty(); });
    return sum_;
  }

 private:
  void work() {
    std::unique_lock g(m_);
    for (;;) {
      queued_.wait(g, [&] { return stop_ || !q_.empty(); });
      if (q_.empty()) return;  // stopping
      sum_ += q_.front();
      q_.pop_front();
      drained_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable queued_, drained_;
  std::deque<int> q_;
  int sum_ = 0;
  bool stop_ = false;
  std::thread worker_;
};

duet::Lin<Adder> adder_spec() {
  return duet::Lin<Adder>("adder", "a")
      .op(
          "add", [](Adder& a, int v) { a.add(v); }, duet::integers(1, 3))
      .op("total", [](Adder& a) { return a.total(); });
}

TEST(ThreadsOutsideTheRun, AWorkerStartedByTheConstructorIsAnErrorNotADeadlock) {
  const duet::CheckResult r =
      duet::check_parallel(adder_spec(), {.executor = duet::fibers()}, {.seed = 1, .count = 200, .verbose = -1});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "a thread the subject started outside the fiber run (at threads_outside_test.cpp:24, "))
      << r.report;
  EXPECT_TRUE(has(r.report, "No verdict: check such a subject on threads")) << r.report;
  EXPECT_FALSE(has(r.report, "deadlock")) << r.report;
}

// An expect_unsafe on fibers must not call it unsafe either: the error is no counterexample.
TEST(ThreadsOutsideTheRun, ANegativeTestOfItIsNoPass) {
  const duet::CheckResult r =
      duet::expect_unsafe(adder_spec(), {.executor = duet::fibers()}, {.seed = 1, .count = 200, .verbose = -1});
  EXPECT_FALSE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "outside the fiber run")) << r.report;
}

TEST(ThreadsOutsideTheRun, OnThreadsTheSubjectIsChecked) {
  const duet::CheckResult r = duet::check_parallel(adder_spec(), {}, {.seed = 1, .count = 50, .verbose = -1});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
