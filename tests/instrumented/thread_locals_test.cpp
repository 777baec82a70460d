// Each fiber of a run is a thread of its own to instrumented code: its thread_local variables
// start at their initial values and are its own, pthread_self() and std::this_thread::get_id()
// tell fibers apart, a std::thread's id is the one it sees inside, and thread_local destructors
// run when the fiber's function returns (before a join returns). Where the platform has no
// per-fiber storage (anything but x86-64 with glibc) these tests skip and say so.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include "support/emulation.hpp"

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <pthread.h>
#include <unistd.h>
#include <string>
#include <thread>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/thread_locals.hpp"
#include "instrumented/checks.hpp"

namespace {

namespace fb = duet::detail::fiber;
using instrumented_test::on_fibers;
using instrumented_test::seeded;

#define DUET_NEED_FIBER_TLS() \
  if (!fb::fiber_tls::supported()) GTEST_SKIP() << "fibers share their thread's storage on this platform"

thread_local int t_value = 1;
std::atomic<int> g_turn{0};

// Runs `branches` on fresh fibers with seed `seed`; the run must complete.
const fb::RunResult& run_fibers(fb::Scheduler& sched, const std::vector<std::function<void()>>& branches,
                                std::uint64_t seed = 1) {
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  return sched.run(branches, picker);
}

TEST(InstrumentedThreadLocals, EachFiberHasItsOwnStartingAtTheInitialValue) {
  DUET_NEED_FIBER_TLS();
  t_value = 40;  // the scheduling thread's copy: no fiber sees or changes it
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    int seen[2] = {0, 0};
    int after[2] = {0, 0};
    std::vector<std::function<void()>> branches;
    for (int i = 0; i < 2; ++i)
      branches.push_back([i, &seen, &after] {
        seen[i] = t_value;
        t_value = 10 + i;
        g_turn.fetch_add(1);  // a switch point: the other fiber may run here
        g_turn.fetch_add(1);
        after[i] = t_value;
      });
    const fb::RunResult& r = run_fibers(sched, branches, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
    EXPECT_EQ(seen[0], 1);
    EXPECT_EQ(seen[1], 1);
    EXPECT_EQ(after[0], 10);
    EXPECT_EQ(after[1], 11);
  }
  EXPECT_EQ(t_value, 40);
}

TEST(InstrumentedThreadLocals, ThreadIdentityIsPerFiber) {
  DUET_NEED_FIBER_TLS();
  fb::Scheduler sched;
  std::thread::id ids[2];
  pthread_t selves[2];
  std::thread::id started_outside, started_inside;
  const std::vector<std::function<void()>> branches = {[&] {
                                                         ids[0] = std::this_thread::get_id();
                                                         selves[0] = pthread_self();
                                                         std::thread t([&] { started_inside = std::this_thread::get_id(); });
                                                         started_outside = t.get_id();
                                                         t.join();
                                                       },
                                                       [&] {
                                                         g_turn.fetch_add(1);
                                                         ids[1] = std::this_thread::get_id();
                                                         selves[1] = pthread_self();
                                                       }};
  const fb::RunResult& r = run_fibers(sched, branches);
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  EXPECT_NE(ids[0], ids[1]);
  EXPECT_NE(ids[0], std::this_thread::get_id());
  EXPECT_NE(ids[1], std::this_thread::get_id());
  EXPECT_FALSE(pthread_equal(selves[0], selves[1]));
  EXPECT_EQ(started_outside, started_inside);
  EXPECT_NE(started_inside, ids[0]);
  EXPECT_NE(started_inside, std::thread::id());
}

struct Counted {
  static inline std::atomic<int> destroyed{0};
  int value = 0;
  ~Counted() { destroyed.fetch_add(1); }
};
thread_local Counted t_counted;

TEST(InstrumentedThreadLocals, DestructorsRunWhenTheFiberEndsAndBeforeAJoinReturns) {
  DUET_NEED_FIBER_TLS();
  fb::Scheduler sched;
  Counted::destroyed = 0;
  int destroyed_at_join = -1;
  const std::vector<std::function<void()>> branches = {[&] { t_counted.value = 1; },
                                                       [&] {
                                                         std::thread t([] { t_counted.value = 2; });
                                                         t.join();
                                                         destroyed_at_join = Counted::destroyed.load();
                                                       },
                                                       [] { /* never touches it: nothing to destroy */ }};
  const fb::RunResult& r = run_fibers(sched, branches);
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  EXPECT_GE(destroyed_at_join, 1);  // the joined thread's, at least
  EXPECT_EQ(Counted::destroyed.load(), 2);
}

// pthread_exit in a thread the subject started: its frames unwind to the thread's start, its
// thread_locals are destroyed, and its join returns the value.
void* exit_early(void*) {
  t_counted.value = 3;
  pthread_exit(reinterpret_cast<void*>(42));
}

TEST(InstrumentedThreadLocals, PthreadExitEndsTheThreadAndItsJoinGetsTheValue) {
  DUET_NEED_FIBER_TLS();
  fb::Scheduler sched;
  Counted::destroyed = 0;
  void* value = nullptr;
  int join_result = -1;
  const std::vector<std::function<void()>> branches = {[&] {
    pthread_t t;
    pthread_create(&t, nullptr, exit_early, nullptr);
    join_result = pthread_join(t, &value);
  }};
  const fb::RunResult& r = run_fibers(sched, branches);
  ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  EXPECT_EQ(join_result, 0);
  EXPECT_EQ(value, reinterpret_cast<void*>(42));
  EXPECT_EQ(Counted::destroyed.load(), 1);
}

// A fiber's thread_local reached by another through a pointer is shared memory like any other:
// unsynchronised writes to it are a data race.
TEST(InstrumentedThreadLocals, AnotherFibersThreadLocalThroughAPointerIsCheckedForRaces) {
  DUET_NEED_FIBER_TLS();
  fb::Scheduler sched;
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 200 && !found; ++seed) {
    std::atomic<int*> shared{nullptr};
    const std::vector<std::function<void()>> branches = {[&] {
                                                           shared.store(&t_value);
                                                           t_value = 5;
                                                         },
                                                         [&] {
                                                           if (int* p = shared.load()) *p = 6;
                                                         }};
    const fb::RunResult& r = run_fibers(sched, branches, seed);
    found = r.outcome == fb::Outcome::data_race;
    if (!found) ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, sched.trace());
  }
  EXPECT_TRUE(found);
}

// Per-thread state reached through a thread_local pointer (oneTBB's scheduler data): each thread
// makes its own and changes it without a lock, correct on threads.
struct Scratch {
  long uses = 0;
};
thread_local Scratch* t_scratch = nullptr;
void use_scratch() {
  if (t_scratch == nullptr) t_scratch = new Scratch;  // kept for the thread's life, as a pool's is
  ++t_scratch->uses;
}
long g_unlocked = 0;

std::vector<std::function<void()>> two_fibers(void (*body)()) {
  return {[body] {
            body();
            body();
          },
          [body] {
            body();
            body();
          }};
}

// Where fibers share their thread's storage (every platform but x86-64; forced here), the
// fibers' "own" scratch is one: the race that follows is duet's, no verdict, naming where two
// fibers used one thread_local. A race on memory that threads do share is still a data race,
// and with storage of their own the scratch passes.
TEST(InstrumentedThreadLocals, ARaceThroughStorageFibersShareIsNoVerdictWhereTheyShareIt) {
  fb::SchedulerConfig sharing;
  sharing.share_thread_storage = true;
  fb::Scheduler shared(sharing);
  int limits = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    t_scratch = nullptr;
    const fb::RunResult& r = run_fibers(shared, two_fibers(use_scratch), seed);
    ASSERT_NE(r.outcome, fb::Outcome::data_race) << "seed " << seed << "\n" << fb::describe(r, shared.trace());
    if (r.outcome != fb::Outcome::limit) continue;
    ++limits;
    EXPECT_NE(r.limit.find("used one thread_local variable, which on real threads would be each thread's own"),
              std::string::npos)
        << r.limit;
  }
  EXPECT_GT(limits, 0);
  bool raced = false;
  for (std::uint64_t seed = 1; seed <= 30 && !raced; ++seed)
    raced = run_fibers(shared, two_fibers([] { ++g_unlocked; }), seed).outcome == fb::Outcome::data_race;
  EXPECT_TRUE(raced);
  if (!fb::fiber_tls::supported()) return;  // no storage of their own to compare with here
  fb::Scheduler own;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const fb::RunResult& r = run_fibers(own, two_fibers(use_scratch), seed);
    EXPECT_EQ(r.outcome, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(r, own.trace());
  }
}

// A lock that lets its owner in again, keyed on std::this_thread::get_id(): correct on threads.
// Were every fiber the same thread, a second fiber would walk in while the first holds it.
class ReentrantCounter {
 public:
  int add() {
    lock();
    lock();  // reentry, as a caller's callback would
    const int v = ++count_;
    unlock();
    unlock();
    return v;
  }

 private:
  void lock() {
    const std::thread::id me = std::this_thread::get_id();
    if (owner_.load() == me) {
      ++depth_;
      return;
    }
    std::thread::id none;
    while (!owner_.compare_exchange_weak(none, me)) {
      none = std::thread::id();
      std::this_thread::yield();
    }
    depth_ = 1;
  }
  void unlock() {
    if (--depth_ == 0) owner_.store(std::thread::id());
  }
  std::atomic<std::thread::id> owner_{};
  int depth_ = 0;
  int count_ = 0;
};

// The C library's own locks (taken inside it, where duet does not interpose) compare their
// owner with the thread's kernel id, which a fiber shares with the thread that runs it: strerror
// read-locks the locale lock, and with a fiber's id read as 0 its unlock took the writer's path,
// so the thread's next strerror hung (leveldb calls strerror for errors it ignores). In a child
// with a deadline: a hang ends it, not the suite.
TEST(InstrumentedThreadLocals, TheCLibrarysOwnLocksSeeTheThreadsKernelIdOnAFiber) {
  DUET_NEED_FIBER_TLS();
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(
      {
        alarm(10);
        fb::Scheduler sched;
        const fb::RunResult& r = run_fibers(sched, {[] { (void)strerror(ENOENT); }});
        if (r.outcome != fb::Outcome::completed) std::_Exit(1);
        (void)strerror(ENOENT);
        (void)strerror(EEXIST);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

// A fiber carries its thread's kernel id, so naming "its" thread (RocksDB names its pool
// threads) renamed the thread that runs the check. In a run the name is not kept; a name too
// long is refused as glibc refuses it.
TEST(InstrumentedThreadLocals, NamingAFibersThreadLeavesTheCheckingThreadsName) {
  char before[16] = {}, after[16] = {};
  ASSERT_EQ(pthread_getname_np(pthread_self(), before, sizeof before), 0);
  int named = -1, too_long = -1;
  fb::Scheduler sched;
  const fb::RunResult& r = run_fibers(sched, {[&] {
                                        named = pthread_setname_np(pthread_self(), "pool:low");
                                        too_long = pthread_setname_np(pthread_self(), "a-name-of-twenty-bytes");
                                      }});
  ASSERT_EQ(r.outcome, fb::Outcome::completed);
  EXPECT_EQ(named, 0);
  EXPECT_EQ(too_long, ERANGE);
  ASSERT_EQ(pthread_getname_np(pthread_self(), after, sizeof after), 0);
  EXPECT_STREQ(after, before);
}

TEST(InstrumentedThreadLocals, ALockKeyedOnTheThreadIdPasses) {
  DUET_NEED_FIBER_TLS();
  auto spec = duet::Lin<ReentrantCounter>("reentrant", "c").op("add", [](ReentrantCounter& c) { return c.add(); });
  const duet::CheckResult r = duet::check_parallel(spec, on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

// A recursion guard on a thread_local flag (as allocators and loggers keep, "am I inside
// already?"): correct when each thread has its own flag; were the fibers one thread, a second
// fiber would find the first one's flag up and take the reentrant path.
class GuardedCounter {
 public:
  int add() {
    if (t_inside) return -1;  // a reentrant call: refused
    t_inside = true;
    const int v = on_add_(*this);  // a callback, which might call add() again
    t_inside = false;
    return v;
  }

 private:
  static int bump(GuardedCounter& c) { return c.count_.fetch_add(1) + 1; }  // a switch point
  static inline thread_local bool t_inside = false;
  int (*volatile on_add_)(GuardedCounter&) = &bump;  // opaque: the flag's stores must stay
  std::atomic<int> count_{0};
};

TEST(InstrumentedThreadLocals, ARecursionGuardOnAThreadLocalPasses) {
  DUET_NEED_FIBER_TLS();
  auto spec = duet::Lin<GuardedCounter>("guarded", "c").op("add", [](GuardedCounter& c) { return c.add(); });
  const duet::CheckResult r = duet::check_parallel(spec, on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

// GoogleTest intercepts EXPECT_* per thread: a fiber with storage of its own starts with the
// scheduling thread's thread-specific values, so the check sees its calls' assertions too.
struct AssertingCounter {
  std::atomic<int> n{0};
  int add() {
    const int v = n.fetch_add(1) + 1;
    EXPECT_LE(v, 2) << "the third add";
    return v;
  }
};

TEST(InstrumentedThreadLocals, AnExpectInsideACallFailsTheCheck) {
  DUET_NEED_FIBER_TLS();
  auto spec = duet::Lin<AssertingCounter>("asserting", "c").op("add", [](AssertingCounter& c) { return c.add(); });
  const duet::CheckResult r = duet::check_parallel(spec, instrumented_test::every_call_on_a_fiber(), seeded(1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("the third add"), std::string::npos) << r.report;
  EXPECT_EQ(r.failing_length, 3u) << r.report;
}

}  // namespace
