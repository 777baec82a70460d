// The store-buffer model of C++ atomics (memory_model.hpp). The rules a load's candidates
// follow, with the paragraphs of C++20 they come from, are in candidates().
#include "execute/fibers/memory_model.hpp"

#include <algorithm>

namespace duet::detail::fiber {

void AtomicsModel::begin_run() {
  sc_fences_.fill(0);
  fences_.clear();
  sc_next_ = 1;
}

void AtomicsModel::start_fiber(std::uint32_t fiber) {
  FiberMemory& m = fibers_[fiber];
  m.acquire_pending.fill(0);
  m.release_fence.fill(0);
}

void AtomicsModel::forget(std::uint32_t object) {
  if (object >= histories_.size()) {
    histories_.resize(object + 1);
    stores_.resize(histories_.size() * kHistory);
  }
  histories_[object] = {};
}

AtomicsModel::History& AtomicsModel::history(std::uint32_t object) {
  if (object >= histories_.size()) forget(object);
  return histories_[object];
}

StoreRecord& AtomicsModel::at(std::uint32_t object, std::size_t age) {
  const History& h = histories_[object];
  return stores_[object * kHistory + (h.head + kHistory - age) % kHistory];
}

const StoreRecord& AtomicsModel::at(std::uint32_t object, std::size_t age) const {
  const History& h = histories_[object];
  return stores_[object * kHistory + (h.head + kHistory - age) % kHistory];
}

// A new newest store; the oldest goes when the history is full (it can no longer be read: the
// model loses behaviours there, it never invents one).
StoreRecord& AtomicsModel::push(std::uint32_t object) {
  History& h = history(object);
  h.head = (h.head + 1) % kHistory;
  if (h.size < kHistory) ++h.size;
  return at(object, 0);
}

void AtomicsModel::restart(std::uint32_t object, Value latest) {
  histories_[object] = {};
  StoreRecord& s = push(object);
  s.value = latest;
  s.fiber = kNoFiber;
  s.epoch = 0;
  s.step = kNoStep;
  s.seq_cst = false;
  s.sc_pos = 0;
  s.sc_read = 0;
  s.sync.fill(0);
  s.loaded.fill(0);
}

// The history must end with what memory holds. When it does not, code the model does not see
// (not instrumented, a plain write, the object's first use in the run) wrote it: the history
// starts again from that value, which every fiber sees.
void AtomicsModel::check_latest(std::uint32_t object, Value latest) {
  const History& h = history(object);
  if (h.size == 0 || at(object, 0).value != latest) restart(object, latest);
}

// The latest seq_cst fence (in S) that happens-before an operation of clock `c`: its view
// covers every earlier fence's.
const FenceRecord* AtomicsModel::fence_before(const VectorClock& c) const {
  for (auto it = fences_.rbegin(); it != fences_.rend(); ++it)
    if (it->epoch <= c[it->fiber]) return &*it;
  return nullptr;
}

std::size_t AtomicsModel::candidates(std::uint32_t object, Value latest, const VectorClock& c, bool seq_cst,
                                     std::size_t fibers) {
  check_latest(object, latest);
  const FenceRecord* x = fence_before(c);
  const History& h = histories_[object];
  // Happens-before this load, or before a seq_cst fence preceding one that happens-before it
  // ([intro.races]/16, /18 and [atomics.order]/4.4); and for a seq_cst load, before any seq_cst
  // fence so far (4.2).
  auto seen = [&](std::uint32_t fiber, std::uint32_t epoch) {
    return epoch <= c[fiber] || (x != nullptr && epoch <= x->view[fiber]) || (seq_cst && epoch <= sc_fences_[fiber]);
  };
  std::size_t count = 0;
  for (std::size_t age = 0; age < h.size; ++age) {
    const StoreRecord& s = at(object, age);
    ++count;
    if (s.fiber == kNoFiber) break;  // before the run: happens-before everything
    // Write-read coherence: a store seen by this load.
    if (seen(s.fiber, s.epoch)) break;
    // Read-read coherence: a store read by a load seen by this load.
    bool read_before = false;
    for (std::size_t l = 0; l < fibers && !read_before; ++l) read_before = s.loaded[l] != 0 && seen(l, s.loaded[l]);
    if (read_before) break;
    // 4.3: a seq_cst store, or a store a seq_cst load read, earlier in S than a seq_cst fence
    // that happens-before this load.
    if (x != nullptr && ((s.sc_pos != 0 && s.sc_pos < x->pos) || (s.sc_read != 0 && s.sc_read < x->pos))) break;
    // 4.1: a seq_cst load reads the last seq_cst store before it in S, or a newer one, and
    // nothing older than what an earlier seq_cst load read.
    if (seq_cst && (s.seq_cst || s.sc_read != 0)) break;
  }
  return count;
}

StaleRead AtomicsModel::stale(std::uint32_t object, std::size_t index) const {
  if (index == 0) return {};
  return {static_cast<std::uint32_t>(index), at(object, index - 1).step};
}

// A load (or the read of an RMW) by fiber f read `s`: later loads that see this one may not
// read older (coherence), seq_cst ones may not read older than a seq_cst read, and an acquire
// takes what the store released (a relaxed read keeps it for an acquire fence).
void AtomicsModel::mark_read(StoreRecord& s, std::uint32_t f, VectorClock& c, std::memory_order order, std::size_t fibers) {
  if (s.loaded[f] == 0) s.loaded[f] = c[f];
  if (order == std::memory_order_seq_cst && s.sc_read == 0) s.sc_read = sc_next_++;
  join(acquires(order) ? c : fibers_[f].acquire_pending, s.sync, fibers);
}

void AtomicsModel::append(std::uint32_t object, Value after, std::uint32_t f, const VectorClock& c, std::memory_order order,
                          std::uint32_t step, const VectorClock& sync) {
  StoreRecord& s = push(object);
  s.value = after;
  s.fiber = f;
  s.epoch = c[f];
  s.step = step;
  s.seq_cst = order == std::memory_order_seq_cst;
  s.sc_pos = s.seq_cst ? sc_next_++ : 0;
  s.sc_read = 0;
  s.sync = sync;
  s.loaded.fill(0);
}

const StoreRecord& AtomicsModel::load(std::uint32_t object, std::size_t index, std::uint32_t f, VectorClock& c,
                                      std::memory_order order, std::size_t fibers) {
  StoreRecord& s = at(object, index);
  mark_read(s, f, c, order, fibers);
  return s;
}

void AtomicsModel::rmw(std::uint32_t object, Value before, Value after, bool writes, std::uint32_t f, VectorClock& c,
                       std::memory_order order, std::uint32_t step, std::size_t fibers) {
  check_latest(object, before);
  StoreRecord& read = at(object, 0);
  mark_read(read, f, c, order, fibers);
  if (!writes) return;
  // The release sequence goes on through every RMW: what the store read released, this one
  // releases too [intro.races]/5.
  VectorClock sync = read.sync;
  join(sync, releases(order) ? c : fibers_[f].release_fence, fibers);
  append(object, after, f, c, order, step, sync);
}

void AtomicsModel::store(std::uint32_t object, Value before, Value after, std::uint32_t f, const VectorClock& c,
                         std::memory_order order, std::uint32_t step, std::size_t fibers) {
  if (before.type != ValueType::none) check_latest(object, before);  // none: the caller could not tell
  // A release store releases the fiber's clock; a relaxed one what its last release fence did.
  VectorClock sync{};
  join(sync, releases(order) ? c : fibers_[f].release_fence, fibers);
  append(object, after, f, c, order, step, sync);
}

void AtomicsModel::fence(std::uint32_t f, VectorClock& c, std::memory_order order, std::size_t fibers) {
  FiberMemory& m = fibers_[f];
  if (acquires(order)) join(c, m.acquire_pending, fibers);  // [atomics.fences]/3, /4
  if (order == std::memory_order_seq_cst) {                 // S is execution order: every earlier fence precedes it
    join(sc_fences_, c, fibers);
    fences_.push_back({f, c[f], sc_next_++, sc_fences_});
  }
  if (releases(order)) m.release_fence = c;  // [atomics.fences]/2, /4
}

}  // namespace duet::detail::fiber
