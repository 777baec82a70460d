// Per-thread setup and teardown (ThreadHooks, FiberOptions::on_fiber_start / on_fiber_stop):
// liburcu's lock-free queue, whose every calling thread must be registered with RCU, checked on
// threads with registration hooks and no thread_local trick in the subject's calls; and where the
// hooks run, how often, and what a throwing hook does.
#include <duet/gtest.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <duet/sync.hpp>

#include "support/verdicts.hpp"

#if DUET_HAVE_URCU
#include <urcu.h>
#include <urcu/rculfqueue.h>
#endif

namespace {

#if DUET_HAVE_URCU
// Whether this thread ran the start hook (and not yet the stop hook): the queue's calls check it
// and abort as an assertion of liburcu's would, so that a call on a thread the hooks missed ends
// the run loudly instead of reading without RCU's protection.
thread_local bool t_registered = false;

void register_thread() {
  rcu_register_thread();
  t_registered = true;
}
void unregister_thread() {
  t_registered = false;
  rcu_unregister_thread();
}

// liburcu's RCU lock-free queue (cds_lfq): enqueue and dequeue inside read-side critical
// sections, dequeued nodes freed after a grace period (call_rcu).
class UrcuQueue {
 public:
  UrcuQueue() { cds_lfq_init_rcu(&q_, call_rcu); }
  ~UrcuQueue() {
    if (!t_registered) return;  // leaks the nodes rather than touch RCU unregistered
    while (try_pop()) {
    }
    (void)cds_lfq_destroy_rcu(&q_);  // -EPERM would leave the last dummy node: a leak, not a crash
  }
  void push(int x) {
    require_registered();
    auto* n = new Node;
    cds_lfq_node_init_rcu(&n->node);
    n->value = x;
    rcu_read_lock();
    cds_lfq_enqueue_rcu(&q_, &n->node);
    rcu_read_unlock();
  }
  std::optional<int> try_pop() {
    require_registered();
    rcu_read_lock();
    cds_lfq_node_rcu* got = cds_lfq_dequeue_rcu(&q_);
    rcu_read_unlock();
    if (!got) return std::nullopt;
    Node* n = caa_container_of(got, Node, node);
    const int x = n->value;
    call_rcu(&n->head, [](rcu_head* h) { delete caa_container_of(h, Node, head); });
    return x;
  }

 private:
  struct Node {
    cds_lfq_node_rcu node;
    rcu_head head;
    int value;
  };
  static void require_registered() {
    if (t_registered) return;
    std::fputs("a liburcu call on a thread not registered with RCU\n", stderr);
    std::abort();
  }
  cds_lfq_queue_rcu q_;
};

duet::Lin<UrcuQueue> urcu_lin() {
  return duet::Lin<UrcuQueue>("cds_lfq_queue_rcu", "q")
      .op(
          "push", [](UrcuQueue& q, int x) { q.push(x); }, duet::integers(0, 9))
      .op("try_pop", [](UrcuQueue& q) { return q.try_pop(); });
}

const duet::ThreadHooks kRcuHooks{.start = register_thread, .stop = unregister_thread};

// Debian's liburcu is not built with ThreadSanitizer, which cannot see its barriers and reports
// the reads they order as races: under the tsan preset these checks say so and stop.
#if defined(__SANITIZE_THREAD__)
#define DUET_SKIP_UNDER_TSAN() GTEST_SKIP() << "liburcu is not instrumented for ThreadSanitizer"
#else
#define DUET_SKIP_UNDER_TSAN() (void)0
#endif

TEST(ThreadHooks, LiburcuQueueIsLinearizableWithRegistrationHooks) {
  DUET_SKIP_UNDER_TSAN();
  const duet::CheckResult r = duet::check_parallel(urcu_lin(), {.thread_hooks = kRcuHooks}, {.seed = 1, .count = 2000});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;
  const duet::CheckResult three = duet::check_parallel(urcu_lin(), {.branches = 3, .thread_hooks = kRcuHooks},
                                                       {.seed = 2, .count = 500, .isolate = false});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(three)) << three.report;
  rcu_barrier();  // the nodes the checks freed with call_rcu
}

// Without the hooks the first call on an unregistered thread ends the process: a failure (in
// its child process), shrunk to one call, with the subject's message. The hooks are what made
// the check above run.
TEST(ThreadHooks, LiburcuQueueWithoutTheHooksIsRefusedByTheSubject) {
  DUET_SKIP_UNDER_TSAN();
  const duet::CheckResult r = duet::check_parallel(urcu_lin(), {}, {.seed = 1, .count = 50});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  EXPECT_NE(r.report.find("| a liburcu call on a thread not registered with RCU"), std::string::npos) << r.report;
}
#else
TEST(ThreadHooks, LiburcuQueueIsLinearizableWithRegistrationHooks) {
  GTEST_SKIP() << "liburcu not found when configured: apt-get install liburcu-dev";
}
#endif

// A pool runs start on each worker and on the caller; outside a check, the caller's hooks wrap
// each run, and the workers' stop when the pool ends.
TEST(ThreadHooks, StartOnEveryThreadStopWhenItsWorkEnds) {
  std::atomic<int> starts{0}, stops{0};
  {
    auto pool = duet::make_thread_pool(false, {.start = [&] { ++starts; }, .stop = [&] { ++stops; }});
    pool->run({[] {}, [] {}, [] {}});
    EXPECT_EQ(starts.load(), 3);  // two workers and the caller
    EXPECT_EQ(stops.load(), 1);   // the caller, after its run
    pool->run({[] {}, [] {}, [] {}});
    EXPECT_EQ(starts.load(), 4);  // the caller again; the workers once for their life
    EXPECT_EQ(stops.load(), 2);
  }
  EXPECT_EQ(stops.load(), 4);  // the two workers, as the pool ended
}

TEST(ThreadHooks, InACheckTheCallerIsSetUpOnceForTheWholeCheck) {
  std::atomic<int> starts{0}, stops{0};
  const duet::CheckResult r = duet::check_parallel(
      duet::Lin<std::atomic<int>>("atomic", "a")
          .op(
              "add", [](std::atomic<int>& a, int x) { return a.fetch_add(x); }, duet::integers(0, 9)),
      {.thread_hooks = {.start = [&] { ++starts; }, .stop = [&] { ++stops; }}}, {.seed = 1, .count = 200, .isolate = false});
  EXPECT_TRUE(test_verdicts::passed_or_inconclusive(r)) << r.report;  // a busy machine: too little overlap
  EXPECT_EQ(starts.load(), 2);                                        // the caller and the one worker, for 200 programs
  EXPECT_EQ(stops.load(), 2);
}

TEST(ThreadHooks, AStartThatThrowsIsAnErrorOfTheCheck) {
  const duet::CheckResult r = duet::check_parallel(
      duet::Lin<std::atomic<int>>("atomic", "a").op("load", [](std::atomic<int>& a) { return a.load(); }),
      {.thread_hooks = {.start = [] { throw std::runtime_error("no domain"); }}},
      {.seed = 1, .count = 20, .isolate = false});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("ThreadHooks::start threw std::runtime_error(\"no domain\")"), std::string::npos) << r.report;
}

TEST(ThreadHooks, WithAnExecutorOfItsOwnIsAnError) {
  const duet::CheckResult r = duet::check_parallel(
      duet::Lin<std::atomic<int>>("atomic", "a").op("load", [](std::atomic<int>& a) { return a.load(); }),
      {.executor = duet::fibers(), .thread_hooks = {.start = [] {}}});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("thread_hooks are for the thread pool a check makes"), std::string::npos) << r.report;
}

// On fibers: the hooks run inside each fiber, around its branch, as part of the run.
TEST(FiberHooks, RunInsideEachFiberAroundItsBranch) {
  int starts = 0, stops = 0, in_branch_registered = 0;
  duet::atomic<int> registered{0};
  auto executor = duet::fibers(duet::random(), {.on_fiber_start =
                                                    [&] {
                                                      ++starts;
                                                      registered.fetch_add(1);
                                                    },
                                                .on_fiber_stop = [&] { ++stops; }});
  executor->run(
      {[&] { in_branch_registered += registered.load() > 0; }, [&] { in_branch_registered += registered.load() > 0; }});
  EXPECT_EQ(starts, 2);
  EXPECT_EQ(stops, 2);
  EXPECT_EQ(in_branch_registered, 2);
  const duet::FiberRun run =
      duet::run_fibers({[] {}, [] {}, [] {}}, "", {.on_fiber_start = [&] { ++starts; }, .on_fiber_stop = [&] { ++stops; }});
  EXPECT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(starts, 5);
  EXPECT_EQ(stops, 5);
}

}  // namespace
