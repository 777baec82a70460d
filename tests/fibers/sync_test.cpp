// The instrumented types inside fiber runs: what random schedules find (lost updates, deadlocks,
// livelocks, data races) and what they must not report (correct locks, spin locks, message
// passing, condition variables).
#include <gtest/gtest.h>

#include <duet/sync.hpp>

#include <memory>
#include <optional>
#include <string>

#include "fiber_support.hpp"

namespace {

using namespace duet::fibertest;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }
std::string here(int line) { return "sync_test.cpp:" + std::to_string(line); }

// ---- lost update ----

TEST(FiberSync, RacyCounterIsFoundAndItsDrawsReplayTheSameTrace) {
  fb::Scheduler s;
  duet::atomic<int> c{0};
  const auto incr = [&] {
    const int v = c.load();
    c.store(v + 1);
  };
  const Branches br = {incr, incr};
  std::vector<std::uint64_t> choices;
  std::uint64_t seed = 0;
  for (; seed < 300; ++seed) {
    c.store(0);
    const auto& r = run_seed(s, br, seed, &choices);
    ASSERT_EQ(r.outcome, fb::Outcome::completed);
    if (c.load() != 2) break;
  }
  ASSERT_LT(seed, 300u) << "the lost update was never scheduled";
  EXPECT_EQ(c.load(), 1);
  const std::string trace = joined(fb::format_trace(s.trace()));
  for (int i = 0; i < 3; ++i) {
    c.store(0);
    run_replay(s, br, choices);
    EXPECT_EQ(c.load(), 1);
    EXPECT_EQ(joined(fb::format_trace(s.trace())), trace);
  }
  // The failing interleaving, read from the trace: both loads see 0 before either store.
  int loads_before_first_store = 0;
  for (const auto& e : s.trace()) {
    if (e.event.op == fb::Op::store) break;
    loads_before_first_store += e.event.op == fb::Op::load;
  }
  EXPECT_EQ(loads_before_first_store, 2) << trace;
}

TEST(FiberSync, AtomicIncrementNeverLosesAnUpdate) {
  fb::Scheduler s;
  duet::atomic<int> c{0};
  const auto incr = [&] {
    c.fetch_add(1);
    ++c;
    c += 1;
  };
  const Branches br = {incr, incr, incr};
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    c.store(0);
    ASSERT_EQ(run_seed(s, br, seed).outcome, fb::Outcome::completed);
    ASSERT_EQ(c.load(), 9) << seed;
  }
}

// ---- deadlock ----

TEST(FiberSync, OppositeLockOrdersDeadlockNamingBothLocations) {
  fb::Scheduler s;
  duet::mutex a, b;
  int line0 = 0, line1 = 0;
  const Branches br = {[&] {
                         std::lock_guard ga(a);
                         line0 = __LINE__ + 1;
                         std::lock_guard gb(b);
                       },
                       [&] {
                         std::lock_guard gb(b);
                         line1 = __LINE__ + 1;
                         std::lock_guard ga(a);
                       }};
  int deadlocks = 0, completed = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const auto& r = run_seed(s, br, seed);
    if (r.outcome == fb::Outcome::completed) {
      ++completed;
      continue;
    }
    ASSERT_EQ(r.outcome, fb::Outcome::deadlock) << fb::describe(r, s.trace());
    ++deadlocks;
    ASSERT_EQ(r.blocked.size(), 2u);
    EXPECT_EQ(r.blocked[0].fiber, 0u);
    EXPECT_EQ(r.blocked[0].op.op, fb::Op::lock);
    EXPECT_EQ(static_cast<int>(r.blocked[0].op.loc.line()), line0);
    EXPECT_EQ(static_cast<int>(r.blocked[1].op.loc.line()), line1);
    const std::string d = fb::describe(r, s.trace());
    EXPECT_TRUE(contains(d, "fiber 0 blocked in lock mutex#") && contains(d, here(line0))) << d;
    EXPECT_TRUE(contains(d, "fiber 1 blocked in lock mutex#") && contains(d, here(line1))) << d;
  }
  EXPECT_GT(deadlocks, 10);
  EXPECT_GT(completed, 10);
}

TEST(FiberSync, AWaitNobodyEndsIsADeadlock) {
  fb::Scheduler s;
  duet::atomic<int> flag{0};
  duet::mutex m;
  duet::condition_variable cv;
  int wait_line = 0;
  const Branches br = {[&] {
                         wait_line = __LINE__ + 1;
                         flag.wait(0);
                       },
                       [&] {
                         std::unique_lock lk(m);
                         cv.wait(lk, [] { return false; });  // nobody notifies
                       }};
  const auto& r = run_seed(s, br, 5);
  ASSERT_EQ(r.outcome, fb::Outcome::deadlock);
  ASSERT_EQ(r.blocked.size(), 2u);
  EXPECT_EQ(r.blocked[0].op.op, fb::Op::wait);
  EXPECT_EQ(r.blocked[0].op.kind, fb::ObjectKind::atomic);
  EXPECT_EQ(static_cast<int>(r.blocked[0].op.loc.line()), wait_line);
  EXPECT_EQ(r.blocked[1].op.kind, fb::ObjectKind::condition_variable);
}

// ---- livelock and fairness ----

TEST(FiberSync, SpinningOnAFlagNobodySetsIsALivelock) {
  fb::Scheduler s(fb::SchedulerConfig{.max_steps = 2'000});
  duet::atomic<bool> flag{false};
  int spin_line = 0;
  const auto spin = [&] {
    spin_line = __LINE__ + 1;
    while (!flag.load()) {
    }
  };
  const auto& alone = run_seed(s, Branches{spin}, 1);
  ASSERT_EQ(alone.outcome, fb::Outcome::livelock);
  // The start, then one load per allowed switch point: the picker's 2,000, then as many on a
  // fair schedule (fair_phase.cpp).
  EXPECT_EQ(alone.steps, 2 * 2'000u + 1);
  const std::string d = fb::describe(alone, s.trace(), 5);
  EXPECT_TRUE(contains(d, "livelock or spin loop: 4001 steps without finishing, the last 2000 switch points on a fair "
                          "schedule (each runnable fiber in turn), so no fiber was merely starved; the last ones:"))
      << d;
  EXPECT_TRUE(contains(d, "load") && contains(d, "atomic#0") && contains(d, "= false") && contains(d, here(spin_line))) << d;
  // With company that yields: still nobody sets the flag.
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const auto& r = run_seed(s,
                             Branches{spin,
                                      [&] {
                                        while (!flag.load()) duet::yield();
                                      }},
                             seed);
    ASSERT_EQ(r.outcome, fb::Outcome::livelock) << fb::describe(r, s.trace());
  }
}

// Spin loops that wait for another fiber complete even when the picker never preempts (all
// draws 0): the spinner must let the others run, by duet::yield() or because it keeps seeing
// the same values. Without that, each of these runs would end as a livelock.
TEST(FiberSync, SpinWaitsCompleteUnderTheNeverPreemptingPicker) {
  fb::Scheduler s;
  duet::atomic<bool> flag{false};
  duet::atomic<int> word{0};
  const std::vector<std::pair<const char*, std::function<void()>>> spinners = {
      {"explicit yield",
       [&] {
         while (!flag.load()) duet::yield();
       }},
      {"repeated load",
       [&] {
         while (!flag.load()) {
         }
       }},
      {"loads of two objects",
       [&] {
         while (!flag.load()) word.load();
       }},
      {"failing CAS",
       [&] {
         bool expected = true;
         while (!flag.compare_exchange_strong(expected, false)) expected = true;
       }},
      {"exchange that changes nothing",
       [&] {
         while (!word.exchange(0)) {
         }
       }},
  };
  for (const auto& [name, spin] : spinners) {
    SCOPED_TRACE(name);
    flag.store(false);
    word.store(0);
    const Branches br = {spin, [&] {
                           flag.store(true);
                           word.store(1);
                         }};
    const auto& r = run_replay(s, br, {});
    EXPECT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
  }
  // Failing try_lock: fiber 0 holds the mutex until fiber 1 has raised the flag, fiber 1 then
  // spins on try_lock.
  duet::mutex m;
  flag.store(false);
  const Branches br = {[&] {
                         std::lock_guard g(m);
                         while (!flag.load()) {
                         }
                       },
                       [&] {
                         flag.store(true);
                         while (!m.try_lock()) {
                         }
                         m.unlock();
                       }};
  const auto& r = run_replay(s, br, {});
  EXPECT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
  int failed_try_locks = 0;
  for (const auto& e : s.trace()) failed_try_locks += e.event.op == fb::Op::try_lock_fail;
  EXPECT_GE(failed_try_locks, 2);
}

struct SpinLock {
  duet::atomic<bool> locked{false};
  void lock() {
    while (locked.exchange(true)) duet::yield();
  }
  void unlock() { locked.store(false); }
};

struct TtasLock {  // test-and-test-and-set without yield: relies on spin detection
  duet::atomic<bool> locked{false};
  void lock() {
    for (;;) {
      while (locked.load()) {
      }
      if (!locked.exchange(true)) return;
    }
  }
  void unlock() { locked.store(false); }
};

template <class Lock>
void spin_lock_is_never_reported(std::size_t runs) {
  fb::Scheduler s;
  Lock lock;
  duet::var<int> count{0};
  const auto body = [&] {
    for (int i = 0; i < 3; ++i) {
      lock.lock();
      count = count.get() + 1;
      lock.unlock();
    }
  };
  const Branches br = {body, body};
  std::size_t max_steps = 0;
  for (std::uint64_t seed = 0; seed < runs; ++seed) {
    count.set(0);
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << seed << "\n" << fb::describe(r, s.trace());
    ASSERT_EQ(count.get(), 6);
    max_steps = std::max(max_steps, r.steps);
  }
  EXPECT_LT(max_steps, s.config().max_steps / 4) << "fairness: spinning should stay far from the bound";
}

TEST(FiberSync, CorrectSpinLockWithYieldIsNeverReported) { spin_lock_is_never_reported<SpinLock>(2'000); }
TEST(FiberSync, CorrectTtasSpinLockWithoutYieldIsNeverReported) { spin_lock_is_never_reported<TtasLock>(2'000); }

// ---- data races ----

TEST(FiberSync, VarWrittenByTwoFibersWithoutALockIsADataRace) {
  fb::Scheduler s;
  duet::var<int> x{0};
  int line0 = 0, line1 = 0;
  const Branches br = {[&] {
                         line0 = __LINE__ + 1;
                         x = 1;
                       },
                       [&] {
                         line1 = __LINE__ + 1;
                         x.set(2);
                       }};
  for (std::uint64_t seed = 0; seed < 50; ++seed) {
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::data_race) << fb::describe(r, s.trace());
    const std::string d = fb::describe(r, s.trace());
    EXPECT_TRUE(contains(d, here(line0)) && contains(d, here(line1))) << d;
    EXPECT_TRUE(contains(d, "data race on var#")) << d;
    EXPECT_NE(r.race.first.fiber, r.race.second.fiber);
    EXPECT_EQ(r.race.first.op, fb::Op::write);
    EXPECT_EQ(r.race.second.op, fb::Op::write);
  }
}

TEST(FiberSync, VarUnderAMutexIsNeverARace) {
  fb::Scheduler s;
  duet::var<int> x{0};
  duet::mutex m;
  const auto body = [&] {
    std::lock_guard g(m);
    x = x.get() + 1;
  };
  const Branches br = {body, body, body};
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    x.set(0);
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    ASSERT_EQ(x.get(), 3);
  }
}

TEST(FiberSync, MessagePassingThroughAnAtomicOrdersTheVar) {
  fb::Scheduler s;
  duet::var<int> data{0};
  duet::atomic<bool> ready{false};
  bool checked = false;
  const auto publish = [&] {
    data = 42;
    ready.store(true);
  };
  const Branches safe = {publish, [&] {
                           if (ready.load()) checked = data.get() == 42;
                         }};
  const Branches racy = {publish, [&] {
                           ready.load();
                           data.get();
                         }};
  int races = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    ready.store(false);
    const auto& r = run_seed(s, safe, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    ready.store(false);
    races += run_seed(s, racy, seed).outcome == fb::Outcome::data_race;
  }
  EXPECT_TRUE(checked);
  EXPECT_GT(races, 10);
}

TEST(FiberSync, VarDestroyedWhileAnotherFiberReadsItIsARace) {
  fb::Scheduler s;
  // The var lives in storage that outlives it, so the read after the destruction touches
  // valid memory: the test is about the report, not about crashing.
  alignas(duet::var<int>) unsigned char storage[sizeof(duet::var<int>)];
  duet::var<int>* v = nullptr;
  const Branches br = {[&] { v->~var(); }, [&] { v->get(); }};
  bool read_then_destroy = false, destroy_then_read = false;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    v = new (storage) duet::var<int>(1);
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::data_race) << fb::describe(r, s.trace());
    if (r.race.second.op == fb::Op::destroy) {
      read_then_destroy = true;
      EXPECT_EQ(r.race.first.op, fb::Op::read);
    } else {
      destroy_then_read = true;
      EXPECT_EQ(r.race.first.op, fb::Op::destroy);
      EXPECT_EQ(static_cast<int>(r.race.first.loc.line()), 0) << "a destructor has no caller location";
    }
  }
  EXPECT_TRUE(read_then_destroy && destroy_then_read);
}

// ---- condition variables, atomic wait ----

struct Slot {  // a one-element queue
  duet::mutex m;
  duet::condition_variable not_empty, not_full;
  std::optional<int> item;
};

TEST(FiberSync, ConditionVariableProducerConsumerWorksWithSpuriousWakeUps) {
  fb::Scheduler s;
  Slot q;
  std::vector<int> got;
  const Branches br = {[&] {
                         for (int i = 1; i <= 4; ++i) {
                           std::unique_lock lk(q.m);
                           q.not_full.wait(lk, [&] { return !q.item; });
                           q.item = i;
                           q.not_empty.notify_one();
                         }
                       },
                       [&] {
                         for (int i = 1; i <= 4; ++i) {
                           std::unique_lock lk(q.m);
                           q.not_empty.wait(lk, [&] { return q.item.has_value(); });
                           got.push_back(*q.item);
                           q.item.reset();
                           q.not_full.notify_one();
                         }
                       }};
  int spurious = 0;
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    got.clear();
    q.item.reset();
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    ASSERT_EQ(got, (std::vector<int>{1, 2, 3, 4}));
    for (const auto& e : s.trace())
      spurious += e.event.op == fb::Op::wake && e.read.bits == static_cast<std::uint64_t>(fb::WakeReason::spurious);
  }
  EXPECT_GT(spurious, 0) << "spurious wake-ups must be drawn";
}

TEST(FiberSync, WaitingWithIfInsteadOfWhileIsCaughtBySpuriousWakeUps) {
  fb::Scheduler s;
  Slot q;
  bool consumed_nothing = false;
  const Branches br = {[&] {
                         std::lock_guard g(q.m);
                         q.item = 1;
                         q.not_empty.notify_one();
                       },
                       [&] {
                         std::unique_lock lk(q.m);
                         if (!q.item) q.not_empty.wait(lk);  // the bug: no re-check
                         if (!q.item) consumed_nothing = true;
                       }};
  std::uint64_t seed = 0;
  for (; seed < 500 && !consumed_nothing; ++seed) {
    q.item.reset();
    ASSERT_EQ(run_seed(s, br, seed).outcome, fb::Outcome::completed);
  }
  EXPECT_TRUE(consumed_nothing);
}

TEST(FiberSync, TimedWaitTimesOutOnlyWhenNobodyCanRun) {
  fb::Scheduler s;
  duet::mutex m;
  duet::condition_variable cv;
  duet::atomic<int> progress{0};
  std::cv_status status = std::cv_status::no_timeout;
  int progress_at_timeout = -1;
  const Branches br = {[&] {
                         std::unique_lock lk(m);
                         status = cv.wait_for(lk, std::chrono::hours(1));
                         progress_at_timeout = progress.load();
                       },
                       [&] {
                         for (int i = 0; i < 5; ++i) progress.fetch_add(1);
                       }};
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker never_spurious(src, 0);
  for (int i = 0; i < 50; ++i) {
    src.restart(static_cast<std::uint64_t>(i));
    progress.store(0);
    const auto& r = s.run(br, never_spurious);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    EXPECT_EQ(status, std::cv_status::timeout);
    EXPECT_EQ(progress_at_timeout, 5);
  }
}

TEST(FiberSync, AtomicWaitAndNotify) {
  fb::Scheduler s;
  duet::atomic<int> state{0};
  const Branches br = {[&] {
                         state.wait(0);
                         state.store(2);
                         state.notify_all();
                       },
                       [&] {
                         state.store(1);
                         state.notify_one();
                         state.wait(1);
                       }};
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    state.store(0);
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    ASSERT_EQ(state.load(), 2);
  }
}

// ---- other mutexes, misuse, memory orders ----

TEST(FiberSync, RecursiveAndSharedMutexes) {
  fb::Scheduler s;
  duet::recursive_mutex rm;
  duet::shared_mutex sm;
  duet::atomic<int> readers{0};
  int max_readers = 0;
  duet::var<int> data{0};
  const auto reader = [&] {
    std::shared_lock r(sm);
    max_readers = std::max(max_readers, readers.fetch_add(1) + 1);
    data.get();
    readers.fetch_sub(1);
  };
  const Branches br = {[&] {
                         std::lock_guard a(rm);
                         std::lock_guard b(rm);
                         std::lock_guard w(sm);
                         if (readers.load() != 0) throw std::logic_error("writer alongside readers");
                         data = data.get() + 1;
                       },
                       reader, reader};
  for (std::uint64_t seed = 0; seed < 500; ++seed) {
    const auto& r = run_seed(s, br, seed);
    ASSERT_EQ(r.outcome, fb::Outcome::completed) << fb::describe(r, s.trace());
    ASSERT_FALSE(r.fibers[0].error) << fb::describe(r, s.trace());
  }
  EXPECT_EQ(max_readers, 2) << "two readers must hold the shared_mutex together in some run";
}

TEST(FiberSync, UnlockingAMutexNotHeldIsMisuse) {
  fb::Scheduler s;
  duet::mutex m;
  int line = 0;
  const Branches br = {[&] {
    line = __LINE__ + 1;
    m.unlock();
  }};
  const auto& r = run_seed(s, br, 1);
  ASSERT_EQ(r.outcome, fb::Outcome::misuse);
  EXPECT_TRUE(contains(r.misuse, "unlock of a mutex that is not locked at " + here(line))) << r.misuse;
}

TEST(FiberSync, WeakMemoryOrdersRunAsSeqCstAndAreRemembered) {
  fb::Scheduler s;
  duet::atomic<int> a{0};
  int line = 0;
  const Branches seq = {[&] { a.store(1); }, [&] { a.load(); }};
  EXPECT_FALSE(run_seed(s, seq, 1).weak_order_used);
  const Branches weak = {[&] { a.store(1); },
                         [&] {
                           line = __LINE__ + 1;
                           a.load(std::memory_order_acquire);
                           a.load(std::memory_order_relaxed);
                         }};
  const auto& r = run_seed(s, weak, 1);
  ASSERT_TRUE(r.weak_order_used);
  EXPECT_EQ(static_cast<int>(r.weak_order_loc.line()), line);
  EXPECT_TRUE(contains(fb::describe(r, s.trace()), "this run executed every atomic operation as seq_cst"));
  bool shown = false;
  for (const auto& l : fb::format_trace(s.trace())) shown = shown || contains(l, "load(acquire)");
  EXPECT_TRUE(shown);
}

TEST(FiberSync, TraceLinesNameOperationObjectValueAndLocation) {
  fb::Scheduler s;
  duet::atomic<int> a{5};
  duet::mutex m;
  int line = 0;
  const Branches br = {[&] {
    std::lock_guard g(m);
    int expected = 5;
    line = __LINE__ + 1;
    a.compare_exchange_strong(expected, 6);
  }};
  run_replay(s, br, {});
  const auto lines = fb::format_trace(s.trace());
  const std::string all = joined(lines);
  EXPECT_TRUE(contains(all, "start")) << all;
  EXPECT_TRUE(contains(all, "lock")) << all;
  bool cas_line = false;
  for (const auto& l : lines)
    cas_line =
        cas_line || (contains(l, "cas") && contains(l, "atomic#") && contains(l, "5 -> 6") && contains(l, here(line)));
  EXPECT_TRUE(cas_line) << all;
  EXPECT_TRUE(contains(lines.back(), "exit")) << all;
}

}  // namespace
