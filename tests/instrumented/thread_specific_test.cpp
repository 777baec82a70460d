// Thread-specific data on fibers: a key the subject makes (pthread_key_create, and so every
// library that keeps per-thread state behind one) has one value per fiber, null when the fiber
// starts, whatever the scheduling thread holds; the keys' destructors run when the fiber's
// function returns, as on a thread's exit; GoogleTest's keys stay the scheduling thread's.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <functional>
#include <memory>
#include <pthread.h>
#include <thread>
#include <utility>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "instrumented/checks.hpp"
#include "instrumented/flat_combining.hpp"

namespace {

namespace fb = duet::detail::fiber;
using instrumented_test::on_fibers;
using instrumented_test::seeded;

const fb::RunResult& run_fibers(fb::Scheduler& sched, const std::vector<std::function<void()>>& branches,
                                std::uint64_t seed) {
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  return sched.run(branches, picker);
}

std::atomic<int> g_step{0};
std::atomic<int> g_destroyed{0};

// A key of the subject's; the scheduling thread has a value of its own in it.
struct Key {
  pthread_key_t key{};
  int host_value = 7;
  explicit Key(void (*destructor)(void*) = nullptr) {
    pthread_key_create(&key, destructor);
    pthread_setspecific(key, &host_value);
  }
  ~Key() { pthread_key_delete(key); }
};

TEST(InstrumentedThreadSpecific, EachFiberStartsNullAndKeepsItsOwnValue) {
  Key k;
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    void* seen[2] = {&k, &k};
    void* after[2] = {nullptr, nullptr};
    int mine[2] = {0, 1};
    std::vector<std::function<void()>> branches;
    for (int i = 0; i < 2; ++i)
      branches.push_back([&, i] {
        seen[i] = pthread_getspecific(k.key);
        pthread_setspecific(k.key, &mine[i]);
        g_step.fetch_add(1);  // switch points: the other fiber runs and sets its own
        g_step.fetch_add(1);
        after[i] = pthread_getspecific(k.key);
      });
    const fb::RunResult& r = run_fibers(sched, branches, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace()) << "seed " << seed;
    for (int i = 0; i < 2; ++i) {
      EXPECT_EQ(seen[i], nullptr) << "fiber " << i << " started with the scheduling thread's value, seed " << seed;
      EXPECT_EQ(after[i], &mine[i]) << "fiber " << i << " saw another fiber's value, seed " << seed;
    }
    EXPECT_EQ(pthread_getspecific(k.key), &k.host_value) << "the run changed the scheduling thread's value";
  }
}

TEST(InstrumentedThreadSpecific, DestructorsRunWhenTheFiberEndsWithItsValue) {
  static std::atomic<void*> destroyed_value{nullptr};
  Key k([](void* v) {
    g_destroyed.fetch_add(1);
    destroyed_value.store(v);
  });
  fb::Scheduler sched;
  int value = 3;
  g_destroyed = 0;
  int during = -1;
  std::vector<std::function<void()>> branches{[&] {
    pthread_setspecific(k.key, &value);
    during = g_destroyed.load();
  }};
  ASSERT_EQ(run_fibers(sched, branches, 1).outcome, fb::Outcome::completed);
  EXPECT_EQ(during, 0);
  EXPECT_EQ(g_destroyed.load(), 1) << "the key's destructor did not run when the fiber's function returned";
  EXPECT_EQ(destroyed_value.load(), &value);
  EXPECT_EQ(pthread_getspecific(k.key), &k.host_value);  // the scheduling thread's is not destroyed
}

TEST(InstrumentedThreadSpecific, AThreadsDestructorsRunBeforeItsJoinReturns) {
  Key k([](void*) { g_destroyed.fetch_add(1); });
  fb::Scheduler sched;
  int value = 3;
  g_destroyed = 0;
  int after_join = -1;
  std::vector<std::function<void()>> branches{[&] {
    std::thread t([&] { pthread_setspecific(k.key, &value); });
    t.join();
    after_join = g_destroyed.load();
  }};
  ASSERT_EQ(run_fibers(sched, branches, 1).outcome, fb::Outcome::completed);
  EXPECT_EQ(after_join, 1);
}

TEST(InstrumentedThreadSpecific, AKeyMadeAgainStartsNull) {
  fb::Scheduler sched;
  void* seen = &sched;
  std::vector<std::function<void()>> branches{[&] {
    pthread_key_t a{};
    pthread_key_create(&a, nullptr);
    int v = 1;
    pthread_setspecific(a, &v);
    pthread_key_delete(a);
    pthread_key_t b{};
    pthread_key_create(&b, nullptr);  // glibc hands out the same number again
    seen = pthread_getspecific(b);
    pthread_key_delete(b);
  }};
  ASSERT_EQ(run_fibers(sched, branches, 1).outcome, fb::Outcome::completed);
  EXPECT_EQ(seen, nullptr);
}

// The records of a flat-combining counter behind a pthread key of the subject's own.
struct KeySlot {
  pthread_key_t key{};
  KeySlot() { pthread_key_create(&key, nullptr); }
  ~KeySlot() { pthread_key_delete(key); }
  KeySlot(const KeySlot&) = delete;
  KeySlot& operator=(const KeySlot&) = delete;
  instrumented_test::CombiningRecord* get() const {
    return static_cast<instrumented_test::CombiningRecord*>(pthread_getspecific(key));
  }
  void set(instrumented_test::CombiningRecord* r) const { pthread_setspecific(key, r); }
};
template <bool kCorrect>
duet::Lin<instrumented_test::FlatCombiningCounter<KeySlot, kCorrect>> flat_combining_spec() {
  return instrumented_test::flat_combining_lin<instrumented_test::FlatCombiningCounter<KeySlot, kCorrect>>(
      kCorrect ? "flat_combining" : "flat_combining_relaxed_result");
}

TEST(InstrumentedThreadSpecific, FlatCombiningWithPerThreadRecordsPasses) {
  const std::pair<duet::Schedule, std::uint64_t> strategies[] = {
      {duet::random(), 300}, {duet::pct(3), 300}, {duet::exhaustive(2), 10}};  // exhaustive: every schedule
  for (const auto& [schedule, programs] : strategies) {
    const duet::CheckResult r = duet::check_parallel(flat_combining_spec<true>(), on_fibers(schedule), seeded(1, programs));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

TEST(InstrumentedThreadSpecific, FlatCombiningRelaxedResultIsFound) {
  const duet::CheckResult r = duet::check_parallel(flat_combining_spec<false>(), on_fibers(), seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
}

// GoogleTest's own per-thread state stays the scheduling thread's: an assertion inside a call
// is the check's disagreement, not a failure of the test around it.
TEST(InstrumentedThreadSpecific, AnAssertionInsideACallOnAFiberIsCaptured) {
  auto lin = duet::Lin<int>("asserting", "x").op("check", [](int& x) {
    EXPECT_EQ(x, 1) << "asserted inside a call";
    return 0;
  });
  duet::Config config = seeded(1, 20);
  config.verbose = -1;
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), config);
  EXPECT_FALSE(r.passed());
  EXPECT_NE(r.report.find("asserted inside a call"), std::string::npos) << r.report;
}

}  // namespace
