// Calls into a library that was not compiled through duet_instrument (a shared object whose
// atomics duet cannot see) are black boxes that synchronise: data handed over through the
// library is ordered as the library orders it, so no race is reported around it; a real race
// around the calls is still found; the calls' arguments, results and exceptions pass through
// unchanged; and a check says which libraries ran uninstrumented.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/source.hpp>

#include <gtest/gtest.h>

#include "support/shared_inline.hpp"
#include "support/emulation.hpp"

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <sched.h>
#include <string>
#include <vector>

#include "execute/fibers/scheduler.hpp"
#include "instrumented/checks.hpp"

extern "C" {
void handoff_publish(void* p);
void* handoff_take();
void* handoff_swap(void* p);
double handoff_mix(long a, long b, long c, long d, long e, long f, long g, long h, double x, double y, long i);
void handoff_throw(int v);
long handoff_calls();
int handoff_reclaim(std::atomic<void*>* hazard, void* node, void (*dispose)(void*));
void mailbox_reset();
void mailbox_put(long v, bool relaxed);
long mailbox_get();
void handoff_gate_lock(int* gate);
void handoff_gate_unlock(int* gate);
void handoff_gate_lock_when(int* gate, int (*condition)(void*), void* arg);
void handoff_pool_submit(void (*task)(void*), void* arg);
void handoff_pool_wait();
void handoff_pool_stop();
shared_inline::Counter* handoff_make_counter();
long handoff_next_id();
}

namespace {

namespace fb = duet::detail::fiber;

#if defined(__x86_64__) && defined(__GLIBC__)
#define DUET_NEED_WRAPPED_CALLS()
#else
#define DUET_NEED_WRAPPED_CALLS() GTEST_SKIP() << "calls into uninstrumented libraries are seen on x86-64 with glibc only"
#endif

struct Data {
  long x = 0;
};

// One fiber fills a node and hands it over through the library; the other takes it and reads it.
// `write_after`: the node is written after it was handed over (a real race).
fb::Outcome handoff(std::uint64_t seed, bool write_after, fb::Scheduler& sched) {
  Data* d = new Data;
  long seen = -1;
  const std::vector<std::function<void()>> branches{[d, write_after] {
                                                      if (!write_after) d->x = 42;
                                                      handoff_publish(d);
                                                      if (write_after) d->x = 42;
                                                    },
                                                    [&seen] {
                                                      void* p = nullptr;
                                                      while ((p = handoff_take()) == nullptr) sched_yield();
                                                      seen = static_cast<Data*>(p)->x;
                                                    }};
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  const fb::RunResult& r = sched.run(branches, picker);
  if (r.outcome == fb::Outcome::completed) {
    EXPECT_EQ(seen, 42);
    delete d;
  }
  return r.outcome;
}

TEST(InstrumentedUninstrumented, DataHandedOverThroughTheLibraryIsNoRace) {
  DUET_NEED_WRAPPED_CALLS();
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const fb::Outcome o = handoff(seed, false, sched);
    ASSERT_EQ(o, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(sched.result(), sched.trace());
    const auto& libs = sched.result().libraries;
    ASSERT_EQ(libs.size(), 1u);
    EXPECT_EQ(std::string(libs[0]), "libduet_test_uninstrumented.so");
  }
}

// The library calls back the caller's condition inside lock_when (absl::Mutex::LockWhen's
// shape): while it is false the library releases its lock and waits on a futex, with atomics
// duet cannot see. The condition's read of `x` comes after the call's entry, and the fiber that
// takes the lock next writes `x`: the library orders them, and the wait inside the call must
// release what the fiber did before it (it was reported as a data race, a false alarm).
// `unlocked_write`: the writer writes outside the lock (a real race, still found).
fb::Outcome lock_when(std::uint64_t seed, bool unlocked_write, fb::Scheduler& sched) {
  struct Shared {
    int gate[2] = {0, 0};
    int x = 0;
    int seen = 0;
  };
  static Shared s;
  s = Shared{};
  const std::vector<std::function<void()>> branches{[] {
                                                      handoff_gate_lock_when(
                                                          s.gate, [](void* p) { return static_cast<Shared*>(p)->x; }, &s);
                                                      s.seen = s.x;
                                                      handoff_gate_unlock(s.gate);
                                                    },
                                                    [unlocked_write] {
                                                      if (unlocked_write) s.x = 1;
                                                      handoff_gate_lock(s.gate);
                                                      if (!unlocked_write) s.x = 1;
                                                      handoff_gate_unlock(s.gate);
                                                    }};
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  const fb::RunResult& r = sched.run(branches, picker);
  if (r.outcome == fb::Outcome::completed) EXPECT_EQ(s.seen, 1);
  return r.outcome;
}

TEST(InstrumentedUninstrumented, ACallbackRunInsideALibraryWaitIsOrderedByTheLibrary) {
  DUET_NEED_WRAPPED_CALLS();
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    const fb::Outcome o = lock_when(seed, false, sched);
    ASSERT_EQ(o, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(sched.result(), sched.trace());
  }
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 60 && !found; ++seed) found = lock_when(seed, true, sched) == fb::Outcome::data_race;
  EXPECT_TRUE(found) << "the write outside the lock races with the condition's read";
}

// A worker the library starts runs the library's code from its first step: its polls (a
// sched_yield each) acquire what the run released, as calls into the library do, so a task the
// caller prepared before submitting it reads it ordered (a false alarm before). A write after
// the submit still races with the task's read.
fb::Outcome pooled_task(std::uint64_t seed, bool write_after_submit, fb::Scheduler& sched) {
  static Data d;
  static long seen = 0;
  d.x = 0;
  seen = 0;
  const std::vector<std::function<void()>> branches{[write_after_submit] {
    handoff_pool_submit([](void*) {}, nullptr);  // starts the worker
    handoff_pool_wait();
    if (!write_after_submit) d.x = 42;
    handoff_pool_submit([](void*) { seen = d.x; }, nullptr);
    if (write_after_submit) d.x = 42;
    handoff_pool_wait();
    handoff_pool_stop();
  }};
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  const fb::RunResult& r = sched.run(branches, picker);
  if (r.outcome == fb::Outcome::completed) EXPECT_EQ(seen, 42);
  return r.outcome;
}

TEST(InstrumentedUninstrumented, ATaskALibrarysOwnWorkerRunsIsOrderedAfterItsSubmission) {
  DUET_NEED_WRAPPED_CALLS();
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const fb::Outcome o = pooled_task(seed, false, sched);
    ASSERT_EQ(o, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(sched.result(), sched.trace());
  }
  bool found = false;
  for (std::uint64_t seed = 1; seed <= 60 && !found; ++seed)
    found = pooled_task(seed, true, sched) == fb::Outcome::data_race;
  EXPECT_TRUE(found) << "the write after the submit races with the task's read";
}

// Hazard-pointer reclamation with the scan in the library (as libcds's is, in libcds.so): a
// reader protects the current node, checks that it is still current, reads it and clears its
// hazard; a writer replaces the node and asks the library to dispose of the old one, which the
// library does only if no hazard protects it. The reader's read is ordered before the disposal
// by its hazard's release, which only the library's invisible load reads: without the call's
// acquiring what the run released, that read and the free were reported as a data race.
fb::Outcome hazard_reclamation(std::uint64_t seed, fb::Scheduler& sched) {
  static std::atomic<Data*> current{nullptr};
  static std::atomic<void*> hazard{nullptr};
  current.store(new Data{7});
  hazard.store(nullptr);
  const std::vector<std::function<void()>> branches{[] {
                                                      Data* p = current.load();
                                                      hazard.store(p);
                                                      while (current.load() != p) hazard.store(p = current.load());
                                                      const long x = p->x;
                                                      hazard.store(nullptr, std::memory_order_release);
                                                      EXPECT_EQ(x, 7);
                                                    },
                                                    [] {
                                                      Data* old = current.exchange(new Data{7});
                                                      handoff_reclaim(&hazard, old,
                                                                      [](void* n) { delete static_cast<Data*>(n); });
                                                    }};
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  return sched.run(branches, picker).outcome;
}

// RocksDB's DB::Put is a virtual call into librocksdb (no procedure-linkage stub marks it),
// whose internals call std::string's inline members: they resolved to the test executable's
// instrumented copies, so the library's own accesses were checked as the subject's while its
// lock stayed invisible, a false data race between two writers. The library's slots now call
// its own copies; the executable's code keeps its instrumented one.
TEST(InstrumentedUninstrumented, InlineCodeALibraryCallsRunsAsTheLibrarysOwn) {
  DUET_NEED_WRAPPED_CALLS();
  shared_inline::Tally mine;
  shared_inline::tally_add(mine);  // the executable's own copy, as a user's code calls it
  EXPECT_EQ(mine.n, 1);
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    shared_inline::Counter* c = handoff_make_counter();
    const std::vector<std::function<void()>> branches{[c] {
                                                        c->add();
                                                        c->add();
                                                      },
                                                      [c] { c->add(); }};
    duet::Source src = duet::Source::from_seed(seed);
    fb::RandomPicker picker(src);
    const fb::Outcome o = sched.run(branches, picker).outcome;
    EXPECT_EQ(o, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(sched.result(), sched.trace());
    if (o == fb::Outcome::completed) EXPECT_EQ(c->get(), 3);
    delete c;
  }
}

// RocksDB counts the databases the process opened and hashes the count into which lock stripe
// a cache entry takes; a test cannot reset a library's globals. A lost update found beside it
// was "nondeterministic": its replay, later in the same process, took other stripes (the
// same step reached another mutex). The replays now run in processes forked before the check's
// first case, each from the process as the check found it; with TrialProcesses::always, each
// trial runs in a process of its own (execute/trial_process.hpp), all from the same state.
struct StripedCounter {
  std::mutex stripes[2];
  long id = handoff_next_id();
  std::atomic<int> n{0};
  int incr() {
    for (const long k : {id % 2, id / 2 % 2}) {  // one stripe twice, or both: as the count says
      const std::lock_guard hold(stripes[k]);
    }
    const int v = n.load();
    n.store(v + 1);
    return v + 1;
  }
};

TEST(InstrumentedUninstrumented, AFailureBesideALibrarysGlobalsReplaysFromTheProcessAsTheCheckFoundIt) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  DUET_NEED_WRAPPED_CALLS();
  const auto spec = duet::Lin<StripedCounter>("striped", "c").op("incr", [](StripedCounter& c) { return c.incr(); });
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const duet::CheckResult r = duet::expect_unsafe(spec, {.executor = duet::fibers()}, {.seed = seed, .verbose = -1});
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_EQ(r.report.find("nondeterministic"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("a\n  fresh one for each case that called them"), std::string::npos) << r.report;
  }
  // Each trial in a process of its own: the same counterexample, every trial from the same state.
  const auto own = duet::fibers(duet::random(), {.trial_processes = duet::TrialProcesses::always});
  const duet::CheckResult alone = duet::expect_unsafe(spec, {.executor = own}, {.seed = 1, .verbose = -1});
  ASSERT_TRUE(alone.passed()) << alone.report;
  EXPECT_EQ(alone.report.find("nondeterministic"), std::string::npos) << alone.report;
  EXPECT_NE(alone.report.find("each trial ran in a process of its own (FiberOptions::trial_processes)"), std::string::npos)
      << alone.report;
}

TEST(InstrumentedUninstrumented, WhatTheLibraryReadsOfTheRunsAtomicsOrdersWhatItDoesAfter) {
  DUET_NEED_WRAPPED_CALLS();
  fb::Scheduler sched;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const fb::Outcome o = hazard_reclamation(seed, sched);
    ASSERT_EQ(o, fb::Outcome::completed) << "seed " << seed << "\n" << fb::describe(sched.result(), sched.trace());
  }
}

TEST(InstrumentedUninstrumented, ARaceAroundTheCallsIsStillFound) {
  DUET_NEED_WRAPPED_CALLS();
  fb::Scheduler sched;
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) found += handoff(seed, true, sched) == fb::Outcome::data_race;
  EXPECT_GT(found, 0) << "the write after the hand-over was never reported";
}

TEST(InstrumentedUninstrumented, ArgumentsResultsAndExceptionsPassThrough) {
  DUET_NEED_WRAPPED_CALLS();
  auto call = [] { return handoff_mix(1, 2, 3, 4, 5, 6, 7, 8, 1.5, 2.0, 9); };
  EXPECT_EQ(call(), 1 + 4 + 9 + 16 + 25 + 36 + 49 + 64 + 81 + 3.0);
  bool caught = false;
  try {
    handoff_throw(7);
  } catch (int v) {
    caught = v == 7;
  }
  EXPECT_TRUE(caught);
  fb::Scheduler sched;
  double in_run = 0;
  bool caught_in_run = false;
  const std::vector<std::function<void()>> branches{[&] {
    in_run = call();
    try {
      handoff_throw(3);
    } catch (int v) {
      caught_in_run = v == 3;
    }
  }};
  duet::Source src = duet::Source::from_seed(1);
  fb::RandomPicker picker(src);
  ASSERT_EQ(sched.run(branches, picker).outcome, fb::Outcome::completed);
  EXPECT_EQ(in_run, call());
  EXPECT_TRUE(caught_in_run);
  bool library_steps = false;
  for (const std::string& line : fb::format_trace(sched.trace()))
    library_steps |= line.find("library#") != std::string::npos;
  EXPECT_TRUE(library_steps) << "the calls were not steps of the run";
}

// A subject whose state lives in the library: each swap hands a new node over and takes the
// previous one, whose value it returns.
class LibrarySlot {
 public:
  LibrarySlot() {
    while (void* p = handoff_take()) delete static_cast<Data*>(p);
  }
  std::optional<int> swap(int v) {
    Data* d = new Data;
    d->x = v;
    Data* old = static_cast<Data*>(handoff_swap(d));
    if (old == nullptr) return std::nullopt;
    const int was = static_cast<int>(old->x);
    delete old;
    return was;
  }
};

TEST(InstrumentedUninstrumented, APassSaysWhichLibrariesRanUninstrumented) {
  DUET_NEED_WRAPPED_CALLS();
  auto lin = duet::Lin<LibrarySlot>("library_slot", "s")
                 .op(
                     "swap", [](LibrarySlot& s, int v) { return s.swap(v); }, duet::integers(1, 3));
  testing::internal::CaptureStdout();
  const duet::CheckResult r = duet::check_parallel(lin, instrumented_test::on_fibers(), instrumented_test::seeded(1, 50));
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("libduet_test_uninstrumented.so ran uninstrumented"), std::string::npos) << r.coverage;
  EXPECT_NE(out.find("ran uninstrumented"), std::string::npos) << out;
}

// A library built from its sources through duet_instrument (one line in CMake) is checked like
// the test's own code: its steps are at its lines, and its planted bug is found.
fb::Outcome mailbox_run(std::uint64_t seed, bool relaxed, fb::Scheduler& sched) {
  mailbox_reset();
  long seen = -1;
  const std::vector<std::function<void()>> branches{[relaxed] { mailbox_put(42, relaxed); },
                                                    [&seen] { seen = mailbox_get(); }};
  duet::Source src = duet::Source::from_seed(seed);
  fb::RandomPicker picker(src);
  const fb::RunResult& r = sched.run(branches, picker);
  if (r.outcome == fb::Outcome::completed) EXPECT_EQ(seen, 42);
  return r.outcome;
}

TEST(InstrumentedUninstrumented, ALibraryBuiltThroughDuetInstrumentIsChecked) {
  fb::Scheduler sched(fb::SchedulerConfig{.cpp_memory_model = true});
  for (std::uint64_t seed = 1; seed <= 20; ++seed)
    ASSERT_EQ(mailbox_run(seed, false, sched), fb::Outcome::completed) << fb::describe(sched.result(), sched.trace());
  std::string trace;
  for (const std::string& line : fb::format_trace(sched.trace())) trace += line + "\n";
  EXPECT_NE(trace.find("mailbox_library.cpp"), std::string::npos) << trace;
  EXPECT_TRUE(sched.result().libraries.empty()) << sched.result().libraries.front();
  int found = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) found += mailbox_run(seed, true, sched) == fb::Outcome::data_race;
  EXPECT_GT(found, 0) << "the relaxed publication inside the library was never reported";
}

}  // namespace
