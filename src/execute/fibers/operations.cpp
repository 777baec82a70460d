// What the instrumented operations do inside a fiber run: their switch points, their trace
// events, happens-before (vector clocks), the data-race check on duet::var, spin detection, and
// the mutex / condition-variable state the scheduler keeps per run.
//
// Happens-before without the C++ memory model: every atomic operation is treated as seq_cst,
// that is acquire and release. A store leaves its fiber's clock on the object, a load takes the
// object's clock; an RMW does both and keeps the previous clock too (it continues release
// sequences, C++20). With the model (memory_model.hpp), atomics synchronise as their orders say,
// and a load may read an older store; locks, channels and futures are unchanged. Unlock releases to
// the next lock; unlock_shared releases to the next exclusive lock; condition-variable waits
// synchronise through their mutex only. Fibers start with empty knowledge of each other and the
// per-object state is new in every run, so everything before the run happens-before it and
// everything in it happens-before what follows it.
#include <algorithm>
#include <atomic>
#include <bit>
#include <string>
#include <string_view>

#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

#include "duet/detail/api/erased_value.hpp"

namespace duet::detail::fiber {

// ---- objects ----

std::uint32_t Runtime::new_object(const void* address, ObjectKind kind) {
  const auto id = static_cast<std::uint32_t>(objects_.size());
  ++identity_busy_;  // growing frees memory: not a free to forget objects for (forget_memory)
  objects_.emplace_back();
  objects_.back().kind = kind;
  table_.insert(address) = id;
  --identity_busy_;
  if (model_on_) model_.forget(id);
  return id;
}

void Runtime::forget_memory(const void* address, std::size_t size) {
  if (identity_busy_ != 0) return;
  ++identity_busy_;
  table_.forget(address, size);
  pointer_names_.forget(address, size);
  --identity_busy_;
}

Value Runtime::shown(Value v) {
  if (v.type != ValueType::pointer || v.bits == 0) return v;
  ++identity_busy_;
  v.bits = pointer_names_.name(v.bits);
  --identity_busy_;
  return v;
}

std::uint32_t Runtime::object_id(const void* address, ObjectKind kind) {
  if (const std::uint32_t* id = table_.find(address)) return *id;
  return new_object(address, kind);
}

// ---- events ----

void Runtime::record_event(const Event& e, Value read, Value written) {
  // The trace ends where the run failed; a lone teardown, or the check judging the trial in its
  // run, is not the run's.
  if (draining_ || quiet_ || judging_) return;
  ++views_[current].steps;
  trace.push_back({static_cast<std::uint32_t>(trace.size()), current, e, shown(read), shown(written)});
}

void Runtime::record(Op op, Value read, Value written) {
  Event e = views_[current].pending;
  e.op = op;
  record_event(e, read, written);
}

void Runtime::enter(Op op, ObjectKind kind, const void* object, std::memory_order order, duet::source_location loc) {
  if (order != std::memory_order_seq_cst && !result.weak_order_used) {
    result.weak_order_used = true;
    result.weak_order_loc = loc;
  }
  const std::uint32_t id = object != nullptr ? object_id(object, kind) : kNoObject;
  views_[current].pending = Event{op, kind, order, id, loc};
  self().pending_address = object;
  const bool library = in_library(__builtin_frame_address(0));
  if (library) release_everything();
  switch_point();
  if (library) acquire_everything_released();  // and again in block() after a wait
}

void Runtime::leave(Op op, Value read, Value written) {
  if (draining_) return;
  Fiber& f = self();
  const Event pending = views_[current].pending;
  if (modelled(pending, op == Op::store ? written : read)) {
    leave_modelled(op, pending, read, written);
    return;
  }
  record(op, op == Op::store ? Value{} : read, written);  // a store's `read` is for the model only
  if (pending.object != kNoObject) {
    ObjectState& o = objects_[pending.object];
    switch (op) {
      case Op::load:
      case Op::cas_fail:
      case Op::wait:  // an atomic wait returns having loaded a new value
        join(f.clock, o.clock, n_);
        break;
      case Op::store:
        o.clock = f.clock;
        tick(f);
        break;
      case Op::rmw:
      case Op::cas:
      case Op::await:  // what the promise's fiber did before setting it happens-before
      case Op::fulfill:
      case Op::send:  // a channel's operations synchronise with each other
      case Op::receive:
      case Op::close:
        join(f.clock, o.clock, n_);
        join(o.clock, f.clock, n_);
        tick(f);
        break;
      case Op::read:
      case Op::write: check_var(op, o, pending.object, pending.loc); break;
      default: break;
    }
  }
  observe(op, pending.object, read, written);
}

// ---- atomics under the C++ memory model (memory_model.hpp) ----

void Runtime::leave_modelled(Op op, const Event& pending, Value read, Value written) {
  Fiber& f = self();
  record(op, op == Op::store ? Value{} : read, written);
  const auto step = static_cast<std::uint32_t>(trace.size() - 1);
  switch (op) {
    case Op::store:
      model_.store(pending.object, read, written, current, f.clock, pending.order, step, n_);
      tick(f);
      break;
    case Op::rmw:
    case Op::cas:
      model_.rmw(pending.object, read, written, true, current, f.clock, pending.order, step, n_);
      tick(f);
      break;
    default:  // a failed compare-exchange, a wait that returned: they read the newest store
      model_.rmw(pending.object, read, {}, false, current, f.clock, pending.order, step, n_);
      break;
  }
  observe(op, pending.object, read, written);
}

std::size_t Runtime::pick_store(const Event& pending, std::size_t stores) {
  std::size_t index = 0;
  try {
    index = picker_->pick_store(current, pending, stores);
  } catch (...) {
    picker_error_ = std::current_exception();
  }
  if (picker_error_) stop_run();  // outside the handler: an abandoned handler leaks its exception
  return std::min(index, stores - 1);
}

Value Runtime::load(Value latest) {
  if (draining_) return latest;
  const Event pending = views_[current].pending;
  if (!modelled(pending, latest)) {
    leave(Op::load, latest, {});
    return latest;
  }
  Fiber& f = self();
  const bool seq_cst = pending.order == std::memory_order_seq_cst;
  const std::size_t stores = model_.candidates(pending.object, latest, f.clock, seq_cst, n_);
  const std::size_t index = stores > 1 ? pick_store(pending, stores) : 0;
  const StaleRead stale = model_.stale(pending.object, index);
  const StoreRecord& s = model_.load(pending.object, index, current, f.clock, pending.order, n_);
  const Value v = s.value;
  const std::uint32_t read_step = s.step;
  record(Op::load, v);
  TraceEvent& e = trace.back();
  e.stale = stale.newer;
  e.read_step = read_step;
  e.unseen_step = stale.first_newer_step;
  observe(Op::load, pending.object, v, {});
  return v;
}

void Runtime::fence(std::memory_order order, duet::source_location loc) {
  if (!model_on_ || draining_) return;
  enter(Op::fence, ObjectKind::none, nullptr, order, loc);
  record(Op::fence);
  Fiber& f = self();
  model_.fence(current, f.clock, order, n_);
  if (releases(order)) tick(f);
}

void Runtime::harness_fence(bool invokes, bool responds) {
  // The trial's fiber: its prefix and suffix are ordered with the branches by the program's shape.
  if (current == kNoFiber || draining_ || current == trial_fiber_) return;
  // Part of the step of this fiber's last event (no other fiber has run since): the
  // exhaustive search's reduction reads it there. Under any model, a response and another
  // fiber's invocation are ordered by it: a call that returned before another began may be
  // what makes their history fail.
  const bool fence = model_on_ && config.harness_fences;
  if (!trace.empty() && trace.back().fiber == current) {
    trace.back().invokes |= invokes;
    trace.back().responds |= responds;
    trace.back().fenced |= fence;
  }
  if (!fence) return;
  Fiber& f = self();
  model_.fence(current, f.clock, std::memory_order_seq_cst, n_);
  tick(f);
}

void Runtime::clock_read(std::uint64_t time) noexcept {
  if (current == trial_fiber_ && current != kNoFiber) return;  // the prefix and suffix: see harness_fence
  try {
    clock_reads.push_back(ClockRead{time, static_cast<std::uint32_t>(trace.size()), current});
    if (monitor != nullptr && !draining_) monitor->call_boundary(*this);  // a call's invoke or response
  } catch (...) {  // out of memory: the report's timeline loses the call, the run goes on
  }
}

// Spin detection (see SchedulerConfig::spin_threshold).
void Runtime::observe(Op op, std::uint32_t object, Value read, Value written) {
  Fiber& f = self();
  bool observation = false;
  switch (op) {
    case Op::load:
    case Op::cas_fail: observation = read.type != ValueType::none; break;
    case Op::rmw:
    case Op::cas: observation = read.type != ValueType::none && read == written; break;
    case Op::try_lock_fail:
    case Op::try_lock_shared_fail:
      observation = true;
      read = {};
      break;
    case Op::read:
    case Op::write:
    case Op::yield:
    case Op::pause: return;  // plain variables and yields neither show nor end a spin
    default: break;
  }
  if (!observation) {
    f.unchanged = 0;
    return;
  }
  bool same = false, found = false;
  for (Fiber::Seen& s : f.seen)
    if (s.object == object) {
      found = true;
      same = s.bits == read.bits;
      s.bits = read.bits;
      break;
    }
  if (!found) f.seen[f.seen_next++ % f.seen.size()] = {object, read.bits};
  if (!same) {
    f.unchanged = 0;
  } else if (++f.unchanged >= config.spin_threshold) {
    f.yielding = true;
    f.unchanged = 0;
  }
}

// ---- duet::var: FastTrack-style race check (last write, each fiber's last read) ----

void Runtime::check_var(Op op, ObjectState& o, std::uint32_t object, duet::source_location loc) {
  Fiber& f = self();
  const Access now{current, op, static_cast<std::uint32_t>(trace.size() - 1), loc};  // its event is the last
  if (draining_) return;
  auto race = [&](const Access& earlier) {
    result.outcome = Outcome::data_race;
    result.race = {object, earlier, now};
    begin_drain();
  };
  if (o.write_epoch != 0 && o.last_write.fiber != current && o.write_epoch > f.clock[o.last_write.fiber]) {
    race(o.last_write);
    return;
  }
  if (op == Op::read) {
    o.reads[current] = now;
    o.read_epochs[current] = f.clock[current];
    return;
  }
  for (std::uint32_t g = 0; g < n_; ++g)
    if (g != current && o.read_epochs[g] != 0 && o.read_epochs[g] > f.clock[g]) {
      race(o.reads[g]);
      return;
    }
  // Every read so far happens-before this write, so later accesses need only check the write.
  std::fill_n(o.read_epochs.begin(), n_, 0u);  // past n_ they are zero already
  o.last_write = now;
  o.write_epoch = f.clock[current];
}

void Runtime::created(ObjectKind kind, const void* object, duet::source_location loc) {
  const std::uint32_t id = new_object(object, kind);
  if (kind == ObjectKind::var) {
    ObjectState& o = objects_[id];
    o.last_write = {current, Op::write, static_cast<std::uint32_t>(trace.size()), loc};
    o.write_epoch = self().clock[current];
  }
}

void Runtime::destroyed(ObjectKind kind, const void* object, duet::source_location loc) {
  if (kind != ObjectKind::var) return;
  const std::uint32_t id = object_id(object, kind);
  // Not a switch point (destruction is the owner's own business), but an event: it can race.
  record_event(Event{Op::destroy, kind, std::memory_order_seq_cst, id, loc});
  check_var(Op::destroy, objects_[id], id, loc);
}

// ---- yield and notify ----

void Runtime::yield(duet::source_location loc) {
  self().yielding = true;
  enter(Op::yield, ObjectKind::none, nullptr, std::memory_order_seq_cst, loc);
  record(Op::yield);
}

void Runtime::notify(ObjectKind kind, const void* object, bool all, duet::source_location loc) {
  const Op op = all ? Op::notify_all : Op::notify_one;
  enter(op, kind, object, std::memory_order_seq_cst, loc);
  std::size_t woken = 0;
  wake(object, all, WakeReason::notified, &woken);
  record(op, {}, value_of(woken));
  self().unchanged = 0;
}

// ---- mutexes ----

bool Runtime::try_acquire(ObjectState& o, ObjectKind kind, bool shared) {
  if (shared) {
    if (o.owner != kNoFiber) return false;
    ++o.readers;
    return true;
  }
  if (o.owner == current && kind == ObjectKind::recursive_mutex) {
    ++o.count;
    return true;
  }
  if (o.owner != kNoFiber || o.readers != 0) return false;
  o.owner = current;
  o.count = 1;
  return true;
}

void Runtime::acquire_clocks(ObjectState& o, bool shared) {
  Fiber& f = self();
  join(f.clock, o.clock, n_);
  if (!shared) join(f.clock, o.read_clock, n_);
}

void Runtime::lock(ObjectKind kind, const void* m, bool shared, duet::source_location loc) {
  const Op op = shared ? Op::lock_shared : Op::lock;
  enter(op, kind, m, std::memory_order_seq_cst, loc);
  const std::uint32_t id = views_[current].pending.object;
  // objects_ may grow while this fiber is blocked: index it afresh after every wait.
  while (!try_acquire(objects_[id], kind, shared)) block(true);
  acquire_clocks(objects_[id], shared);
  record(op);
  self().unchanged = 0;
}

bool Runtime::timed_lock(ObjectKind kind, const void* m, bool shared, std::uint64_t timeout_ns, duet::source_location loc) {
  const Op op = shared ? Op::lock_shared : Op::lock;
  enter(op, kind, m, std::memory_order_seq_cst, loc);
  const std::uint32_t id = views_[current].pending.object;
  const std::uint64_t deadline = timeout_ns >= kNoTimeout - t_virtual_ns ? kNoTimeout : t_virtual_ns + timeout_ns;
  while (!try_acquire(objects_[id], kind, shared)) {
    const std::uint64_t left = deadline == kNoTimeout ? kNoTimeout : deadline > t_virtual_ns ? deadline - t_virtual_ns : 0;
    if (block(true, left) != WakeReason::timeout) continue;
    if (try_acquire(objects_[id], kind, shared)) break;
    record(shared ? Op::try_lock_shared_fail : Op::try_lock_fail);
    return false;
  }
  acquire_clocks(objects_[id], shared);
  record(op);
  self().unchanged = 0;
  return true;
}

bool Runtime::try_lock(ObjectKind kind, const void* m, bool shared, duet::source_location loc) {
  enter(shared ? Op::try_lock_shared : Op::try_lock, kind, m, std::memory_order_seq_cst, loc);
  const std::uint32_t id = views_[current].pending.object;
  const bool ok = try_acquire(objects_[id], kind, shared);
  if (ok) acquire_clocks(objects_[id], shared);
  const Op op = shared ? (ok ? Op::try_lock_shared : Op::try_lock_shared_fail) : (ok ? Op::try_lock : Op::try_lock_fail);
  record(op);
  observe(op, id, {}, {});
  return ok;
}

// Builds the message in the result and returns: the caller then stops the run, once no
// temporary string is left on this fiber's stack (an abandoned stack is never unwound).
void Runtime::set_misuse(std::string_view what, ObjectKind kind, std::string_view detail, duet::source_location loc) {
  result.outcome = Outcome::misuse;
  result.misuse = "fiber " + std::to_string(current) + ": ";
  result.misuse += what;
  result.misuse += kind_name(kind);
  result.misuse += detail;
  result.misuse += " at " + location(loc);
}

void Runtime::unlock(ObjectKind kind, const void* m, bool shared, duet::source_location loc) {
  const Op op = shared ? Op::unlock_shared : Op::unlock;
  enter(op, kind, m, std::memory_order_seq_cst, loc);
  Fiber& f = self();
  ObjectState& o = objects_[views_[current].pending.object];
  record(op);
  f.unchanged = 0;
  if (shared) {
    if (o.readers == 0) {
      set_misuse("unlock_shared of a ", kind, " no fiber holds shared", loc);
      stop_run();
    }
    --o.readers;
    join(o.read_clock, f.clock, n_);
    tick(f);
    if (o.readers == 0) wake(m, true, WakeReason::notified, nullptr);
    return;
  }
  if (o.owner != current) {
    set_misuse("unlock of a ", kind, o.owner == kNoFiber ? " that is not locked" : " held by another fiber", loc);
    stop_run();
  }
  if (--o.count > 0) return;  // recursive: still held
  o.owner = kNoFiber;
  o.clock = f.clock;
  tick(f);
  wake(m, true, WakeReason::notified, nullptr);
}

// ---- condition variables ----

WakeReason Runtime::cv_wait(const void* cv, const void* m, std::uint64_t timeout_ns, duet::source_location loc) {
  enter(Op::wait, ObjectKind::condition_variable, cv, std::memory_order_seq_cst, loc);
  Fiber& f = self();
  const std::uint32_t mid = object_id(m, ObjectKind::mutex);
  {
    ObjectState& mo = objects_[mid];
    if (mo.owner != current) {
      set_misuse("condition_variable wait with a ", ObjectKind::mutex, " this fiber does not hold", loc);
      stop_run();
    }
    mo.owner = kNoFiber;
    mo.count = 0;
    mo.clock = f.clock;
    tick(f);
  }
  record(Op::wait);
  f.unchanged = 0;
  wake(m, true, WakeReason::notified, nullptr);
  bool spurious = false;
  try {
    spurious = !draining_ && picker_->spurious_wakeup(current, views_[current].pending);
  } catch (...) {
    picker_error_ = std::current_exception();
  }
  if (picker_error_) stop_run();  // outside the handler: an abandoned handler leaks its exception
  WakeReason why = WakeReason::spurious;
  if (spurious) {
    setup_woke_spuriously_ = setup_woke_spuriously_ || current == trial_fiber_;  // kept: trial_frame.cpp
    record(Op::wake, {static_cast<std::uint64_t>(why), ValueType::wake});
  } else {
    why = block(false, timeout_ns);  // the wait event above already says where it waits
  }
  lock(ObjectKind::mutex, m, false, loc);
  return why;
}

// ---- duet/async.hpp ----

void Runtime::sleep(std::uint64_t ns, duet::source_location loc) {
  enter(Op::sleep, ObjectKind::none, nullptr, std::memory_order_seq_cst, loc);
  record(Op::sleep, {}, {ns, ValueType::duration});
  block(false, ns);
}

void Runtime::crash(std::string_view what, duet::source_location loc) {
  if (draining_) stop_run();  // the run failed already: that failure is its outcome
  result.outcome = Outcome::crashed;
  result.crash = what;
  result.crash_loc = loc;
  record_event(Event{Op::crash, ObjectKind::none, std::memory_order_seq_cst, kNoObject, loc});
  stop_run();
}

// ---- the hooks (fiber_hooks.hpp) ----

void enter(Runtime& rt, Op op, ObjectKind kind, const void* object, std::memory_order order,
           duet::source_location loc) noexcept {
  rt.enter(op, kind, object, order, loc);
}
void leave(Runtime& rt, Op op, Value read, Value written) noexcept { rt.leave(op, read, written); }
Value load(Runtime& rt, Value latest) noexcept { return rt.load(latest); }
void fence(Runtime& rt, std::memory_order order, duet::source_location loc) noexcept { rt.fence(order, loc); }
void harness_fence(Runtime& rt, bool invokes, bool responds) noexcept { rt.harness_fence(invokes, responds); }
void clock_read(Runtime& rt, std::uint64_t time) noexcept { rt.clock_read(time); }
void block(Runtime& rt) noexcept { rt.block(true); }
void notify(Runtime& rt, ObjectKind kind, const void* object, bool all, duet::source_location loc) noexcept {
  rt.notify(kind, object, all, loc);
}
void yield(Runtime& rt, duet::source_location loc) noexcept { rt.yield(loc); }
void pause(Runtime& rt, duet::source_location loc) noexcept {
  rt.enter(Op::pause, ObjectKind::none, nullptr, std::memory_order_seq_cst, loc);
  rt.leave(Op::pause, {}, {});
}
void lock(Runtime& rt, ObjectKind kind, const void* m, bool shared, duet::source_location loc) noexcept {
  rt.lock(kind, m, shared, loc);
}
bool try_lock(Runtime& rt, ObjectKind kind, const void* m, bool shared, duet::source_location loc) noexcept {
  return rt.try_lock(kind, m, shared, loc);
}
void unlock(Runtime& rt, ObjectKind kind, const void* m, bool shared, duet::source_location loc) noexcept {
  rt.unlock(kind, m, shared, loc);
}
WakeReason cv_wait(Runtime& rt, const void* cv, const void* m, std::uint64_t timeout_ns,
                   duet::source_location loc) noexcept {
  return rt.cv_wait(cv, m, timeout_ns, loc);
}
WakeReason block_for(Runtime& rt, std::uint64_t timeout_ns) noexcept { return rt.block(true, timeout_ns); }
void wake_all(Runtime& rt, const void* object) noexcept { rt.wake_all(object); }
std::uint32_t spawn(Runtime& rt, std::function<void()> body, duet::source_location loc) noexcept {
  return rt.spawn(std::move(body), loc);
}
bool timed_lock(Runtime& rt, ObjectKind kind, const void* m, bool shared, std::uint64_t timeout_ns,
                duet::source_location loc) noexcept {
  return rt.timed_lock(kind, m, shared, timeout_ns, loc);
}
bool on_fiber(Runtime& rt) noexcept { return rt.current != kNoFiber; }

namespace {
constinit std::atomic<OutsideWakeHook> g_outside_wake{nullptr};
}  // namespace
void set_outside_wake(OutsideWakeHook hook) noexcept { g_outside_wake.store(hook, std::memory_order_release); }
OutsideWakeHook outside_wake() noexcept { return g_outside_wake.load(std::memory_order_acquire); }
std::uint32_t fiber_number(Runtime& rt) noexcept { return rt.current; }
std::uint64_t run_number(Runtime& rt) noexcept { return rt.stats.run_serial; }

// Every scheduler's runs count from 1: a table kept per thread across schedulers (the threads
// and barriers of a run, threads.cpp and barriers_semaphores.cpp) tells runs apart by this number instead.
std::uint64_t next_run_serial() noexcept {
  static std::atomic<std::uint64_t> serial{0};
  return serial.fetch_add(1, std::memory_order_relaxed) + 1;
}
bool owns(Runtime& rt, const void* mutex) noexcept { return rt.owns(mutex); }
void called_library(Runtime& rt, const char* library) noexcept {
  for (const char* l : rt.result.libraries)
    if (l == library) return;
  rt.result.libraries.push_back(library);
}
void memory_released(Runtime& rt, const void* address, std::size_t size) noexcept { rt.forget_memory(address, size); }
void acquire_everything_released(Runtime& rt) noexcept { rt.acquire_everything_released(); }
const void*& library_frame(Runtime& rt) noexcept { return rt.library_frame(); }
bool in_library_call(Runtime& rt, const void* frame) noexcept { return rt.in_library(frame); }
void sleep(Runtime& rt, std::uint64_t ns, duet::source_location loc) noexcept { rt.sleep(ns, loc); }
void crash(Runtime& rt, std::string_view what, duet::source_location loc) noexcept { rt.crash(what, loc); }
void created(Runtime& rt, ObjectKind kind, const void* object, duet::source_location loc) noexcept {
  rt.created(kind, object, loc);
}
void destroyed(Runtime& rt, ObjectKind kind, const void* object, duet::source_location loc) noexcept {
  rt.destroyed(kind, object, loc);
}

}  // namespace duet::detail::fiber
