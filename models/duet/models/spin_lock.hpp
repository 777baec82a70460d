// Spin locks: test-and-set (TasSpinLock), test-and-test-and-set (TtasSpinLock) and a ticket
// lock (TicketLock, first come first served), all yielding in their spin loops; LockedCounter,
// a counter guarded by any lock; and the specs that check them as counters
// (models/duet/models/counter.hpp).
//
//   duet::models::TasSpinLock<> lock;                        // std::atomic: production
//   duet::models::TtasSpinLock<duet::models::FiberSync> l;   // duet::atomic: fiber runs
//   { std::lock_guard g(lock); ... }                         // BasicLockable (and try_lock)
//
//   duet::check_parallel<duet::models::TasSpinLockSpec<>>(...);   // incr / get through the lock
//
// The counter behind the lock is a Sync::var: with FiberSync, a lock that let two fibers into
// the critical section would show as a data race, not only as a lost increment. The
// test-and-set locks use seq_cst (the default) throughout; the ticket lock acquires and releases
// and no more, which fiber runs check under the C++ memory model (MemoryModel::cpp): a release
// too weak lets the next holder race with the last one's writes. Sync: see sync_traits.hpp.
#pragma once

#include <atomic>
#include <mutex>

#include <duet/models/counter.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

/// Test-and-set: every attempt is an exchange; a failed one yields before the next.
template <SyncTraits Sync = StdSync>
class TasSpinLock {
 public:
  void lock() {
    while (locked_.exchange(true)) Sync::yield();
  }
  bool try_lock() { return !locked_.exchange(true); }
  void unlock() { locked_.store(false); }

 private:
  typename Sync::template atomic<bool> locked_{false};
};

/// Test-and-test-and-set: spins on loads (which do not take the cache line exclusively) and
/// tries the exchange only when the lock looks free.
template <SyncTraits Sync = StdSync>
class TtasSpinLock {
 public:
  void lock() {
    for (;;) {
      if (!locked_.exchange(true)) return;
      while (locked_.load()) Sync::yield();
    }
  }
  bool try_lock() { return !locked_.load() && !locked_.exchange(true); }
  void unlock() { locked_.store(false); }

 private:
  typename Sync::template atomic<bool> locked_{false};
};

/// A ticket lock: lock() takes the next ticket and waits until it is served; unlock() serves the
/// next one. Only the holder writes `serving_`, so unlock() is a load and a store, and the store
/// releases what the holder wrote to the next holder's acquiring load. `Release` is the unlock's
/// order (a parameter so that tests can build the lock whose unlock releases nothing).
template <SyncTraits Sync = StdSync, std::memory_order Release = std::memory_order_release>
class BasicTicketLock {
 public:
  void lock() {
    const unsigned mine = next_.fetch_add(1, std::memory_order_relaxed);
    while (serving_.load(std::memory_order_acquire) != mine) Sync::yield();
  }
  bool try_lock() {
    unsigned serving = serving_.load(std::memory_order_acquire);
    return next_.compare_exchange_strong(serving, serving + 1, std::memory_order_relaxed);
  }
  void unlock() { serving_.store(serving_.load(std::memory_order_relaxed) + 1, Release); }

 private:
  typename Sync::template atomic<unsigned> next_{0};
  typename Sync::template atomic<unsigned> serving_{0};
};
template <SyncTraits Sync = StdSync>
using TicketLock = BasicTicketLock<Sync>;

/// A counter whose plain variable only `Lock` protects: incr() is a read and a write of it.
template <class Lock, SyncTraits Sync = StdSync>
class LockedCounter {
 public:
  void incr() {
    std::lock_guard g(lock_);
    count_.set(count_.get() + 1);
  }
  long get() {
    std::lock_guard g(lock_);
    return count_.get();
  }

 private:
  Lock lock_;
  typename Sync::template var<long> count_{0};
};

/// Binds a LockedCounter to the Counter model.
template <class Lock, SyncTraits Sync>
struct LockedCounterBinding {
  using Sut = LockedCounter<Lock, Sync>;
  static void incr(Sut& c) { c.incr(); }
  static long get(Sut& c) { return c.get(); }
};

/// incr() and get() on a counter guarded by a TasSpinLock / TtasSpinLock / TicketLock.
template <SyncTraits Sync = FiberSync>
using TasSpinLockSpec = Counter<LockedCounterBinding<TasSpinLock<Sync>, Sync>>;
template <SyncTraits Sync = FiberSync>
using TtasSpinLockSpec = Counter<LockedCounterBinding<TtasSpinLock<Sync>, Sync>>;
template <SyncTraits Sync = FiberSync>
using TicketLockSpec = Counter<LockedCounterBinding<TicketLock<Sync>, Sync>>;

}  // namespace duet::models
