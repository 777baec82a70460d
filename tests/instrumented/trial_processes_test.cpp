// Each trial in a process of its own (FiberOptions::trial_processes, src/execute/trial_process.cpp):
// a library's process-wide background thread (leveldb's and RocksDB's default Env) no longer
// makes a check an error, its store is checked, with duet::Lin's oracle running beside that
// thread, and its bug is found and replays; a lock chosen by a hash of an address (RocksDB's
// cache stripes) replays exactly, since every trial allocates from the same trial heap; what a
// trial's process cannot do (an exhaustive search across processes) is said, and a crash in a
// trial is a failure of its case, never of the check's process.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

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

// put() moves what it wrote to "disk" on the background thread; reads wait for nothing. The
// destructor waits for the move in flight. incr() is a read, then a write: two locked sections.
class Store {
 public:
  Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  ~Store() {
    std::unique_lock g(m_);
    idle_.wait(g, [&] { return !flushing_; });
  }
  void put(int v) {
    const std::lock_guard g(m_);
    memory_ = v;
    if (flushing_) return;
    flushing_ = true;
    Background::instance().schedule([this] { flush(); });
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

duet::Lin<Store> store_spec() {
  return duet::Lin<Store>("background_store", "s")
      .op(
          "put", [](Store& s, int v) { s.put(v); }, duet::integers(1, 3))
      .op("get", [](Store& s) { return s.get(); });
}

TEST(TrialProcesses, AStoreWithAProcessWideBackgroundThreadIsChecked) {
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(store_spec(), {.executor = duet::fibers(s)}, seeded(1, 30));
    EXPECT_TRUE(r) << s << "\n" << r.report;
    EXPECT_EQ(r.cases, 30U) << r.report;
  }
}

TEST(TrialProcesses, ItsIncrementIsFoundAndReplaysAsFound) {
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
  const auto spec = duet::Lin<AddressStriped>("address_striped", "c").op("incr", [](AddressStriped& c) { return c.incr(); });
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const duet::CheckResult r =
        duet::expect_unsafe(spec, {.executor = fibers(duet::TrialProcesses::always)}, seeded(seed, 100));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  }
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
  const auto spec = duet::Lin<Crashes>("crashes", "c")
                        .op(
                            "poke", [](Crashes& c, int v) { return c.poke(v); }, duet::integers(1, 2));
  const duet::CheckResult r = duet::check_parallel(spec, {.executor = fibers(duet::TrialProcesses::always)}, seeded(1, 20));
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "the trial's own process was killed by signal 11")) << r.report;
}

}  // namespace
