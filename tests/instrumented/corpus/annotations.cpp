// The annotation API that libraries call when they detect the thread sanitizer, compiled with
// -fsanitize=thread by tests/instrumented/symbols_check.cmake: every function it names must be
// defined by duet::instrument, or such a library does not link. The __tsan_* ones as the
// compiler's own header declares them; the dynamic annotations as the libraries declare them
// (absl's, folly's and valgrind's dynamic_annotations.h: no system header has them). Compiled
// only, never run.
#include <sanitizer/tsan_interface.h>

extern "C" {
using File = const char*;
using Addr = const volatile void*;
void AnnotateHappensBefore(File, int, Addr);
void AnnotateHappensAfter(File, int, Addr);
void AnnotateCondVarSignal(File, int, Addr);
void AnnotateCondVarSignalAll(File, int, Addr);
void AnnotateCondVarWait(File, int, Addr, Addr);
void AnnotatePCQCreate(File, int, Addr);
void AnnotatePCQDestroy(File, int, Addr);
void AnnotatePCQPut(File, int, Addr);
void AnnotatePCQGet(File, int, Addr);
void AnnotateBarrierInit(File, int, Addr, long, long);
void AnnotateBarrierDestroy(File, int, Addr);
void AnnotateBarrierWaitBefore(File, int, Addr);
void AnnotateBarrierWaitAfter(File, int, Addr);
void AnnotateRWLockCreate(File, int, Addr);
void AnnotateRWLockCreateStatic(File, int, Addr);
void AnnotateRWLockDestroy(File, int, Addr);
void AnnotateRWLockAcquired(File, int, Addr, long);
void AnnotateRWLockReleased(File, int, Addr, long);
void AnnotateBenignRaceSized(File, int, Addr, unsigned long, const char*);
void AnnotateBenignRace(File, int, Addr, const char*);
void WTFAnnotateBenignRaceSized(File, int, Addr, unsigned long, const char*);
void AnnotateIgnoreReadsBegin(File, int);
void AnnotateIgnoreReadsEnd(File, int);
void AnnotateIgnoreWritesBegin(File, int);
void AnnotateIgnoreWritesEnd(File, int);
void AnnotateIgnoreSyncBegin(File, int);
void AnnotateIgnoreSyncEnd(File, int);
void WTFAnnotateHappensBefore(File, int, Addr);
void WTFAnnotateHappensAfter(File, int, Addr);
void AnnotateMutexIsUsedAsCondVar(File, int, Addr);
void AnnotateMutexIsNotPHB(File, int, Addr);
void AnnotateNewMemory(File, int, Addr, unsigned long);
void AnnotatePublishMemoryRange(File, int, Addr, unsigned long);
void AnnotateUnpublishMemoryRange(File, int, Addr, unsigned long);
void AnnotateMemoryIsInitialized(File, int, Addr, unsigned long);
void AnnotateMemoryIsUninitialized(File, int, Addr, unsigned long);
void AnnotateExpectRace(File, int, Addr, const char*);
void AnnotateFlushExpectedRaces(File, int);
void AnnotateEnableRaceDetection(File, int, int);
void AnnotateTraceMemory(File, int, Addr);
void AnnotateThreadName(File, int, const char*);
void AnnotateNoOp(File, int, Addr);
void AnnotateFlushState(File, int);
int RunningOnValgrind();
double ValgrindSlowdown();
const char* ThreadSanitizerQuery(const char*);
// Newer compiler-rt headers than some compilers ship.
void __tsan_check_no_mutexes_held();
void __tsan_ignore_thread_begin();
void __tsan_ignore_thread_end();
}

int x;
int annotate() {
  const char* f = __FILE__;
  __tsan_acquire(&x);
  __tsan_release(&x);
  __tsan_mutex_create(&x, __tsan_mutex_not_static);
  __tsan_mutex_pre_lock(&x, 0);
  __tsan_mutex_post_lock(&x, 0, 0);
  int rec = __tsan_mutex_pre_unlock(&x, __tsan_mutex_recursive_unlock);
  __tsan_mutex_post_unlock(&x, 0);
  __tsan_mutex_pre_signal(&x, 0);
  __tsan_mutex_post_signal(&x, 0);
  __tsan_mutex_pre_divert(&x, 0);
  __tsan_mutex_post_divert(&x, 0);
  __tsan_mutex_destroy(&x, 0);
  __tsan_check_no_mutexes_held();
  __tsan_ignore_thread_begin();
  __tsan_ignore_thread_end();
  void* tag = __tsan_external_register_tag("type");
  __tsan_external_register_header(tag, "header");
  __tsan_external_assign_tag(&x, tag);
  __tsan_external_read(&x, nullptr, tag);
  __tsan_external_write(&x, nullptr, tag);
  void* fiber = __tsan_create_fiber(0);
  __tsan_set_fiber_name(fiber, "fiber");
  void* self = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(fiber, __tsan_switch_to_fiber_no_sync);
  __tsan_switch_to_fiber(self, 0);
  __tsan_destroy_fiber(fiber);
  __tsan_flush_memory();
  AnnotateHappensBefore(f, 1, &x);
  AnnotateHappensAfter(f, 1, &x);
  AnnotateCondVarSignal(f, 1, &x);
  AnnotateCondVarSignalAll(f, 1, &x);
  AnnotateCondVarWait(f, 1, &x, nullptr);
  AnnotatePCQCreate(f, 1, &x);
  AnnotatePCQPut(f, 1, &x);
  AnnotatePCQGet(f, 1, &x);
  AnnotatePCQDestroy(f, 1, &x);
  AnnotateBarrierInit(f, 1, &x, 2, 0);
  AnnotateBarrierWaitBefore(f, 1, &x);
  AnnotateBarrierWaitAfter(f, 1, &x);
  AnnotateBarrierDestroy(f, 1, &x);
  AnnotateRWLockCreate(f, 1, &x);
  AnnotateRWLockCreateStatic(f, 1, &x);
  AnnotateRWLockAcquired(f, 1, &x, 1);
  AnnotateRWLockReleased(f, 1, &x, 1);
  AnnotateRWLockDestroy(f, 1, &x);
  AnnotateBenignRaceSized(f, 1, &x, sizeof x, "benign");
  AnnotateBenignRace(f, 1, &x, "benign");
  WTFAnnotateBenignRaceSized(f, 1, &x, sizeof x, "benign");
  AnnotateIgnoreReadsBegin(f, 1);
  AnnotateIgnoreReadsEnd(f, 1);
  AnnotateIgnoreWritesBegin(f, 1);
  AnnotateIgnoreWritesEnd(f, 1);
  AnnotateIgnoreSyncBegin(f, 1);
  AnnotateIgnoreSyncEnd(f, 1);
  WTFAnnotateHappensBefore(f, 1, &x);
  WTFAnnotateHappensAfter(f, 1, &x);
  AnnotateMutexIsUsedAsCondVar(f, 1, &x);
  AnnotateMutexIsNotPHB(f, 1, &x);
  AnnotateNewMemory(f, 1, &x, sizeof x);
  AnnotatePublishMemoryRange(f, 1, &x, sizeof x);
  AnnotateUnpublishMemoryRange(f, 1, &x, sizeof x);
  AnnotateMemoryIsInitialized(f, 1, &x, sizeof x);
  AnnotateMemoryIsUninitialized(f, 1, &x, sizeof x);
  AnnotateExpectRace(f, 1, &x, "expected");
  AnnotateFlushExpectedRaces(f, 1);
  AnnotateEnableRaceDetection(f, 1, 1);
  AnnotateTraceMemory(f, 1, &x);
  AnnotateThreadName(f, 1, "thread");
  AnnotateNoOp(f, 1, &x);
  AnnotateFlushState(f, 1);
  return rec + RunningOnValgrind() + static_cast<int>(ValgrindSlowdown()) + *ThreadSanitizerQuery("pure_happens_before");
}
