// Unmodified libraries from Debian, compiled with duet_instrument, on the fiber scheduler: their
// documented semantics pass (linearizable against the candidate run sequentially), and a
// documented misuse is found. Nothing in them was written for duet.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/instrument.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"
#include "support/emulation.hpp"

#include <boost/lockfree/queue.hpp>
#include <boost/lockfree/stack.hpp>
#include <boost/version.hpp>

#if DUET_HAVE_ATOMIC_QUEUE
#include <atomic_queue/atomic_queue.h>
#else
// Why its tests skip: set by the build (tests/instrumented/header_libraries.cmake): not installed,
// or its headers do not compile for this target.
#ifndef DUET_SKIP_ATOMIC_QUEUE
#define DUET_SKIP_ATOMIC_QUEUE "atomic_queue not installed (apt-get install libatomic-queue-dev)"
#endif
#endif
#if DUET_HAVE_LIBCUCKOO
#include "support/cuckoo_lin.hpp"
#else
#ifndef DUET_SKIP_LIBCUCKOO
#define DUET_SKIP_LIBCUCKOO "libcuckoo not installed (apt-get install libcuckoo-dev)"
#endif
#endif

#include <optional>

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

using BoostQueue = boost::lockfree::queue<int, boost::lockfree::capacity<64>>;
using BoostStack = boost::lockfree::stack<int, boost::lockfree::capacity<64>>;
// The node-based stack: nodes from the allocator, a tagged pointer at the top (8 bytes where
// Boost compresses pointers, x86-64 and arm64; 16 elsewhere).
struct BoostNodeStack : boost::lockfree::stack<int> {
  BoostNodeStack() : boost::lockfree::stack<int>(8) {}
};

// Boost.Lockfree before 1.88 sizes a compile-time capacity's node array with 64 bytes of slack
// and then aligns its start to a cache line, which it takes as 256 bytes on s390x and 128 on
// POWER: constructing the stack writes up to 192 bytes past the object (166 measured on s390x).
// duet reports it as the crash it is (a corrupted heap, an abort in a fiber run); the fix is
// boostorg/lockfree#107 (the storage aligned as a whole).
#if BOOST_LOCKFREE_CACHELINE_BYTES > 64 && BOOST_VERSION < 108800
#define DUET_SKIP_BOOST_CAPACITY_STACK                                                             \
  "Boost.Lockfree " BOOST_LIB_VERSION "'s stack with a compile-time capacity writes past its own " \
  "storage where a cache line is wider than 64 bytes (fixed in Boost 1.88); the node-based stack " \
  "is checked instead (BoostLockfreeNodeStack)"
#endif

// Boost.Lockfree reads a node's fields before its tagged compare-exchange tells whether the
// node was still current: a data race by the standard's rules, accepted by the library (and
// suppressed the same way for ThreadSanitizer).
void accept_boost_lockfree_optimistic_reads() { duet::ignore_races_in("boost/lockfree/"); }

TEST(InstrumentedLibraries, BoostLockfreeQueue) {
  accept_boost_lockfree_optimistic_reads();
  auto lin = duet::Lin<BoostQueue>("boost_queue", "q")
                 .op(
                     "push", [](BoostQueue& q, int v) { return q.push(v); }, duet::integers(0, 9))
                 .op("pop", [](BoostQueue& q) {
                   int v = 0;
                   return q.pop(v) ? std::optional<int>(v) : std::nullopt;
                 });
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(lin, on_fibers(s), seeded(1, 500));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

// push and pop of a Boost.Lockfree stack, against the stack itself run sequentially.
template <class Stack>
duet::Lin<Stack> boost_stack_lin(const char* name) {
  return duet::Lin<Stack>(name, "s")
      .op(
          "push", [](Stack& s, int v) { return s.push(v); }, duet::integers(0, 9))
      .op("pop", [](Stack& s) {
        int v = 0;
        return s.pop(v) ? std::optional<int>(v) : std::nullopt;
      });
}

TEST(InstrumentedLibraries, BoostLockfreeStack) {
#ifdef DUET_SKIP_BOOST_CAPACITY_STACK
  GTEST_SKIP() << DUET_SKIP_BOOST_CAPACITY_STACK;
#endif
  accept_boost_lockfree_optimistic_reads();
  const duet::CheckResult r = duet::check_parallel(boost_stack_lin<BoostStack>("boost_stack"), on_fibers(), seeded(1, 500));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedLibraries, BoostLockfreeNodeStack) {
  if (!duet_test::sixteen_byte_cas_completes()) GTEST_SKIP() << duet_test::kSixteenByteCasReason;
  accept_boost_lockfree_optimistic_reads();
  const duet::CheckResult r =
      duet::check_parallel(boost_stack_lin<BoostNodeStack>("boost_node_stack"), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

#if DUET_HAVE_ATOMIC_QUEUE
// atomic_queue reserves one value as "empty" (0 by default): the values pushed are 1 to 9.
using AtomicQueue = atomic_queue::AtomicQueue<unsigned, 64>;

duet::Lin<AtomicQueue> atomic_queue_spec() {
  return duet::Lin<AtomicQueue>("atomic_queue", "q")
      .op(
          "try_push", [](AtomicQueue& q, unsigned v) { return q.try_push(v); }, duet::integers(1u, 9u))
      .op("try_pop", [](AtomicQueue& q) {
        unsigned v = 0;
        return q.try_pop(v) ? std::optional<unsigned>(v) : std::nullopt;
      });
}

// Every operation as seq_cst: a FIFO queue.
TEST(InstrumentedLibraries, AtomicQueue) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), {.memory_model = duet::MemoryModel::sc});
  const duet::CheckResult r = duet::check_parallel(atomic_queue_spec(), pc, seeded(1, 500));
  EXPECT_TRUE(r.passed()) << r.report;
}

// Under the C++ memory model, try_pop reads the head and tail indices with relaxed loads: it
// can see a newer tail and an older head (no order between the two), and report the queue empty
// while it holds an element. x86 never shows it (loads are not reordered there); C++ allows it.
TEST(InstrumentedLibraries, AtomicQueueEmptyWhileNotUnderTheCppModelFound) {
  const duet::CheckResult r = duet::expect_unsafe(atomic_queue_spec(), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("q.try_pop() : std::nullopt"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("(stale)"), std::string::npos) << r.report;
}

#else
TEST(InstrumentedLibraries, AtomicQueue) { GTEST_SKIP() << DUET_SKIP_ATOMIC_QUEUE; }
TEST(InstrumentedLibraries, AtomicQueueEmptyWhileNotUnderTheCppModelFound) { GTEST_SKIP() << DUET_SKIP_ATOMIC_QUEUE; }
#endif

#if DUET_HAVE_LIBCUCKOO
TEST(InstrumentedLibraries, LibcuckooMap) {
  // A small table (the default holds 2^16 slots, all written by the constructor).
  const auto lin = cuckoo_subject::cuckoo_lin("cuckoo", 8);
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}
#else
TEST(InstrumentedLibraries, LibcuckooMap) { GTEST_SKIP() << DUET_SKIP_LIBCUCKOO; }
#endif

}  // namespace
