// Instrumented synchronisation: std-compatible atomics, mutexes and condition variables that the
// fiber scheduler controls, plus duet::var<T>, a plain variable checked for data races.
//
// Inside a fiber run every operation is a switch point (the scheduler may run another fiber
// before it), is recorded in the run's trace with its duet::source_location, and takes part in
// happens-before tracking. Outside a run (on real threads, or in any code not run by the
// scheduler) each type behaves exactly like its std counterpart, after one check of a
// thread-local pointer; so the same binary runs both the fiber and the threads modes.
//
// Memory orders, in fiber runs, follow the C++ memory model by default (FiberOptions::memory_model,
// docs/memory-model.md): a load may read an older store where coherence and happens-before allow,
// and only release/acquire pairs synchronise, so a relaxed publication is found. With
// MemoryModel::sc every operation is executed as seq_cst. Outside a run the order given is used.
//
// A run that ends in a deadlock, livelock, data race or misuse abandons its fibers where they
// stand: their destructors do not run (see Scheduler::run).
//
// Every operation takes `duet::source_location loc = duet::source_location::current()` last.
// Operators cannot take one: `a = v`, `a += v` (and the other compound assignments) still record
// the caller's line; `++a`, `a++`, `--a`, `a--` and `T t = a` record no location. Prefer the
// named functions where a trace should point at the line.
//
// One class, std types in production and duet types in tests:
//
//   template <template <class> class Atomic = std::atomic, class Mutex = std::mutex>
//   class Account {
//    public:
//     void deposit(int n) { std::lock_guard g(m_); balance_.store(balance_.load() + n); }
//     int balance() const { return balance_.load(); }
//    private:
//     Atomic<int> balance_{0};
//     mutable Mutex m_;
//   };
//   Account<> production;                        // std::atomic, std::mutex: no duet cost
//   Account<duet::atomic, duet::mutex> tested;   // scheduled, traced, checked on fibers
//
// (A traits struct, `template <class Sync = StdSync>` with `typename Sync::template atomic<int>`,
// does the same when a class needs many types.) duet::yield() is std::this_thread::yield()
// outside a run, so spin loops can call it in production code too.
#pragma once

#include <atomic>
#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <shared_mutex>
#include "duet/detail/source_location.hpp"
#include <system_error>
#include <thread>
#include <type_traits>
#include <utility>

#include "duet/detail/atomic_support.hpp"
#include "duet/detail/controlled_mutex.hpp"
#include "duet/detail/fiber_hooks.hpp"

namespace duet {

/// std::atomic<T> under the scheduler's control.
///
///   duet::atomic<int> hits{0};
///   hits.fetch_add(1);                          // a switch point, traced with this line
///   int seen = hits.load(std::memory_order_acquire);   // may read an older store in fiber runs
template <class T>
class atomic : public detail::atomic_types<T> {
  static_assert(std::is_trivially_copyable_v<T>, "duet::atomic<T> needs a trivially copyable T, as std::atomic does");
  using diff = typename detail::atomic_difference<T>::type;
  using Op = detail::fiber::Op;
  static constexpr auto kKind = detail::fiber::ObjectKind::atomic;
  static constexpr auto sc = std::memory_order_seq_cst;
  using loc_t = duet::source_location;

 public:
  static constexpr bool is_always_lock_free = std::atomic<T>::is_always_lock_free;

  /// Value-initialises (as std::atomic does since C++20).
  constexpr atomic(loc_t loc = loc_t::current()) noexcept(std::is_nothrow_default_constructible_v<T>) : a_() {
    if (!std::is_constant_evaluated()) detail::register_object(kKind, this, loc);
  }
  constexpr atomic(T desired, loc_t loc = loc_t::current()) noexcept : a_(desired) {
    if (!std::is_constant_evaluated()) detail::register_object(kKind, this, loc);
  }
  atomic(const atomic&) = delete;
  // Deleted on volatile only: a non-volatile copy assignment would make `a = 1` ambiguous
  // (1 converts to atomic as well as to Located<T>); this one still stops atomic-to-atomic
  // assignment, and loses to operator=(Located<T>) otherwise.
  atomic& operator=(const atomic&) volatile = delete;

  bool is_lock_free() const noexcept { return a_.is_lock_free(); }

  T load(std::memory_order order = sc, loc_t loc = loc_t::current()) const noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::enter(*rt, Op::load, kKind, this, order, loc);
      const T v = a_.load();
      // Under the C++ memory model the load may read an older store than memory holds.
      const detail::fiber::Value latest = detail::fiber::value_of(v);
      const detail::fiber::Value read = detail::fiber::load(*rt, latest);
      if constexpr (sizeof(T) <= sizeof(std::uint64_t))
        if (read != latest) return detail::fiber::value_to<T>(read);
      return v;
    }
    return a_.load(order);
  }
  void store(T desired, std::memory_order order = sc, loc_t loc = loc_t::current()) noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::enter(*rt, Op::store, kKind, this, order, loc);
      const T before = a_.load();
      a_.store(desired);
      detail::fiber::leave(*rt, Op::store, detail::fiber::value_of(before), detail::fiber::value_of(desired));
      return;
    }
    a_.store(desired, order);
  }
  T exchange(T desired, std::memory_order order = sc, loc_t loc = loc_t::current()) noexcept {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.exchange(desired); }, order, loc);
    return a_.exchange(desired, order);
  }

  /// Weak and strong are the same in fiber runs: a weak CAS never fails spuriously there.
  bool compare_exchange_strong(T& expected, T desired, std::memory_order success, std::memory_order failure,
                               loc_t loc = loc_t::current()) noexcept {
    if (detail::fiber::current()) [[unlikely]]
      return cas(expected, desired, detail::fiber::cas_order(success, failure), loc);
    return a_.compare_exchange_strong(expected, desired, success, failure);
  }
  bool compare_exchange_strong(T& expected, T desired, std::memory_order order = sc, loc_t loc = loc_t::current()) noexcept {
    if (detail::fiber::current()) [[unlikely]]
      return cas(expected, desired, order, loc);
    return a_.compare_exchange_strong(expected, desired, order);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order success, std::memory_order failure,
                             loc_t loc = loc_t::current()) noexcept {
    if (detail::fiber::current()) [[unlikely]]
      return cas(expected, desired, detail::fiber::cas_order(success, failure), loc);
    return a_.compare_exchange_weak(expected, desired, success, failure);
  }
  bool compare_exchange_weak(T& expected, T desired, std::memory_order order = sc, loc_t loc = loc_t::current()) noexcept {
    if (detail::fiber::current()) [[unlikely]]
      return cas(expected, desired, order, loc);
    return a_.compare_exchange_weak(expected, desired, order);
  }

  T fetch_add(diff arg, std::memory_order order = sc,
              loc_t loc = loc_t::current()) noexcept requires detail::atomic_arithmetic<T> {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.fetch_add(arg); }, order, loc);
    return a_.fetch_add(arg, order);
  }
  T fetch_sub(diff arg, std::memory_order order = sc,
              loc_t loc = loc_t::current()) noexcept requires detail::atomic_arithmetic<T> {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.fetch_sub(arg); }, order, loc);
    return a_.fetch_sub(arg, order);
  }
  T fetch_and(T arg, std::memory_order order = sc,
              loc_t loc = loc_t::current()) noexcept requires detail::atomic_integral<T> {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.fetch_and(arg); }, order, loc);
    return a_.fetch_and(arg, order);
  }
  T fetch_or(T arg, std::memory_order order = sc,
             loc_t loc = loc_t::current()) noexcept requires detail::atomic_integral<T> {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.fetch_or(arg); }, order, loc);
    return a_.fetch_or(arg, order);
  }
  T fetch_xor(T arg, std::memory_order order = sc,
              loc_t loc = loc_t::current()) noexcept requires detail::atomic_integral<T> {
    if (detail::fiber::current()) [[unlikely]]
      return rmw([&](std::atomic<T>& a) { return a.fetch_xor(arg); }, order, loc);
    return a_.fetch_xor(arg, order);
  }

  /// Blocks until the value differs from `old` (compared bitwise) and a notify came. In a fiber
  /// run, a wait nobody ends is part of a deadlock report.
  void wait(T old, std::memory_order order = sc, loc_t loc = loc_t::current()) const noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::enter(*rt, Op::wait, kKind, this, order, loc);
      for (;;) {
        const T v = a_.load();
        if (std::memcmp(&v, &old, sizeof(T)) != 0) {
          detail::fiber::leave(*rt, Op::wait, detail::fiber::value_of(v));
          return;
        }
        detail::fiber::block(*rt);
      }
    }
    a_.wait(old, order);
  }
  void notify_one(loc_t loc = loc_t::current()) noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return detail::fiber::notify(*rt, kKind, this, false, loc);
    a_.notify_one();
  }
  void notify_all(loc_t loc = loc_t::current()) noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return detail::fiber::notify(*rt, kKind, this, true, loc);
    a_.notify_all();
  }

  // Operators, as std::atomic's (seq_cst).
  operator T() const noexcept { return load(sc, loc_t{}); }
  T operator=(detail::Located<T> v) noexcept {
    store(v.value, sc, v.loc);
    return v.value;
  }
  T operator++() noexcept requires(detail::atomic_integral<T> || detail::atomic_pointer<T>) {
    return detail::atomic_add(fetch_add(1, sc, loc_t{}), 1);
  }
  T operator++(int) noexcept requires(detail::atomic_integral<T> || detail::atomic_pointer<T>) {
    return fetch_add(1, sc, loc_t{});
  }
  T operator--() noexcept requires(detail::atomic_integral<T> || detail::atomic_pointer<T>) {
    return detail::atomic_sub(fetch_sub(1, sc, loc_t{}), 1);
  }
  T operator--(int) noexcept requires(detail::atomic_integral<T> || detail::atomic_pointer<T>) {
    return fetch_sub(1, sc, loc_t{});
  }
  T operator+=(detail::Located<diff> v) noexcept requires detail::atomic_arithmetic<T> {
    return detail::atomic_add(fetch_add(v.value, sc, v.loc), v.value);
  }
  T operator-=(detail::Located<diff> v) noexcept requires detail::atomic_arithmetic<T> {
    return detail::atomic_sub(fetch_sub(v.value, sc, v.loc), v.value);
  }
  T operator&=(detail::Located<T> v) noexcept requires detail::atomic_integral<T> {
    return static_cast<T>(fetch_and(v.value, sc, v.loc) & v.value);
  }
  T operator|=(detail::Located<T> v) noexcept requires detail::atomic_integral<T> {
    return static_cast<T>(fetch_or(v.value, sc, v.loc) | v.value);
  }
  T operator^=(detail::Located<T> v) noexcept requires detail::atomic_integral<T> {
    return static_cast<T>(fetch_xor(v.value, sc, v.loc) ^ v.value);
  }

 private:
  template <class F>
  T rmw(F f, std::memory_order order, loc_t loc) noexcept {
    auto& rt = *detail::fiber::current();
    detail::fiber::enter(rt, Op::rmw, kKind, this, order, loc);
    const T old = f(a_);
    const T now = a_.load();
    detail::fiber::leave(rt, Op::rmw, detail::fiber::value_of(old), detail::fiber::value_of(now));
    return old;
  }
  bool cas(T& expected, T desired, std::memory_order order, loc_t loc) noexcept {
    auto& rt = *detail::fiber::current();
    detail::fiber::enter(rt, Op::cas, kKind, this, order, loc);
    const T hoped = expected;
    if (a_.compare_exchange_strong(expected, desired)) {
      detail::fiber::leave(rt, Op::cas, detail::fiber::value_of(hoped), detail::fiber::value_of(desired));
      return true;
    }
    detail::fiber::leave(rt, Op::cas_fail, detail::fiber::value_of(expected));
    return false;
  }

  mutable std::atomic<T> a_;
};

/// std::atomic_thread_fence under the scheduler's control: under the C++ memory model
/// (FiberOptions::memory_model, the default) an acquire fence makes what earlier relaxed loads
/// read synchronise, a release fence makes later relaxed stores release, and seq_cst fences
/// order with each other (a switch point and a trace line); with MemoryModel::sc it does
/// nothing in a run, where every operation is seq_cst already.
///
///   data.store(42, std::memory_order_relaxed);
///   duet::atomic_thread_fence(std::memory_order_release);
///   ready.store(true, std::memory_order_relaxed);
inline void atomic_thread_fence(std::memory_order order,
                                duet::source_location loc = duet::source_location::current()) noexcept {
  if (auto* rt = detail::fiber::current()) [[unlikely]]
    return detail::fiber::fence(*rt, order, loc);
  std::atomic_thread_fence(order);
}

/// A plain, non-atomic variable whose accesses fiber runs check for data races: two accesses
/// from different fibers, at least one a write, not ordered by happens-before (through duet's
/// mutexes, atomics, condition variables, and the start and end of a run) end the run with a
/// data-race report naming both accesses' locations. Outside a run, a plain T.
///
///   duet::var<int> balance{0};
///   { std::lock_guard g(m); balance = balance.get() + 1; }   // fine with the lock, a race without
template <class T>
class var {
  using loc_t = duet::source_location;
  using Op = detail::fiber::Op;
  static constexpr auto kKind = detail::fiber::ObjectKind::var;

 public:
  var(loc_t loc = loc_t::current()) requires std::default_initializable<T> : v_() {
    detail::register_object(kKind, this, loc);
  }
  var(T v, loc_t loc = loc_t::current()) : v_(std::move(v)) { detail::register_object(kKind, this, loc); }
  /// The end of its lifetime counts as a write (a fiber still reading it races with this); a
  /// destructor has no caller location, so a report shows it without file:line.
  ~var() {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      detail::fiber::destroyed(*rt, kKind, this, loc_t{});
  }
  var(const var&) = delete;
  var& operator=(const var&) volatile = delete;  // volatile: see duet::atomic's

  T get(loc_t loc = loc_t::current()) const {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::enter(*rt, Op::read, kKind, this, std::memory_order_seq_cst, loc);
      T v = v_;
      detail::fiber::leave(*rt, Op::read, detail::fiber::value_of(v));
      return v;
    }
    return v_;
  }
  void set(T v, loc_t loc = loc_t::current()) {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::enter(*rt, Op::write, kKind, this, std::memory_order_seq_cst, loc);
      v_ = std::move(v);
      detail::fiber::leave(*rt, Op::write, {}, detail::fiber::value_of(v_));
      return;
    }
    v_ = std::move(v);
  }
  var& operator=(detail::Located<T> v) {
    set(std::move(v.value), v.loc);
    return *this;
  }

 private:
  T v_;
};

/// std::mutex under the scheduler's control. std::lock_guard, std::unique_lock and
/// std::scoped_lock of a duet::mutex record the line that constructed them.
///
///   duet::mutex m;
///   { std::lock_guard g(m); ++count; }  // lock and unlock are switch points
class mutex : public detail::controlled_mutex<std::mutex, detail::fiber::ObjectKind::mutex> {
 public:
  constexpr mutex(duet::source_location loc = duet::source_location::current()) noexcept : controlled_mutex(loc) {}
  /// The std::mutex used outside fiber runs.
  std::mutex& native() noexcept { return native_; }
};

/// std::recursive_mutex under the scheduler's control.
///
///   duet::recursive_mutex m;
///   m.lock(); m.lock(); m.unlock(); m.unlock();
class recursive_mutex : public detail::controlled_mutex<std::recursive_mutex, detail::fiber::ObjectKind::recursive_mutex> {
 public:
  recursive_mutex(duet::source_location loc = duet::source_location::current()) noexcept : controlled_mutex(loc) {}
};

/// std::shared_mutex under the scheduler's control (readers are not preferred over writers or
/// the reverse: who gets it is a scheduling choice).
///
///   duet::shared_mutex m;
///   { std::shared_lock r(m); seen = value; }   // many readers
///   { std::lock_guard w(m); value = 42; }      // one writer
class shared_mutex : public detail::controlled_mutex<std::shared_mutex, detail::fiber::ObjectKind::shared_mutex> {
 public:
  shared_mutex(duet::source_location loc = duet::source_location::current()) : controlled_mutex(loc) {}
};

/// The calling fiber lets the others run first (in a fiber run, it is not picked again at this
/// switch point while another fiber can run); std::this_thread::yield() outside a run. Spin
/// loops should call it, so that a correct spin lock is not reported as a livelock:
///
///   while (locked.exchange(true)) duet::yield();
inline void yield(duet::source_location loc = duet::source_location::current()) noexcept {
  if (auto* rt = detail::fiber::current()) [[unlikely]]
    return detail::fiber::yield(*rt, loc);
  std::this_thread::yield();
}

}  // namespace duet

// std's lock types for the mutexes above, which they name.
#include "duet/detail/lock_types.hpp"

namespace duet {

/// std::condition_variable under the scheduler's control, waiting with a
/// std::unique_lock<duet::mutex>. In fiber runs a wait may wake spuriously (the picker decides,
/// from the choice stream), so predicates must be re-checked as with std; a timed wait times out
/// only when no fiber can proceed and its deadline comes first on the virtual clock
/// (duet::virtual_clock: time stands still while any fiber can proceed), and a wait nobody ends is
/// part of a deadlock report.
///
///   duet::mutex m;
///   duet::condition_variable cv;
///   std::unique_lock lk(m);
///   cv.wait(lk, [&] { return ready.get(); });
class condition_variable {
  using loc_t = duet::source_location;
  using lock_t = std::unique_lock<duet::mutex>;
  static constexpr auto kKind = detail::fiber::ObjectKind::condition_variable;

 public:
  condition_variable(loc_t loc = loc_t::current()) { detail::register_object(kKind, this, loc); }
  condition_variable(const condition_variable&) = delete;
  condition_variable& operator=(const condition_variable&) = delete;

  void notify_one(loc_t loc = loc_t::current()) noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return detail::fiber::notify(*rt, kKind, this, false, loc);
    native_.notify_one();
  }
  void notify_all(loc_t loc = loc_t::current()) noexcept {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return detail::fiber::notify(*rt, kKind, this, true, loc);
    native_.notify_all();
  }

  void wait(lock_t& lk, loc_t loc = loc_t::current()) {
    if (auto* rt = detail::fiber::current()) [[unlikely]] {
      detail::fiber::cv_wait(*rt, this, lk.mutex(), detail::fiber::kNoTimeout, loc);
      return;
    }
    Native native(lk);
    native_.wait(native.lock);
  }
  template <class Predicate>
  void wait(lock_t& lk, Predicate pred, loc_t loc = loc_t::current()) {
    while (!pred()) wait(lk, loc);
  }

  template <class Clock, class Duration>
  std::cv_status wait_until(lock_t& lk, const std::chrono::time_point<Clock, Duration>& t, loc_t loc = loc_t::current()) {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return timed_wait(*rt, lk, t - Clock::now(), loc);
    Native native(lk);
    return native_.wait_until(native.lock, t);
  }
  template <class Clock, class Duration, class Predicate>
  bool wait_until(lock_t& lk, const std::chrono::time_point<Clock, Duration>& t, Predicate pred,
                  loc_t loc = loc_t::current()) {
    while (!pred())
      if (wait_until(lk, t, loc) == std::cv_status::timeout) return pred();
    return true;
  }
  template <class Rep, class Period>
  std::cv_status wait_for(lock_t& lk, const std::chrono::duration<Rep, Period>& d, loc_t loc = loc_t::current()) {
    if (auto* rt = detail::fiber::current()) [[unlikely]]
      return timed_wait(*rt, lk, d, loc);
    Native native(lk);
    return native_.wait_for(native.lock, d);
  }
  template <class Rep, class Period, class Predicate>
  bool wait_for(lock_t& lk, const std::chrono::duration<Rep, Period>& d, Predicate pred, loc_t loc = loc_t::current()) {
    if (detail::fiber::current()) [[unlikely]] {
      while (!pred())
        if (wait_for(lk, d, loc) == std::cv_status::timeout) return pred();
      return true;
    }
    Native native(lk);
    return native_.wait_for(native.lock, d, std::move(pred));
  }

 private:
  // Outside fiber runs: the std::condition_variable waits on the duet::mutex's own std::mutex,
  // which `lk` already holds (adopted, and handed back when the wait returns).
  struct Native {
    explicit Native(lock_t& lk) : lock(lk.mutex()->native(), std::adopt_lock) {}
    ~Native() { lock.release(); }
    std::unique_lock<std::mutex> lock;
  };
  template <class Rep, class Period>
  std::cv_status timed_wait(detail::fiber::Runtime& rt, lock_t& lk, std::chrono::duration<Rep, Period> d, loc_t loc) {
    return detail::fiber::cv_wait(rt, this, lk.mutex(), detail::fiber::timeout_ns(d), loc) ==
                   detail::fiber::WakeReason::timeout
               ? std::cv_status::timeout
               : std::cv_status::no_timeout;
  }

  std::condition_variable native_;
};

}  // namespace duet
