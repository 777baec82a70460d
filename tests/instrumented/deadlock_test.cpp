// Deadlocks among plain std:: primitives on the fiber scheduler (compiled with duet_instrument):
// each is a failure of the check, reported as a duet::mutex deadlock is (tests/fibers/): "no
// fiber can proceed", then every blocked fiber with the operation and the line it waits at.
// A `// waits: <what>` comment marks each line a report must name.
#include <duet/gen.hpp>
#include <duet/parallel.hpp>
#include <duet/state_machine.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#include <algorithm>
#include <atomic>
#include <barrier>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <latch>
#include <mutex>
#include <pthread.h>
#include <semaphore>
#include <shared_mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {

using instrumented_test::seeded;

// A subject's calls as a spec: each returns nothing and the model accepts any order, so the
// check can fail only by the run itself. The model is the oracle and there is no prefix or
// suffix: every call runs on a fiber, none on the test's own thread, where a call that blocks
// forever would block the test.
template <class Subject>
struct Calls {
  using Sut = Subject;
  using State = int;
  using Cmd = int;  // an index into Subject::kCalls
  static constexpr const char* sut_name = "s";
  static duet::Gen<Cmd> command(const State&) { return duet::integers(0, static_cast<int>(std::size(Subject::kCalls)) - 1); }
  static duet::Result run(const Cmd& c, Sut& s) {
    s.call(c);
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State&) {}
  static std::string show(const Cmd& c) { return std::string(Subject::kCalls[c]) + "()"; }
};

template <class Subject>
duet::CheckResult check_deadlock() {
  return duet::check_parallel<Calls<Subject>>(instrumented_test::every_call_on_a_fiber(), seeded(1, 100));
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The line of this file that ends with `// waits: <what>`.
int line_of(const std::string& what) {
  const std::string mark = "// waits: " + what;
  std::ifstream source(DUET_SOURCE_DIR "/tests/instrumented/deadlock_test.cpp");
  std::string line;
  for (int n = 1; std::getline(source, line); ++n)
    if (line.ends_with(mark)) return n;
  return 0;
}

// The report's "fiber 1 blocked in lock mutex#2 at deadlock_test.cpp:40" lines (the last one
// ends the sentence: its full stop is dropped).
std::vector<std::string> blocked_lines(const std::string& report) {
  std::vector<std::string> lines;
  for (std::size_t at = report.find(" blocked in "); at != std::string::npos; at = report.find(" blocked in ", at + 1)) {
    const std::size_t begin = report.rfind('\n', at) + 1;
    std::string line = report.substr(begin, report.find('\n', at) - begin);
    if (line.ends_with('.')) line.pop_back();
    lines.push_back(std::move(line));
  }
  return lines;
}

// Where a fiber waits: the operation and object kind ("wait condition_variable"), and the mark
// of its line.
struct Wait {
  const char* what;
  const char* mark;
};

// The check found a deadlock (check_parallel fails: one call that waits for nobody is no race,
// so expect_unsafe would call it an error), shrunk to at most `longest` calls, and every fiber
// the report lists as blocked waits at one of `waits`, each of which it names.
void expect_deadlock(const duet::CheckResult& r, std::initializer_list<Wait> waits, std::size_t longest) {
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "deadlock: no fiber can proceed")) << r.report;
  EXPECT_LE(r.failing_length, longest) << r.report;
  const std::vector<std::string> blocked = blocked_lines(r.report);
  ASSERT_FALSE(blocked.empty()) << r.report;
  auto matches = [](const std::string& line, const Wait& w) {
    const std::string at = " at deadlock_test.cpp:" + std::to_string(line_of(w.mark));
    return has(line, " blocked in " + std::string(w.what) + "#") && line.ends_with(at);
  };
  for (const Wait& w : waits) EXPECT_NE(line_of(w.mark), 0) << "no line of deadlock_test.cpp ends with // waits: " << w.mark;
  for (const std::string& line : blocked)
    EXPECT_TRUE(std::any_of(waits.begin(), waits.end(), [&](const Wait& w) { return matches(line, w); }))
        << "a fiber blocked where the test expects none: " << line << "\n"
        << r.report;
  for (const Wait& w : waits)
    EXPECT_TRUE(std::any_of(blocked.begin(), blocked.end(), [&](const std::string& line) { return matches(line, w); }))
        << "no fiber blocked in " << w.what << " at the line marked `" << w.mark << "`\n"
        << r.report;
  for (const std::string& line : blocked) std::printf("%s\n", line.c_str());  // for the log
}

// ---- std::condition_variable ----

// A mailbox whose post() forgets to notify: a take() that waits before (or without) a post
// waits for good.
class Mailbox {
 public:
  static constexpr const char* kCalls[] = {"take", "post"};
  void call(int c) { c == 0 ? take() : post(); }

 private:
  void take() {
    std::unique_lock<std::mutex> hold(m_);
    cv_.wait(hold, [&] { return letters_ > 0; });  // waits: take
    --letters_;
  }
  void post() {
    std::lock_guard<std::mutex> hold(m_);
    ++letters_;  // and no cv_.notify_one()
  }
  std::mutex m_;
  std::condition_variable cv_;
  int letters_ = 0;
};

TEST(InstrumentedDeadlock, ConditionVariableNobodyNotifiesReported) {
  expect_deadlock(check_deadlock<Mailbox>(), {{"wait condition_variable", "take"}}, 1);
}

// A hand-off whose producer sets the flag and notifies without the consumer's lock: the
// consumer checks the flag, then waits, and a notification between the two is lost.
class Handoff {
 public:
  static constexpr const char* kCalls[] = {"handoff"};
  void call(int) {
    std::mutex m;
    std::condition_variable cv;
    std::atomic<bool> ready{false};
    std::thread producer([&] {
      ready.store(true);
      cv.notify_one();
    });
    {
      std::unique_lock<std::mutex> hold(m);
      if (!ready.load()) cv.wait(hold);  // waits: the lost wakeup
    }
    producer.join();
  }
};

TEST(InstrumentedDeadlock, ConditionVariableLostWakeupReported) {
  expect_deadlock(check_deadlock<Handoff>(), {{"wait condition_variable", "the lost wakeup"}}, 1);
}

// ---- std::shared_mutex ----

// Two tables, each under a std::shared_mutex. A copy reads its source under a shared lock and
// locks its target exclusively while still reading: copies in opposite directions each hold
// what the other wants.
class Tables {
 public:
  static constexpr const char* kCalls[] = {"copy_ab", "copy_ba"};
  void call(int c) { c == 0 ? copy(a_, b_) : copy(b_, a_); }

 private:
  struct Table {
    std::shared_mutex m;
    int value = 0;
  };
  static void copy(Table& from, Table& to) {
    std::shared_lock<std::shared_mutex> reading(from.m);
    std::unique_lock<std::shared_mutex> writing(to.m);  // waits: exclusive
    to.value = from.value;
  }
  Table a_, b_;
};

TEST(InstrumentedDeadlock, SharedMutexSharedHeldExclusiveWantedReported) {
  expect_deadlock(check_deadlock<Tables>(), {{"lock shared_mutex", "exclusive"}}, 2);
}

// ---- std::counting_semaphore ----

// Two connections behind a semaphore; use() takes one and never gives it back, so the third
// use() waits for a connection nobody returns.
class Connections {
 public:
  static constexpr const char* kCalls[] = {"use"};
  void call(int) {
    free_.acquire();     // waits: none left
    uses_.fetch_add(1);  // and no free_.release()
  }

 private:
  std::counting_semaphore<2> free_{2};
  std::atomic<int> uses_{0};
};

TEST(InstrumentedDeadlock, CountingSemaphoreNoneLeftReported) {
  expect_deadlock(check_deadlock<Connections>(), {{"wait atomic", "none left"}}, 3);
}

// ---- the waits of std::latch, std::barrier and std::atomic::wait ----

// These waits count themselves in libstdc++'s process-wide waiter pool (bits/atomic_wait.h); a
// fiber left blocked by a stopped run would stay counted, and the replay of the failure would
// read another count than the run it replays, were the pool not left by each run as it was.

// ---- std::latch ----

// Waits until three workers have started, but starts two.
class Startup {
 public:
  static constexpr const char* kCalls[] = {"start"};
  void call(int) {
    std::latch started(3);
    std::thread a([&] { started.count_down(); });
    std::thread b([&] { started.count_down(); });
    started.wait();  // waits: never zero
    a.join();
    b.join();
  }
};

TEST(InstrumentedDeadlock, LatchCountNeverReachedReported) {
  expect_deadlock(check_deadlock<Startup>(), {{"wait atomic", "never zero"}}, 1);
}

// ---- std::barrier ----

// Two workers meet at a barrier of three: the caller, meant to be the third, joins them instead.
class Rounds {
 public:
  static constexpr const char* kCalls[] = {"round"};
  void call(int) {
    std::barrier<> round(3);
    // The wait ends the lambda: duet_instrument keeps such tail calls calls, so this line is
    // on the stack and the report names it.
    auto work = [&] { round.arrive_and_wait(); };  // waits: one missing
    std::thread a(work);
    std::thread b(work);
    a.join();  // waits: a worker at the barrier
    b.join();
  }
};

TEST(InstrumentedDeadlock, BarrierParticipantMissingReported) {
  expect_deadlock(check_deadlock<Rounds>(), {{"wait atomic", "one missing"}, {"await task", "a worker at the barrier"}}, 1);
}

// ---- std::atomic::wait ----

// A flag whose set() stores without notifying: a wait() that starts before it (or without one)
// is never woken.
class Flag {
 public:
  static constexpr const char* kCalls[] = {"wait", "set"};
  void call(int c) { c == 0 ? wait() : set(); }

 private:
  void wait() { ready_.wait(false); }  // waits: no notify
  void set() { ready_.store(true); }   // and no ready_.notify_all()
  std::atomic<bool> ready_{false};
};

TEST(InstrumentedDeadlock, AtomicWaitWithoutNotifyReported) {
  expect_deadlock(check_deadlock<Flag>(), {{"wait atomic", "no notify"}}, 1);
}

// ---- pthread_barrier_t ----

// C threads at a barrier of three, but two of them.
class PosixRounds {
 public:
  static constexpr const char* kCalls[] = {"round"};
  void call(int) {
    pthread_barrier_t meet;
    pthread_barrier_init(&meet, nullptr, 3);
    pthread_t t[2];
    for (pthread_t& x : t) pthread_create(&x, nullptr, &PosixRounds::work, &meet);
    for (pthread_t& x : t) pthread_join(x, nullptr);  // waits: a thread at the barrier
    pthread_barrier_destroy(&meet);
  }

 private:
  static void* work(void* meet) {
    pthread_barrier_wait(static_cast<pthread_barrier_t*>(meet));  // waits: the third never comes
    return meet;
  }
};

TEST(InstrumentedDeadlock, PosixBarrierParticipantMissingReported) {
  expect_deadlock(check_deadlock<PosixRounds>(),
                  {{"wait atomic", "the third never comes"}, {"await task", "a thread at the barrier"}}, 1);
}

// ---- std::thread ----

// Joins its worker while holding the lock the worker needs to finish.
class Worker {
 public:
  static constexpr const char* kCalls[] = {"stop"};
  void call(int) {
    std::mutex m;
    int reports = 0;
    std::thread worker([&] {
      std::lock_guard<std::mutex> hold(m);  // waits: the joiner's lock
      ++reports;
    });
    std::lock_guard<std::mutex> hold(m);
    worker.join();  // waits: the worker
  }
};

TEST(InstrumentedDeadlock, ThreadJoinedByTheThreadItWaitsForReported) {
  expect_deadlock(check_deadlock<Worker>(), {{"lock mutex", "the joiner's lock"}, {"await task", "the worker"}}, 1);
}

// ---- pthread_rwlock_t ----

// Reads a cached value under the read lock and, finding it stale, takes the write lock to
// refresh it without letting go of the read lock: the writer waits for every reader, itself
// included.
class Cache {
 public:
  static constexpr const char* kCalls[] = {"get"};
  void call(int) {
    pthread_rwlock_rdlock(&lock_);
    if (value_ == 0) {
      pthread_rwlock_wrlock(&lock_);  // waits: upgrade
      value_ = 1;
      pthread_rwlock_unlock(&lock_);
    }
    pthread_rwlock_unlock(&lock_);
  }

 private:
  pthread_rwlock_t lock_ = PTHREAD_RWLOCK_INITIALIZER;
  int value_ = 0;
};

TEST(InstrumentedDeadlock, RwlockUpgradeReported) {
  expect_deadlock(check_deadlock<Cache>(), {{"lock shared_mutex", "upgrade"}}, 1);
}

}  // namespace
