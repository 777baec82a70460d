// Thread-local storage of its own for each fiber of a run, so that a subject that keys state on
// its thread (a thread_local, pthread_getspecific, std::this_thread::get_id(), pthread_self())
// sees one thread per fiber, as it would on real threads. Switched on by duet::instrument (code
// the user did not write for duet relies on it: moodycamel's implicit producers, xenium's
// reclaimers); duet/sync.hpp code and the async runtime keep sharing their thread's storage.
//
// Each fiber gets a block made by the C library's own loader (every module's thread_locals at
// their initial values) and a thread pointer of its own, installed on every switch into the
// fiber. Two things stay the scheduling thread's:
//  - the C library's own thread_locals (malloc's per-thread cache, errno): fibers share one OS
//    thread and the C library is never interrupted by a switch, so sharing its cache is safe,
//    and a fiber never strands memory in a cache of its own;
//  - duet's runtime state (which run, virtual time): mirrored into the fiber's block on every
//    switch in and back on every switch out (see Runtime::resume), or read through host_local().
// Internal: users' headers never see it.
#pragma once

#include <cstddef>
#include <cstring>
#include <vector>

namespace duet::detail {
/// The test framework's thread-specific keys (see src/integration/gtest_glue.cpp): registered by their
/// destructor, they keep the scheduling thread's values on fibers.
void share_thread_key_with_fibers(void (*destructor)(void*)) noexcept;
/// Whether keys with this destructor were registered so.
bool thread_key_shared_with_fibers(void (*destructor)(void*)) noexcept;
}  // namespace duet::detail

namespace duet::detail::fiber {

/// The thread pointer of the calling code: its thread's, or its fiber's when it has a block.
void* thread_pointer() noexcept;

/// In a fiber's block: the scheduling thread's thread pointer (Blocks::fresh writes it); null in
/// a thread's own block.
extern constinit thread_local void* t_host_tp;
/// The scheduling thread's thread pointer when the calling code is a fiber with a block of its
/// own; null otherwise (a thread, or a fiber sharing its thread's storage).
inline void* host_thread_pointer() noexcept { return t_host_tp; }

/// Blocks of thread-local storage for fibers (x86-64 with glibc; elsewhere none: fibers share
/// their thread's storage, as the docs say).
namespace fiber_tls {

/// Blocks can be made here (the platform is supported and the loader's allocator was found).
bool supported() noexcept;

/// The blocks of one scheduler's fibers, one per fiber slot, at addresses that stay the same
/// from run to run (and from process to process where the address range is free): a subject
/// that hashes its thread's id (std::barrier picks its slot so) behaves the same in a replay.
class Blocks {
 public:
  explicit Blocks(std::size_t slots) noexcept : slots_(slots) {}
  ~Blocks();
  Blocks(const Blocks&) = delete;
  Blocks& operator=(const Blocks&) = delete;
  /// Slot `i`'s block made fresh (every module's thread_locals at their initial values), its
  /// thread pointer; null when none can be made. `host_tp` is the scheduling thread's thread
  /// pointer (the caller may be a fiber starting another).
  void* fresh(std::size_t i, void* host_tp) noexcept;
  /// Gives back what slot `i`'s block acquired (its dynamic thread-local storage).
  void release(std::size_t i) noexcept;

 private:
  bool map() noexcept;
  std::size_t slots_;
  char* region_ = nullptr;
  std::size_t stride_ = 0;
  std::size_t tp_offset_ = 0;
  std::vector<bool> in_use_;  // slot i's block holds a dtv of the loader's
  bool failed_ = false;
};
/// Makes `tp` the calling code's thread pointer.
void install(void* tp) noexcept;
/// Where the static thread-local storage of the block at `tp` lies (every module loaded at
/// startup, duet's own included): what the data-race check forgets when a block goes.
struct Range {
  const void* begin;
  std::size_t size;
};
Range static_range(const void* tp) noexcept;

}  // namespace fiber_tls

/// The variable `var` (a thread_local of duet's, constinit and trivially destructible, in
/// static thread-local storage) as the scheduling thread has it, from a fiber with a block of
/// its own; `var` itself elsewhere. For state every fiber of a run shares.
template <class T>
T& host_local(T& var) noexcept {
  char* const host = static_cast<char*>(host_thread_pointer());
  if (host == nullptr) return var;
  const auto offset = reinterpret_cast<char*>(&var) - static_cast<char*>(thread_pointer());
  return *reinterpret_cast<T*>(host + offset);
}

/// State every fiber of the scheduling thread shares, behind a thread_local pointer of duet's:
/// made on first use and kept for the thread's life (a late fiber of an abandoned run may still
/// reach it).
template <class T>
T& host_shared(T*& slot) {
  T*& state = host_local(slot);
  if (state == nullptr) state = new T();
  return *state;
}

/// The same variable in the block at `tp`, from the scheduling thread: to mirror it.
template <class T>
T& in_block(void* tp, T& var) noexcept {
  const auto offset = reinterpret_cast<char*>(&var) - static_cast<char*>(thread_pointer());
  return *reinterpret_cast<T*>(static_cast<char*>(tp) + offset);
}

}  // namespace duet::detail::fiber
