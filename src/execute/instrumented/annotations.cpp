// The annotation API that libraries call when they detect the thread sanitizer (__SANITIZE_THREAD__
// or __has_feature(thread_sanitizer)): compiler-rt's sanitizer/tsan_interface.h (__tsan_acquire,
// __tsan_release, the __tsan_mutex_* annotations of hand-made locks, __tsan_external_*, the
// fiber calls) and the dynamic annotations of tsan_interface_ann.cpp and valgrind-style
// dynamic_annotations.h (AnnotateHappensBefore, AnnotateRWLock*, AnnotateBenignRaceSized, ...).
// Every entry point is defined, so such a library links against duet::instrument as it would
// against the sanitizer, with no -U__SANITIZE_THREAD__.
//
// On a fiber of a run the ones that declare happens-before are honoured (fiber::annotate_release
// and annotate_acquire: the library's own synchronisation orders its plain accesses in the
// data-race check), "ignore" regions hide the accesses inside them, and a benign race declared
// on a range keeps the check off it. The ones that only inform the sanitizer's bookkeeping
// (thread names, memory tracing, expected races in its own tests) do nothing, as they do in the
// sanitizer. Outside a run every entry point is nothing but that test.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <malloc.h>
#include <utility>
#include <vector>

#include "execute/instrumented/instrumented.hpp"

namespace duet::detail::instrumented {
namespace {

// ---- happens-before ----

void release(const volatile void* address, bool shared = false) noexcept {
  if (const InRun rt = in_run()) fiber::annotate_release(*rt, const_cast<const void*>(address), shared);
}
void acquire(const volatile void* address, bool shared = false) noexcept {
  if (const InRun rt = in_run()) fiber::annotate_acquire(*rt, const_cast<const void*>(address), shared);
}
void forget(const volatile void* address) noexcept {
  if (const InRun rt = in_run()) fiber::annotate_forget(*rt, const_cast<const void*>(address));
}

// ---- benign races ----
// Ranges a library declared races on benign: for the whole process, as the sanitizer keeps them,
// until the memory that holds them is freed (a block allocated again is another object). Sorted
// and disjoint: a range that meets another is merged with it.
struct BenignRanges {
  SpinLock lock;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // [begin, end)
};
constinit std::atomic<bool> g_any_benign{false};  // the test every plain access in a run and every free makes
BenignRanges& benign() {
  static BenignRanges* const b = new BenignRanges;  // never destroyed: threads may race exit
  return *b;
}
// Set while this thread holds the lock: the vector's own frees must not take it again.
constinit thread_local bool t_holding = false;

class Holding {
 public:
  explicit Holding(BenignRanges& b) : b_(b) {
    b_.lock.lock();
    t_holding = true;
  }
  ~Holding() {
    t_holding = false;
    b_.lock.unlock();
  }
  Holding(const Holding&) = delete;
  Holding& operator=(const Holding&) = delete;

 private:
  BenignRanges& b_;
};

void add_benign(const volatile void* address, unsigned long size) noexcept {
  auto lo = reinterpret_cast<std::uintptr_t>(address), hi = lo + size;
  if (hi <= lo) return;
  BenignRanges& b = benign();
  const InDuet duet;  // the vector's allocation is duet's, not the subject's
  const Holding hold(b);
  auto& v = b.ranges;
  auto first = std::lower_bound(v.begin(), v.end(), lo, [](const auto& r, std::uintptr_t at) { return r.second < at; });
  auto last = first;
  for (; last != v.end() && last->first <= hi; ++last) {
    lo = std::min(lo, last->first);
    hi = std::max(hi, last->second);
  }
  v.insert(v.erase(first, last), {lo, hi});
  g_any_benign.store(true, std::memory_order_release);
}

// The first part of [from, end) that no benign range covers: empty when they cover it all.
std::pair<std::uintptr_t, std::uintptr_t> next_checked(std::uintptr_t from, std::uintptr_t end) noexcept {
  BenignRanges& b = benign();
  const Holding hold(b);
  const auto& v = b.ranges;
  auto r = std::upper_bound(v.begin(), v.end(), from, [](std::uintptr_t at, const auto& x) { return at < x.second; });
  if (r != v.end() && r->first <= from) from = (r++)->second;  // disjoint: one range at most covers `from`
  if (from >= end) return {end, end};
  return {from, r != v.end() && r->first < end ? r->first : end};
}

}  // namespace

void forget_benign_races(const void* block) noexcept {
  if (!g_any_benign.load(std::memory_order_acquire) || t_holding) [[likely]]
    return;
  BenignRanges& b = benign();
  const auto lo = reinterpret_cast<std::uintptr_t>(block), hi = lo + malloc_usable_size(const_cast<void*>(block));
  const InDuet duet;
  const Holding hold(b);
  auto& v = b.ranges;
  auto r = std::upper_bound(v.begin(), v.end(), lo, [](std::uintptr_t at, const auto& x) { return at < x.second; });
  while (r != v.end() && r->first < hi) {
    if (r->first < lo && r->second > hi) {  // the block lies inside the range: two are left
      const auto tail = std::make_pair(hi, r->second);
      r->second = lo;
      v.insert(r + 1, tail);
      break;
    }
    if (r->first < lo) {
      (r++)->second = lo;
    } else if (r->second > hi) {
      r->first = hi;
      break;
    } else {
      r = v.erase(r);
    }
  }
  if (v.empty()) g_any_benign.store(false, std::memory_order_release);
}

void check_access(fiber::Runtime& rt, const void* address, std::size_t size, bool write, const void* pc) noexcept {
  if (!g_any_benign.load(std::memory_order_acquire)) {
    fiber::memory_access(rt, address, size, write, pc);
    return;
  }
  // Part by part, the lock released before each: a race found ends the fiber's run there.
  const auto end = reinterpret_cast<std::uintptr_t>(address) + size;
  for (auto at = reinterpret_cast<std::uintptr_t>(address); at < end;) {
    const auto [lo, hi] = next_checked(at, end);
    if (lo >= hi) return;
    fiber::memory_access(rt, reinterpret_cast<const void*>(lo), hi - lo, write, pc);
    at = hi;
  }
}

}  // namespace duet::detail::instrumented

using namespace duet::detail::instrumented;

// What the flags of the __tsan_mutex_* annotations say (sanitizer/tsan_interface.h).
namespace {
constexpr unsigned kReadLock = 1u << 3, kTryLockFailed = 1u << 5;
void ignore_begin() noexcept { ++t_ignore_accesses; }
void ignore_end() noexcept { --t_ignore_accesses; }
std::atomic<unsigned long> g_external_tags{0};
thread_local char t_own_fiber;  // what __tsan_get_current_fiber names: the calling thread (or fiber)
}  // namespace

extern "C" {

// Referenced by the link options of duet::instrument (CMakeLists.txt): keeps this object in the
// link when the subject's references to the annotations are weak.
int duet_instrument_annotations = 1;

// ---- sanitizer/tsan_interface.h ----
void __tsan_acquire(void* addr) { acquire(addr); }
void __tsan_release(void* addr) { release(addr); }

// A hand-made lock's annotations. As in the sanitizer, the lock's own plain accesses between a
// pre_ and its post_ annotation are not checked (a divert is user code called from inside it);
// its atomics stay steps of the schedule and synchronise as their orders say. A lock released
// by a fiber happens-before its next acquisition; a read lock's release only before the next
// exclusive one.
void __tsan_mutex_create(void* addr, unsigned) { forget(addr); }
void __tsan_mutex_destroy(void* addr, unsigned) { forget(addr); }
void __tsan_mutex_pre_lock(void*, unsigned) { ignore_begin(); }
void __tsan_mutex_post_lock(void* addr, unsigned flags, int) {
  ignore_end();
  if ((flags & kTryLockFailed) == 0) acquire(addr, (flags & kReadLock) != 0);
}
int __tsan_mutex_pre_unlock(void* addr, unsigned flags) {
  release(addr, (flags & kReadLock) != 0);
  ignore_begin();
  return 0;  // the recursion depth the sanitizer would hand back to post_lock: duet keeps none
}
void __tsan_mutex_post_unlock(void*, unsigned) { ignore_end(); }
void __tsan_mutex_pre_signal(void*, unsigned) { ignore_begin(); }
void __tsan_mutex_post_signal(void*, unsigned) { ignore_end(); }
void __tsan_mutex_pre_divert(void*, unsigned) { ignore_end(); }
void __tsan_mutex_post_divert(void*, unsigned) { ignore_begin(); }
void __tsan_check_no_mutexes_held() {}

void __tsan_ignore_thread_begin() { ignore_begin(); }
void __tsan_ignore_thread_end() { ignore_end(); }

// Accesses to an object of a library's own type (a container's mutating and reading calls): a
// one-byte write or read at the object, checked as plain accesses are.
void* __tsan_external_register_tag(const char*) {
  return reinterpret_cast<void*>(g_external_tags.fetch_add(1, std::memory_order_relaxed) + 1);
}
void __tsan_external_register_header(void*, const char*) {}
void __tsan_external_assign_tag(void*, void*) {}
void __tsan_external_read(void* addr, void* caller_pc, void*) {
  if (const InRun rt = in_run())
    check_access(*rt, addr, 1, false, caller_pc != nullptr ? caller_pc : __builtin_return_address(0));
}
void __tsan_external_write(void* addr, void* caller_pc, void*) {
  if (const InRun rt = in_run())
    check_access(*rt, addr, 1, true, caller_pc != nullptr ? caller_pc : __builtin_return_address(0));
}

// A library's own coroutines: duet counts their code as the thread's (or fiber's) that runs it,
// whose program order already orders a switch between them.
void* __tsan_get_current_fiber() { return &t_own_fiber; }
void* __tsan_create_fiber(unsigned) {
  const InDuet duet;  // duet's allocation, not the subject's
  return new char;
}
void __tsan_destroy_fiber(void* fiber) {
  const InDuet duet;
  if (fiber != &t_own_fiber) delete static_cast<char*>(fiber);
}
void __tsan_switch_to_fiber(void*, unsigned) {}
void __tsan_set_fiber_name(void*, const char*) {}
void __tsan_flush_memory() {}

// ---- dynamic annotations (tsan_interface_ann.cpp, dynamic_annotations.h) ----
using File = const char*;
using Addr = const volatile void*;

void AnnotateHappensBefore(File, int, Addr addr) { release(addr); }
void AnnotateHappensAfter(File, int, Addr addr) { acquire(addr); }
void AnnotateCondVarSignal(File, int, Addr cv) { release(cv); }
void AnnotateCondVarSignalAll(File, int, Addr cv) { release(cv); }
void AnnotateCondVarWait(File, int, Addr cv, Addr) { acquire(cv); }
void AnnotatePCQCreate(File, int, Addr pcq) { forget(pcq); }
void AnnotatePCQDestroy(File, int, Addr pcq) { forget(pcq); }
void AnnotatePCQPut(File, int, Addr pcq) { release(pcq); }
void AnnotatePCQGet(File, int, Addr pcq) { acquire(pcq); }
void AnnotateBarrierInit(File, int, Addr barrier, long, long) { forget(barrier); }
void AnnotateBarrierDestroy(File, int, Addr barrier) { forget(barrier); }
void AnnotateBarrierWaitBefore(File, int, Addr barrier) { release(barrier); }
void AnnotateBarrierWaitAfter(File, int, Addr barrier) { acquire(barrier); }

// A reader-writer lock's annotations (`is_w`: the writer's): a release happens-before the next
// acquisition, a reader's release only before the next writer's.
void AnnotateRWLockCreate(File, int, Addr lock) { forget(lock); }
void AnnotateRWLockCreateStatic(File, int, Addr lock) { forget(lock); }
void AnnotateRWLockDestroy(File, int, Addr lock) { forget(lock); }
void AnnotateRWLockAcquired(File, int, Addr lock, long is_w) { acquire(lock, is_w == 0); }
void AnnotateRWLockReleased(File, int, Addr lock, long is_w) { release(lock, is_w == 0); }

void AnnotateBenignRaceSized(File, int, Addr addr, unsigned long size, const char*) { add_benign(addr, size); }
void AnnotateBenignRace(File, int, Addr addr, const char*) { add_benign(addr, 1); }
void WTFAnnotateBenignRaceSized(File, int, Addr addr, unsigned long size, const char*) { add_benign(addr, size); }

void AnnotateIgnoreReadsBegin(File, int) { ignore_begin(); }
void AnnotateIgnoreReadsEnd(File, int) { ignore_end(); }
void AnnotateIgnoreWritesBegin(File, int) { ignore_begin(); }
void AnnotateIgnoreWritesEnd(File, int) { ignore_end(); }
// The sanitizer stops seeing synchronisation inside; duet still sees the atomics and locks there
// (they are steps of the schedule), which synchronise as their orders say.
void AnnotateIgnoreSyncBegin(File, int) {}
void AnnotateIgnoreSyncEnd(File, int) {}

// WebKit annotates atomics that the sanitizer sees (and duet too): it ignores these, and so does duet.
void WTFAnnotateHappensBefore(File, int, Addr) {}
void WTFAnnotateHappensAfter(File, int, Addr) {}

// The sanitizer's own bookkeeping, which does nothing in it either.
void AnnotateMutexIsUsedAsCondVar(File, int, Addr) {}
void AnnotateMutexIsNotPHB(File, int, Addr) {}
void AnnotateNewMemory(File, int, Addr, unsigned long) {}
void AnnotatePublishMemoryRange(File, int, Addr, unsigned long) {}
void AnnotateUnpublishMemoryRange(File, int, Addr, unsigned long) {}
void AnnotateMemoryIsInitialized(File, int, Addr, unsigned long) {}
void AnnotateMemoryIsUninitialized(File, int, Addr, unsigned long) {}
void AnnotateExpectRace(File, int, Addr, const char*) {}
void AnnotateFlushExpectedRaces(File, int) {}
void AnnotateEnableRaceDetection(File, int, int) {}
void AnnotateTraceMemory(File, int, Addr) {}
void AnnotateThreadName(File, int, const char*) {}
void AnnotateNoOp(File, int, Addr) {}
void AnnotateFlushState(File, int) {}

int RunningOnValgrind() { return 0; }
double ValgrindSlowdown() { return 1.0; }
// duet's race check is pure happens-before, as the sanitizer's is.
const char* ThreadSanitizerQuery(const char* query) {
  return query != nullptr && std::strcmp(query, "pure_happens_before") == 0 ? "1" : "0";
}

}  // extern "C"
