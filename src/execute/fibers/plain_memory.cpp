// The data-race check on plain memory of compiler-instrumented code (duet_instrument): each
// access checked word by word against the shadow words (shadow.hpp) of the accesses before it,
// FastTrack style, and the hooks that reach it (in this file, so that the hot path stays in one
// translation unit).
#include <algorithm>
#include <cstdint>

#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

bool race_reported(const void* pc_earlier, const void* pc_now) noexcept;

void Runtime::memory_access(const void* address, std::size_t size, bool write, const void* pc) {
  // The trial's fiber alone (trial_frame.cpp): what it touches races with nothing.
  if (current == kNoFiber || draining_ || untracked()) return;
  if (model_on_ && write)  // a plain write to an atomic (its constructor, say): its history restarts
    if (const std::uint32_t* id = table_.find(address); id != nullptr && objects_[*id].kind == ObjectKind::atomic)
      model_.overwritten(*id);
  const std::uint32_t epoch = self().clock[current];
  const auto step = static_cast<std::uint32_t>(trace.size());
  auto a = reinterpret_cast<std::uintptr_t>(address);
  while (size > 0) {  // word by word: an unaligned or long access spans several
    const std::size_t offset = a & 7, n = std::min<std::size_t>(size, 8 - offset);
    const auto bytes = static_cast<std::uint8_t>(((1u << n) - 1) << offset);
    check_word(shadow_.word(a >> 3), ShadowAccess{current, epoch, step, bytes, write, pc, address});
    a += n;
    size -= n;
  }
}

void Runtime::thread_storage_access(const void* address, const void* pc) {
  if (current == kNoFiber || draining_ || untracked()) return;
  shared_storage_.used(reinterpret_cast<std::uintptr_t>(address), current, pc);
}

bool Runtime::races(const ShadowAccess& e, const ShadowAccess& now) {
  return e.valid() && e.fiber != current && (e.bytes & now.bytes) != 0 && e.epoch > self().clock[e.fiber] &&
         race_reported(e.pc, now.pc);
}

bool Runtime::memory_freed(const void* address, std::size_t size, const void* pc) {
  forget_memory(address, size);
  if (draining_) return false;
  if (current == kNoFiber || shadow_.empty() || untracked()) return true;
  const ShadowAccess now{current, self().clock[current], static_cast<std::uint32_t>(trace.size()), 0xff, true, pc, address};
  shadow_.visit(address, size, [&](ShadowMemory::Word& w) {
    if (races(w.write, now)) plain_race(w.write, now, Op::destroy);
    for (const ShadowAccess& r : w.reads)
      if (races(r, now)) plain_race(r, now, Op::destroy);
    w.write = {};
    w.reads = {};
  });
  return !draining_;  // freed where it races: kept, for the drain may still use it
}

void Runtime::check_word(ShadowMemory::Word& w, const ShadowAccess& now) {
  if (races(w.write, now)) plain_race(w.write, now, now.write ? Op::write : Op::read);
  if (now.write) {
    for (ShadowAccess& r : w.reads) {
      if (races(r, now)) plain_race(r, now, Op::write);
      if ((r.bytes & ~now.bytes) == 0) r = {};  // they happen before this write: it is enough to check
    }
    w.write = now;
    return;
  }
  ShadowAccess* slot = nullptr;
  for (ShadowAccess& r : w.reads) {
    if (r.valid() && r.fiber == current && r.bytes == now.bytes) {
      slot = &r;
      break;
    }
    if (!r.valid() && slot == nullptr) slot = &r;
  }
  if (slot == nullptr) {  // every slot taken: the oldest read goes (this can hide a race, not invent one)
    slot = &w.reads[0];
    for (ShadowAccess& r : w.reads)
      if (r.step < slot->step) slot = &r;
  }
  *slot = now;
}

void Runtime::plain_race(const ShadowAccess& earlier, const ShadowAccess& now, Op now_op) {
  if (draining_) return;  // the first race is the run's
  auto access = [](const ShadowAccess& a) {
    return Access{a.fiber, a.write ? Op::write : Op::read, a.step, symbolize(a.pc)};
  };
  result.outcome = Outcome::data_race;
  result.race = {kNoObject, access(earlier), access(now), 0};
  result.race.second.op = now_op;
  result.race.size = static_cast<std::uint32_t>(std::popcount(now.bytes));
  // Fibers that stand for threads but share their thread's storage (shared_storage.hpp).
  if (std::string shared = shared_storage_.shared_use(); !shared.empty()) {
    result.outcome = Outcome::limit;
    result.limit = "a data race on " + std::to_string(result.race.size) + (result.race.size == 1 ? " byte" : " bytes") +
                   " between fiber " + std::to_string(earlier.fiber) + " at " + location(result.race.first.loc) +
                   " and fiber " + std::to_string(now.fiber) + " at " + location(result.race.second.loc) +
                   ", in a run where " + shared;
  }
  begin_drain();
}

// ---- the hooks (fiber_hooks.hpp) ----

void memory_access(Runtime& rt, const void* address, std::size_t size, bool write, const void* pc) noexcept {
  rt.memory_access(address, size, write, pc);
}
void thread_storage_access(Runtime& rt, const void* address, const void* pc) noexcept {
  rt.thread_storage_access(address, pc);
}
bool memory_freed(Runtime& rt, const void* address, std::size_t size, const void* pc) noexcept {
  return rt.memory_freed(address, size, pc);
}

}  // namespace duet::detail::fiber
