// The C++ memory model for atomics in fiber runs (SchedulerConfig::memory_model == cpp): which
// stores a load may read, and what synchronises with what, as C++20 allows it.
//
// Scope (store buffers, as tsan11 and Miri emulate the model; docs/memory-model.md):
// - Modification order is the order in which the run executes the stores: each atomic keeps
//   its last kHistory stores, newest first, each with the storing fiber's epoch, the clock an
//   acquire reading it learns (its release sequence included), and which fibers read it when.
// - A load may read any kept store that coherence and happens-before leave visible to it (it
//   stops at the newest store that happens-before it, or that a load which happens-before it
//   read: C++20 [intro.races] write-read and read-read coherence). Which one is a decision of
//   the run's picker: index 0 is the newest (what sequential consistency would read), so the
//   shrinker moves toward fewer stale reads.
// - Read-modify-writes (and compare-exchange, failed ones included, and atomic waits) read the
//   newest store.
// - seq_cst (C++20's [atomics.order]/4, S taken as execution order): a seq_cst load reads the
//   newest seq_cst store of its location or a newer one, never one older than an earlier seq_cst
//   load read, nor than what happened-before a seq_cst fence executed earlier. A seq_cst fence
//   creates no happens-before; a load it happens-before (through any synchronisation) reads
//   nothing older than what happened-before it or an earlier fence, nor than a seq_cst store or
//   a store a seq_cst load read earlier in S.
// - The check's own clock (invoke and response of every call, duet::detail::event_time) is a
//   seq_cst fence, as on threads, where it is fenced: a call that returned before another
//   began is seen by it, and stale reads show within overlapping calls. An exhaustive search
//   that leaves the calls' orders to the check leaves these fences out of its runs
//   (SchedulerConfig::harness_fences); the check places them in each order it judges
//   (dpor/fence_orders.hpp).
// - Never shown (allowed by C++, outside store buffers): load buffering (a load reading a store
//   that executes later) and modification orders against execution order (2+2W, S with relaxed
//   stores). Behaviours shown are always allowed; some allowed ones are not explored.
//
// Happens-before under the model: only acquire loads (and acquire fences after relaxed loads)
// that read a release store (or a store after a release fence, or an RMW in its release
// sequence) synchronise. So a plain access published through a relaxed store is a data race.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber {

using VectorClock = std::array<std::uint32_t, kMaxFibers>;

/// Joins the first `fibers` entries: a run's clocks are zero past its fibers (objects and fibers
/// start each run at zero), so a loop over kMaxFibers would only add zeros.
inline void join(VectorClock& into, const VectorClock& from, std::size_t fibers) {
  for (std::size_t i = 0; i < fibers; ++i)
    if (from[i] > into[i]) into[i] = from[i];
}

/// What acquire-ness and release-ness an order has (consume counts as acquire).
inline bool acquires(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_consume || o == std::memory_order_acq_rel ||
         o == std::memory_order_seq_cst;
}
inline bool releases(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}

/// One store of an atomic's history.
struct StoreRecord {
  Value value;
  std::uint32_t fiber = kNoFiber;  // kNoFiber: the value the run found there (happens-before all)
  std::uint32_t epoch = 0;         // the storing fiber's own clock entry at the store
  std::uint32_t step = kNoStep;    // its trace event (kNoStep: before the run, or unseen)
  bool seq_cst = false;
  std::uint32_t sc_pos = 0;   // a seq_cst store: its position in S (the run's seq_cst order)
  std::uint32_t sc_read = 0;  // the position in S of the first seq_cst load that read it (0: none)
  VectorClock sync{};         // what an acquire reading it learns
  VectorClock loaded{};       // per fiber: its clock entry when it first read this store (0: never)
};

/// The fiber's side of the model: what relaxed loads brought that an acquire fence would take,
/// and what its last release fence released.
struct FiberMemory {
  VectorClock acquire_pending{};  // joined from the stores its non-acquire loads and RMWs read
  VectorClock release_fence{};    // its clock at its last release fence: relaxed stores carry it
};

/// A seq_cst fence: who ran it and when (its fiber's epoch, its position in S), and what
/// happened-before it or any seq_cst fence before it. Its effects reach every load it
/// happens-before, through any synchronisation ([atomics.order]/4.3, 4.4).
struct FenceRecord {
  std::uint32_t fiber = 0;
  std::uint32_t epoch = 0;
  std::uint32_t pos = 0;
  VectorClock view{};
};

/// Why a load could read an older store: what the trace and the report say about it.
struct StaleRead {
  std::uint32_t newer = 0;                   // stores newer than the one read (none seen by this load)
  std::uint32_t first_newer_step = kNoStep;  // the trace step of the oldest of them
};

class AtomicsModel {
 public:
  /// Stores kept per atomic: a load reads one of these; older ones are gone.
  static constexpr std::size_t kHistory = 8;

  /// A new run; then each fiber as it starts (spawned ones included).
  void begin_run();
  void start_fiber(std::uint32_t fiber);
  /// A new object number (first sight in this run, or constructed during it): no history yet.
  void forget(std::uint32_t object);
  /// A plain (non-atomic) write to an atomic's memory: its value is what later loads find.
  void overwritten(std::uint32_t object) { forget(object); }

  // ---- the atomic operations of fiber `f` (clock `c`, the fiber's own entry c[f]) ----

  /// How many stores a load by a fiber of clock `c` may read, newest first (at least 1). `latest` is the value in memory now (the newest store's, unless code the
  /// model does not see wrote it; then that value starts the history again).
  std::size_t candidates(std::uint32_t object, Value latest, const VectorClock& c, bool seq_cst, std::size_t fibers);
  /// The load took candidate `index` (0 = newest): its value, synchronisation and marks.
  const StoreRecord& load(std::uint32_t object, std::size_t index, std::uint32_t f, VectorClock& c, std::memory_order order,
                          std::size_t fibers);
  /// A read-modify-write (or a failed compare-exchange, or a wait, when `writes` is false) that
  /// read `before`, the newest value, and wrote `after`.
  void rmw(std::uint32_t object, Value before, Value after, bool writes, std::uint32_t f, VectorClock& c,
           std::memory_order order, std::uint32_t step, std::size_t fibers);
  /// A store of `after` over `before` (the value in memory just before it).
  void store(std::uint32_t object, Value before, Value after, std::uint32_t f, const VectorClock& c, std::memory_order order,
             std::uint32_t step, std::size_t fibers);
  /// atomic_thread_fence(order) on fiber f.
  void fence(std::uint32_t f, VectorClock& c, std::memory_order order, std::size_t fibers);

  /// The store that candidate `index` of the last candidates() call stands for, and the number
  /// of newer stores the load did not see.
  StaleRead stale(std::uint32_t object, std::size_t index) const;

 private:
  struct History {
    std::uint32_t size = 0;  // stores kept (at most kHistory)
    std::uint32_t head = 0;  // index of the newest in its ring
  };
  StoreRecord& at(std::uint32_t object, std::size_t age);  // age 0 = newest
  const StoreRecord& at(std::uint32_t object, std::size_t age) const;
  History& history(std::uint32_t object);
  StoreRecord& push(std::uint32_t object);
  void restart(std::uint32_t object, Value latest);  // a history of one store that all have seen
  void check_latest(std::uint32_t object, Value latest);

  std::vector<History> histories_;
  std::vector<StoreRecord> stores_;  // kHistory per object, a ring each
  std::array<FiberMemory, kMaxFibers> fibers_{};
  const FenceRecord* fence_before(const VectorClock& c) const;
  void mark_read(StoreRecord& s, std::uint32_t f, VectorClock& c, std::memory_order order, std::size_t fibers);
  void append(std::uint32_t object, Value after, std::uint32_t f, const VectorClock& c, std::memory_order order,
              std::uint32_t step, const VectorClock& sync);

  VectorClock sc_fences_{};          // the clocks of every seq_cst fence so far, joined
  std::vector<FenceRecord> fences_;  // this run's seq_cst fences, in S order
  std::uint32_t sc_next_ = 1;        // the next seq_cst operation's position in S
};

}  // namespace duet::detail::fiber
