// Fibers that stand for threads but share their thread's thread-local storage (every platform
// but x86-64 with glibc, thread_locals.hpp): what would be each thread's own thread_local is one
// variable for all the run's fibers. Code that keeps per-thread state so (oneTBB's per-thread
// scheduler data, reached through a thread_local pointer) then has two fibers work on one
// thread's state, and the data race that follows is duet's, not the code's.
//
// The watch sees which thread-local words the run's fibers use (their instrumented accesses,
// which are no races between fibers and are otherwise ignored; the C and C++ runtimes' own left
// out) and the first word two fibers used. A data race in such a run, or on such storage, is no verdict
// (Runtime::plain_race): said so, with where the two fibers used the one thread_local.
// Internal.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

namespace duet::detail::fiber {

class SharedStorageWatch {
 public:
  /// At a run's start: whether its fibers stand for threads and share their thread's storage
  /// (else the watch records nothing).
  void begin_run(bool fibers_share_storage) {
    on_ = fibers_share_storage;
    users_.clear();
    shared_ = false;
  }
  /// `fiber` at `pc` used the thread-local word at `address` (a subject's module's, never the C
  /// or C++ runtime's: instrumented/hooks.cpp tells them apart).
  void used(std::uintptr_t address, std::uint32_t fiber, const void* pc);
  /// Why a data race of this run is no verdict (empty: no two fibers used one thread-local
  /// word, so the race is the code's): where two fibers used one thread_local.
  std::string shared_use() const;

 private:
  struct User {
    std::uint32_t fiber = 0;
    const void* pc = nullptr;
  };
  bool on_ = false;
  std::unordered_map<std::uintptr_t, User> users_;  // the first fiber to use each word
  bool shared_ = false;                             // two fibers used one word: these
  User first_, second_;
};

}  // namespace duet::detail::fiber
