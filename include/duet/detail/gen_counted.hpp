// The reference count behind every duet::Gen (duet/gen.hpp), and the scope in which the case loop
// holds its releases back. Not a public header.
#pragma once

#include <atomic>
#include <cstdint>

namespace duet {

namespace detail {
class GenCounted;

/// The generator references this thread holds back inside a DeferredGenReleases scope: still
/// counted in the generator's atomic count, so no other thread can see it reach zero early. A
/// copy made on this thread takes one over instead of counting again, so the case loop's
/// `Spec::command(state)`, a copy of a generator destroyed after its draw, does no atomic
/// operation from the second command of a case on (they were a fifth of a sequential check).
struct HeldGenReferences {
  // The generator last held back, by address: kept when the count falls to 0 (the next release
  // of the same generator is then held back inline), and an integer so that comparing it after
  // the generator is gone is well defined. Zero outside any scope.
  std::uintptr_t gen = 0;
  long count = 0;  // references held back: while positive, the generator at `gen` lives
  int depth = 0;   // open DeferredGenReleases scopes
};
// Defined here (inline), not declared extern: GCC's undefined-behaviour sanitizer reports the
// read of an extern constinit thread_local of class type through a null pointer.
inline constinit thread_local HeldGenReferences held_gen_references;

/// The reference count behind every Gen: intrusive and out of line, so a generator built from
/// a lambda instantiates one small class (its generate() and destructor), not std::shared_ptr's
/// control blocks, in each test file.
class GenCounted {
 public:
  GenCounted() = default;
  GenCounted(const GenCounted&) = delete;
  GenCounted& operator=(const GenCounted&) = delete;
  void retain() const noexcept {
    HeldGenReferences& held = held_gen_references;
    if (held.gen == address() && held.count > 0) {  // take over a reference this thread held back
      --held.count;
      return;
    }
    refs_.fetch_add(1, std::memory_order_relaxed);
  }
  /// Deletes this after the last release; in a DeferredGenReleases scope the reference may be
  /// held back for a copy to take over.
  void release() const noexcept {
    HeldGenReferences& held = held_gen_references;
    if (held.gen == address()) {  // the one this thread holds back (only ever in a scope)
      ++held.count;
      return;
    }
    release_elsewhere();
  }

 protected:
  // Not virtual: the last release calls destroy(), which deletes the generator as its own
  // class, so that a generator compiles one function for it (no complete and deleting
  // destructors in its vtable).
  ~GenCounted() = default;
  virtual void destroy() const noexcept = 0;

 private:
  friend class DeferredGenReleases;
  std::uintptr_t address() const noexcept { return reinterpret_cast<std::uintptr_t>(this); }
  // release() when this generator is not the one held back.
  void release_elsewhere() const noexcept;
  // Gives up what the thread holds back of the generator at `gen`.
  static void drop_held(std::uintptr_t gen, long count) noexcept;
  // Gives up `count` references at once.
  void drop(long count) const noexcept;

  mutable std::atomic<long> refs_{1};
};

/// While one lives on this thread, releasing a generator's last reference from this thread may
/// be put off to the end of the scope (one generator's at a time): the case loop opens one per
/// case. Nests; the outermost gives up what is held.
class DeferredGenReleases {
 public:
  DeferredGenReleases() noexcept { ++held_gen_references.depth; }
  ~DeferredGenReleases();
  DeferredGenReleases(const DeferredGenReleases&) = delete;
  DeferredGenReleases& operator=(const DeferredGenReleases&) = delete;
};
}  // namespace detail

}  // namespace duet
