// What duet's coroutines, futures and blocking operations build on (duet/async.hpp): the frames'
// allocation, a run's root, the outcome of a coroutine or a future, the promise types, driving a
// task to its end from a fiber, and waiting until something is ready on virtual time.
#pragma once

#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <stdexcept>
#include <utility>
#include <variant>

#include "duet/detail/fiber_hooks.hpp"
#include "duet/detail/source_location.hpp"

namespace duet {

struct AsyncOptions;
template <class T>
class task;

namespace detail::async {

using loc_t = duet::source_location;

/// Coroutine frames are allocated here, so that frames a crashed or failed run abandons can be
/// told to LeakSanitizer (they are never destroyed: their fibers never resume).
void* frame_alloc(std::size_t size);
void frame_free(void* p, std::size_t size) noexcept;

/// The running fiber's runtime, or an error naming `what` outside any run.
fiber::Runtime& runtime_for(const char* what);

/// Runs `root` as the only fiber of a new scheduler run (from the case's choice stream inside a
/// check, else from options.seed). Returns null when every fiber finished; otherwise the
/// exception duet::run throws (duet::starved, duet::async_failure, duet::crash, or the
/// stream's own), and the fibers were abandoned mid-call.
std::exception_ptr run_root(std::function<void()>& root, const AsyncOptions& options, loc_t loc);

/// Results of a coroutine, a spawned body or a future.
template <class T>
struct Outcome {
  std::variant<std::monostate, T, std::exception_ptr> v;
  bool ready() const { return v.index() != 0; }
  template <class U>
  void set(U&& u) {
    v.template emplace<1>(std::forward<U>(u));
  }
  void fail(std::exception_ptr e) { v.template emplace<2>(std::move(e)); }
  T take() {
    if (v.index() == 2) std::rethrow_exception(std::get<2>(v));
    return std::move(std::get<1>(v));
  }
};
template <>
struct Outcome<void> {
  std::variant<std::monostate, std::monostate, std::exception_ptr> v;
  bool ready() const { return v.index() != 0; }
  void set() { v.emplace<1>(); }
  void fail(std::exception_ptr e) { v.emplace<2>(std::move(e)); }
  void take() {
    if (v.index() == 2) std::rethrow_exception(std::get<2>(v));
  }
};

/// Who waits for a coroutine that was not awaited by another: a fiber driving it (drive()).
struct Driver {
  bool done = false;
};

struct PromiseBase {
  std::coroutine_handle<> continuation;  // the awaiting coroutine, when awaited by one
  Driver* driver = nullptr;              // else the fiber driving it

  static void* operator new(std::size_t size) { return frame_alloc(size); }
  static void operator delete(void* p, std::size_t size) noexcept { frame_free(p, size); }

  std::suspend_always initial_suspend() noexcept { return {}; }  // lazy: starts when awaited
  struct Final {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.continuation) return p.continuation;  // symmetric transfer: no stack growth
      if (p.driver) {
        p.driver->done = true;
        // Finished on another fiber than its driver's (resumed by foreign code): wake it.
        if (auto* rt = fiber::current()) fiber::wake_all(*rt, p.driver);
      }
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
};

template <class T>
struct Promise : PromiseBase {
  Outcome<T> outcome;
  task<T> get_return_object() noexcept;
  // Emplacing an exception_ptr (or, below, a monostate) cannot throw; clang-tidy follows a
  // rethrow path inside std::variant::emplace that these alternatives never take.
  void unhandled_exception() noexcept { outcome.fail(std::current_exception()); }  // NOLINT(bugprone-exception-escape)
  template <class U = T>
  void return_value(U&& u) {
    outcome.set(std::forward<U>(u));
  }
};
template <>
struct Promise<void> : PromiseBase {
  Outcome<void> outcome;
  task<void> get_return_object() noexcept;
  void unhandled_exception() noexcept { outcome.fail(std::current_exception()); }  // NOLINT(bugprone-exception-escape)
  void return_void() noexcept { outcome.set(); }                                   // NOLINT(bugprone-exception-escape)
};

/// Runs a task to completion on the calling fiber: it starts inline; if it suspends on a
/// foreign awaitable, the fiber blocks until whoever resumes it lets it finish.
template <class T>
T drive(std::coroutine_handle<Promise<T>> h, loc_t loc) {
  Driver d;
  h.promise().driver = &d;
  h.resume();
  while (!d.done) {
    fiber::Runtime* rt = fiber::current();
    if (!rt) throw std::logic_error("duet: a task suspended on an awaitable outside duet::run, where nothing can resume it");
    fiber::enter(*rt, fiber::Op::await, fiber::ObjectKind::task, &d, std::memory_order_seq_cst, loc);
    if (!d.done) fiber::block_for(*rt, fiber::kNoTimeout);
    fiber::leave(*rt, fiber::Op::await);
  }
  return h.promise().outcome.take();
}

template <class T>
struct SharedState {
  Outcome<T> outcome;
  bool retrieved = false;
  loc_t created_at;
  explicit SharedState(loc_t loc) : created_at(loc) {
    if (auto* rt = fiber::current()) fiber::created(*rt, fiber::ObjectKind::future, this, loc);
  }
};

/// What a blocking operation waits on as its pending event, then blocks until `ready()` or the
/// timeout. Returns false on timeout.
template <class Ready>
bool wait_until_ready(fiber::Runtime& rt, Ready ready, std::uint64_t timeout_ns) {
  const std::uint64_t deadline = timeout_ns == fiber::kNoTimeout ? fiber::kNoTimeout : fiber::t_virtual_ns + timeout_ns;
  while (!ready()) {
    const std::uint64_t left = deadline == fiber::kNoTimeout
                                   ? fiber::kNoTimeout
                                   : (deadline > fiber::t_virtual_ns ? deadline - fiber::t_virtual_ns : 0);
    if (fiber::block_for(rt, left) == fiber::WakeReason::timeout && !ready()) return false;
  }
  return true;
}

/// An awaitable whose work is already done: duet's operations act when called (a switch point
/// there), so `co_await ch.send(v)` and a plain `ch.send(v)` from fiber code do the same.
template <class T>
struct Ready {
  T value;
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  T await_resume() { return std::move(value); }
};
template <>
struct Ready<void> {
  bool await_ready() const noexcept { return true; }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  void await_resume() const noexcept {}
};

}  // namespace detail::async

}  // namespace duet
