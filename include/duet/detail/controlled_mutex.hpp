// The forwarding every mutex of duet/sync.hpp does: inside a fiber run, to the scheduler (a lock
// and an unlock are switch points, a blocked lock a wait); outside, to the std:: mutex it wraps.
#pragma once

#include "duet/detail/atomic_support.hpp"  // register_object
#include "duet/detail/fiber_hooks.hpp"
#include "duet/detail/source_location.hpp"

namespace duet::detail {

/// `Native` the std:: mutex used outside fiber runs; `Kind` how the scheduler and the report
/// name it. lock_shared and the rest only where `Native` has them (std::shared_mutex).
template <class Native, fiber::ObjectKind Kind>
class controlled_mutex {
  using loc_t = duet::source_location;

 public:
  constexpr explicit controlled_mutex(loc_t loc) noexcept(noexcept(Native())) {
    if (!std::is_constant_evaluated()) register_object(Kind, this, loc);
  }
  controlled_mutex(const controlled_mutex&) = delete;
  controlled_mutex& operator=(const controlled_mutex&) = delete;

  void lock(loc_t loc = loc_t::current()) { acquire(false, loc); }
  bool try_lock(loc_t loc = loc_t::current()) { return try_acquire(false, loc); }
  void unlock(loc_t loc = loc_t::current()) { release(false, loc); }
  void lock_shared(loc_t loc = loc_t::current()) requires requires(Native& n) { n.lock_shared(); }
  { acquire(true, loc); }
  bool try_lock_shared(loc_t loc = loc_t::current()) requires requires(Native& n) { n.try_lock_shared(); }
  { return try_acquire(true, loc); }
  void unlock_shared(loc_t loc = loc_t::current()) requires requires(Native& n) { n.unlock_shared(); }
  { release(true, loc); }

 protected:
  ~controlled_mutex() = default;
  Native native_;

 private:
  void acquire(bool shared, loc_t loc) {
    if (auto* rt = fiber::current()) [[unlikely]]
      return fiber::lock(*rt, Kind, this, shared, loc);
    if (shared) {
      if constexpr (requires { native_.lock_shared(); }) native_.lock_shared();
    } else {
      native_.lock();
    }
  }
  bool try_acquire(bool shared, loc_t loc) {
    if (auto* rt = fiber::current()) [[unlikely]]
      return fiber::try_lock(*rt, Kind, this, shared, loc);
    if constexpr (requires { native_.try_lock_shared(); })
      if (shared) return native_.try_lock_shared();
    return native_.try_lock();
  }
  void release(bool shared, loc_t loc) {
    if (auto* rt = fiber::current()) [[unlikely]]
      return fiber::unlock(*rt, Kind, this, shared, loc);
    if (shared) {
      if constexpr (requires { native_.unlock_shared(); }) native_.unlock_shared();
    } else {
      native_.unlock();
    }
  }
};

}  // namespace duet::detail
