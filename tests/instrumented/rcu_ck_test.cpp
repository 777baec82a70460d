// liburcu and Concurrency Kit on the fiber scheduler, as a user would check them.
//
// liburcu: an RCU-protected pointer, each fiber registered with RCU (FiberOptions hooks), readers
// under rcu_read_lock, an updater that publishes with rcu_xchg_pointer and frees the old version
// after synchronize_rcu. Its runtime is an uninstrumented shared object (liburcu-memb.so): each
// call is a black box that synchronises; synchronize_rcu waits for reader fibers through the
// futex and poll calls duet interposes, so the readers run while it waits.
//
// Concurrency Kit: its atomics are inline assembly on x86-64, invisible to the instrumentation.
// Built through duet_instrument, <ck_pr.h> is duet's port over the compiler's atomics
// (cmake/ports/ck_pr.h): the stack and the ring pass, and a planted bug is found. With CK's own
// atomics (DUET_CK_ASSEMBLY) the same stack is reported racing, and the report says why.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#if DUET_HAVE_URCU
#include <urcu/urcu-memb.h>  // the calls into liburcu-memb.so: no _LGPL_SOURCE (docs/real-libraries.md)
#endif

#include "instrumented/checks.hpp"

// Set by tests/instrumented/rcu_ck.cmake; a build that does not detect the libraries (the arm64
// header check) compiles the skipping tests.
#ifndef DUET_SKIP_URCU
#define DUET_SKIP_URCU "liburcu was not detected when configured (tests/instrumented/rcu_ck.cmake)"
#endif
#ifndef DUET_SKIP_CK
#define DUET_SKIP_CK "Concurrency Kit was not detected when configured (tests/instrumented/rcu_ck.cmake)"
#endif

namespace {

using instrumented_test::seeded;

// Random and PCT with `programs` programs, exhaustive with one preemption on a few: every pass.
template <class T>
void passes_with_every_strategy(const duet::Lin<T>& lin, duet::FiberOptions options, std::uint64_t programs = 300) {
  const std::pair<duet::Schedule, std::uint64_t> strategies[] = {
      {duet::random(), programs}, {duet::pct(3), programs}, {duet::exhaustive(1), 3}};
  for (const auto& [schedule, count] : strategies) {
    duet::ParallelConfig pc;
    pc.executor = duet::fibers(schedule, options);
    const duet::CheckResult r = duet::check_parallel(lin, pc, seeded(1, count));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

#if DUET_HAVE_URCU

struct Version {
  int a = 0;
  int b = 0;
};

// A configuration read under RCU and replaced by copy: a reader sees one version whole.
// kSync == false is the planted bug: the old version is freed without a grace period.
template <bool kSync>
struct RcuConfig {
  Version* current = new Version{};
  RcuConfig() = default;
  RcuConfig(const RcuConfig&) = delete;
  RcuConfig& operator=(const RcuConfig&) = delete;
  ~RcuConfig() { delete current; }

  int read() {
    urcu_memb_read_lock();
    const Version* v = rcu_dereference(current);
    const int seen = v->a * 10 + v->b;
    urcu_memb_read_unlock();
    return seen;
  }
  void update(int x) {
    Version* next = new Version{x, x};
    Version* old = rcu_xchg_pointer(&current, next);
    if (kSync) urcu_memb_synchronize_rcu();  // every reader that may hold `old` has left
    delete old;
  }
};

template <bool kSync>
duet::Lin<RcuConfig<kSync>> rcu_config() {
  return duet::Lin<RcuConfig<kSync>>(kSync ? "urcu_config" : "urcu_config_no_grace_period", "c")
      .op("read", [](RcuConfig<kSync>& c) { return c.read(); })
      .op(
          "update", [](RcuConfig<kSync>& c, int x) { c.update(x); }, duet::integers(1, 3));
}

// Every fiber is a reader thread of RCU, registered when it starts and unregistered when it ends
// (docs/real-libraries.md, "Per-thread state"). The prefix and suffix run on the checking thread:
// it registers too (RcuThread below).
duet::FiberOptions rcu_fibers() {
  return {.on_fiber_start = [] { urcu_memb_register_thread(); }, .on_fiber_stop = [] { urcu_memb_unregister_thread(); }};
}
struct RcuThread {
  RcuThread() { urcu_memb_register_thread(); }
  ~RcuThread() { urcu_memb_unregister_thread(); }
};

TEST(InstrumentedRcuCk, UrcuPointerWithSynchronizeRcu) {
  const RcuThread registered;
  passes_with_every_strategy(rcu_config<true>(), rcu_fibers());
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), rcu_fibers());
  const duet::CheckResult r = duet::check_parallel(rcu_config<true>(), pc, seeded(1, 50));
  EXPECT_NE(r.coverage.find("liburcu-memb"), std::string::npos) << r.coverage;
}

TEST(InstrumentedRcuCk, UrcuFreeWithoutGracePeriodIsFound) {
  const RcuThread registered;
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), rcu_fibers());
  const duet::CheckResult r = duet::check_parallel(rcu_config<false>(), pc, seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("destroy"), std::string::npos) << r.report;
}

#else
TEST(InstrumentedRcuCk, UrcuPointerWithSynchronizeRcu) { GTEST_SKIP() << DUET_SKIP_URCU; }
#endif

#if DUET_HAVE_CK

extern "C" {
void* duet_ck_stack_new();
void duet_ck_stack_delete(void*);
void duet_ck_stack_push(void*, int);
void duet_ck_stack_push_then_write(void*, int);
int duet_ck_stack_pop(void*, int*);
void* duet_ck_ring_new();
void* duet_ck_ring_new_small();
void duet_ck_ring_delete(void*);
int duet_ck_ring_enqueue(void*, int);
int duet_ck_ring_dequeue(void*, int*);
void* duet_ck_asm_stack_new();
void duet_ck_asm_stack_delete(void*);
void duet_ck_asm_stack_push(void*, int);
int duet_ck_asm_stack_pop(void*, int*);
}

// One of the C subjects as an object: its functions, and the instance they work on.
struct CkObject {
  void* (*make)();
  void (*destroy)(void*);
  void* self = make();
  CkObject(void* (*m)(), void (*d)(void*)) : make(m), destroy(d) {}
  CkObject(const CkObject&) = delete;
  CkObject& operator=(const CkObject&) = delete;
  ~CkObject() { destroy(self); }
};

std::optional<int> taken(int (*take)(void*, int*), void* self) {
  int v = 0;
  return take(self, &v) != 0 ? std::optional<int>(v) : std::nullopt;
}

// ck_stack_push_upmc / ck_stack_pop_upmc; `push` is the correct push or the planted bug.
duet::Lin<CkObject> ck_stack(const char* name, void* (*make)(), void (*destroy)(void*), void (*push)(void*, int),
                             int (*pop)(void*, int*)) {
  return duet::Lin<CkObject>(name, "s")
      .init([=] { return std::make_unique<CkObject>(make, destroy); }, "ck_stack_t s;")
      .op(
          "push", [push](CkObject& s, int v) { push(s.self, v); }, duet::integers(0, 9))
      .op("pop", [pop](CkObject& s) { return taken(pop, s.self); });
}

TEST(InstrumentedRcuCk, CkStackWithDuetsAtomicsPort) {
  passes_with_every_strategy(
      ck_stack("ck_stack", duet_ck_stack_new, duet_ck_stack_delete, duet_ck_stack_push, duet_ck_stack_pop), {});
}

TEST(InstrumentedRcuCk, CkStackValueWrittenAfterPublishingIsFound) {
  const duet::CheckResult r =
      duet::check_parallel(ck_stack("ck_stack_push_then_write", duet_ck_stack_new, duet_ck_stack_delete,
                                    duet_ck_stack_push_then_write, duet_ck_stack_pop),
                           instrumented_test::on_fibers(), seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("ck_subjects.c"), std::string::npos) << r.report;
}

// ck_ring_enqueue_mpmc / ck_ring_dequeue_mpmc on a ring of 64 slots (63 usable: never full in
// a program) or, `small`, of 4 (3 usable).
duet::Lin<CkObject> ck_ring(bool small = false) {
  return duet::Lin<CkObject>(small ? "ck_ring_mpmc_4" : "ck_ring_mpmc", "r")
      .init(
          [small] {
            return std::make_unique<CkObject>(small ? duet_ck_ring_new_small : duet_ck_ring_new, duet_ck_ring_delete);
          },
          small ? "ck_ring_t r; ck_ring_init(&r, 4);" : "ck_ring_t r; ck_ring_init(&r, 64);")
      .op(
          "enqueue", [](CkObject& r, int v) { return duet_ck_ring_enqueue(r.self, v) != 0; }, duet::integers(0, 9))
      .op("dequeue", [](CkObject& r) { return taken(duet_ck_ring_dequeue, r.self); });
}

// With every atomic as seq_cst, and never full, the ring is a FIFO.
TEST(InstrumentedRcuCk, CkRingMpmcWithDuetsAtomicsPort) {
  passes_with_every_strategy(ck_ring(), {.memory_model = duet::MemoryModel::sc});
}

// Small enough to fill and to wrap around, it is not a FIFO with a capacity even with every atomic
// as seq_cst. Two findings, judged properties of CK's reservation-based ring rather than defects
// of the port, whichever a seed meets first: an enqueue answers "full" while another enqueue has
// reserved the last slot but not yet published it, and a dequeue meanwhile answers "empty" (no
// order explains both answers); and a consumer's copy of its slot is ordered before the write of
// the producer that reuses the slot only by a control dependency (relaxed loads), a data race
// at ck_ring.h.
TEST(InstrumentedRcuCk, CkRingMpmcOfFourSlotsIsNoBoundedFifo) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::pct(3), {.memory_model = duet::MemoryModel::sc});
  const duet::CheckResult r = duet::check_parallel(ck_ring(true), pc, seeded(5, 3000));
  ASSERT_FALSE(r.passed()) << r.report;
  const bool spurious_full = r.report.find("no linearizable order of the calls explains the results") != std::string::npos &&
                             r.report.find("r.enqueue(0) : false") != std::string::npos;
  const bool slot_race = r.report.find("data race") != std::string::npos && r.report.find("ck_ring.h") != std::string::npos;
  EXPECT_TRUE(spurious_full || slot_race) << r.report;
}

// Under the C++ memory model it is not: a consumer copies its slot before its CAS on the
// consumer index, and a producer that has read the new index writes the slot after a relaxed
// load of it; nothing but the control dependency (compare, then CAS, then write) orders the
// write after the copy. Hardware keeps that order, the C++ model does not: a data race at
// ck_ring.h (judged: CK's documented reliance on its machine models, not a defect on them).
TEST(InstrumentedRcuCk, CkRingMpmcSlotCopyIsARaceUnderTheCppModel) {
  const duet::CheckResult r = duet::check_parallel(ck_ring(true), instrumented_test::on_fibers(), seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("ck_ring.h"), std::string::npos) << r.report;
}

#if defined(__x86_64__)
// The limit duet's port lifts, measured: with CK's inline-assembly atomics the stack's hand-over
// is invisible, so the value a push wrote and the pop that reads it look unordered; the report
// names the assembly as the reason.
TEST(InstrumentedRcuCk, CkStackWithAssemblyAtomicsIsReportedAndSaysWhy) {
  const duet::CheckResult r =
      duet::check_parallel(ck_stack("ck_stack_assembly", duet_ck_asm_stack_new, duet_ck_asm_stack_delete,
                                    duet_ck_asm_stack_push, duet_ck_asm_stack_pop),
                           instrumented_test::on_fibers(), seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("inline assembly (Concurrency Kit's ck_pr"), std::string::npos) << r.report;
}
#endif

#else
TEST(InstrumentedRcuCk, CkStackWithDuetsAtomicsPort) { GTEST_SKIP() << DUET_SKIP_CK; }
#endif

}  // namespace
