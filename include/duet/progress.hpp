// Progress guarantees: what a concurrent structure promises beyond linearizability, checked on
// the fiber scheduler (docs/parallel.md#progress-guarantees). A check states them in
// ParallelConfig::progress, for every operation and per operation:
//
//   duet::check_parallel<StackSpec>({.executor = duet::fibers(), .progress = duet::lock_free()});
//   duet::check_parallel(lin, {.executor = duet::fibers(), .progress = duet::lock_free().blocking("pop")});
//
// - obstruction_free(bound): a pending call run alone (every other fiber suspended where it
//   stopped) finishes within `bound` of its own steps.
// - lock_free(bound): with one fiber suspended mid-call, the others finish some call within
//   `bound` of their steps.
// - wait_free(bound): every call finishes within `bound` of its own steps, whatever the schedule.
// A step is one operation the scheduler sees (an atomic access, a lock, a yield). Each
// guarantee implies the weaker ones, and is checked with them.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace duet {

/// A progress guarantee, for every operation of a check or for one. Make one with
/// duet::obstruction_free, duet::lock_free or duet::wait_free; refine it per operation:
///
///   const duet::Progress stack = duet::lock_free();                                 // every operation
///   const duet::Progress queue = duet::lock_free().op("size", duet::wait_free(3));  // size() promises more
///   const duet::Progress mpmc = duet::lock_free(50).blocking("pop");                // pop() may wait: exempt
struct Progress {
  enum class Kind : unsigned char { none, obstruction_free, lock_free, wait_free };
  Kind kind = Kind::none;  // none: no guarantee stated (the default: nothing is checked)
  std::size_t bound = 0;   // steps (see the kinds above)
  struct Override {
    std::string op;  // by the name a call prints before its `(`: "pop" for q.pop()
    Kind kind = Kind::none;
    std::size_t bound = 0;
  };
  std::vector<Override> ops = {};

  /// Operation `name` promises `p` (its kind and bound) instead of the check's guarantee. A name
  /// the spec has no operation for is an error of the check (it would never match).
  Progress op(std::string name, const Progress& p) const {
    Progress copy = *this;
    copy.ops.push_back({std::move(name), p.kind, p.bound});
    return copy;
  }
  /// Operation `name` may wait for another call (a pop that waits for a push): no guarantee,
  /// exempt from every check (Lincheck's `blocking = true`).
  Progress blocking(std::string name) const {
    Progress copy = *this;
    copy.ops.push_back({std::move(name), Kind::none, 0});
    return copy;
  }
  /// The guarantee operation `name` promises (Kind::none: exempt).
  Override of(const std::string& name) const {
    for (const Override& o : ops)
      if (o.op == name) return o;
    return {name, kind, bound};
  }
  bool stated() const {
    if (kind != Kind::none) return true;
    for (const Override& o : ops)
      if (o.kind != Kind::none) return true;
    return false;
  }
};

/// Steps a call run alone gets, by default, before obstruction- or lock-freedom is judged.
inline constexpr std::size_t kProgressBound = 100;

/// A call run alone finishes within `bound` of its own steps.
///
///   EXPECT_TRUE(duet::check_parallel<QueueSpec>({.executor = duet::fibers(), .progress = duet::obstruction_free()}));
inline Progress obstruction_free(std::size_t bound = kProgressBound) { return {Progress::Kind::obstruction_free, bound}; }
/// Some call finishes within `bound` steps of the fibers that run while one is suspended.
///
///   EXPECT_TRUE(duet::check_parallel<duet::models::TreiberStackSpec<>>({.executor = duet::fibers(), .progress = duet::lock_free()}));
inline Progress lock_free(std::size_t bound = kProgressBound) { return {Progress::Kind::lock_free, bound}; }
/// Every call finishes within `bound` of its own steps, whatever the schedule.
///
///   EXPECT_TRUE(duet::check_parallel<CounterSpec>({.executor = duet::fibers(), .progress = duet::wait_free(1)}));
inline Progress wait_free(std::size_t bound) { return {Progress::Kind::wait_free, bound}; }

}  // namespace duet
