// Subjects that start threads of their own (a library's worker, a pool started by its first
// call, a storage engine's background thread) on fibers: the whole trial runs in the fiber run
// (the subject made, the prefix, the branches, the suffix, the subject destroyed), so such a
// thread is a fiber the scheduler schedules and sees, wherever the subject starts it, and the
// destructor that joins it joins a fiber. A correct subject passes (it was reported as a
// deadlock when its construction, prefix and suffix ran outside the run), its buggy twin is
// found, and a thread that outlives its trial (detached, never joined) is an error that says
// so, never a verdict.
#include <duet/api.hpp>
#include <duet/executor.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include "support/emulation.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <future>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <variant>
#include <pthread.h>

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

duet::Config seeded(std::uint64_t count) { return {.seed = 1, .count = count, .verbose = -1}; }

// The worker is a fiber from the constructor on: the exhaustive search interleaves it with the
// branches too (about 140,000 schedules for 200 programs; 30 here).
TEST(SubjectThreads, AWorkerStartedByTheConstructorRunsOnAFiber) {
  for (const auto& [s, count] : {std::pair{duet::random(), 200}, {duet::pct(3), 200}, {duet::exhaustive(1), 30}}) {
    const duet::CheckResult r = duet::check_parallel(adder_spec(), {.executor = duet::fibers(s)}, seeded(count));
    EXPECT_TRUE(r) << s << "\n" << r.report;
    EXPECT_EQ(r.cases, static_cast<std::uint64_t>(count)) << r.report;
  }
}

// duet::Api runs a program's prefix on the calling thread, outside the run, and keeps the
// candidate's objects after it for its oracle: an Adder opened there has a real worker, and a
// run that would start beside it is an error (never a deadlock, nor a pass).
namespace adder_api {
inline long open_reference() { return 0; }
inline void add_reference(long& sum, int v) { sum += v; }
inline long total_reference(const long& sum) { return sum; }
using Handle = std::shared_ptr<Adder>;
inline Handle open() { return std::make_shared<Adder>(); }
inline void add(const Handle& a, int v) { a->add(v); }
inline long total(const Handle& a) { return a->total(); }
}  // namespace adder_api

TEST(SubjectThreads, ADuetApiPrefixThatStartsAThreadIsAnError) {
  duet::Api api("adder_api");
  auto adder = api.abstract<long, adder_api::Handle>("a");
  api.op("open", duet::args(), adder, adder_api::open_reference, adder_api::open);
  api.op("add", duet::args(adder, duet::integers(1, 3)), duet::unit(), adder_api::add_reference, adder_api::add);
  api.op("total", duet::args(adder), duet::value<long>(), adder_api::total_reference, adder_api::total);
  const duet::CheckResult r = api.check_parallel({.executor = duet::fibers()}, seeded(200));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "No verdict: check such a subject on threads")) << r.report;
  EXPECT_FALSE(has(r.report, "deadlock")) << r.report;
}

TEST(SubjectThreads, OnThreadsTheSameSubjectIsChecked) {
  const duet::CheckResult r = duet::check_parallel(adder_spec(), {}, seeded(50));
  EXPECT_TRUE(r) << r.report;
}

// add(v) starts the worker on its first call; the destructor stops and joins it. `Racy`: total()
// reads the sum after unlocking, while the worker may add another call's value (its calls run
// one after the other the same: the oracle, the candidate run sequentially, stays exact).
template <bool Racy>
class LazyPool {
 public:
  LazyPool() = default;
  ~LazyPool() {
    {
      std::lock_guard g(m_);
      stop_ = true;
    }
    queued_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  LazyPool(const LazyPool&) = delete;
  LazyPool& operator=(const LazyPool&) = delete;
  void add(int v) {
    std::lock_guard g(m_);
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
    q_.push_back(v);
    queued_.notify_all();
  }
  int total() {
    std::unique_lock g(m_);
    drained_.wait(g, [&] { return q_.empty() && !busy_; });
    if (Racy) g.unlock();  // racy: the sum read unlocked, as the worker adds the next call's
    return sum_;
  }

 private:
  void work() {
    std::unique_lock g(m_);
    for (;;) {
      queued_.wait(g, [&] { return stop_ || !q_.empty(); });
      if (q_.empty()) return;
      const int v = q_.front();
      q_.pop_front();
      busy_ = true;
      sum_ += v;
      busy_ = false;
      drained_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable queued_, drained_;
  std::deque<int> q_;
  int sum_ = 0;
  bool busy_ = false;
  bool stop_ = false;
  std::thread worker_;
};

template <bool Racy>
duet::Lin<LazyPool<Racy>> pool_spec() {
  return duet::Lin<LazyPool<Racy>>(Racy ? "racy_pool" : "pool", "p")
      .op(
          "add", [](LazyPool<Racy>& p, int v) { p.add(v); }, duet::integers(1, 3))
      .op("total", [](LazyPool<Racy>& p) { return p.total(); });
}

// The first add() starts the worker in the prefix as often as in a branch.
TEST(SubjectThreads, APoolStartedByAPrefixCallAndJoinedByTheDestructorPasses) {
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(pool_spec<false>(), {.executor = duet::fibers(s)}, seeded(300));
    EXPECT_TRUE(r) << s << "\n" << r.report;
  }
}

TEST(SubjectThreads, ItsRacyTwinIsFound) {
  const duet::CheckResult r = duet::expect_unsafe(pool_spec<true>(), {.executor = duet::fibers()}, seeded(500));
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(has(r.report, "data race")) << r.report;
}

// RocksDB's open starts and joins a thread per table file, beside a pool thread its Env keeps:
// more threads in a run than it has fiber slots (DUET_MAX_FIBERS), so slots are given again,
// and with them the thread pointers that name their threads. A join found the slot's older,
// finished thread and returned at once: the caller raced with the thread it had just joined,
// and the pool thread's own join later returned while it still waited for work, so the store
// "outlived its trial" on every check.
struct ManyShortThreads {
  Adder pool;  // a thread that lives as long as the subject
  static int open_tables() {
    int opened = 0;
    for (int i = 0; i < 2 * DUET_MAX_FIBERS; ++i) {
      int done = 0;
      std::thread t([&done] { done = 1; });
      t.join();
      opened += done;
    }
    return opened;
  }
};

TEST(SubjectThreads, AThreadThatTakesAJoinedThreadsSlotIsWaitedForByItsJoin) {
  const auto spec = duet::Lin<ManyShortThreads>("many_threads", "m")
                        .op("open_tables", [](ManyShortThreads&) { return ManyShortThreads::open_tables(); })
                        .op(
                            "add", [](ManyShortThreads& m, int v) { m.pool.add(v); }, duet::integers(1, 3))
                        .op("total", [](ManyShortThreads& m) { return m.pool.total(); });
  const duet::CheckResult r = duet::check_parallel(spec, {.executor = duet::fibers()}, seeded(20));
  EXPECT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 20U) << r.report;
}

// std::async's future joins its thread within std::call_once (pthread_once), whose function is
// the subject's code: it was run as duet's, its join refused ("Invalid argument" thrown by
// every add() on fibers, a false alarm).
struct AsyncSum {
  std::mutex m;
  int sum = 0;
  void add(int v) {
    std::async(std::launch::async, [&] {
      std::lock_guard g(m);
      sum += v;
    }).get();
  }
  int get() {
    std::lock_guard g(m);
    return sum;
  }
};

// A detached worker its destructor tells to stop, not joined: it ends after the subject, within
// the run; the oracle's replays make such workers as real threads, which end on their own soon
// (each run waits for them: 50 programs here, a few seconds).
struct DetachedTicker {
  std::shared_ptr<std::atomic<bool>> stop = std::make_shared<std::atomic<bool>>(false);
  std::atomic<int> value{0};
  DetachedTicker() {
    std::thread([s = stop] {
      while (!s->load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }).detach();
  }
  DetachedTicker(const DetachedTicker&) = delete;
  DetachedTicker& operator=(const DetachedTicker&) = delete;
  ~DetachedTicker() { stop->store(true); }
  void add(int v) { value.fetch_add(v); }
  int get() { return value.load(); }
};

template <class T>
duet::Lin<T> add_get_spec(const char* name) {
  return duet::Lin<T>(name, "x")
      .op(
          "add", [](T& t, int v) { t.add(v); }, duet::integers(1, 3))
      .op("get", [](T& t) { return t.get(); });
}

TEST(SubjectThreads, StdAsyncInACallAndADetachedWorkerThatEndsPass) {
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult a =
        duet::check_parallel(add_get_spec<AsyncSum>("async_sum"), {.executor = duet::fibers(s)}, seeded(200));
    EXPECT_TRUE(a) << s << "\n" << a.report;
    const duet::CheckResult d =
        duet::check_parallel(add_get_spec<DetachedTicker>("detached_ticker"), {.executor = duet::fibers(s)}, seeded(50));
    EXPECT_TRUE(d) << s << "\n" << d.report;
  }
}

// A subject that cannot be made after its constructor ran a worker (started, joined, then the
// constructor throws) is the error a constructor that throws is, named as the sequential engine
// names it; the trial's fiber ends, the run with it (no deadlock, no verdict).
struct FailingOpen {
  FailingOpen() {
    Adder probe;  // its worker starts, and is joined as the throw unwinds
    probe.add(1);
    if (probe.total() == 1) throw std::runtime_error("the journal is full");
  }
  void add(int) {}
  int get() { return 0; }
};

// With a model, the subject is first made in the trial's fiber (duet::Lin's oracle makes one
// before, on the calling thread): both ways.
struct FailingOpenSpec {
  struct Get {
    friend std::string duet_show(const Get&) { return "get()"; }
  };
  using Sut = FailingOpen;
  using State = int;
  using Cmd = std::variant<Get>;
  static constexpr const char* sut_name = "f";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Get{})); }
  static duet::Result run(const Cmd&, Sut& s) { return s.get(); }
  static duet::Result expected(const Cmd&, const State&) { return 0; }
  static void next(const Cmd&, State&) {}
};

// The joins that do not wait forever, on a thread the subject started in a run (a fiber, whose
// pthread_t the C library never made): a try while it sleeps is EBUSY, a timed join of 100 ms
// times out at 100 virtual ms, a clock join with time enough gets its result at 1,000 ms.
TEST(SubjectThreads, TryTimedAndClockJoinsWaitOnVirtualTime) {
  int tried = 0, timed = 0, joined = -1;
  void* result = nullptr;
  std::int64_t timed_ms = -1, joined_ms = -1;
  static int answer = 42;
  const duet::FiberRun run = duet::run_fibers(
      {[&] {
        pthread_t t;
        pthread_create(
            &t, nullptr,
            [](void*) -> void* {
              std::this_thread::sleep_for(std::chrono::seconds(1));
              return &answer;
            },
            nullptr);
        using Clock = std::chrono::steady_clock;
        const auto start = Clock::now();
        auto ms = [&] { return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count(); };
        tried = pthread_tryjoin_np(t, &result);
        timespec at{};
        clock_gettime(CLOCK_REALTIME, &at);
        at.tv_nsec += 100'000'000;
        if (at.tv_nsec >= 1'000'000'000) {
          at.tv_nsec -= 1'000'000'000;
          ++at.tv_sec;
        }
        timed = pthread_timedjoin_np(t, &result, &at);
        timed_ms = ms();
        clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_sec += 5;
        joined = pthread_clockjoin_np(t, &result, CLOCK_MONOTONIC, &at);
        joined_ms = ms();
      }},
      "");
  ASSERT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(tried, EBUSY);
  EXPECT_EQ(timed, ETIMEDOUT);
  EXPECT_EQ(timed_ms, 100);
  EXPECT_EQ(joined, 0);
  EXPECT_EQ(result, &answer);
  EXPECT_EQ(joined_ms, 1'000);
}

TEST(SubjectThreads, AConstructorThatThrowsAfterItsWorkerRanIsAnError) {
  for (const duet::Schedule& s : {duet::random(), duet::pct(3), duet::exhaustive(1)}) {
    const duet::CheckResult lin =
        duet::check_parallel(add_get_spec<FailingOpen>("failing_open"), {.executor = duet::fibers(s)}, seeded(20));
    const duet::CheckResult model = duet::check_parallel<FailingOpenSpec>({.executor = duet::fibers(s)}, seeded(20));
    for (const duet::CheckResult* r : {&lin, &model}) {
      EXPECT_EQ(r->status, duet::CheckResult::Status::error) << s << "\n" << r->report;
      EXPECT_TRUE(has(r->report, "threw std::runtime_error(\"the journal is full\")")) << s << "\n" << r->report;
      EXPECT_FALSE(has(r->report, "deadlock")) << s << "\n" << r->report;
    }
  }
}

// leveldb's Env: a process-wide background thread, started by the first job scheduled and
// detached, that waits for jobs for ever.
class BackgroundThread {
 public:
  static BackgroundThread& instance() {
    static auto* b = new BackgroundThread;
    return *b;
  }
  void schedule(std::function<void()> job) {
    std::lock_guard g(m_);
    if (!started_) {
      started_ = true;
      std::thread([this] { loop(); }).detach();
    }
    jobs_.push_back(std::move(job));
    cv_.notify_one();
  }

 private:
  void loop() {
    for (;;) {
      std::unique_lock g(m_);
      cv_.wait(g, [&] { return !jobs_.empty(); });
      std::function<void()> job = std::move(jobs_.front());
      jobs_.pop_front();
      g.unlock();
      job();
    }
  }
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  bool started_ = false;
};

// put() schedules a compaction on the background thread; the destructor waits for it.
class Store {
 public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store() {
    std::unique_lock g(m_);
    idle_.wait(g, [&] { return !compacting_; });
  }
  void put(int v) {
    std::lock_guard g(m_);
    memory_ += v;
    if (compacting_) return;
    compacting_ = true;
    BackgroundThread::instance().schedule([this] { compact(); });
  }
  int get() {
    std::lock_guard g(m_);
    return memory_ + disk_;
  }

 private:
  void compact() {
    std::lock_guard g(m_);
    disk_ += memory_;
    memory_ = 0;
    compacting_ = false;
    idle_.notify_all();
  }
  std::mutex m_;
  std::condition_variable idle_;
  int memory_ = 0, disk_ = 0;
  bool compacting_ = false;
};

duet::Lin<Store> store_spec() {
  return duet::Lin<Store>("store", "s")
      .op(
          "put", [](Store& s, int v) { s.put(v); }, duet::integers(1, 3))
      .op("get", [](Store& s) { return s.get(); });
}

// With each trial in the check's process (TrialProcesses::never): the error, and every later
// fiber check of the process an error too (the singleton counts on the thread that was
// abandoned): in a child process, so that this one stays clean. By default such a check runs
// each trial in a process of its own and is checked (trial_processes_test.cpp).
void background_thread_checks() {
  const auto in_process = duet::fibers(duet::random(), {.trial_processes = duet::TrialProcesses::never});
  const duet::CheckResult first = duet::check_parallel(store_spec(), {.executor = in_process}, seeded(100));
  const duet::CheckResult later = duet::check_parallel(store_spec(), {.executor = in_process}, seeded(100));
  const bool ok = first.status == duet::CheckResult::Status::error &&
                  has(first.report, "a thread the subject started outlived its trial: fiber ") &&
                  has(first.report, "No verdict: check such a subject on threads") &&
                  later.status == duet::CheckResult::Status::error &&
                  has(later.report, "an earlier fiber run of this process ended with a thread the subject started");
  std::fprintf(stderr, "%s\n%s\n%s\n", first.report.c_str(), later.report.c_str(), ok ? "both errors, as expected" : "");
  std::exit(ok ? 0 : 1);
}

TEST(SubjectThreads, AThreadThatOutlivesItsTrialIsAnErrorForThisAndEveryLaterFiberCheck) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(background_thread_checks(), testing::ExitedWithCode(0), "both errors, as expected");
}

// The background thread started before the check (the store used once by the test, or by an
// earlier test): a fiber check's run that waits for it deadlocks whatever the store does, so it
// is no verdict, never a failure; an isolated check on threads hangs in its child (which has no
// background thread) and is no verdict either; in process, on threads, the store passes.
void checks_beside_a_warm_background_thread() {
  {
    Store warm;
    warm.put(1);
  }
  const duet::CheckResult fibers = duet::check_parallel(store_spec(), {.executor = duet::fibers()}, seeded(100));
  duet::Config isolated = seeded(5);
  isolated.isolate = true;
  const duet::CheckResult forked = duet::check_parallel(store_spec(), {}, isolated);
  duet::Config in_process_config = seeded(20);
  in_process_config.isolate = false;
  const duet::CheckResult in_process = duet::check_parallel(store_spec(), {}, in_process_config);
  const bool ok = fibers.status == duet::CheckResult::Status::error &&
                  has(fibers.report, "started outside any fiber check (at subject_threads_test.cpp:") &&
                  forked.status == duet::CheckResult::Status::error &&
                  has(forked.report, "which the child process forked to run the case does not have") && in_process.passed();
  std::fprintf(stderr, "%s\n%s\n%s\n%s\n", fibers.report.c_str(), forked.report.c_str(), in_process.report.c_str(),
               ok ? "no verdict beside the thread, as expected" : "");
  std::exit(ok ? 0 : 1);
}

TEST(SubjectThreads, AThreadStartedBeforeTheCheckMakesADeadlockNoVerdict) {
  // The isolated check's child starts threads while the background thread lives.
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(checks_beside_a_warm_background_thread(), testing::ExitedWithCode(0),
              "no verdict beside the thread, as expected");
}

// A process-wide pool that its static destructor stops and joins at exit (RocksDB's Env): with
// each trial in the check's process, its thread, started in a trial, outlived it (an error of
// the check), and the process still exits
// cleanly: the join of a thread abandoned with its run was refused, and std::thread::join threw
// in the destructor (std::terminate at exit).
class ExitJoinedPool {
 public:
  static ExitJoinedPool& instance() {
    static ExitJoinedPool pool;
    return pool;
  }
  void start() {
    std::lock_guard g(m_);
    if (!worker_.joinable())
      worker_ = std::thread([this] {
        std::unique_lock g(m_);
        cv_.wait(g, [&] { return stop_; });
      });
  }
  ~ExitJoinedPool() {
    {
      std::lock_guard g(m_);
      stop_ = true;
    }
    cv_.notify_all();
    if (worker_.joinable()) worker_.join();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread worker_;
};

struct UsesExitJoinedPool {
  UsesExitJoinedPool() { ExitJoinedPool::instance().start(); }
  void add(int) {}
  int get() { return 0; }
};

void check_then_exit_with_a_pool_joined_at_exit() {
  const auto in_process = duet::fibers(duet::random(), {.trial_processes = duet::TrialProcesses::never});
  const duet::CheckResult r =
      duet::check_parallel(add_get_spec<UsesExitJoinedPool>("exit_joined_pool"), {.executor = in_process}, seeded(20));
  const bool ok = r.status == duet::CheckResult::Status::error && has(r.report, "outlived its trial");
  std::fprintf(stderr, "%s\n%s\n", r.report.c_str(), ok ? "the error, then a clean exit" : "");
  std::exit(ok ? 0 : 1);  // runs the pool's static destructor
}

TEST(SubjectThreads, AProcessWidePoolJoinedAtExitLetsTheProcessExit) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(check_then_exit_with_a_pool_joined_at_exit(), testing::ExitedWithCode(0), "the error, then a clean exit");
}

TEST(SubjectThreads, OnThreadsTheStoreIsChecked) {
  const duet::CheckResult r = duet::check_parallel(store_spec(), {}, seeded(50));
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
