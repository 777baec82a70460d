// Plain std:: code compiled with duet_instrument, checked on the fiber scheduler: atomics are
// switch points, locks and condition variables are the scheduler's, threads the subject starts
// are fibers, plain fields are checked for data races. Every bug is found on every seed,
// shrunk, and replayed; the correct twins pass.
#include <duet/gen.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"
#include "support/emulation.hpp"
#include "support/verdicts.hpp"

#include <optional>
#include <variant>
#include <type_traits>
#include <string>

#include "instrumented/std_subjects.hpp"

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

using namespace std_subjects;

bool has(const std::string& report, const std::string& what) { return report.find(what) != std::string::npos; }

template <bool Racy>
duet::Lin<TreiberStack<Racy>> stack_spec() {
  return duet::Lin<TreiberStack<Racy>>("treiber", "s")
      .op(
          "push", [](TreiberStack<Racy>& s, int v) { s.push(v); }, duet::integers(0, 9))
      .op("pop", [](TreiberStack<Racy>& s) { return s.pop(); });
}

template <bool Racy>
duet::Lin<Bank<Racy>> bank_spec() {
  return duet::Lin<Bank<Racy>>("bank", "b")
      .op(
          "transfer", [](Bank<Racy>& b, int x) { return b.transfer(x); }, duet::integers(1, 5))
      .op("total", [](Bank<Racy>& b) { return b.total(); });
}

template <bool Racy>
duet::Lin<TicketCounter<Racy>> ticket_spec() {
  return duet::Lin<TicketCounter<Racy>>("ticket", "c").op("incr", [](TicketCounter<Racy>& c) { return c.incr(); });
}

TEST(InstrumentedStd, TreiberStackLostPushFoundOnEverySeed) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const duet::CheckResult r = duet::expect_unsafe(stack_spec<true>(), on_fibers(), seeded(seed));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_LE(r.failing_length, 5u) << r.report;
  }
}

TEST(InstrumentedStd, TreiberStackReportNamesTheSubjectsLines) {
  const duet::CheckResult r = duet::expect_unsafe(stack_spec<true>(), on_fibers(), seeded(3));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "std_subjects.hpp:")) << r.report;
  EXPECT_TRUE(has(r.report, "atomic#")) << r.report;
}

TEST(InstrumentedStd, TreiberStackCorrectPasses) {
  const duet::CheckResult r = duet::check_parallel(stack_spec<false>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, SameSeedSameReport) {
  const duet::CheckResult a = duet::expect_unsafe(stack_spec<true>(), on_fibers(), seeded(42));
  const duet::CheckResult b = duet::expect_unsafe(stack_spec<true>(), on_fibers(), seeded(42));
  ASSERT_TRUE(a.passed()) << a.report;
  EXPECT_EQ(a.replay_token, b.replay_token);
  EXPECT_EQ(a.cases, b.cases);
}

TEST(InstrumentedStd, UnlockedReadOfPlainFieldsIsADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(bank_spec<true>(), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "data race on")) << r.report;
  EXPECT_TRUE(has(r.report, "plain memory")) << r.report;
  EXPECT_TRUE(has(r.report, "std_subjects.hpp:")) << r.report;
}

TEST(InstrumentedStd, MutexBankPasses) {
  const duet::CheckResult r = duet::check_parallel(bank_spec<false>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, TicketLockWithLoadStoreGrabFound) {
  // Its length is where the shrinker ends, which on fibers is the same on any machine (about
  // 500 replays, each failing one a 20,000-step livelock: 4.6 s here at idle), provided its
  // wall-clock budget does not end it first: 30 s did under emulation and on a loaded host (a
  // busy loop per core beside ctest -j2: 11 calls), so the budget is one no machine reaches.
  duet::Config c = seeded(1);
  c.shrink_time = 600.0 * duet_test::time_scale();
  const duet::CheckResult r = duet::expect_unsafe(ticket_spec<true>(), on_fibers(), c);
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_LE(r.failing_length, 3u) << r.report;
}

TEST(InstrumentedStd, TicketLockPasses) {
  const duet::CheckResult r = duet::check_parallel(ticket_spec<false>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, ConditionVariableQueuePasses) {
  auto spec = duet::Lin<BlockingQueue>("queue", "q")
                  .op(
                      "push", [](BlockingQueue& q, int v) { q.push(v); }, duet::integers(0, 9))
                  .op("pop", [](BlockingQueue& q) { return q.pop(); });
  const duet::CheckResult r = duet::check_parallel(spec, on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, SharedMutexWriteUnderSharedLockIsARace) {
  auto spec = [](auto subject) {
    using S = decltype(subject);
    return duet::Lin<S>("register", "r")
        .op(
            "write", [](S& s, int v) { s.write(v); }, duet::integers(0, 9))
        .op("read", [](S& s) { return s.read(); });
  };
  const duet::CheckResult good = duet::check_parallel(spec(SharedRegister<false>{}), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(good.passed()) << good.report;
  const duet::CheckResult bad = duet::expect_unsafe(spec(SharedRegister<true>{}), on_fibers(), seeded(1));
  ASSERT_TRUE(bad.passed()) << bad.report;
  EXPECT_TRUE(has(bad.report, "data race on")) << bad.report;
}

// use() returns 1 while the pool holds at most two users. A model, not the candidate as its own
// oracle: the candidate's use() yields, and replaying it sequentially on a real thread of a
// loaded machine makes the linearizability search slow enough to hit its time budget.
struct Use {};
std::string duet_show(const Use&) { return "use()"; }
template <bool Racy>
struct PoolSpec {
  using Sut = Pool<Racy>;
  using State = int;
  using Cmd = std::variant<Use>;
  static constexpr const char* sut_name = "p";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Use{})); }
  static duet::Result run(const Cmd&, Sut& p) { return p.use(); }
  static duet::Result expected(const Cmd&, const State&) { return 1; }
  static void next(const Cmd&, State&) {}
};

TEST(InstrumentedStd, CountingSemaphoreOversubscribedAndLostWakeupFound) {
  duet::ParallelConfig pc = on_fibers();
  pc.branches = 3;
  const duet::CheckResult bad = duet::expect_unsafe<PoolSpec<true>>(pc, seeded(1));
  EXPECT_TRUE(bad.passed()) << bad.report;
#if defined(_GLIBCXX_RELEASE) && _GLIBCXX_RELEASE <= 12
  // libstdc++'s std::counting_semaphore loses a wake-up (GCC bug 98033): release() notifies
  // only when the count was 0, and an acquire() whose compare-exchange lost a race waits on
  // the value it saw, so it can sleep while the count is positive. Found as a deadlock (with
  // every atomic as seq_cst too, in more programs).
#if !defined(__x86_64__) && !defined(__i386__)
  // Before it waits, acquire() tries 16 times; between tries x86 executes a pause (no switch
  // point) 12 times and sched_yield() 4 times, other targets sched_yield() all 16 times, and on
  // fibers each sched_yield() makes another fiber take a step. Every try must fail, so the other
  // fibers must take 16 steps within one acquire() without leaving a slot free when it looks:
  // still possible, but rarer. In a copy of the semaphore (Gcc12Pool below) the same search
  // finds it after 229 programs with x86's spin and 2,964 with the other one; on arm64 the
  // library's is found after 6,273 programs with seed 1, past the default 60 s under qemu
  // (6,168 programs; DUET_TIME=600 finds it). The copy with x86's spin checks the bug on every
  // target.
  GTEST_SKIP() << "libstdc++'s semaphore spins with sched_yield() on this target (a pause on x86): its lost "
                  "wake-up takes many more programs to find here (arm64, seed 1: 6,273 against 71 on x86; "
                  "Gcc12SemaphoreWithX86SpinLostWakeupFound finds it on every target)";
#endif
  const duet::CheckResult lost = duet::expect_unsafe<PoolSpec<false>>(pc, seeded(1));
  ASSERT_TRUE(lost.passed()) << lost.report;
  EXPECT_NE(lost.report.find("deadlock: no fiber can proceed"), std::string::npos) << lost.report;
#else
  const duet::CheckResult good = duet::check_parallel<PoolSpec<false>>(pc, seeded(1, 300));
  EXPECT_TRUE(good.passed()) << good.report;
#endif
}

// libstdc++'s lost wake-up on every architecture: a copy of GCC 12's semaphore with x86's spin
// (found after 229 programs with seed 1; with the spin of other targets, after 2,964).
template <bool YieldEveryTry>
struct Gcc12PoolSpec : PoolSpec<false> {
  using Sut = Gcc12Pool<YieldEveryTry>;
  static duet::Result run(const Cmd&, Sut& p) { return p.use(); }
};

TEST(InstrumentedStd, Gcc12SemaphoreWithX86SpinLostWakeupFound) {
  duet::ParallelConfig pc = on_fibers();
  pc.branches = 3;
  // A count, not expect_unsafe's 60 s: the prefix and suffix run on this thread, where each
  // use() yields for real, and on a loaded host (a busy loop per core) the 229 programs took
  // 38 s (0.5 s at idle).
  const duet::CheckResult lost = duet::expect_unsafe<Gcc12PoolSpec<false>>(pc, seeded(1, 5'000));
  ASSERT_TRUE(lost.passed()) << lost.report;
  EXPECT_NE(lost.report.find("deadlock: no fiber can proceed"), std::string::npos) << lost.report;
}

TEST(InstrumentedStd, PosixSemaphoreBoundsThePool) {
  auto spec = [](auto* tag) {
    using S = std::remove_pointer_t<decltype(tag)>;
    return duet::Lin<S>("posix_pool", "p").op("use", [](S& s) { return s.use(); });
  };
  duet::ParallelConfig pc = on_fibers();
  pc.branches = 3;
  const duet::CheckResult good = duet::check_parallel(spec(static_cast<PosixPool<false>*>(nullptr)), pc, seeded(1, 300));
  EXPECT_TRUE(good.passed()) << good.report;
  const duet::CheckResult bad = duet::expect_unsafe(spec(static_cast<PosixPool<true>*>(nullptr)), pc, seeded(1));
  EXPECT_TRUE(bad.passed()) << bad.report;
}

TEST(InstrumentedStd, ThreadsLatchBarrierAndAtomicWaitInsideTheSubject) {
  auto spec = duet::Lin<Workers>("workers", "w")
                  .op(
                      "run", [](Workers& w, int n) { return w.run(n); }, duet::integers(1, 3));
  const duet::CheckResult r = duet::check_parallel(spec, on_fibers(), seeded(1, 40));
  EXPECT_TRUE(r.passed()) << r.report;
}

template <bool Racy>
duet::Lin<PosixPhases<Racy>> phases_spec() {
  return duet::Lin<PosixPhases<Racy>>("phases", "p")
      .op(
          "run", [](PosixPhases<Racy>& p, int v) { return p.run(v); }, duet::integers(0, 9));
}

TEST(InstrumentedStd, PosixBarrierOrdersThePhases) {
  const duet::CheckResult r = duet::check_parallel(phases_spec<false>(), on_fibers(), seeded(1, 40));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, PosixPhasesWithoutTheBarrierIsADataRace) {
  const duet::CheckResult r =
      duet::expect_unsafe(phases_spec<true>(), instrumented_test::every_call_on_a_fiber(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "data race")) << r.report;
  EXPECT_TRUE(has(r.report, "std_subjects.hpp:")) << r.report;
}

TEST(InstrumentedStd, StdMutexDeadlockIsReported) {
  auto spec = duet::Lin<Accounts>("accounts", "a").op("ab", [](Accounts& a) { return a.ab(); }).op("ba", [](Accounts& a) {
    return a.ba();
  });
  const duet::CheckResult r = duet::expect_unsafe(spec, on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "deadlock")) << r.report;
  EXPECT_TRUE(has(r.report, "std_subjects.hpp:")) << r.report;
}

TEST(InstrumentedStd, CallOnceOnSeveralFlagsRunsEachCallersFunction) {
  auto spec = duet::Lin<LazySlots>("lazy_slots", "s")
                  .op(
                      "get", [](LazySlots& s, int k) { return s.get(k); }, duet::integers(0, 2));
  for (const duet::Schedule& schedule : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(spec, on_fibers(schedule), seeded(1, 200));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// A function-local static made on one fiber and read on another: its guard's release is the
// run's, so the reader sees it made (it was reported as a data race: libstdc++'s release store is
// not instrumented), and a fiber that comes while it is being made waits for it.
template <int Instance>
void expect_static_made_once(const duet::Schedule& schedule, std::uint64_t seed) {
  auto spec = duet::Lin<StaticStepCounter<Instance>>("static_step", "c").op("add", [](StaticStepCounter<Instance>& c) {
    return c.add();
  });
  duet::ParallelConfig pc = instrumented_test::every_call_on_a_fiber();  // made on a branch
  pc.executor = duet::fibers(schedule);
  const duet::CheckResult r = duet::check_parallel(spec, pc, seeded(seed, 50));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedStd, AFunctionLocalStaticIsMadeOnceAndSeenMadeByEveryFiber) {
  expect_static_made_once<1>(duet::random(), 1);
  expect_static_made_once<2>(duet::random(), 2);
  expect_static_made_once<3>(duet::random(), 4);
  expect_static_made_once<4>(duet::pct(3), 1);
  expect_static_made_once<5>(duet::pct(3), 2);
  expect_static_made_once<6>(duet::pct(3), 5);
}

// Outside a fiber run the same instrumented code runs on real threads as compiled.
TEST(InstrumentedStd, OnThreadsTheCodeRunsAsCompiled) {
  Workers w;
  EXPECT_EQ(w.run(3), 6);
  const duet::CheckResult r = duet::check_parallel(bank_spec<false>(), {}, seeded(1, 50));
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;  // busy CI: too little overlap
}

}  // namespace
