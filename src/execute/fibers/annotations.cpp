// Happens-before that the subject declares itself, through the thread sanitizer's annotation API
// (AnnotateHappensBefore/After, __tsan_release/acquire, the mutex and rwlock annotations; see
// src/execute/instrumented/annotations.cpp): libraries that synchronise in ways no instrumented
// operation shows (code outside the instrumentation, an "ignore" region, a lock whose orders
// are weaker than its use) say so, and their own synchronisation is then what orders their
// plain accesses in the data-race check.
//
// A release joins the running fiber's clock into the address's sync object and ticks the
// fiber's own entry, as a release store does; an acquire joins the sync object's clock into the
// fiber's. Neither is a switch point nor a trace line: an annotation marks an operation that is
// already a step of the schedule (the lock's atomic, the futex wait) or code duet cannot see,
// and a switch point of its own would lengthen every schedule of a library that annotates, and
// change its traces, for no interleaving that the operation it annotates does not already give.
// The sync objects belong to one run, like every object of the run: what happened before the
// run happens-before all of it.
#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

namespace {
// The run's sync objects, emptied when a new run first uses them.
AnnotatedSyncs& of_this_run(AnnotatedSyncs& syncs, std::uint64_t run) {
  if (syncs.run != run) {
    syncs.at.clear();
    syncs.run = run;
  }
  return syncs;
}
}  // namespace

void Runtime::annotate_release(const void* address, bool shared) {
  if (current == kNoFiber) return;
  AnnotatedSyncs::Sync& s = of_this_run(annotated_, stats.runs).at[address];
  Fiber& f = self();
  join(shared ? s.read_clock : s.clock, f.clock, n_);
  tick(f);  // what this fiber does next is not part of the release
}

void Runtime::annotate_acquire(const void* address, bool shared) {
  if (current == kNoFiber) return;
  AnnotatedSyncs& syncs = of_this_run(annotated_, stats.runs);
  const auto s = syncs.at.find(address);
  if (s == syncs.at.end()) return;  // nothing released there yet
  Fiber& f = self();
  join(f.clock, s->second.clock, n_);
  if (!shared) join(f.clock, s->second.read_clock, n_);
}

void Runtime::annotate_forget(const void* address) {
  if (current == kNoFiber) return;
  of_this_run(annotated_, stats.runs).at.erase(address);
}

void annotate_release(Runtime& rt, const void* address, bool shared) noexcept { rt.annotate_release(address, shared); }
void annotate_acquire(Runtime& rt, const void* address, bool shared) noexcept { rt.annotate_acquire(address, shared); }
void annotate_forget(Runtime& rt, const void* address) noexcept { rt.annotate_forget(address); }

}  // namespace duet::detail::fiber
