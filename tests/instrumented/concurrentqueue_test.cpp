// moodycamel::ConcurrentQueue (Debian's libconcurrentqueue-dev), unmodified, on the fiber
// scheduler. Its documentation promises FIFO order per producer, not across producers, and says
// that a try_dequeue that finds nothing means the queue is "likely but not guaranteed" empty.
// With one producer and one consumer at a time it passes as a FIFO queue; the two things it
// does not promise are found and shrunk: the order across its implicit producers (one per
// thread, found by the thread's id), and a try_dequeue that finds nothing while another
// consumer contends. Against FifoPerProducerQueue (with empty pops that may give up), the model
// of those two promises, it passes.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/models/relaxed_queue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"
#include "instrumented/fiber_identity.hpp"

#if DUET_HAVE_CONCURRENTQUEUE
#include <concurrentqueue/concurrentqueue.h>
#else
// Why its tests skip: set by the build (tests/instrumented/header_libraries.cmake): not installed,
// or its headers do not compile for this target.
#ifndef DUET_SKIP_CONCURRENTQUEUE
#define DUET_SKIP_CONCURRENTQUEUE "moodycamel::ConcurrentQueue not installed (apt-get install libconcurrentqueue-dev)"
#endif
#endif

#include <mutex>
#include <optional>

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

#if DUET_HAVE_CONCURRENTQUEUE
// Small blocks, so that runs cross from one block to the next.
struct SmallBlocks : moodycamel::ConcurrentQueueDefaultTraits {
  static const std::size_t BLOCK_SIZE = 2;
  static const std::size_t IMPLICIT_INITIAL_INDEX_SIZE = 2;
  static const std::size_t EXPLICIT_INITIAL_INDEX_SIZE = 2;
};
using Queue = moodycamel::ConcurrentQueue<int, SmallBlocks>;

std::optional<int> dequeue(Queue& q) {
  int v = 0;
  return q.try_dequeue(v) ? std::optional<int>(v) : std::nullopt;
}

// Every enqueue through one explicit producer, one caller at a time; with OneConsumer, one
// dequeuing caller at a time too.
template <bool OneConsumer>
class OneProducer {
 public:
  bool enqueue(int v) {
    const std::lock_guard<std::mutex> hold(producing_);
    return queue_.enqueue(token_, v);
  }
  std::optional<int> try_dequeue() {
    if constexpr (OneConsumer) {
      const std::lock_guard<std::mutex> hold(consuming_);
      return dequeue(queue_);
    } else {
      return dequeue(queue_);
    }
  }

 private:
  Queue queue_;
  moodycamel::ProducerToken token_{queue_};
  std::mutex producing_;
  std::mutex consuming_;
};

template <bool OneConsumer>
duet::Lin<OneProducer<OneConsumer>> one_producer() {
  using Q = OneProducer<OneConsumer>;
  return duet::Lin<Q>(OneConsumer ? "concurrentqueue_spsc" : "concurrentqueue_spmc", "q")
      .op(
          "enqueue", [](Q& q, int v) { return q.enqueue(v); }, duet::integers(0, 9))
      .op("try_dequeue", [](Q& q) { return q.try_dequeue(); });
}

TEST(InstrumentedConcurrentQueue, OneProducerOneConsumerIsFifo) {
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel(one_producer<true>(), on_fibers(s), seeded(1, 300));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

TEST(InstrumentedConcurrentQueue, EmptyHandedDequeueWhileConsumersContendFound) {
  instrumented_test::found_on_every_seed(one_producer<false>(), 10);
}

// Implicit producers: each thread that enqueues gets its own, so two threads' items come out in
// no promised order. As a FIFO queue (the candidate run sequentially, on one thread: one
// producer) that is not linearizable, which is what the documentation says.
duet::Lin<Queue> implicit_producers() {
  return duet::Lin<Queue>("concurrentqueue", "q")
      .op(
          "enqueue", [](Queue& q, int v) { return q.enqueue(v); }, duet::integers(0, 9))
      .op("try_dequeue", [](Queue& q) { return dequeue(q); });
}

// Every call on a fiber: a prefix runs alone on the calling thread, so an order broken between
// its producer and one fiber's is no race, and a negative test does not count it.
TEST(InstrumentedConcurrentQueue, NoFifoOrderAcrossProducersFound) {
  DUET_SKIP_UNLESS_FIBERS_ARE_THREADS("implicit producers are found by a thread_local's address");
  duet::ParallelConfig shape;
  shape.prefix_length = 0;
  instrumented_test::found_on_every_seed(implicit_producers(), 7, shape);
}

// The same implicit producers against the model of what the documentation promises: FIFO per
// producer, and a try_dequeue that may find nothing while items are there.
struct ImplicitProducers {
  using Sut = Queue;
  static void push(Sut& q, int v) { q.enqueue(v); }
  static std::optional<int> try_pop(Sut& q) { return dequeue(q); }
};
using Promised = duet::models::FifoPerProducerQueue<ImplicitProducers, duet::models::EmptyPop::may_give_up>;

TEST(InstrumentedConcurrentQueue, ImplicitProducersAreFifoPerProducer) {
  const duet::CheckResult threads = duet::check_parallel<Promised>({}, seeded(1, 1000));
  EXPECT_TRUE(threads.passed()) << threads.report;
  DUET_SKIP_UNLESS_FIBERS_ARE_THREADS("implicit producers are found by a thread_local's address");
  for (const duet::Schedule& s : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel<Promised>(on_fibers(s), seeded(1, 300));
    EXPECT_TRUE(r.passed()) << r.report;
  }
}

#else
TEST(InstrumentedConcurrentQueue, Skipped) { GTEST_SKIP() << DUET_SKIP_CONCURRENTQUEUE; }
#endif

}  // namespace
