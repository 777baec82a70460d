// The seam between duet's instrumented types (duet/sync.hpp) and the fiber scheduler
// (src/execute/fibers/). Declarations only: no Boost here, so every user of duet/sync.hpp
// compiles without it.
//
// Every instrumented operation reads current() once. Null (any real thread, or the scheduler's
// own thread between runs) means "behave exactly like the std type". Otherwise the calling code
// is a fiber of a run, and the operation goes through these hooks:
//
//   enter()   a switch point BEFORE the operation: the operation becomes the fiber's pending
//             event, and the scheduler may run other fibers first;
//   (the operation itself, on the one OS thread every fiber of the run shares: nothing else
//    runs until the fiber reaches its next switch point)
//   leave()   records the executed event: trace, happens-before clocks, spin detection,
//             data-race check.
//
// Blocking operations (mutexes, condition variables, atomic wait) are whole hooks, since the
// scheduler keeps their state (owner, waiters) per run.
#pragma once

#include <atomic>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include "duet/detail/source_location.hpp"
#include <string_view>
#include <type_traits>

namespace duet::detail::fiber {

/// The running scheduler's engine. Opaque here; defined in src/execute/fibers/runtime.hpp.
class Runtime;

/// The runtime whose fiber is running on this thread; null outside a fiber run. constinit: the
/// compiler reads it directly, without a TLS wrapper call.
extern constinit thread_local Runtime* t_runtime;
inline Runtime* current() noexcept { return t_runtime; }

/// Virtual time in nanoseconds (duet::virtual_clock): it advances only when every fiber of a run
/// is blocked and one of them waits with a timeout, straight to the earliest deadline. It
/// persists between runs on a thread; a check's case starts it at 0, and so does every fiber
/// trial of a check and every duet::run_fibers (src/execute/fibers/determinism.hpp).
extern constinit thread_local std::uint64_t t_virtual_ns;
/// "No timeout" for the timed hooks below.
inline constexpr std::uint64_t kNoTimeout = ~std::uint64_t{0};
/// A duration as a timeout in nanoseconds: negative ones are 0, huge ones stay below kNoTimeout.
template <class Rep, class Period>
std::uint64_t timeout_ns(std::chrono::duration<Rep, Period> d) noexcept {
  using namespace std::chrono;
  if (d <= d.zero()) return 0;
  constexpr auto most = duration<double, std::nano>(static_cast<double>(kNoTimeout) / 2);
  if (duration<double, std::nano>(d) >= most) return kNoTimeout / 2;
  return static_cast<std::uint64_t>(duration_cast<nanoseconds>(d).count());
}

/// What an event does. A pending event (what a fiber is about to do) uses the "attempt" kinds
/// (cas, try_lock, wait); the trace records what happened (cas or cas_fail, and so on).
enum class Op : std::uint8_t {
  start,           // trace: the fiber begins its function
  exit,            // trace: the function returned
  exit_exception,  // trace: the function ended by an exception (captured, see FiberResult)
  load,
  store,
  rmw,       // exchange, fetch_*: read and write in one step
  cas,       // compare-exchange (pending), or one that succeeded (trace)
  cas_fail,  // compare-exchange that failed: a read
  read,      // duet::var
  write,
  destroy,  // duet::var's lifetime ends: conflicts like a write
  lock,
  try_lock,
  try_lock_fail,
  unlock,
  lock_shared,
  try_lock_shared,
  try_lock_shared_fail,
  unlock_shared,
  wait,   // condition variable wait (releases the mutex) or atomic wait
  block,  // trace: the fiber cannot proceed and waits to be woken
  wake,   // trace: a blocked fiber resumes; the value says why (WakeReason)
  notify_one,
  notify_all,
  yield,
  spawn,    // a new fiber (duet::spawn); the value is its number
  await,    // a future's value is awaited (pending), or was received (trace)
  fulfill,  // a promise sets its future's value or exception
  send,     // a channel
  receive,
  close,
  sleep,  // the value is the duration (virtual time)
  crash,  // trace: duet::fault_point crashed the subject here; the run ends
  pause,  // a plain switch point (duet::switch_point, awaiting a duet awaitable, a device call)
  fence,  // atomic_thread_fence (the C++ memory model only; a no-op event otherwise)
};
const char* op_name(Op op) noexcept;

enum class ObjectKind : std::uint8_t {
  none,
  atomic,
  var,
  mutex,
  recursive_mutex,
  shared_mutex,
  condition_variable,
  future,
  channel,
  task,       // duet/async.hpp
  library,    // calls into code that was not instrumented (src/execute/instrumented/uninstrumented.cpp)
  descriptor  // the kernel's descriptors: pipes, sockets, eventfd (src/execute/instrumented/descriptors.cpp)
};
const char* kind_name(ObjectKind kind) noexcept;

enum class WakeReason : std::uint8_t { notified, spurious, timeout };

/// A value read or written, kept as bits with enough type to print it. Types that do not fit
/// in 64 bits, or are not trivially copyable, are recorded as `none` (and spin detection, which
/// compares values, does not apply to them).
enum class ValueType : std::uint8_t {
  none,
  boolean,
  signed_integer,
  unsigned_integer,
  floating,
  pointer,
  bits,
  wake,
  duration,
  fiber
};
struct Value {
  std::uint64_t bits = 0;
  ValueType type = ValueType::none;
  friend bool operator==(const Value&, const Value&) = default;
};

template <class T>
Value value_of(const T& v) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return {v ? 1u : 0u, ValueType::boolean};
  } else if constexpr (std::is_enum_v<T>) {
    return value_of(static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    return {static_cast<std::uint64_t>(static_cast<std::int64_t>(v)), ValueType::signed_integer};
  } else if constexpr (std::is_integral_v<T>) {
    return {static_cast<std::uint64_t>(v), ValueType::unsigned_integer};
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return {std::bit_cast<std::uint64_t>(static_cast<double>(v)), ValueType::floating};
  } else if constexpr (std::is_pointer_v<T> || std::is_null_pointer_v<T>) {
    return {static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(v)), ValueType::pointer};
  } else if constexpr (std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t)) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof(T));
    return {bits, ValueType::bits};
  } else {
    return {};
  }
}

/// The inverse of value_of for the types it records (the memory model hands a load an older
/// store's Value). Types recorded as `none` never come back here: their loads read memory.
template <class T>
T value_to(const Value& v) noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return v.bits != 0;
  } else if constexpr (std::is_enum_v<T>) {
    return static_cast<T>(value_to<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    return static_cast<T>(v.bits);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(std::bit_cast<double>(v.bits));
  } else if constexpr (std::is_pointer_v<T>) {
    return reinterpret_cast<T>(static_cast<std::uintptr_t>(v.bits));
  } else if constexpr (std::is_null_pointer_v<T>) {
    return nullptr;
  } else {
    static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(std::uint64_t));
    struct Bytes {
      unsigned char b[sizeof(T)];
    } bytes;
    std::memcpy(bytes.b, &v.bits, sizeof(T));
    return std::bit_cast<T>(bytes);
  }
}

/// The one order a compare-exchange is modelled with: the success order, strengthened by the
/// failure order's acquire (and seq_cst). A failed compare-exchange then synchronises at least as
/// its failure order says (never a false alarm); a successful one may synchronise more than
/// asked when the failure order is the stronger (it can hide a bug there, not invent one).
constexpr std::memory_order cas_order(std::memory_order success, std::memory_order failure) noexcept {
  if (failure == std::memory_order_seq_cst) return std::memory_order_seq_cst;
  const bool acquire = failure == std::memory_order_acquire || failure == std::memory_order_consume;
  if (!acquire) return success;
  if (success == std::memory_order_relaxed || success == std::memory_order_consume) return std::memory_order_acquire;
  if (success == std::memory_order_release) return std::memory_order_acq_rel;
  return success;
}

// ---- hooks: call only with current() != nullptr, from the fiber that current() runs ----

/// Switch point: `op` on `object` is what the fiber does next. Returns when the fiber is picked
/// to run it. A memory order other than seq_cst is remembered (the run executes it as seq_cst).
void enter(Runtime&, Op op, ObjectKind kind, const void* object, std::memory_order order,
           duet::source_location loc) noexcept;
/// The pending operation was executed as `op` (cas or cas_fail, say), reading and/or writing
/// the values given. A store passes as `read` the value it overwrote (the memory model checks
/// its history against it); the trace shows only what was written.
void leave(Runtime&, Op op, Value read = {}, Value written = {}) noexcept;
/// The pending load reads: `latest` is the value in memory. Returns the value the load reads,
/// recorded as executed (leave() is not called for it). Without the C++ memory model, or for
/// values that do not fit in a Value, that is `latest`; with it, possibly an older store's.
Value load(Runtime&, Value latest) noexcept;
/// atomic_thread_fence(order): a switch point and an event under the C++ memory model, nothing
/// otherwise.
void fence(Runtime&, std::memory_order order, duet::source_location loc) noexcept;
/// The check's own seq_cst fence around each call's invoke and response time (as the fenced
/// clock on threads): under the C++ memory model a seq_cst fence, neither an event nor a switch
/// point. Under any model, noted with the fiber's step: `invokes` and `responds` say which side
/// of a call it is (both when not known), which the exhaustive search orders across fibers.
void harness_fence(Runtime&, bool invokes, bool responds) noexcept;
/// The check's clock read `time` on the running fiber (a call's invoke or response): noted with
/// the steps so far, so that a report can place the call on the interleaving.
void clock_read(Runtime&, std::uint64_t time) noexcept;
/// Blocks the fiber on its pending event's object until a notify on it wakes it (atomic wait).
void block(Runtime&) noexcept;
/// Wakes one or all fibers blocked on `object` (a condition variable or an atomic).
void notify(Runtime&, ObjectKind kind, const void* object, bool all, duet::source_location loc) noexcept;
/// duet::yield(): a switch point where the fiber lets others run first.
void yield(Runtime&, duet::source_location loc) noexcept;
/// duet::switch_point(): a switch point where the fiber may go on or another may run.
void pause(Runtime&, duet::source_location loc) noexcept;

void lock(Runtime&, ObjectKind kind, const void* mutex, bool shared, duet::source_location loc) noexcept;
bool try_lock(Runtime&, ObjectKind kind, const void* mutex, bool shared, duet::source_location loc) noexcept;
void unlock(Runtime&, ObjectKind kind, const void* mutex, bool shared, duet::source_location loc) noexcept;

/// Releases `mutex` (which the fiber must hold), waits on `cv`, reacquires `mutex`. A wait with a
/// timeout (virtual nanoseconds, kNoTimeout for none) times out when no fiber of the run can
/// proceed and its deadline is the earliest (virtual time advances only when all are idle).
WakeReason cv_wait(Runtime&, const void* cv, const void* mutex, std::uint64_t timeout_ns,
                   duet::source_location loc) noexcept;

/// An instrumented object constructed during a run gets a fresh identity (its address may be a
/// dead object's). For a duet::var the construction counts as a write.
void created(Runtime&, ObjectKind kind, const void* object, duet::source_location loc) noexcept;
/// A duet::var's lifetime ends: checked for races like a write.
void destroyed(Runtime&, ObjectKind kind, const void* object, duet::source_location loc) noexcept;

// ---- duet/async.hpp ----

/// Blocks the fiber on its pending event's object (entered before) until a wake_all on it, or
/// until `timeout_ns` of virtual time pass (kNoTimeout: no timeout). Records the wake.
WakeReason block_for(Runtime&, std::uint64_t timeout_ns) noexcept;
/// Makes every fiber blocked on `object` runnable (they re-check what they wait for). Not an
/// event of its own: the operation that changed the object is.
void wake_all(Runtime&, const void* object) noexcept;
/// Starts `body` as a new fiber of the run, which happens-after everything the caller did so
/// far; returns its number. A switch point before. Past the run's fiber limit (kMaxFibers alive
/// at once, DUET_MAX_FIBERS), the run ends at duet's limit (Outcome::limit), not as a failure.
std::uint32_t spawn(Runtime&, std::function<void()> body, duet::source_location loc) noexcept;
/// Sleeps `ns` of virtual time: a switch point, then a wait that only the clock ends.
void sleep(Runtime&, std::uint64_t ns, duet::source_location loc) noexcept;
/// Ends the run here as a crash of the subject (duet::fault_point): every fiber stops where it
/// is, none is unwound. `what` says where ("disk.write, sector 3").
[[noreturn]] void crash(Runtime&, std::string_view what, duet::source_location loc) noexcept;

}  // namespace duet::detail::fiber
