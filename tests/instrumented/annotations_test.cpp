// Libraries that annotate for the thread sanitizer (ANNOTATE_HAPPENS_BEFORE, ANNOTATE_RWLOCK_*,
// the __tsan_mutex_* annotations of a hand-made lock, benign races), compiled with
// duet_instrument and checked on fibers: they link, and the happens-before their annotations
// declare orders their plain accesses in the data-race check. Each subject's synchronisation is
// invisible to duet without its annotations (relaxed atomics, a flag read in an "ignore"
// region), so each is also checked without them: a data race, which shows that the passing
// check owes its verdict to the annotations.
#include <duet/gen.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#include <sanitizer/tsan_interface.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

// The dynamic annotations, declared as the libraries that call them declare them (absl's and
// folly's dynamic_annotations.h, valgrind's): no system header has them.
extern "C" {
void AnnotateHappensBefore(const char* file, int line, const volatile void* address);
void AnnotateHappensAfter(const char* file, int line, const volatile void* address);
void AnnotateIgnoreReadsBegin(const char* file, int line);
void AnnotateIgnoreReadsEnd(const char* file, int line);
void AnnotateIgnoreWritesBegin(const char* file, int line);
void AnnotateIgnoreWritesEnd(const char* file, int line);
void AnnotateRWLockCreate(const char* file, int line, const volatile void* lock);
void AnnotateRWLockDestroy(const char* file, int line, const volatile void* lock);
void AnnotateRWLockAcquired(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateRWLockReleased(const char* file, int line, const volatile void* lock, long is_w);
void AnnotateCondVarSignal(const char* file, int line, const volatile void* cv);
void AnnotateCondVarWait(const char* file, int line, const volatile void* cv, const volatile void* lock);
void AnnotatePCQPut(const char* file, int line, const volatile void* pcq);
void AnnotatePCQGet(const char* file, int line, const volatile void* pcq);
void AnnotateBarrierWaitBefore(const char* file, int line, const volatile void* barrier);
void AnnotateBarrierWaitAfter(const char* file, int line, const volatile void* barrier);
void AnnotateBenignRaceSized(const char* file, int line, const volatile void* address, unsigned long size,
                             const char* description);
}

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

bool has(const std::string& report, const std::string& what) { return report.find(what) != std::string::npos; }
constexpr const char* kDataRace = "data race on";

// ---- a reader-writer lock annotated as absl's and folly's are ----

// A reader-writer spin lock whose atomics are all relaxed: mutual exclusion holds (every change
// of the word is a read-modify-write), but under the C++ memory model nothing it does orders
// the value it guards. Its ANNOTATE_RWLOCK_* annotations declare that order.
template <bool Annotated>
class RwRegister {
 public:
  RwRegister() {
    if (Annotated) AnnotateRWLockCreate(__FILE__, __LINE__, &state_);
  }
  ~RwRegister() {
    if (Annotated) AnnotateRWLockDestroy(__FILE__, __LINE__, &state_);
  }
  void write(int v) {
    int free = 0;
    while (!state_.compare_exchange_weak(free, -1, std::memory_order_relaxed)) {
      free = 0;
      std::this_thread::yield();
    }
    if (Annotated) AnnotateRWLockAcquired(__FILE__, __LINE__, &state_, 1);
    value_ = v;
    if (Annotated) AnnotateRWLockReleased(__FILE__, __LINE__, &state_, 1);
    state_.fetch_add(1, std::memory_order_relaxed);
  }
  int read() {
    int s = state_.load(std::memory_order_relaxed);
    while (s < 0 || !state_.compare_exchange_weak(s, s + 1, std::memory_order_relaxed)) {
      if (s < 0) {
        std::this_thread::yield();
        s = state_.load(std::memory_order_relaxed);
      }
    }
    if (Annotated) AnnotateRWLockAcquired(__FILE__, __LINE__, &state_, 0);
    const int v = value_;
    if (Annotated) AnnotateRWLockReleased(__FILE__, __LINE__, &state_, 0);
    state_.fetch_sub(1, std::memory_order_relaxed);
    return v;
  }

 private:
  std::atomic<int> state_{0};  // -1: a writer holds it; n >= 0: n readers do
  int value_ = 0;
};

template <bool Annotated>
duet::Lin<RwRegister<Annotated>> rw_register() {
  using R = RwRegister<Annotated>;
  return duet::Lin<R>("rw_register", "r")
      .op(
          "write", [](R& r, int v) { r.write(v); }, duet::integers(0, 9))
      .op("read", [](R& r) { return r.read(); });
}

TEST(InstrumentedAnnotations, RwLockAnnotationsLinkAndOrderTheGuardedValue) {
  const duet::CheckResult r = duet::check_parallel(rw_register<true>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedAnnotations, RwLockWithoutAnnotationsIsADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(rw_register<false>(), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

// ---- a hand-off through a flag duet does not see ----

// The pairs of annotations that declare one happens-before edge: a release, then an acquire.
enum class Edge { none, happens_before, tsan, condvar, pcq, barrier };

template <Edge E>
void released(const volatile void* at) {
  if constexpr (E == Edge::happens_before) AnnotateHappensBefore(__FILE__, __LINE__, at);
  if constexpr (E == Edge::tsan) __tsan_release(const_cast<void*>(at));
  if constexpr (E == Edge::condvar) AnnotateCondVarSignal(__FILE__, __LINE__, at);
  if constexpr (E == Edge::pcq) AnnotatePCQPut(__FILE__, __LINE__, at);
  if constexpr (E == Edge::barrier) AnnotateBarrierWaitBefore(__FILE__, __LINE__, at);
}
template <Edge E>
void acquired(const volatile void* at) {
  if constexpr (E == Edge::happens_before) AnnotateHappensAfter(__FILE__, __LINE__, at);
  if constexpr (E == Edge::tsan) __tsan_acquire(const_cast<void*>(at));
  if constexpr (E == Edge::condvar) AnnotateCondVarWait(__FILE__, __LINE__, at, nullptr);
  if constexpr (E == Edge::pcq) AnnotatePCQGet(__FILE__, __LINE__, at);
  if constexpr (E == Edge::barrier) AnnotateBarrierWaitAfter(__FILE__, __LINE__, at);
}

// A thread the call starts writes a value and raises a flag; the call waits for the flag and
// reads the value. The flag is a plain volatile int read and written inside "ignore" regions,
// as a library does when its own protocol makes the race on it harmless: duet sees neither, and
// only the annotations on the flag (ANNOTATE_HAPPENS_BEFORE/AFTER, or another pair) order the
// value.
template <Edge E>
class FlagHandoff {
 public:
  int handoff() {
    Slot slot;
    std::thread producer([&slot] {
      slot.value = 42;
      released<E>(&slot.flag);
      AnnotateIgnoreWritesBegin(__FILE__, __LINE__);
      slot.flag = 1;
      AnnotateIgnoreWritesEnd(__FILE__, __LINE__);
    });
    while (!raised(slot)) std::this_thread::yield();
    acquired<E>(&slot.flag);
    const int v = slot.value;
    producer.join();
    return v;
  }

 private:
  struct Slot {
    int value = 0;
    volatile int flag = 0;
  };
  static bool raised(const Slot& slot) {
    AnnotateIgnoreReadsBegin(__FILE__, __LINE__);
    const bool up = slot.flag != 0;
    AnnotateIgnoreReadsEnd(__FILE__, __LINE__);
    return up;
  }
};

// Every call on a fiber: the call starts a thread, which a prefix on the test's thread would run
// on a real one.
template <Edge E>
duet::Lin<FlagHandoff<E>> flag_handoff() {
  using H = FlagHandoff<E>;
  return duet::Lin<H>("flag_handoff", "h").op("handoff", [](H& h) { return h.handoff(); });
}

template <Edge E>
void handoff_passes(std::uint64_t programs) {
  const duet::CheckResult r =
      duet::check_parallel(flag_handoff<E>(), instrumented_test::every_call_on_a_fiber(), seeded(1, programs));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedAnnotations, HappensBeforeAnnotationsOrderAHandoffDuetDoesNotSee) {
  handoff_passes<Edge::happens_before>(50);
}

TEST(InstrumentedAnnotations, EveryReleaseAcquirePairOrdersTheHandoff) {
  handoff_passes<Edge::tsan>(10);
  handoff_passes<Edge::condvar>(10);
  handoff_passes<Edge::pcq>(10);
  handoff_passes<Edge::barrier>(10);
}

TEST(InstrumentedAnnotations, HandoffWithoutAnnotationsIsADataRace) {
  const duet::CheckResult r =
      duet::expect_unsafe(flag_handoff<Edge::none>(), instrumented_test::every_call_on_a_fiber(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;

  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

// ---- a hand-made lock with the __tsan_mutex_* annotations ----

// A test-and-set lock with relaxed atomics, annotated as absl's SpinLock is: the annotations
// are what orders the counter it guards.
template <bool Annotated>
class SpinCounter {
 public:
  SpinCounter() {
    if (Annotated) __tsan_mutex_create(&locked_, 0);
  }
  ~SpinCounter() {
    if (Annotated) __tsan_mutex_destroy(&locked_, 0);
  }
  int add(int x) {
    lock();
    const int before = count_;
    count_ = before + x;
    unlock();
    return before;
  }
  int get() {
    while (!try_lock()) std::this_thread::yield();
    const int v = count_;
    unlock();
    return v;
  }

 private:
  void lock() {
    if (Annotated) __tsan_mutex_pre_lock(&locked_, 0);
    while (locked_.exchange(true, std::memory_order_relaxed)) std::this_thread::yield();
    if (Annotated) __tsan_mutex_post_lock(&locked_, 0, 0);
  }
  bool try_lock() {
    if (Annotated) __tsan_mutex_pre_lock(&locked_, __tsan_mutex_try_lock);
    const bool got = !locked_.exchange(true, std::memory_order_relaxed);
    if (Annotated) __tsan_mutex_post_lock(&locked_, got ? __tsan_mutex_try_lock : __tsan_mutex_try_lock_failed, 0);
    return got;
  }
  void unlock() {
    if (Annotated) __tsan_mutex_pre_unlock(&locked_, 0);
    locked_.store(false, std::memory_order_relaxed);
    if (Annotated) __tsan_mutex_post_unlock(&locked_, 0);
  }
  std::atomic<bool> locked_{false};
  int count_ = 0;
};

template <bool Annotated>
duet::Lin<SpinCounter<Annotated>> spin_counter() {
  using C = SpinCounter<Annotated>;
  return duet::Lin<C>("spin_counter", "c")
      .op(
          "add", [](C& c, int x) { return c.add(x); }, duet::integers(1, 3))
      .op("get", [](C& c) { return c.get(); });
}

TEST(InstrumentedAnnotations, MutexAnnotationsOrderAHandMadeLock) {
  const duet::CheckResult r = duet::check_parallel(spin_counter<true>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedAnnotations, HandMadeLockWithoutAnnotationsIsADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(spin_counter<false>(), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

// ---- accesses to a library's own object type ----

// A box whose contents are relaxed atomics (no plain access to race on) that reports its calls
// as the sanitizer's external accesses, as Swift's and Objective-C's collections do: a put is a
// write of the box, a get a read. Without the lock they race.
template <bool Locked>
class TaggedBox {
 public:
  void put(int v) {
    std::unique_lock<std::mutex> hold(m_, std::defer_lock);
    if (Locked) hold.lock();
    __tsan_external_write(this, nullptr, tag());
    value_.store(v, std::memory_order_relaxed);
  }
  int get() {
    std::unique_lock<std::mutex> hold(m_, std::defer_lock);
    if (Locked) hold.lock();
    __tsan_external_read(this, nullptr, tag());
    return value_.load(std::memory_order_relaxed);
  }

 private:
  static void* tag() {
    static void* const t = __tsan_external_register_tag("TaggedBox");
    return t;
  }
  std::mutex m_;
  std::atomic<int> value_{0};
};

template <bool Locked>
duet::Lin<TaggedBox<Locked>> tagged_box() {
  using B = TaggedBox<Locked>;
  return duet::Lin<B>("tagged_box", "b")
      .op(
          "put", [](B& b, int v) { b.put(v); }, duet::integers(0, 9))
      .op("get", [](B& b) { return b.get(); });
}

TEST(InstrumentedAnnotations, ExternalAccessesUnderALockPass) {
  const duet::CheckResult r = duet::check_parallel(tagged_box<true>(), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedAnnotations, UnlockedExternalWritesAreADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(tagged_box<false>(), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

// ---- a benign race ----

// A counter whose statistics are updated without synchronisation: the library declares the race
// on its hit count benign, and only that field is spared. A snapshot copies both counts in one
// access, which the check then takes apart: the hits are spared, the misses are checked.
template <bool Declared>
class HitCounter {
 public:
  HitCounter() {
    if (Declared) AnnotateBenignRaceSized(__FILE__, __LINE__, &stats_.hits, sizeof stats_.hits, "statistics only");
  }
  int incr() {
    ++stats_.hits;
    return value_.fetch_add(1);
  }
  int miss() {
    ++stats_.misses;
    return 0;
  }
  int snapshot() {
    Stats s;
    std::memcpy(&s, &stats_, sizeof s);
    return value_.load() + (s.hits + s.misses > (1L << 62) ? 1 : 0);  // the copy is used
  }

 private:
  struct Stats {
    long hits = 0;
    long misses = 0;
  };
  std::atomic<int> value_{0};
  Stats stats_;
};

template <bool Declared>
duet::Lin<HitCounter<Declared>> hit_counter(bool misses) {
  using C = HitCounter<Declared>;
  auto lin = duet::Lin<C>("hit_counter", "c").op("incr", [](C& c) { return c.incr(); }).op("snapshot", [](C& c) {
    return c.snapshot();
  });
  if (misses) lin.op("miss", [](C& c) { return c.miss(); });
  return lin;
}

TEST(InstrumentedAnnotations, BenignRaceSizedSparesItsRange) {
  const duet::CheckResult r = duet::check_parallel(hit_counter<true>(false), on_fibers(), seeded(1, 300));
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedAnnotations, UndeclaredRaceOnTheSameFieldIsADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(hit_counter<false>(false), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

TEST(InstrumentedAnnotations, RaceNextToABenignRangeIsADataRace) {
  const duet::CheckResult r = duet::expect_unsafe(hit_counter<true>(true), on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, kDataRace)) << r.report;
  EXPECT_TRUE(has(r.report, "annotations_test.cpp:")) << r.report;
}

}  // namespace
