// Progress guarantees on fibers (duet/progress.hpp): lock-free structures pass lock-freedom and
// are shown not wait-free (a starving call); a queue behind a mutex and a spin lock break
// obstruction-freedom; Vyukov's MPMC queue with a pop that waits for a claimed cell breaks
// lock-freedom while its try_pop keeps it (and is no strict FIFO); a fetch_add counter is
// wait-free with bound 1. Each failure is reported with the guarantee, where the suspended
// fiber stopped and what the others did, shrunk, and replayed from its token.
//
// The seed is in the code; DUET_SEED overrides it (the 10-seed loop in docs/parallel.md).
#include <duet/api.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/spin_lock.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/parallel.hpp>
#include <duet/progress.hpp>

#include "support/fiber_subjects.hpp"
#include "support/progress_subjects.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

namespace {

using namespace progress_subjects;

duet::ParallelConfig on_fibers(duet::Progress p, duet::Schedule schedule = duet::random()) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(schedule);
  pc.progress = std::move(p);
  return pc;
}

duet::Config budget(std::uint64_t programs) {
  duet::Config c;
  c.seed = 1;
  c.count = programs;
  return c;
}

bool has(const duet::CheckResult& r, const std::string& text) { return r.report.find(text) != std::string::npos; }

// A failure of the stated guarantee: failed (not an error), the guarantee named, a token given.
void expect_broken(const duet::CheckResult& r, const std::string& guarantee) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r, "progress guarantee broken: " + guarantee)) << r.report;
  EXPECT_FALSE(r.replay_token.empty()) << r.report;
}

// A call that waits for a suspended fiber breaks lock-freedom and obstruction-freedom (which
// lock-freedom implies) alike: a lock episode suspends the fiber the other waits for, a solo
// episode runs the waiting call alone. The shrinker keeps whichever it reaches.
void expect_not_lock_free(const duet::CheckResult& r, const std::string& bound) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r, "progress guarantee broken: lock-freedom (bound " + bound + ")") ||
              has(r, "progress guarantee broken: obstruction-freedom (bound " + bound + ")"))
      << r.report;
  EXPECT_FALSE(r.replay_token.empty()) << r.report;
}

using Treiber = duet::models::TreiberStackSpec<>;
using MsQueue = duet::models::MsQueueSpec<>;

// ---- lock-free, not wait-free ----

TEST(Progress, TreiberStackIsLockFree) {
  const duet::CheckResult r = duet::check_parallel<Treiber>(on_fibers(duet::lock_free()), budget(300));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("lock-freedom held in"), std::string::npos) << r.coverage;
}

TEST(FiberUnsafeProgress, TreiberStackIsNotWaitFree) {
  // An uncontended push or pop takes 3 steps of its own; a CAS lost to another call, more.
  const duet::CheckResult r = duet::check_parallel<Treiber>(on_fibers(duet::wait_free(3)), budget(2000));
  expect_broken(r, "wait-freedom (bound 3 steps)");
  EXPECT_TRUE(has(r, "meanwhile the other fibers finished")) << r.report;
  EXPECT_TRUE(has(r, "a starving call")) << r.report;
}

TEST(Progress, MichaelScottQueueIsLockFree) {
  const duet::CheckResult r = duet::check_parallel<MsQueue>(on_fibers(duet::lock_free()), budget(300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(FiberUnsafeProgress, MichaelScottQueueIsNotWaitFree) {
  const duet::CheckResult r = duet::check_parallel<MsQueue>(on_fibers(duet::wait_free(5)), budget(2000));
  expect_broken(r, "wait-freedom (bound 5 steps)");
  EXPECT_TRUE(has(r, "a starving call")) << r.report;
}

// ---- blocking: not even obstruction-free ----

TEST(FiberUnsafeProgress, QueueBehindAMutexIsNotObstructionFree) {
  using Spec = duet::models::Queue<MutexQueueBinding>;
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(duet::obstruction_free()), budget(2000));
  expect_broken(r, "obstruction-freedom");
  EXPECT_TRUE(has(r, "waits in `lock mutex#")) << r.report;
  EXPECT_TRUE(has(r, "every other fiber suspended where it stopped")) << r.report;
}

TEST(FiberUnsafeProgress, SpinLockIsNotObstructionFree) {
  const duet::CheckResult r =
      duet::check_parallel<duet::models::TasSpinLockSpec<>>(on_fibers(duet::obstruction_free(20)), budget(2000));
  expect_broken(r, "obstruction-freedom (bound 20 steps)");
  EXPECT_TRUE(has(r, "re-reading values only a suspended fiber can change")) << r.report;
  EXPECT_TRUE(has(r, "spin_lock.hpp")) << r.report;  // where the suspended holder stopped
  EXPECT_EQ(r.failing_length, 2u) << r.report;
}

// ---- Vyukov's bounded MPMC queue ----

auto vyukov_pop() {
  return duet::Lin<VyukovQueue>("VyukovQueue", "q")
      .op(
          "push", [](VyukovQueue& q, int x) { return q.push(x); }, duet::integers(0, 9))
      .op("pop", [](VyukovQueue& q) { return q.pop(); });
}

TEST(FiberUnsafeProgress, VyukovPopThatWaitsForAClaimedCellIsNotLockFree) {
  const duet::CheckResult r = duet::check_parallel(vyukov_pop(), on_fibers(duet::lock_free(50)), budget(2000));
  expect_not_lock_free(r, "50 steps");
  // The producer stopped between its claim and its fill; the consumer spins.
  EXPECT_TRUE(has(r, "in `q.push(0)`, after `cas atomic#")) << r.report;
  EXPECT_TRUE(has(r, "fiber 1 in `q.pop()`") || has(r, "fiber 0 in `q.pop()`")) << r.report;
  // The episode's place is inside one call: the other calls are deleted (2 calls on 9 of 10
  // seeds; a solo episode also needs the schedule to have stopped the producer mid-push, which
  // deleting a call before it can move: 3 on seed 6).
  EXPECT_LE(r.failing_length, 3u) << r.report;
}

TEST(Progress, VyukovPopDeclaredBlockingIsExempt) {
  const duet::CheckResult r =
      duet::check_parallel(vyukov_pop(), on_fibers(duet::lock_free(50).blocking("pop")), budget(300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(Progress, VyukovTryPopIsLockFreeAgainstItsContract) {
  using Spec = duet::models::SpuriousEmptyQueue<VyukovTryPopBinding>;
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(duet::lock_free(50)), budget(300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(FiberUnsafeProgress, VyukovTryPopIsNoStrictFifo) {
  using Spec = duet::models::Queue<VyukovTryPopBinding>;
  const duet::CheckResult r = duet::expect_unsafe<Spec>(on_fibers(duet::lock_free(50)), budget(2000));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r, "no linearizable order")) << r.report;  // not a progress failure
}

// ---- wait-free ----

TEST(Progress, FetchAddCounterIsWaitFreeWithBoundOne) {
  using Spec = fiber_subjects::CounterSpec<false>;
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(duet::wait_free(1)), budget(300));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("wait-freedom held for"), std::string::npos) << r.coverage;
}

TEST(Progress, WaitFreedomUnderTheExhaustiveSearch) {
  using Spec = fiber_subjects::CounterSpec<false>;
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(duet::wait_free(1), duet::exhaustive(1)), budget(50));
  EXPECT_TRUE(r.passed()) << r.report;
}

// ---- PCT schedules: the same verdicts ----

TEST(Progress, UnderPctTheVerdictsHold) {
  EXPECT_TRUE(duet::check_parallel<Treiber>(on_fibers(duet::lock_free(), duet::pct(3)), budget(300)));
  using Spec = duet::models::Queue<MutexQueueBinding>;
  const duet::CheckResult r = duet::check_parallel<Spec>(on_fibers(duet::lock_free(), duet::pct(3)), budget(2000));
  expect_not_lock_free(r, "100 steps");
  EXPECT_TRUE(has(r, "waits in `lock mutex#")) << r.report;
}

// ---- reports, replays, errors ----

TEST(FiberUnsafeProgress, AViolationReplaysFromItsToken) {
  using Spec = duet::models::Queue<MutexQueueBinding>;
  const duet::CheckResult first = duet::check_parallel<Spec>(on_fibers(duet::obstruction_free()), budget(2000));
  ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult again = duet::check_parallel<Spec>(on_fibers(duet::obstruction_free()), replay);
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(has(again, "progress guarantee broken: obstruction-freedom")) << again.report;
  // The draft's duet::run_fibers would not suspend the fibers: the report says so.
  EXPECT_TRUE(has(first, "draft test: none (duet::run_fibers does not suspend")) << first.report;
}

TEST(Progress, IsAnErrorOnThreads) {
  duet::ParallelConfig pc;
  pc.progress = duet::lock_free();
  const duet::CheckResult r = duet::check_parallel<Treiber>(pc, budget(10));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r, "progress guarantees are checked on fibers")) << r.report;
}

TEST(Progress, LockFreedomUnderTheExhaustiveSearchIsAnError) {
  const duet::CheckResult r = duet::check_parallel<Treiber>(on_fibers(duet::lock_free(), duet::exhaustive(1)), budget(10));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
}

// An operation name the spec does not have would silently never match: an error naming it and
// the spec's operations, in every front end (Lin, state-machine specs, duet::Api).
void expect_unknown_op(const duet::CheckResult& r, const std::string& name, const std::string& known) {
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(
      has(r, "progress names the operation `" + name + "`, which the spec does not have (its operations: " + known + ")"))
      << r.report;
}

namespace progress_api {
struct Account {
  duet::atomic<long> balance{0};
};
using Handle = std::shared_ptr<Account>;
duet::Api spec() {
  duet::Api api("ProgressBank");
  auto account = api.abstract<long, Handle>("acct");
  api.op(
      "open", duet::args(), account, [] { return 0L; }, [] { return std::make_shared<Account>(); });
  api.op(
      "deposit", duet::args(account, duet::integers(1, 9)), duet::unit(), [](long& b, int x) { b += x; },
      [](const Handle& a, int x) { a->balance.fetch_add(x); });
  return api;
}
}  // namespace progress_api

TEST(Progress, AnOperationNameTheSpecDoesNotHaveIsAnError) {
  expect_unknown_op(duet::check_parallel(vyukov_pop(), on_fibers(duet::lock_free(50).blocking("pull")), budget(10)), "pull",
                    "push, pop");
  expect_unknown_op(duet::check_parallel<Treiber>(on_fibers(duet::lock_free().op("size", duet::wait_free(3))), budget(10)),
                    "size", "push, pop");
  expect_unknown_op(progress_api::spec().check_parallel(on_fibers(duet::wait_free(5).blocking("withdraw")), budget(10)),
                    "withdraw", "open, deposit");
  // Known names pass as before.
  EXPECT_TRUE(progress_api::spec().check_parallel(on_fibers(duet::wait_free(5).blocking("open")), budget(50)));
}

// A wait-free promise no call on a fiber kept (get() only in the roles' absence: no branch
// calls it, and there is no prefix or suffix): an error that says so, in wait-freedom's terms.
TEST(Progress, AWaitFreePromiseNoCallRanIsUntested) {
  using Spec = fiber_subjects::CounterSpec<false>;
  duet::ParallelConfig pc = on_fibers(duet::wait_free(1).op("incr", duet::obstruction_free()));
  pc.roles = {{"a", 1, {"incr"}}, {"b", 1, {"incr"}}};
  pc.prefix_length = pc.suffix_length = 0;
  const duet::CheckResult r = duet::check_parallel<Spec>(pc, budget(50));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r, "the progress check tested no call for wait-freedom: no call of an operation that promises it "
                     "ran on a fiber"))
      << r.report;
}

// A call that keeps writing new values for longer than the bound: too small a bound to tell a
// wait from a long operation, said as such (an error), never a pass.
class SlowWriter {
 public:
  int write() {
    for (int i = 0; i < 30; ++i) x_.store(i);
    return 1;
  }

 private:
  duet::atomic<int> x_{0};
};

TEST(Progress, TooSmallABoundIsInconclusive) {
  auto lin = duet::Lin<SlowWriter>("SlowWriter", "w").op("write", [](SlowWriter& w) { return w.write(); });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(duet::obstruction_free(10)), budget(200));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r, "inconclusive progress check")) << r.report;
  EXPECT_TRUE(has(r, "raise it (duet::obstruction_free(40))")) << r.report;
}

}  // namespace
