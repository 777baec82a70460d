// Memory-order bugs in plain std::atomic code, which no run on x86 shows and the fiber scheduler
// finds under the C++ memory model (FiberOptions::memory_model, the default): each found on every
// seed with every strategy and shrunk, its report naming the load that read an older store (or
// the data race the missing synchronisation leaves); each correct twin passes.
//
// The subjects: a double-checked initialisation published with a relaxed store (its value an
// atomic: a stale read; or a plain int: a data race), a seqlock whose reader lacks the acquire
// fence, a reference count decremented with relaxed before the delete, a Peterson lock with
// acquire/release only, and a single-producer single-consumer ring whose index is published
// relaxed.
#include <duet/lin.hpp>
#include <duet/models/ms_queue.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"
#include "instrumented/fiber_identity.hpp"

#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>

namespace {

using instrumented_test::found_on_every_seed;
using instrumented_test::Model;
using instrumented_test::twin_passes;
using std::memory_order_acq_rel, std::memory_order_acquire, std::memory_order_relaxed, std::memory_order_release,
    std::memory_order_seq_cst;

// Found on every seed and strategy; seed 1's report says `what` (which load read an older
// store, or the data race the missing order leaves).
constexpr const char* kStaleRead = "stale read: read ";
constexpr const char* kDataRace = "data race on ";
template <class Subject>
void found_reported_as(const char* what, const Subject& subject, std::size_t longest, duet::ParallelConfig shape = {}) {
  found_on_every_seed(subject, longest, shape);
  shape.executor = duet::fibers();
  const duet::CheckResult r = duet::expect_unsafe(subject, shape, instrumented_test::seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find(what), std::string::npos) << r.report;
}

// ---- double-checked initialisation ----

template <bool RelaxedPublish, class Value>
class LazyAnswer {
 public:
  int get() {
    if (ready_.load(memory_order_acquire)) return read();
    std::lock_guard<std::mutex> g(m_);
    if (!ready_.load(memory_order_relaxed)) {
      write(42);
      ready_.store(true, RelaxedPublish ? memory_order_relaxed : memory_order_release);
    }
    return read();
  }

 private:
  int read() const {
    if constexpr (std::is_same_v<Value, int>) return value_;
    else return value_.load(memory_order_relaxed);
  }
  void write(int v) {
    if constexpr (std::is_same_v<Value, int>) value_ = v;
    else value_.store(v, memory_order_relaxed);
  }
  Value value_{0};
  std::atomic<bool> ready_{false};
  std::mutex m_;
};

template <bool RelaxedPublish, class Value>
duet::Lin<LazyAnswer<RelaxedPublish, Value>> lazy_answer(const char* name) {
  using A = LazyAnswer<RelaxedPublish, Value>;
  return duet::Lin<A>(name, "a").op("get", [](A& a) { return a.get(); });
}

TEST(InstrumentedMemoryOrder, RelaxedPublicationFound) {
  found_reported_as(kStaleRead, lazy_answer<true, std::atomic<int>>("LazyAnswerRelaxed"), 4);
}
TEST(InstrumentedMemoryOrder, RelaxedPublicationOfPlainDataIsADataRace) {
  found_reported_as(kDataRace, lazy_answer<true, int>("LazyAnswerRelaxedPlain"), 2);
}
// What arm64 or POWER hardware can show on threads (x86 never does) comes with its interleaving
// under the C++ model on fibers: the stale read, at the subject's lines, and a token.
TEST(InstrumentedMemoryOrder, RelaxedPublicationFailingOnThreadsGetsItsFiberTrace) {
  const auto subject = lazy_answer<true, std::atomic<int>>("LazyAnswerRelaxed");
  const std::string text = instrumented_test::fiber_search_of(subject, 1);
  instrumented_test::expect_fiber_trace(subject, text);
  EXPECT_NE(text.find(kStaleRead), std::string::npos) << text;
}
TEST(InstrumentedMemoryOrder, ReleasePublicationPasses) {
  twin_passes(lazy_answer<false, std::atomic<int>>("LazyAnswerRelease"));
  twin_passes(lazy_answer<false, int>("LazyAnswerReleasePlain"));
}

// ---- a seqlock: writers behind a mutex, readers retry ----

template <bool MissingFence>
class SeqLockPair {
 public:
  void write(int v) {
    std::lock_guard<std::mutex> g(writing_);
    const unsigned s = seq_.load(memory_order_relaxed);
    seq_.store(s + 1, memory_order_relaxed);
    std::atomic_thread_fence(memory_order_release);
    first_.store(v, memory_order_relaxed);
    second_.store(v, memory_order_relaxed);
    seq_.store(s + 2, memory_order_release);
  }
  int read() const {
    for (;;) {
      const unsigned s1 = seq_.load(memory_order_acquire);
      if (s1 & 1) continue;
      const int a = first_.load(memory_order_relaxed);
      const int b = second_.load(memory_order_relaxed);
      if (!MissingFence) std::atomic_thread_fence(memory_order_acquire);
      if (seq_.load(memory_order_relaxed) == s1) return a * 10 + b;  // 11, 22...: torn if the digits differ
    }
  }

 private:
  std::atomic<unsigned> seq_{0};
  std::atomic<int> first_{0}, second_{0};
  std::mutex writing_;
};

template <bool MissingFence>
duet::Lin<SeqLockPair<MissingFence>> seqlock(const char* name) {
  using S = SeqLockPair<MissingFence>;
  return duet::Lin<S>(name, "s")
      .op(
          "write", [](S& s, int v) { s.write(v); }, duet::integers(1, 9))
      .op("read", [](S& s) { return s.read(); });
}

TEST(InstrumentedMemoryOrder, SeqlockWithoutAcquireFenceFound) {
  found_reported_as(kStaleRead, seqlock<true>("SeqLockNoFence"), 10);
}
TEST(InstrumentedMemoryOrder, SeqlockWithAcquireFencePasses) { twin_passes(seqlock<false>("SeqLock")); }

// ---- a reference count ----
// put(v) publishes a new buffer (two references: the slot's and the putter's) and drops the
// buffer it replaced; the putter then stamps its buffer and drops its reference. take()
// empties the slot, reads the buffer and drops the slot's reference. Whoever drops the last
// deletes, and the destructor writes. With a relaxed decrement nothing orders the other
// side's accesses before the delete.

template <bool RelaxedDecrement>
class Handoff {
  struct Buffer {
    explicit Buffer(int v) : data(v) {}
    ~Buffer() { data = stamp = -1; }
    std::atomic<int> refs{2};
    int data;
    int stamp = 0;
  };

 public:
  Handoff() = default;
  Handoff(const Handoff&) = delete;
  ~Handoff() {
    if (Buffer* b = slot_.load()) drop(b);
  }
  void put(int v) {
    auto* b = new Buffer(v);
    if (Buffer* old = slot_.exchange(b, memory_order_acq_rel)) drop(old);
    b->stamp = v;
    drop(b);
  }
  int take() {
    Buffer* b = slot_.exchange(nullptr, memory_order_acq_rel);
    if (b == nullptr) return -1;
    const int v = b->data;
    drop(b);
    return v;
  }

 private:
  static void drop(Buffer* b) {
    if (b->refs.fetch_sub(1, RelaxedDecrement ? memory_order_relaxed : memory_order_acq_rel) == 1) delete b;
  }
  std::atomic<Buffer*> slot_{nullptr};
};

template <bool RelaxedDecrement>
duet::Lin<Handoff<RelaxedDecrement>> handoff(const char* name) {
  using H = Handoff<RelaxedDecrement>;
  return duet::Lin<H>(name, "h")
      .op(
          "put", [](H& h, int v) { h.put(v); }, duet::integers(1, 9))
      .op("take", [](H& h) { return h.take(); });
}

TEST(InstrumentedMemoryOrder, RelaxedRefcountDecrementFound) {
  found_reported_as(kDataRace, handoff<true>("HandoffRelaxed"), 6);
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::expect_unsafe(handoff<true>("HandoffRelaxed"), pc, instrumented_test::seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.report.find(" destroy at memory_order_test.cpp:"), std::string::npos) << r.report;  // the delete's line
  EXPECT_NE(r.report.find("(relaxed: under the C++ memory model it synchronises with nothing)"), std::string::npos)
      << r.report;
}
TEST(InstrumentedMemoryOrder, AcqRelRefcountDecrementPasses) { twin_passes(handoff<false>("Handoff")); }

// ---- Peterson's lock for two threads, guarding a plain counter ----

template <bool AcquireRelease>
class PetersonCounter {
  static constexpr auto kStore = AcquireRelease ? memory_order_release : memory_order_seq_cst;
  static constexpr auto kLoad = AcquireRelease ? memory_order_acquire : memory_order_seq_cst;

 public:
  int incr() {
    const int me = index();
    const int other = 1 - me;
    flag_[me].store(true, kStore);
    turn_.store(other, kStore);
    while (flag_[other].load(kLoad) && turn_.load(kLoad) == other) {
    }
    const int v = ++count_;
    flag_[me].store(false, memory_order_release);
    return v;
  }

 private:
  // The two threads that use it, in the order they first call (a relaxed claim: no ordering).
  int index() {
    const std::thread::id self = std::this_thread::get_id();
    for (int i = 0; i < 2; ++i) {
      std::thread::id seen = ids_[i].load(memory_order_relaxed);
      if (seen == self) return i;
      if (seen == std::thread::id() && ids_[i].compare_exchange_strong(seen, self, memory_order_relaxed)) return i;
      if (seen == self) return i;
    }
    throw std::logic_error("Peterson's lock serves two threads");
  }
  std::atomic<std::thread::id> ids_[2];
  std::atomic<bool> flag_[2] = {false, false};
  std::atomic<int> turn_{0};
  int count_ = 0;
};

template <bool AcquireRelease>
duet::Lin<PetersonCounter<AcquireRelease>> peterson(const char* name) {
  using P = PetersonCounter<AcquireRelease>;
  return duet::Lin<P>(name, "p").op("incr", [](P& p) { return p.incr(); });
}

TEST(InstrumentedMemoryOrder, PetersonWithAcquireReleaseFound) {
  DUET_SKIP_UNLESS_FIBERS_ARE_THREADS("the lock tells its two threads apart by std::this_thread::get_id()");
  found_reported_as(kDataRace, peterson<true>("PetersonAcqRel"), 6, instrumented_test::every_call_on_a_fiber());
}
TEST(InstrumentedMemoryOrder, PetersonWithSeqCstPasses) {
  DUET_SKIP_UNLESS_FIBERS_ARE_THREADS("the lock tells its two threads apart by std::this_thread::get_id()");
  twin_passes(peterson<false>("Peterson"), instrumented_test::every_call_on_a_fiber());
}

// ---- a bounded single-producer single-consumer ring (producers and consumers each behind a
// mutex of their own: the ring is used as its authors intend) ----

template <bool RelaxedIndex>
class Ring {
  static constexpr unsigned kSize = 4;

 public:
  bool push(int v) {
    std::lock_guard<std::mutex> g(producing_);
    const unsigned t = tail_.load(memory_order_relaxed);
    if (t - head_.load(memory_order_acquire) == kSize) return false;
    slots_[t % kSize].store(v, memory_order_relaxed);
    tail_.store(t + 1, RelaxedIndex ? memory_order_relaxed : memory_order_release);
    return true;
  }
  std::optional<int> pop() {
    std::lock_guard<std::mutex> g(consuming_);
    const unsigned h = head_.load(memory_order_relaxed);
    if (h == tail_.load(memory_order_acquire)) return std::nullopt;
    const int v = slots_[h % kSize].load(memory_order_relaxed);
    head_.store(h + 1, memory_order_release);
    return v;
  }

 private:
  std::atomic<unsigned> head_{0}, tail_{0};
  std::atomic<int> slots_[kSize] = {};
  std::mutex producing_, consuming_;
};

template <bool RelaxedIndex>
duet::Lin<Ring<RelaxedIndex>> ring(const char* name) {
  using R = Ring<RelaxedIndex>;
  return duet::Lin<R>(name, "r")
      .op(
          "push", [](R& r, int v) { return r.push(v); }, duet::integers(1, 9))
      .op("pop", [](R& r) { return r.pop(); });
}

TEST(InstrumentedMemoryOrder, RingWithRelaxedIndexFound) { found_reported_as(kStaleRead, ring<true>("RingRelaxed"), 12); }
TEST(InstrumentedMemoryOrder, RingWithReleaseIndexPasses) { twin_passes(ring<false>("Ring")); }

// ---- correct lock-free code with weak orders ----
// The project's Treiber stack and Michael-Scott queue over plain std::atomic (acquire/release
// where the algorithms allow), their plain fields checked for races under the model.

TEST(InstrumentedMemoryOrder, TreiberStackWithAcquireReleasePasses) {
  twin_passes(Model<duet::models::TreiberStackSpec<duet::models::StdSync>>{"TreiberStack"});
}
TEST(InstrumentedMemoryOrder, MsQueueWithAcquireReleasePasses) {
  twin_passes(Model<duet::models::MsQueueSpec<duet::models::StdSync>>{"MsQueue"});
}

}  // namespace
