// Real libraries whose runtime is a shared object that was not instrumented, on the fiber
// scheduler with no workaround: oneTBB's concurrent queues (libtbb.so), a flat-combining
// container whose per-thread records live in boost::thread_specific_ptr (libboost_thread.so),
// and liburcu's RCU queue (liburcu.so, per-thread registration). Each passes with every
// strategy and says which libraries ran uninstrumented; each negative control is found.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include <tbb/combinable.h>
#include <tbb/concurrent_queue.h>
#include <tbb/parallel_for.h>
#include <tbb/task_group.h>

#if DUET_HAVE_BOOST_THREAD
#include <boost/thread/tss.hpp>
#endif

#include "execute/fibers/thread_locals.hpp"
#include "instrumented/checks.hpp"
#include "instrumented/flat_combining.hpp"

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

using instrumented_test::kCallsSeen;

// A pass with random, PCT and exhaustive schedules; `library` named as uninstrumented.
template <class T>
void passes_with_every_strategy(const duet::Lin<T>& lin, const std::string& library,
                                duet::MemoryModel model = duet::MemoryModel::cpp, std::uint64_t programs = 300) {
  const std::pair<duet::Schedule, std::uint64_t> strategies[] = {
      {duet::random(), programs}, {duet::pct(3), programs}, {duet::exhaustive(2), 5}};
  for (const auto& [schedule, count] : strategies) {
    duet::ParallelConfig pc;
    pc.executor = duet::fibers(schedule, {.memory_model = model});
    const duet::CheckResult r = duet::check_parallel(lin, pc, seeded(1, count));
    EXPECT_TRUE(r.passed()) << r.report;
    if (kCallsSeen && !library.empty())
      EXPECT_NE(r.coverage.find(library), std::string::npos) << "the pass does not name " << library << ": " << r.coverage;
  }
}

using TbbQueue = tbb::concurrent_queue<int>;

duet::Lin<TbbQueue> tbb_queue() {
  return duet::Lin<TbbQueue>("tbb_concurrent_queue", "q")
      .op(
          "push", [](TbbQueue& q, int v) { q.push(v); }, duet::integers(0, 9))
      .op("try_pop", [](TbbQueue& q) {
        int v = 0;
        return q.try_pop(v) ? std::optional<int>(v) : std::nullopt;
      });
}

// oneTBB's try_pop reads the queue's tail counter with a relaxed load: under the C++ memory
// model a caller that has seen another's later pop may still read an older tail, and find the
// queue empty while an element pushed before it is there (the shrunk counterexample: two
// pushes on each branch, and a try_pop that returns nothing after the other branch popped two).
// x86 never shows it; the model allows it. With every atomic as seq_cst the queue is a FIFO.
TEST(InstrumentedLibraryRuntimes, TbbConcurrentQueue) {
  passes_with_every_strategy(tbb_queue(), "libtbb", duet::MemoryModel::sc);
}

TEST(InstrumentedLibraryRuntimes, TbbConcurrentQueueRelaxedTailIsFoundUnderTheCppModel) {
  const duet::CheckResult r = duet::check_parallel(tbb_queue(), on_fibers(duet::pct(3)), seeded(1, 1000));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("(stale)"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("concurrent_queue.h"), std::string::npos) << r.report;
}

// The negative control: "pop if not empty" made of unsafe_size() and try_pop() is not atomic:
// two callers both see one element, and one of them finds none.
TEST(InstrumentedLibraryRuntimes, TbbSizeThenPopIsFound) {
  auto lin = duet::Lin<TbbQueue>("tbb_size_then_pop", "q")
                 .op(
                     "push", [](TbbQueue& q, int v) { q.push(v); }, duet::integers(0, 9))
                 .op("pop_if_any", [](TbbQueue& q) {
                   if (q.unsafe_size() == 0) return std::optional<int>();
                   int v = 0;
                   return q.try_pop(v) ? std::optional<int>(v) : std::optional<int>(-1);
                 });
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(), seeded(1, 2000));
  EXPECT_FALSE(r.passed()) << r.report;
}

using TbbBounded = tbb::concurrent_bounded_queue<int>;

duet::Lin<TbbBounded> tbb_bounded_queue() {
  return duet::Lin<TbbBounded>("tbb_concurrent_bounded_queue", "q")
      .init(
          [] {
            auto q = std::make_unique<TbbBounded>();
            q->set_capacity(2);
            return q;
          },
          "tbb::concurrent_bounded_queue<int> q; q.set_capacity(2);")
      .op(
          "try_push", [](TbbBounded& q, int v) { return q.try_push(v); }, duet::integers(0, 9))
      .op("try_pop", [](TbbBounded& q) {
        int v = 0;
        return q.try_pop(v) ? std::optional<int>(v) : std::nullopt;
      });
}

TEST(InstrumentedLibraryRuntimes, TbbConcurrentBoundedQueue) {
  passes_with_every_strategy(tbb_bounded_queue(), "libtbb", duet::MemoryModel::sc);
}

// Calls that run oneTBB's parallel algorithms: libtbb's workers (started by the first such call,
// kept by libtbb) run the tasks, instrumented code, between polls of their own. On fibers they
// are fibers of the trial that end with it, and duet::Lin's oracle (the candidate replayed
// alone) runs on fibers too once a trial has shown that the subject starts threads: on the
// calling thread it started real workers, which never end, and every later run was an error.
// `Racy`: the tasks also leave the last value they saw in a plain field that count() reads with
// no synchronisation (a race between a task and another branch's call, found; the value read
// is not returned, which would depend on the order the tasks ran in, the oracle's too).
template <bool Racy>
struct TbbSums {
  std::atomic<int> calls{0};
  int last = 0;
  int sum(int n) {
    std::atomic<int> local{0};
    tbb::task_group g;
    for (int i = 1; i <= n; ++i)
      g.run([this, &local, i] {
        local.fetch_add(i);
        if (Racy) last = i;
      });
    g.wait();
    calls.fetch_add(1);
    return local.load();
  }
  int parallel_sum(int n) {
    tbb::combinable<int> parts([] { return 0; });
    tbb::parallel_for(1, n + 1, [&](int i) { parts.local() += i; });
    calls.fetch_add(1);
    return parts.combine([](int a, int b) { return a + b; });
  }
  int count() {
    if (Racy) [[maybe_unused]]
      volatile int seen = last;
    return calls.load();
  }
};

template <bool Racy>
duet::Lin<TbbSums<Racy>> tbb_sums() {
  return duet::Lin<TbbSums<Racy>>(Racy ? "tbb_sums_racy" : "tbb_sums", "s")
      .op(
          "sum", [](TbbSums<Racy>& s, int n) { return s.sum(n); }, duet::integers(1, 3))
      .op(
          "parallel_sum", [](TbbSums<Racy>& s, int n) { return s.parallel_sum(n); }, duet::integers(1, 3))
      .op("count", [](TbbSums<Racy>& s) { return s.count(); });
}

// oneTBB keeps each thread's scheduler state inside libtbb.so, in thread-local storage that
// fibers share with their thread on every architecture but x86-64: they are one thread to it,
// and their parts race (seen under qemu-ppc64le and qemu-aarch64). Those accesses are the
// library's own, out of duet's sight there (calls into uninstrumented code are seen on x86-64
// only), so duet can tell that race neither from the code's nor replay it: a pass is not
// expected, nor a race found and replayed (the check ends "nondeterministic", no verdict).
constexpr const char* kTbbStateShared =
    "fibers share their thread's storage on this platform, and oneTBB keeps per-thread state there";

TEST(InstrumentedLibraryRuntimes, TbbTaskGroupAndParallelForInCallsPassWithTheCandidateAsOracle) {
  if (!duet::detail::fiber::fiber_tls::supported()) GTEST_SKIP() << kTbbStateShared;
  for (const duet::Schedule& schedule : {duet::random(), duet::pct(3)}) {
    duet::ParallelConfig pc;
    pc.executor = duet::fibers(schedule);
    const duet::CheckResult r = duet::check_parallel(tbb_sums<false>(), pc, seeded(1, 100));
    EXPECT_TRUE(r.passed()) << schedule << "\n" << r.report;
    if (kCallsSeen) EXPECT_NE(r.coverage.find("libtbb"), std::string::npos) << r.coverage;
  }
}

TEST(InstrumentedLibraryRuntimes, TbbTaskWritingWhatAnotherCallReadsUnsynchronisedIsFound) {
  if (!duet::detail::fiber::fiber_tls::supported()) GTEST_SKIP() << kTbbStateShared;
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::expect_unsafe(tbb_sums<true>(), pc, seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
}

#if DUET_HAVE_BOOST_THREAD
// Flat combining with each thread's publication record in a boost::thread_specific_ptr (Boost.Thread
// keeps it behind a pthread key, in libboost_thread.so).
struct TssSlot {
  boost::thread_specific_ptr<instrumented_test::CombiningRecord> ptr{[](instrumented_test::CombiningRecord*) {}};
  instrumented_test::CombiningRecord* get() const { return ptr.get(); }
  void set(instrumented_test::CombiningRecord* r) { ptr.reset(r); }
};
template <bool kCorrect>
duet::Lin<instrumented_test::FlatCombiningCounter<TssSlot, kCorrect>> tss_combining() {
  return instrumented_test::flat_combining_lin<instrumented_test::FlatCombiningCounter<TssSlot, kCorrect>>(
      kCorrect ? "tss_flat_combining" : "tss_flat_combining_relaxed");
}

TEST(InstrumentedLibraryRuntimes, BoostThreadSpecificPtrFlatCombining) {
  passes_with_every_strategy(tss_combining<true>(), "libboost_thread");
}

TEST(InstrumentedLibraryRuntimes, BoostThreadSpecificPtrFlatCombiningRelaxedResultIsFound) {
  const duet::CheckResult r = duet::check_parallel(tss_combining<false>(), on_fibers(), seeded(1, 300));
  ASSERT_FALSE(r.passed());
  EXPECT_NE(r.report.find("data race"), std::string::npos) << r.report;
}
#else
TEST(InstrumentedLibraryRuntimes, BoostThreadSpecificPtrFlatCombining) {
  GTEST_SKIP() << "Boost.Thread not found when configured: apt-get install libboost-thread-dev";
}
#endif

}  // namespace
