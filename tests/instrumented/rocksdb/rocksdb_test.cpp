// RocksDB, a large real library, on fibers as a user writes a store over it: Debian's
// librocksdb, not instrumented (its calls are black boxes that synchronise), its default Env
// (pools and a timer thread that live as long as the process, started at the first DB::Open),
// or an Env whose pool the store owns. The test code is compiled through duet_instrument. What
// it shows: a correct store passes beside the library's process-wide threads (each trial runs
// in a process of its own); a get-then-put increment is found, shrunk and replays; with the
// store's own pool, where a failure met after earlier trials does not replay (the library's
// one-time initialisation and its count of databases), the check searches again and the
// failure replays. Built only where librocksdb-dev is installed (make test installs it).
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#ifndef DUET_SKIP_ROCKSDB
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <stdexcept>
#include <system_error>

#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/threadpool.h>
#endif

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

#ifdef DUET_SKIP_ROCKSDB
TEST(RocksDb, Skipped) { GTEST_SKIP() << DUET_SKIP_ROCKSDB; }
#else

// An Env whose background work runs on a pool the store owns and joins when it closes: no thread
// outlives the store, but the library's globals (Env::Default(), its count of databases) still
// outlive each trial.
class OwnPoolEnv : public rocksdb::EnvWrapper {
 public:
  OwnPoolEnv() : rocksdb::EnvWrapper(rocksdb::Env::Default()), pool_(rocksdb::NewThreadPool(1)) {}
  ~OwnPoolEnv() override { pool_->WaitForJobsAndJoinAllThreads(); }
  const char* Name() const override { return "OwnPoolEnv"; }
  void Schedule(void (*job)(void*), void* arg, Priority, void* = nullptr, void (*)(void*) = nullptr) override {
    pool_->SubmitJob([job, arg] { job(arg); });
  }
  int UnSchedule(void*, Priority) override { return 0; }
  unsigned int GetThreadPoolQueueLen(Priority) const override { return pool_->GetQueueLen(); }
  void SetBackgroundThreads(int, Priority) override {}
  int GetBackgroundThreads(Priority) override { return 1; }
  void IncBackgroundThreadsIfNeeded(int, Priority) override {}

 private:
  std::unique_ptr<rocksdb::ThreadPool> pool_;
};

// A store of small integers in a database of its own, in a fresh directory.
template <bool OwnPool>
class Store {
 public:
  Store() {
    char name[] = "/tmp/duet_rocksdb_XXXXXX";
    if (::mkdtemp(name) == nullptr) throw std::runtime_error("mkdtemp");
    dir_ = name;
    rocksdb::Options options;
    options.create_if_missing = true;
    options.max_background_jobs = 1;
    if (OwnPool) {
      env_ = std::make_unique<OwnPoolEnv>();
      options.env = env_.get();
    }
    const rocksdb::Status s = rocksdb::DB::Open(options, dir_, &db_);
    if (!s.ok()) throw std::runtime_error(s.ToString());
  }
  ~Store() {
    db_->Close();
    delete db_;
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  void put(int key, int value) { db_->Put(rocksdb::WriteOptions(), std::to_string(key), std::to_string(value)); }
  std::optional<int> get(int key) {
    std::string value;
    if (!db_->Get(rocksdb::ReadOptions(), std::to_string(key), &value).ok()) return std::nullopt;
    return std::stoi(value);
  }
  // The bug: a get, then a put.
  int increment(int key) {
    const int next = get(key).value_or(0) + 1;
    put(key, next);
    return next;
  }

 private:
  std::string dir_;
  std::unique_ptr<rocksdb::Env> env_;
  rocksdb::DB* db_ = nullptr;
};

template <bool OwnPool>
duet::Lin<Store<OwnPool> > puts_and_gets() {
  return duet::Lin<Store<OwnPool> >("rocksdb_puts_and_gets", "s")
      .op(
          "put", [](Store<OwnPool>& s, int k, int v) { s.put(k, v); }, duet::integers(0, 1), duet::integers(0, 3))
      .op(
          "get", [](Store<OwnPool>& s, int k) { return s.get(k); }, duet::integers(0, 1));
}

template <bool OwnPool>
duet::Lin<Store<OwnPool> > increments() {
  return duet::Lin<Store<OwnPool> >("rocksdb_increments", "s")
      .op(
          "increment", [](Store<OwnPool>& s, int k) { return s.increment(k); }, duet::integers(0, 1));
}

duet::Config seeded(std::uint64_t seed, std::uint64_t count) {
  return {.seed = seed, .count = count, .shrink_time = 10, .verbose = -1};
}

TEST(RocksDb, PutsAndGetsBesideItsDefaultEnvsProcessWideThreadsPass) {
  const duet::CheckResult r = duet::check_parallel(puts_and_gets<false>(), {.executor = duet::fibers()}, seeded(1, 4));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(RocksDb, AGetThenPutIncrementIsFoundShrunkAndReplays) {
  const duet::CheckResult r = duet::expect_unsafe(increments<false>(), {.executor = duet::fibers()}, seeded(2, 60));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "(its first trial left a thread")) << r.report;
}

TEST(RocksDb, WithAPoolTheStoreOwnsAFailureThatDidNotReplayIsSearchedForAgain) {
  const duet::CheckResult r = duet::expect_unsafe(increments<true>(), {.executor = duet::fibers()}, seeded(3, 60));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "searched again from its seed")) << r.report;
}

#endif

}  // namespace
