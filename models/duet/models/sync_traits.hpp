// One class, std types in production and duet's instrumented types in tests: the concurrent
// subjects in models/ (spin_lock.hpp, treiber_stack.hpp, ms_queue.hpp, seqlock.hpp,
// bounded_buffer.hpp) take their synchronisation types from a traits struct, `Sync`:
//
//   template <class T, duet::models::SyncTraits Sync = duet::models::StdSync>
//   class Box {
//    public:
//     void put(T v) { std::lock_guard g(m_); value_.set(std::move(v)); ready_.store(true); }
//     bool ready() const { return ready_.load(); }
//    private:
//     typename Sync::mutex m_;                        // std::mutex       | duet::mutex
//     typename Sync::template var<T> value_;          // Plain<T>         | duet::var<T>
//     typename Sync::template atomic<bool> ready_{false};  // std::atomic | duet::atomic
//   };
//   Box<int> production;                           // StdSync: the std types, no duet code at all
//   Box<int, duet::models::FiberSync> tested;      // scheduled, traced, race-checked on fibers
//
// Why a traits struct rather than template template parameters (`template <template <class>
// class Atomic = std::atomic, class Mutex = std::mutex>`, which sync.hpp also shows): a subject
// needing atomics, plain variables, a mutex, a condition variable and yield would take five
// parameters, in an order every user must repeat; one `Sync` names them all, a new member
// (a shared_mutex, say) does not change any signature, and the concept below says what a
// traits struct must provide. folly uses the same shape (`template <template <typename> class
// Atom = std::atomic>` for one type; a traits struct when several go together).
//
// The members:
//   template <class T> using atomic   std::atomic<T>            duet::atomic<T>
//   template <class T> using var      Plain<T>: get(), set(v)   duet::var<T>: the same calls,
//                                                               and data races are reported
//   using mutex                       std::mutex                duet::mutex
//   using condition_variable          std::condition_variable   duet::condition_variable
//   static void yield()               std::this_thread::yield   duet::yield
// Locks are std::lock_guard / std::unique_lock<typename Sync::mutex> in both (duet specialises
// them for its mutexes); the condition variable waits on std::unique_lock<typename Sync::mutex>.
//
// Outside a fiber run FiberSync's types behave like the std ones (one thread-local check each),
// so a FiberSync instantiation also runs on real threads; StdSync is for production builds,
// where even that check is unwanted.
#pragma once

#include <atomic>
#include <concepts>
#include <condition_variable>
#include <mutex>
#include <source_location>
#include <thread>
#include <utility>

#include <duet/sync.hpp>

namespace duet::models {

/// A plain variable with duet::var's interface (get, set), for StdSync: a T and nothing else.
template <class T>
class Plain {
 public:
  Plain() = default;
  Plain(T v) : v_(std::move(v)) {}  // NOLINT: implicit, as duet::var's
  Plain(const Plain&) = delete;
  Plain& operator=(const Plain&) = delete;
  T get() const { return v_; }
  void set(T v) { v_ = std::move(v); }

 private:
  T v_{};
};

/// The standard library's synchronisation types: what production code instantiates.
struct StdSync {
  template <class T>
  using atomic = std::atomic<T>;
  template <class T>
  using var = Plain<T>;
  using mutex = std::mutex;
  using condition_variable = std::condition_variable;
  static void yield() noexcept { std::this_thread::yield(); }
};

/// duet's instrumented types (duet/sync.hpp): what tests instantiate, to run the subject under
/// the fiber scheduler (every operation a switch point, traced with its line; duet::var checked
/// for data races). Outside a fiber run they behave like StdSync's.
struct FiberSync {
  template <class T>
  using atomic = duet::atomic<T>;
  template <class T>
  using var = duet::var<T>;
  using mutex = duet::mutex;
  using condition_variable = duet::condition_variable;
  static void yield(std::source_location loc = std::source_location::current()) noexcept { duet::yield(loc); }
};

/// What a synchronisation traits struct provides (see the top of this header).
template <class S>
concept SyncTraits = requires(typename S::template var<int>& v, const typename S::template var<int>& cv) {
  typename S::template atomic<int>;
  typename S::template atomic<bool>;
  typename S::mutex;
  typename S::condition_variable;
  { cv.get() } -> std::convertible_to<int>;
  v.set(1);
  S::yield();
};

static_assert(SyncTraits<StdSync>);
static_assert(SyncTraits<FiberSync>);

}  // namespace duet::models
