// Async code under the deterministic scheduler: C++20 coroutine tasks, futures and promises,
// bounded channels and timers on a virtual clock, driven by duet::run from the choice stream.
//
//   duet::task<int> fetch(Disk& d) {
//     co_await duet::sleep_for(std::chrono::seconds(30));   // virtual: returns at once
//     auto a = duet::spawn(d.read(0));                       // a task of its own (a fiber)
//     int b = co_await d.read(1);                            // runs inline
//     co_return co_await a + b;
//   }
//   int v = duet::run(fetch(disk));   // one deterministic schedule (seed 0); inside a duet
//                                     // check, the schedule comes from the case's choice stream
//
// How it runs. Every task spawned, and the root task of duet::run, runs on a fiber of duet's
// scheduler (duet/sync.hpp's types work in it too); awaiting another task runs it inline on the
// awaiting fiber. duet's awaitables (futures, channels, sleeps) are switch points: the scheduler
// may run any other ready fiber there, and it blocks a fiber that must wait. So interleavings,
// deadlocks ("starved": every fiber waits and no timer is due), traces and replay are those of
// the fiber scheduler, and a failing schedule shrinks with the scenario that led to it.
//
// Time. duet::virtual_clock stands still while any fiber can run; when all wait and some wait
// with a deadline, it jumps to the earliest one. Nothing really sleeps: a 30 s back-off loop
// runs in microseconds, and timings are part of the deterministic run.
//
// Foreign awaitables (a library's own futures) work if whatever resumes them runs inside the
// run (a callback posted through duet::post, say): a task suspended on one blocks its fiber
// until it is resumed. Completions from real threads outside the run would never come: the
// run ends "starved" (see docs/async.md, "Plugging existing code in").
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include "duet/detail/source_location.hpp"
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/async_support.hpp"
#include "duet/detail/engine_signal.hpp"
#include "duet/detail/fiber_hooks.hpp"
#include "duet/executor.hpp"

namespace duet {

/// A steady clock that reads duet's virtual time: inside duet::run it advances only when every
/// fiber waits and one waits with a deadline; outside a run, only duet::sleep_for moves it. A
/// check's case starts it at 0, so its readings are part of the deterministic run.
///
///   auto deadline = duet::virtual_clock::now() + std::chrono::seconds(30);
struct virtual_clock {
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<virtual_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point(duration(static_cast<rep>(detail::fiber::t_virtual_ns))); }
};

/// Settings of a duet::run. Inside a check the case's choice stream replaces the seed.
struct AsyncOptions {
  std::uint64_t seed = 0;  // the schedule's seed, outside a check
  /// How each run's schedule is chosen: duet::random() (the default), duet::pct(depth), or, for
  /// duet::check_async only, duet::exhaustive(bound): every schedule of the body within the
  /// bound, in each case. PCT learns its run length from the earlier runs of the check
  /// (check_async) or of the case (a spec's duet::run calls); a run outside any check has no
  /// earlier runs, so its priorities alone decide (no change points).
  Schedule schedule = {};
  std::size_t max_steps = 100'000;                   // switch points scheduled, then as many fair ones before a livelock
  std::size_t stack_size = std::size_t{256} * 1024;  // per fiber
  /// How atomics' memory orders are treated (docs/memory-model.md); DUET_MEMORY_MODEL=sc|cpp
  /// overrides it, as for duet::fibers().
  MemoryModel memory_model = MemoryModel::cpp;
};

/// duet::run could not finish: every fiber waits on something nothing in the run will do (a
/// future nobody completes, a channel nobody reads) and no timer is due. what() lists each
/// fiber's wait with its location.
struct starved : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// duet::run ended otherwise than by finishing or starving: a livelock or spin loop, a data
/// race on a duet::var or a misused lock. what() says which, and where.
struct async_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// duet::run stopped at one of duet's own limits (more fibers alive at once than the scheduler
/// holds): not a failure of the code under test. Inside a check, the check ends with
/// Status::error and this message. what() names the limit and how to raise it.
struct fiber_limit : detail::EngineError {
  using detail::EngineError::EngineError;
};
/// The promise of a future was destroyed without giving it a value.
struct broken_promise : std::logic_error {
  broken_promise() : std::logic_error("duet::broken_promise: the promise was destroyed without a value") {}
};
/// send on a closed duet::channel.
struct channel_closed : std::logic_error {
  channel_closed() : std::logic_error("duet::channel_closed: send on a closed channel") {}
};

template <class T = void>
class task;

/// A lazily started coroutine returning T. `co_await` it from another task to run it there
/// (inline, on the same fiber); duet::spawn it to run it on a fiber of its own; duet::run it to
/// drive a whole computation from outside. Move-only; destroying a task that never ran
/// destroys its frame.
///
///   duet::task<std::string> get(Store& s, std::string key) {
///     auto block = co_await s.disk.read(s.directory_sector);
///     co_return decode(block, key);
///   }
template <class T>
class [[nodiscard]] task {
 public:
  using promise_type = detail::async::Promise<T>;
  using handle_type = std::coroutine_handle<promise_type>;

  task() noexcept = default;
  explicit task(handle_type h) noexcept : h_(h) {}
  task(task&& o) noexcept : h_(std::exchange(o.h_, {})) {}
  task& operator=(task&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, {});
    }
    return *this;
  }
  ~task() { reset(); }

  bool valid() const noexcept { return static_cast<bool>(h_); }

  // Awaiting a task runs it inline; its result (or exception) comes back here.
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiting) noexcept {
    h_.promise().continuation = awaiting;
    return h_;
  }
  T await_resume() { return h_.promise().outcome.take(); }

  /// The frame, for duet::run and duet::spawn; release() gives up ownership (a frame left on
  /// an abandoned fiber must not be destroyed).
  handle_type handle() const noexcept { return h_; }
  handle_type release() noexcept { return std::exchange(h_, {}); }

 private:
  void reset() noexcept {
    if (h_) h_.destroy();
    h_ = {};
  }
  handle_type h_;
};

namespace detail::async {
template <class T>
task<T> Promise<T>::get_return_object() noexcept {
  return task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline task<void> Promise<void>::get_return_object() noexcept {
  return task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail::async

template <class T>
class promise;

/// The result of a spawned task or of a duet::promise: await it (`co_await f`) or get() it from
/// fiber code; either blocks until the value is set, as a switch point. One consumer: the value
/// is moved out. Outside duet::run, only a future that is ready already can be read.
template <class T = void>
class [[nodiscard]] future {
 public:
  future() = default;
  bool valid() const noexcept { return static_cast<bool>(s_); }
  bool ready() const noexcept { return s_ && s_->outcome.ready(); }

  /// Waits for the value (a switch point; blocks while not set) and moves it out.
  T get(duet::source_location loc = duet::source_location::current()) {
    wait(loc);
    return take();
  }
  /// Waits for the value; returns at once when it is set already (after the switch point).
  void wait(duet::source_location loc = duet::source_location::current()) const { (void)wait_ns(fiber_timeout_none, loc); }
  /// Waits at most `d` of virtual time: true when the value is set.
  template <class Rep, class Period>
  bool wait_for(std::chrono::duration<Rep, Period> d, duet::source_location loc = duet::source_location::current()) const {
    return wait_ns(detail::fiber::timeout_ns(d), loc);
  }

  bool await_ready(duet::source_location loc = duet::source_location::current()) const {
    wait(loc);
    return true;
  }
  void await_suspend(std::coroutine_handle<>) const noexcept {}
  T await_resume() { return take(); }

 private:
  friend class promise<T>;
  static constexpr std::uint64_t fiber_timeout_none = detail::fiber::kNoTimeout;
  explicit future(std::shared_ptr<detail::async::SharedState<T>> s) : s_(std::move(s)) {}

  bool wait_ns(std::uint64_t timeout_ns, duet::source_location loc) const {
    if (!s_) throw std::logic_error("duet::future: no state (default-constructed or already read)");
    auto* rt = detail::fiber::current();
    if (!rt) {
      if (!s_->outcome.ready())
        throw std::logic_error("duet::future: waited on outside duet::run, where nothing can set it");
      return true;
    }
    using namespace detail::fiber;
    enter(*rt, Op::await, ObjectKind::future, s_.get(), std::memory_order_seq_cst, loc);
    const bool ok = detail::async::wait_until_ready(
        *rt, [&] { return s_->outcome.ready(); }, timeout_ns);
    leave(*rt, Op::await);
    return ok;
  }
  T take() {
    if (!s_) throw std::logic_error("duet::future: no state (default-constructed or already read)");
    auto s = std::move(s_);
    return s->outcome.take();
  }

  std::shared_ptr<detail::async::SharedState<T>> s_;
};

/// Sets the value of its future once; fiber code waiting on the future wakes. Destroyed without
/// a value, it leaves duet::broken_promise in the future.
///
///   duet::promise<int> p;
///   auto f = p.get_future();
///   device.on_complete([p = std::move(p)]() mutable { p.set_value(42); });
template <class T = void>
class promise {
 public:
  explicit promise(duet::source_location loc = duet::source_location::current())
      : s_(std::make_shared<detail::async::SharedState<T>>(loc)) {}
  promise(promise&&) noexcept = default;
  promise& operator=(promise&& o) noexcept {
    if (this != &o) {
      abandon();
      s_ = std::move(o.s_);
    }
    return *this;
  }
  ~promise() { abandon(); }

  future<T> get_future() {
    if (!s_ || s_->retrieved) throw std::logic_error("duet::promise: get_future called twice");
    s_->retrieved = true;
    return future<T>(s_);
  }
  /// Sets the value (a switch point: the trace shows it at the caller's line).
  template <class U = T>
    requires(!std::is_void_v<T>)
  void set_value(U&& value, duet::source_location loc = duet::source_location::current()) {
    set([&](auto& o) { o.set(std::forward<U>(value)); }, loc);
  }
  void set_value(duet::source_location loc = duet::source_location::current()) requires std::is_void_v<T> {
    set([](auto& o) { o.set(); }, loc);
  }
  void set_exception(std::exception_ptr e, duet::source_location loc = duet::source_location::current()) {
    set([&](auto& o) { o.fail(std::move(e)); }, loc);
  }

 private:
  template <class F>
  void set(F&& f, duet::source_location loc) {
    if (!s_) throw std::logic_error("duet::promise: no state (moved from)");
    if (s_->outcome.ready()) throw std::logic_error("duet::promise: value already set");
    using namespace detail::fiber;
    auto* rt = current();
    if (rt) enter(*rt, Op::fulfill, ObjectKind::future, s_.get(), std::memory_order_seq_cst, loc);
    f(s_->outcome);
    if (rt) {
      leave(*rt, Op::fulfill);
      wake_all(*rt, s_.get());
    }
  }
  void abandon() noexcept {
    if (s_ && !s_->outcome.ready() && s_.use_count() > 1) {
      try {
        set_exception(std::make_exception_ptr(broken_promise()), s_->created_at);  // where it was made
      } catch (...) {
      }
    }
    s_.reset();
  }
  std::shared_ptr<detail::async::SharedState<T>> s_;
};

/// Starts a task (or a function, which may return a task) on a fiber of its own, after the
/// caller's work so far; returns the future of its result. Inside duet::run only.
///
///   auto a = duet::spawn(read_sector(disk, 3));
///   auto b = duet::spawn([&] { return checksum(buffer); });
///   co_return co_await a + co_await b;
template <class T>
future<T> spawn(task<T> t, duet::source_location loc = duet::source_location::current()) {
  auto& rt = detail::async::runtime_for("duet::spawn");
  promise<T> p(loc);
  future<T> f = p.get_future();
  auto state = std::make_shared<std::pair<promise<T>, task<T>>>(std::move(p), std::move(t));
  detail::fiber::spawn(
      rt,
      [state, loc] {
        auto& [pr, tk] = *state;
        try {
          if constexpr (std::is_void_v<T>) {
            detail::async::drive<T>(tk.handle(), loc);
            pr.set_value(loc);
          } else {
            pr.set_value(detail::async::drive<T>(tk.handle(), loc), loc);
          }
        } catch (...) {
          pr.set_exception(std::current_exception(), loc);
        }
      },
      loc);
  return f;
}
template <class F>
  requires std::invocable<F&>
auto spawn(F f, duet::source_location loc = duet::source_location::current()) {
  using R = std::invoke_result_t<F&>;
  constexpr bool coroutine = requires { typename R::promise_type; };
  using T = typename decltype([] {
    if constexpr (coroutine) return std::type_identity<decltype(std::declval<R&>().await_resume())>{};
    else return std::type_identity<R>{};
  }())::type;
  auto& rt = detail::async::runtime_for("duet::spawn");
  promise<T> p(loc);
  future<T> fut = p.get_future();
  // The callable lives as long as the fiber: a coroutine lambda's frame refers to its captures.
  auto state = std::make_shared<std::pair<promise<T>, F>>(std::move(p), std::move(f));
  detail::fiber::spawn(
      rt,
      [state, loc] {
        auto& [pr, fn] = *state;
        try {
          if constexpr (coroutine) {
            R t = fn();
            if constexpr (std::is_void_v<T>) {
              detail::async::drive<T>(t.handle(), loc);
              pr.set_value(loc);
            } else {
              pr.set_value(detail::async::drive<T>(t.handle(), loc), loc);
            }
          } else if constexpr (std::is_void_v<T>) {
            fn();
            pr.set_value(loc);
          } else {
            pr.set_value(fn(), loc);
          }
        } catch (...) {
          pr.set_exception(std::current_exception(), loc);
        }
      },
      loc);
  return fut;
}

/// Runs a callback on a fiber of its own, soon (the scheduler decides when): how a library
/// that takes an executor or completion callbacks is plugged in. Inside duet::run only.
///
///   struct DuetExecutor { void post(std::function<void()> f) { duet::post(std::move(f)); } };
inline void post(std::function<void()> f, duet::source_location loc = duet::source_location::current()) {
  detail::fiber::spawn(detail::async::runtime_for("duet::post"), std::move(f), loc);
}

/// A switch point: the scheduler may run another ready fiber here, or keep this one (unlike
/// duet::yield, which lets the others go first). Nothing outside a run. Awaitable, or call it
/// from fiber code directly; a mock device calls it between sectors.
inline detail::async::Ready<void> switch_point(duet::source_location loc = duet::source_location::current()) noexcept {
  if (auto* rt = detail::fiber::current()) detail::fiber::pause(*rt, loc);
  return {};
}

/// Waits `d` of virtual time (a switch point first): the clock moves on only when every fiber
/// waits. Outside a run, moves the virtual clock forward by `d`. Awaitable, or call it from
/// fiber code directly.
template <class Rep, class Period>
detail::async::Ready<void> sleep_for(std::chrono::duration<Rep, Period> d,
                                     duet::source_location loc = duet::source_location::current()) {
  const std::uint64_t ns = detail::fiber::timeout_ns(d);
  if (auto* rt = detail::fiber::current()) detail::fiber::sleep(*rt, ns, loc);
  else detail::fiber::t_virtual_ns += ns;
  return {};
}
/// Waits until virtual time `t`.
template <class Duration>
detail::async::Ready<void> sleep_until(std::chrono::time_point<virtual_clock, Duration> t,
                                       duet::source_location loc = duet::source_location::current()) {
  return sleep_for(t - virtual_clock::now(), loc);
}

/// A bounded FIFO channel between tasks: send waits while it is full, receive while it is
/// empty (both switch points). After close(), send throws duet::channel_closed and receive
/// drains what is left, then returns nullopt.
///
///   duet::channel<int> ch(2);
///   auto producer = duet::spawn([&]() -> duet::task<> { for (int i = 0; i < 5; ++i) co_await ch.send(i); ch.close(); co_return; });
///   while (auto v = co_await ch.receive()) sum += *v;
template <class T>
class channel {
  static constexpr auto kKind = detail::fiber::ObjectKind::channel;

 public:
  explicit channel(std::size_t capacity, duet::source_location loc = duet::source_location::current())
      : capacity_(capacity) {
    if (capacity == 0) throw std::invalid_argument("duet::channel: capacity must be at least 1");
    if (auto* rt = detail::fiber::current()) detail::fiber::created(*rt, kKind, this, loc);
  }
  channel(const channel&) = delete;
  channel& operator=(const channel&) = delete;

  detail::async::Ready<void> send(T value, duet::source_location loc = duet::source_location::current()) {
    using namespace detail::fiber;
    auto* rt = current();
    if (!rt) {
      if (closed_) throw channel_closed();
      if (items_.size() >= capacity_) throw std::logic_error("duet::channel: send on a full channel outside duet::run");
      items_.push_back(std::move(value));
      return {};
    }
    enter(*rt, Op::send, kKind, this, std::memory_order_seq_cst, loc);
    detail::async::wait_until_ready(
        *rt, [&] { return closed_ || items_.size() < capacity_; }, kNoTimeout);
    leave(*rt, Op::send, {}, value_of(value));
    if (closed_) throw channel_closed();
    items_.push_back(std::move(value));
    wake_all(*rt, this);
    return {};
  }
  detail::async::Ready<std::optional<T>> receive(duet::source_location loc = duet::source_location::current()) {
    using namespace detail::fiber;
    auto* rt = current();
    if (!rt) {
      if (items_.empty() && !closed_) throw std::logic_error("duet::channel: receive on an empty channel outside duet::run");
      return {pop()};
    }
    enter(*rt, Op::receive, kKind, this, std::memory_order_seq_cst, loc);
    detail::async::wait_until_ready(
        *rt, [&] { return closed_ || !items_.empty(); }, kNoTimeout);
    std::optional<T> v = pop();
    leave(*rt, Op::receive, v ? value_of(*v) : detail::fiber::Value{});
    wake_all(*rt, this);
    return {std::move(v)};
  }
  bool try_send(T value, duet::source_location loc = duet::source_location::current()) {
    using namespace detail::fiber;
    auto* rt = current();
    if (rt) enter(*rt, Op::send, kKind, this, std::memory_order_seq_cst, loc);
    const bool ok = !closed_ && items_.size() < capacity_;
    if (rt) leave(*rt, Op::send, {}, ok ? value_of(value) : detail::fiber::Value{});
    if (ok) items_.push_back(std::move(value));
    if (ok && rt) wake_all(*rt, this);
    return ok;
  }
  std::optional<T> try_receive(duet::source_location loc = duet::source_location::current()) {
    using namespace detail::fiber;
    auto* rt = current();
    if (rt) enter(*rt, Op::receive, kKind, this, std::memory_order_seq_cst, loc);
    std::optional<T> v = pop();
    if (rt) {
      leave(*rt, Op::receive, v ? value_of(*v) : detail::fiber::Value{});
      if (v) wake_all(*rt, this);
    }
    return v;
  }
  void close(duet::source_location loc = duet::source_location::current()) {
    using namespace detail::fiber;
    auto* rt = current();
    if (rt) enter(*rt, Op::close, kKind, this, std::memory_order_seq_cst, loc);
    closed_ = true;
    if (rt) {
      leave(*rt, Op::close);
      wake_all(*rt, this);
    }
  }
  std::size_t size() const noexcept { return items_.size(); }
  std::size_t capacity() const noexcept { return capacity_; }
  bool closed() const noexcept { return closed_; }

 private:
  std::optional<T> pop() {
    if (items_.empty()) return std::nullopt;
    std::optional<T> v(std::move(items_.front()));
    items_.pop_front();
    return v;
  }
  std::size_t capacity_;
  std::deque<T> items_;
  bool closed_ = false;
};

/// Drives `t` to completion and returns its result (or rethrows its exception). Outside any
/// run, starts a scheduler run on the calling thread whose schedule comes from the running
/// check's case (so a failure replays and shrinks with it) or, outside a check, from
/// options.seed. Inside a run (a fiber, a task), runs `t` inline. Throws duet::starved when
/// every fiber waits and nothing can wake them, duet::async_failure on a livelock, a data race
/// or a misuse, duet::crash when a duet::fault_point crashed the subject, and duet::fiber_limit
/// when more fibers were alive at once than duet's scheduler holds.
///
///   TEST(Retry, GivesUpAfterAMinute) {
///     EXPECT_EQ(duet::run(fetch_with_retry(flaky)), std::nullopt);   // 60 s of virtual time
///   }
template <class T>
T run(task<T> t, const AsyncOptions& options = {}, duet::source_location loc = duet::source_location::current()) {
  if (!t.valid()) throw std::invalid_argument("duet::run: an empty task");
  if (detail::fiber::current()) return detail::async::drive<T>(t.handle(), loc);
  detail::async::Outcome<T> out;
  std::function<void()> root = [&] {
    try {
      if constexpr (std::is_void_v<T>) {
        detail::async::drive<T>(t.handle(), loc);
        out.set();
      } else {
        out.set(detail::async::drive<T>(t.handle(), loc));
      }
    } catch (...) {
      out.fail(std::current_exception());
    }
  };
  if (std::exception_ptr e = detail::async::run_root(root, options, loc)) {
    (void)t.release();  // its frame is on an abandoned fiber: never destroyed
    std::rethrow_exception(e);
  }
  return out.take();
}

/// Runs an async test body under many schedules: each case is one duet::run(body()) whose
/// interleaving comes from the case's choice stream. An exception escaping the body (or a
/// GoogleTest assertion failing in it, a starved run, a livelock) fails the case; the failure
/// is shrunk toward fewer preemptions and reported with its interleaving and a replay token.
///
///   TEST(Log, ConcurrentAppendsKeepEveryRecord) {
///     EXPECT_TRUE(duet::check_async("two appends", []() -> duet::task<void> {
///       Harness h;
///       auto a = duet::spawn(h.append("x"));
///       auto b = duet::spawn(h.append("y"));
///       co_await a; co_await b;
///       EXPECT_EQ(co_await h.records(), 2u);
///     }));
///   }
CheckResult check_async(std::string name, std::function<task<void>()> body, const Config& config = {},
                        const AsyncOptions& options = {});

}  // namespace duet
