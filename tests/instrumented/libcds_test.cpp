// libcds (Debian's libcds-dev): a large library of concurrent containers whose runtime is a
// shared object (libcds.so: the hazard-pointer collectors' scans, the per-thread records, which
// it recycles with their counters), with per-thread attach and detach, on the fiber scheduler,
// as a user would write the checks: queues, stacks, flat-combining containers, ordered lists,
// hash sets and a skip list over the HP and DHP collectors pass with random, PCT and exhaustive
// schedules, and a check-then-act bug written on top of a queue is found.
#include <duet/gtest_glue.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include <optional>
#include <string>

#if DUET_HAVE_LIBCDS
#include <cds/container/basket_queue.h>
#include <cds/container/fcqueue.h>
#include <cds/container/fcstack.h>
#include <cds/container/michael_list_dhp.h>
#include <cds/container/michael_list_hp.h>
#include <cds/container/michael_set.h>
#include <cds/container/moir_queue.h>
#include <cds/container/msqueue.h>
#include <cds/container/optimistic_queue.h>
#include <cds/container/rwqueue.h>
#include <cds/container/skip_list_set_hp.h>
#include <cds/container/split_list_set.h>
#include <cds/container/treiber_stack.h>
#include <cds/container/vyukov_mpmc_cycle_queue.h>
#include <cds/gc/dhp.h>
#include <cds/gc/hp.h>
#include <cds/init.h>
#endif

#include "instrumented/checks.hpp"

namespace {

#if !DUET_HAVE_LIBCDS
#ifndef DUET_SKIP_LIBCDS  // a build that did not look for libcds (the arm64 header check)
#define DUET_SKIP_LIBCDS "libcds was not looked for in this build"
#endif
TEST(InstrumentedLibcds, Skipped) { GTEST_SKIP() << DUET_SKIP_LIBCDS; }
#else

using instrumented_test::seeded;

using instrumented_test::kCallsSeen;

// libcds wants cds::Initialize, one hazard-pointer collector, and every thread attached.
struct CdsRuntime {
  CdsRuntime() {
    cds::Initialize();
    hp = new cds::gc::HP(80);  // the skip list needs 2 per level (32) and 3 more; the default is 8
    dhp = new cds::gc::DHP;
    cds::threading::Manager::attachThread();
  }
  cds::gc::HP* hp = nullptr;
  cds::gc::DHP* dhp = nullptr;
};
void cds_runtime() { static CdsRuntime runtime; }

duet::ParallelConfig on_fibers(duet::Schedule schedule = duet::random(), duet::MemoryModel model = duet::MemoryModel::cpp) {
  cds_runtime();
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule, {.memory_model = model,
                                        .on_fiber_start = [] { cds::threading::Manager::attachThread(); },
                                        .on_fiber_stop = [] { cds::threading::Manager::detachThread(); }});
  return pc;
}

template <class Q>
duet::Lin<Q> queue(const char* name) {
  return duet::Lin<Q>(name, "q")
      .op(
          "push", [](Q& q, int v) { return q.push(v); }, duet::integers(0, 9))
      .op("pop", [](Q& q) {
        int v = 0;
        return q.pop(v) ? std::optional<int>(v) : std::nullopt;
      });
}

template <class S>
duet::Lin<S> stack(const char* name) {
  return duet::Lin<S>(name, "s")
      .op(
          "push", [](S& s, int v) { return s.push(v); }, duet::integers(0, 9))
      .op("pop", [](S& s) {
        int v = 0;
        return s.pop(v) ? std::optional<int>(v) : std::nullopt;
      });
}

template <class T>
void passes(const duet::Lin<T>& lin, duet::Schedule schedule, std::uint64_t programs = 300) {
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(schedule), seeded(1, programs));
  EXPECT_TRUE(r.passed()) << r.report;
  if (kCallsSeen) EXPECT_NE(r.coverage.find("libcds.so"), std::string::npos) << r.coverage;
}

using MSQueue = cds::container::MSQueue<cds::gc::HP, int>;
using Treiber = cds::container::TreiberStack<cds::gc::HP, int>;
using FCQueue = cds::container::FCQueue<int>;
using FCStack = cds::container::FCStack<int>;

TEST(InstrumentedLibcds, MSQueueRandom) { passes(queue<MSQueue>("cds_msqueue"), duet::random()); }
TEST(InstrumentedLibcds, MSQueuePct) { passes(queue<MSQueue>("cds_msqueue"), duet::pct(3)); }
TEST(InstrumentedLibcds, MSQueueExhaustive) { passes(queue<MSQueue>("cds_msqueue"), duet::exhaustive(2), 3); }
TEST(InstrumentedLibcds, TreiberRandom) { passes(stack<Treiber>("cds_treiber"), duet::random()); }
TEST(InstrumentedLibcds, TreiberPct) { passes(stack<Treiber>("cds_treiber"), duet::pct(3)); }
TEST(InstrumentedLibcds, FCQueueRandom) { passes(queue<FCQueue>("cds_fcqueue"), duet::random()); }
TEST(InstrumentedLibcds, FCQueuePct) { passes(queue<FCQueue>("cds_fcqueue"), duet::pct(3)); }
TEST(InstrumentedLibcds, FCStackRandom) { passes(stack<FCStack>("cds_fcstack"), duet::random()); }

template <class S>
duet::Lin<S> set(const char* name) {
  return duet::Lin<S>(name, "s")
      .op(
          "insert", [](S& s, int v) { return s.insert(v); }, duet::integers(0, 4))
      .op(
          "erase", [](S& s, int v) { return s.erase(v); }, duet::integers(0, 4))
      .op(
          "contains", [](S& s, int v) { return s.contains(v); }, duet::integers(0, 4));
}

struct IntLess {
  bool operator()(int a, int b) const { return a < b; }
};
using MichaelListHP =
    cds::container::MichaelList<cds::gc::HP, int,
                                typename cds::container::michael_list::make_traits<cds::opt::less<IntLess> >::type>;
using MichaelListDHP =
    cds::container::MichaelList<cds::gc::DHP, int,
                                typename cds::container::michael_list::make_traits<cds::opt::less<IntLess> >::type>;
struct HashTraits : cds::container::michael_set::traits {
  using hash = std::hash<int>;
};
struct MichaelSetHP : cds::container::MichaelHashSet<cds::gc::HP, MichaelListHP, HashTraits> {
  MichaelSetHP() : cds::container::MichaelHashSet<cds::gc::HP, MichaelListHP, HashTraits>(16, 2) {}
};
struct SplitTraits : cds::container::split_list::traits {
  using ordered_list = cds::container::michael_list_tag;
  using hash = std::hash<int>;
  struct ordered_list_traits : cds::container::michael_list::traits {
    using less = IntLess;
  };
};
using SplitListHP = cds::container::SplitListSet<cds::gc::HP, int, SplitTraits>;
struct SkipTraits : cds::container::skip_list::traits {
  using less = IntLess;
};
using SkipListHP = cds::container::SkipListSet<cds::gc::HP, int, SkipTraits>;

TEST(InstrumentedLibcds, MichaelListHP) { passes(set<MichaelListHP>("cds_michael_list_hp"), duet::random()); }
TEST(InstrumentedLibcds, MichaelListDHP) { passes(set<MichaelListDHP>("cds_michael_list_dhp"), duet::random()); }
TEST(InstrumentedLibcds, MichaelHashSetHP) { passes(set<MichaelSetHP>("cds_michael_set_hp"), duet::pct(3)); }
TEST(InstrumentedLibcds, SplitListSetHP) { passes(set<SplitListHP>("cds_split_list_hp"), duet::random()); }
TEST(InstrumentedLibcds, SkipListSetHP) { passes(set<SkipListHP>("cds_skip_list_hp"), duet::random()); }

using BasketQueue = cds::container::BasketQueue<cds::gc::HP, int>;
using MoirQueue = cds::container::MoirQueue<cds::gc::HP, int>;
using OptimisticQueue = cds::container::OptimisticQueue<cds::gc::HP, int>;
using RWQueue = cds::container::RWQueue<int>;
TEST(InstrumentedLibcds, BasketQueue) { passes(queue<BasketQueue>("cds_basket_queue"), duet::random()); }
TEST(InstrumentedLibcds, MoirQueue) { passes(queue<MoirQueue>("cds_moir_queue"), duet::random()); }
TEST(InstrumentedLibcds, OptimisticQueue) { passes(queue<OptimisticQueue>("cds_optimistic_queue"), duet::random()); }
TEST(InstrumentedLibcds, RWQueue) { passes(queue<RWQueue>("cds_rwqueue"), duet::random()); }

struct VyukovQueue : cds::container::VyukovMPMCCycleQueue<int> {
  VyukovQueue() : cds::container::VyukovMPMCCycleQueue<int>(4) {}
};
// Vyukov's bounded queue with every atomic as seq_cst is a FIFO; under the C++ model a pop (or a
// push) may read a cell's sequence number older than the release store of a call that has
// returned (no happens-before orders them: the relaxed load of the position synchronises with
// nothing), and answer that the queue is empty (or full). Judged genuine: the model allows it, as for
// oneTBB's relaxed tail; x86 never shows it.
TEST(InstrumentedLibcds, VyukovCycleQueueUnderSequentialConsistency) {
  const duet::CheckResult r = duet::check_parallel(queue<VyukovQueue>("cds_vyukov_queue"),
                                                   on_fibers(duet::random(), duet::MemoryModel::sc), seeded(1, 1000));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedLibcds, VyukovCycleQueueEmptyFromAStaleSequenceUnderTheCppModel) {
  const duet::CheckResult r = duet::check_parallel(queue<VyukovQueue>("cds_vyukov_queue"), on_fibers(), seeded(1, 1000));
  ASSERT_FALSE(r.passed());
  // A pop that answers empty, or a push that answers full, from a stale cell sequence.
  const bool spurious =
      r.report.find("q.pop() : std::nullopt") != std::string::npos || r.report.find(" : false") != std::string::npos;
  EXPECT_TRUE(spurious) << r.report;
  EXPECT_NE(r.report.find("(stale)"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("vyukov_mpmc_cycle_queue.h"), std::string::npos) << r.report;
}

// A user's bug on top of a correct container: "take the front if there is one", written as a
// check then an act. Another pop between the two leaves pop to fail, which the wrapper reports
// as -1, a result no sequential run gives.
struct TakeQueue {
  MSQueue q;
};
duet::Lin<TakeQueue> take_queue() {
  return duet::Lin<TakeQueue>("cds_take_queue", "t")
      .op(
          "push", [](TakeQueue& t, int v) { return t.q.push(v); }, duet::integers(0, 9))
      .op("take", [](TakeQueue& t) {
        if (t.q.empty()) return std::optional<int>();
        int v = 0;
        return t.q.pop(v) ? std::optional<int>(v) : std::optional<int>(-1);
      });
}

TEST(InstrumentedLibcds, CheckThenPopOnMSQueueIsFound) {
  for (const duet::Schedule& schedule : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::expect_unsafe(take_queue(), on_fibers(schedule), seeded(1, 2000));
    EXPECT_TRUE(r.passed()) << r.report;
    EXPECT_NE(r.report.find("t.take() : -1"), std::string::npos) << r.report;
  }
}

#endif  // DUET_HAVE_LIBCDS

}  // namespace
