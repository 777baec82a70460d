// Each trial in a process of its own (FiberOptions::trial_processes, src/execute/trial_process.cpp):
// a library's process-wide background thread (leveldb's and RocksDB's default Env) no longer
// makes a check an error, its store is checked, with duet::Lin's oracle running beside that
// thread, and its bug is found and replays; a lock chosen by a hash of an address (RocksDB's
// cache stripes) replays exactly, since every trial allocates from the same trial heap; what a
// trial's process cannot do (an exhaustive search across processes) is said, and a crash in a
// trial is a failure of its case, never of the check's process.
#include <duet/detail/fiber_hooks.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

#include "../hostile/child_process.hpp"
#include "support/emulation.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

duet::Config seeded(std::uint64_t seed, std::uint64_t count) { return {.seed = seed, .count = count, .verbose = -1}; }

std::shared_ptr<duet::Executor> fibers(duet::TrialProcesses where, duet::Schedule schedule = duet::random()) {
  return duet::fibers(schedule, {.trial_processes = where});
}

// A process-wide background thread, started by the first job and never joined: it waits for
// jobs for as long as the process lives (leveldb's Env::Default()).
class Background {
 public:
  static Background& instance() {
    static auto* b = new Background;
    return *b;
  }
  void schedule(std::function<void()> job) {
    const std::lock_guard g(m_);
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

// Jobs handed to the process-wide thread (Background).
struct ProcessWideJobs {
  static void schedule(std::function<void()> job) { Background::instance().schedule(std::move(job)); }
};

// put() moves what it wrote to "disk" with a job of `Jobs` (on the background thread); reads wait
// for nothing. The destructor waits for the move in flight. incr() is a read, then a write: two
// locked sections.
template <class Jobs>
class BasicStore {
 public:
  BasicStore() = default;
  BasicStore(const BasicStore&) = delete;
  BasicStore& operator=(const BasicStore&) = delete;
  ~BasicStore() {
    std::unique_lock g(m_);
    idle_.wait(g, [&] { return !flushing_; });
  }
  void put(int v) {
    {
      const std::lock_guard g(m_);
      memory_ = v;
      if (flushing_) return;
      flushing_ = true;
    }
    Jobs::schedule([this] { flush(); });  // outside the lock: a job may run at once, here
  }
  int get() {
    const std::lock_guard g(m_);
    return memory_ >= 0 ? memory_ : disk_;
  }
  int incr() {
    const int v = get() + 1;
    put(v);
    return v;
  }

 private:
  void flush() {
    const std::lock_guard g(m_);
    if (memory_ >= 0) disk_ = memory_;
    memory_ = -1;
    flushing_ = false;
    idle_.notify_all();
  }
  std::mutex m_;
  std::condition_variable idle_;
  int memory_ = -1, disk_ = 0;
  bool flushing_ = false;
};
using Store = BasicStore<ProcessWideJobs>;

duet::Lin<Store> store_spec() {
  return duet::Lin<Store>("background_store", "s")
      .op(
          "put", [](Store& s, int v) { s.put(v); }, duet::integers(1, 3))
      .op("get", [](Store& s) { return s.get(); });
}

TEST(TrialProcesses, AStoreWithAProcessWideBackgroundThreadIsChecked) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(store_spec(), {.executor = duet::fibers(s)}, seeded(1, 30));
    EXPECT_TRUE(r) << s << "\n" << r.report;
    EXPECT_EQ(r.cases, 30U) << r.report;
  }
}

// A library whose process-wide thread starts only with its thirtieth job in fiber runs
// (leveldb's starts at its first compaction): the first trial, run in a process of its own to
// learn, starts none, so the trials run in the check's process until one starts it and leaves it
// running. That trial's
// error is duet's limit, not a verdict: the check searches again from its seed in the clean child,
// each trial in a process of its own, and its verdict is that search's. In a child process: the
// thread left behind makes every later fiber check of the process an error.
// kByTheOracle: the jobs counted are those outside fiber runs instead (duet::Lin's oracle runs
// the candidate alone on the calling thread), so the thread starts there, a real thread.
template <bool kByTheOracle = false>
class LateBackground {
 public:
  static void schedule(std::function<void()> job) {
    static std::atomic<int> jobs{0};
    const bool counted = (duet::detail::fiber::current() == nullptr) == kByTheOracle;
    if (!counted || jobs.fetch_add(1) < (kByTheOracle ? 9 : 29)) return job();  // at once, on the caller's thread
    Background::instance().schedule(std::move(job));
  }
};

template <bool kByTheOracle>
using LateStore = BasicStore<LateBackground<kByTheOracle>>;

// `checks` checks of it, one after the other in this process.
template <bool kByTheOracle>
void late_thread_check(int checks = 1) {
  using Store = LateStore<kByTheOracle>;
  const auto spec = duet::Lin<Store>("late_background", "s")
                        .op(
                            "put", [](Store& s, int v) { s.put(v); }, duet::integers(1, 3))
                        .op("get", [](Store& s) { return s.get(); });
  std::fflush(stdout);
  ::dup2(2, 1);  // the pass line, which says why the trials ran in processes, where the death test reads
  bool ok = true;
  for (int check = 0; check < checks; ++check) {
    const duet::CheckResult r = duet::check_parallel(spec, {.executor = duet::fibers()}, {.seed = 1, .count = 30});
    std::fflush(stdout);
    ok = ok && r.passed() && r.cases == 30;
    std::fprintf(stderr, "%s\n", r.report.c_str());
  }
  std::fprintf(stderr, "%s\n", ok ? "passed" : "not passed");
  std::exit(ok ? 0 : 1);
}

TEST(TrialProcesses, ALibraryThreadStartedInALaterTrialIsCheckedInTrialProcesses) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(late_thread_check<false>(), testing::ExitedWithCode(0),
              "a trial of the first search left a thread the subject started running");
}

// The same thread started by duet::Lin's oracle, which runs the candidate alone on the calling
// thread: a real thread, beside which no fiber trial of the process can run (it was an error, "a
// thread the subject started outside the fiber run ... is still running"): checked the same way.
TEST(TrialProcesses, ALibraryThreadTheOracleStartsIsCheckedInTrialProcesses) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(late_thread_check<true>(), testing::ExitedWithCode(0), "run alone on the calling thread");
}

// Tests of one binary check the same library one after the other. The search runs in a worker
// process of the clean child, so the thread a trial left never stays in the test's process: the
// second check starts from the state the first did, and passes as it did (it was an error, "an
// earlier fiber run of this process ended with a thread the subject started outlived its trial").
TEST(TrialProcesses, ALaterCheckOfALibraryWhoseThreadAnEarlierCheckStartedPasses) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(late_thread_check<false>(3), testing::ExitedWithCode(0), "passed");
  EXPECT_EXIT(late_thread_check<true>(3), testing::ExitedWithCode(0), "passed");
}

// A subject whose fifth construction throws, counted in this process (kShared false) or across
// every process forked from it (kShared: memory mapped shared before the check, a state no trial
// controls, as a file would be).
int* constructions_counted_across_processes() {
  static int* made =
      static_cast<int*>(::mmap(nullptr, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0));
  return made;
}
template <bool kShared>
class FifthThrows {
 public:
  FifthThrows() {
    static int here = 0;
    int& made = kShared ? *constructions_counted_across_processes() : here;
    if (++made == 5) throw std::runtime_error("the fifth construction throws");
  }
  int incr() { return n_.fetch_add(1) + 1; }

 private:
  std::atomic<int> n_{0};
};

template <bool kShared>
duet::CheckResult fifth_throws_check() {
  using Subject = FifthThrows<kShared>;
  const auto spec = duet::Lin<Subject>("fifth_throws", "c").op("incr", [](Subject& c) { return c.incr(); });
  return duet::check_parallel(spec, {.executor = duet::fibers()}, seeded(1, 30));
}

// Counted in the process: the search's worker and the replay's start from the same state, the
// clean child's, and the error replays as it was met.
TEST(TrialProcesses, AnErrorOfWhatTheProcessCountedReplaysAsMet) {
  const duet::CheckResult r = fifth_throws_check<false>();
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "the fifth construction throws")) << r.report;
  EXPECT_FALSE(has(r.report, "searched again")) << r.report;
}

// Counted across processes: the replay constructs the sixth and passes. The error is still shown
// with its message (it was shown empty: "error: "), and the search in trial processes, which
// meets none, says so.
TEST(TrialProcesses, AnErrorItsReplayDoesNotRepeatKeepsItsMessage) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  ASSERT_NE(constructions_counted_across_processes(), MAP_FAILED);
  const duet::CheckResult r = fifth_throws_check<true>();
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "the fifth construction throws")) << r.report;
  EXPECT_TRUE(has(r.report, "searched again from its seed")) << r.report;
}

TEST(TrialProcesses, ItsIncrementIsFoundAndReplaysAsFound) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  const auto spec = duet::Lin<Store>("background_incr", "s").op("incr", [](Store& s) { return s.incr(); });
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const duet::CheckResult r = duet::expect_unsafe(spec, {.executor = duet::fibers()}, seeded(seed, 100));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  }
}

// A counter whose lock is one of eight, chosen by a hash of how many counters the process made
// before it and of its address (RocksDB's cache stripes, from its count of databases opened and
// its session ids), and whose increment reads under one hold of the lock and writes under
// another: which lock a call takes comes from every trial before it and from where the
// allocator put the subject.
class AddressStriped {
 public:
  AddressStriped() : made_before_(made_++) {}
  int incr() {
    int v = 0;
    {
      const std::lock_guard g(stripe());
      v = n_;
    }
    const std::lock_guard g(stripe());
    n_ = v + 1;
    return v + 1;
  }

 private:
  std::mutex& stripe() {
    static std::mutex stripes[8];
    return stripes[(made_before_ * 5 + (reinterpret_cast<std::uintptr_t>(this) >> 6)) % 8];
  }
  static inline int made_ = 0;
  int made_before_;
  int n_ = 0;
};

TEST(TrialProcesses, ALockChosenByWhatEarlierTrialsLeftIsFoundAndReplays) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  const auto spec = duet::Lin<AddressStriped>("address_striped", "c").op("incr", [](AddressStriped& c) { return c.incr(); });
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const duet::CheckResult r =
        duet::expect_unsafe(spec, {.executor = fibers(duet::TrialProcesses::always)}, seeded(seed, 100));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  }
}

// A counter whose increment takes a lock first when the process had made a multiple of three
// of them before it (a path chosen by a count of instances, as RocksDB's lock stripes are by the
// databases it opened), then reads and writes in two steps. By default the
// check's trials run in its process, each from the count the trials before it (and the
// oracle's counters) left, and so do the failing case's replays there: the failure does not
// come back, or comes back another way. The check then searches again from the clean child,
// each trial in a process of its own, all from the same count: that failure replays, the
// report says why each trial ran so, and its token says it too. With TrialProcesses::never the
// same seeds end with a failure that did not replay.
class CountedWarmUp {
 public:
  CountedWarmUp() : slow_(made_++ % 3 == 0) {}
  int incr() {
    if (slow_) {
      const std::lock_guard g(slow_path_);
    }
    const int v = n_.load();
    n_.store(v + 1);
    return v + 1;
  }
  int get() const { return n_.load(); }

 private:
  static inline int made_ = 0;
  const bool slow_;
  std::mutex slow_path_;
  std::atomic<int> n_{0};
};

duet::Lin<CountedWarmUp> counted_warm_up() {
  return duet::Lin<CountedWarmUp>("counted_warm_up", "c")
      .op("incr", [](CountedWarmUp& c) { return c.incr(); })
      .op("get", [](const CountedWarmUp& c) { return c.get(); });
}

// Run by the test below in a process of its own, with DUET_REPLAY set: a token replays from the
// process as a test binary starts.
TEST(TrialProcesses, DISABLED_CountedWarmUpReplayedInAFreshProcess) {
  const duet::CheckResult r = duet::check_parallel(counted_warm_up(), {.executor = duet::fibers()}, {.verbose = -1});
  std::printf("%s", r.report.c_str());
}

std::string this_binary() {
  char path[4096] = {};
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return n > 0 ? std::string(path, static_cast<std::size_t>(n)) : std::string();
}

TEST(TrialProcesses, AFailureThatDidNotReplayIsSearchedForAgainInTrialProcesses) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  const auto spec = counted_warm_up();
  int searched_again = 0, did_not_replay = 0;
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const duet::CheckResult r = duet::expect_unsafe(spec, {.executor = duet::fibers()}, seeded(seed, 100));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
    EXPECT_FALSE(has(r.report, "did not come back")) << r.report;
    searched_again += has(r.report, "searched again from its seed");
    // Its token runs each trial in a process of its own too, and replays in a fresh process as
    // it was found.
    if (seed == 1) {
      const duet_test::ChildRun fresh =
          duet_test::run_child_group("DUET_REPLAY=" + r.replay_token + " " + this_binary() +
                                         " --gtest_also_run_disabled_tests"
                                         " --gtest_filter=TrialProcesses.DISABLED_CountedWarmUpReplayedInAFreshProcess",
                                     300);
      EXPECT_TRUE(has(fresh.output, "DUET_REPLAY: failed as recorded")) << fresh.output;
      EXPECT_FALSE(has(fresh.output, "nondeterministic")) << fresh.output;
    }
    duet::Config replay = seeded(seed, 100);
    replay.replay = r.replay_token;
    const duet::CheckResult never =
        duet::expect_unsafe(spec, {.executor = fibers(duet::TrialProcesses::never)}, seeded(seed, 100));
    did_not_replay += has(never.report, "nondeterministic") || has(never.report, "did not come back");
    // A check that may not run its trials so says it cannot replay the token.
    const duet::CheckResult refused = duet::check_parallel(spec, {.executor = fibers(duet::TrialProcesses::never)}, replay);
    EXPECT_EQ(refused.status, duet::CheckResult::Status::error) << refused.report;
    EXPECT_TRUE(has(refused.report, "was recorded with each trial in a process of its own")) << refused.report;
  }
  EXPECT_GT(searched_again, 0);
  EXPECT_EQ(searched_again, did_not_replay);
}

TEST(TrialProcesses, AlwaysWithAnExhaustiveSearchIsAnError) {
  const duet::CheckResult r = duet::check_parallel(
      store_spec(), {.executor = fibers(duet::TrialProcesses::always, duet::exhaustive(1))}, seeded(1, 5));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "an exhaustive search keeps what it explored across the trials")) << r.report;
}

struct Crashes {
  int poke(int v) {
    if (v == 2) {
      volatile int* nowhere = nullptr;
      *nowhere = v;
    }
    return v;
  }
};

TEST(TrialProcesses, ACrashInATrialIsAFailureOfItsCase) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  const auto spec = duet::Lin<Crashes>("crashes", "c")
                        .op(
                            "poke", [](Crashes& c, int v) { return c.poke(v); }, duet::integers(1, 2));
  const duet::CheckResult r = duet::check_parallel(spec, {.executor = fibers(duet::TrialProcesses::always)}, seeded(1, 20));
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "the trial's own process was killed by signal 11")) << r.report;
}

}  // namespace
