// The fiber runtime: stacks, context switches, the run loop and scheduling decisions.
//
// Every switch goes through the scheduler's own context ("main"): a fiber at a switch point
// where another fiber is picked jumps to main, which resumes the picked one. Keeping the current
// fiber running (the zero choice) costs no switch at all.
//
// Sanitizers. Fibers change stacks under the sanitizers' feet, so every switch is announced:
// - ASan (__sanitizer_start_switch_fiber before each jump, __sanitizer_finish_switch_fiber after
//   it, on both sides; a fiber's last jump passes a null fake-stack slot so ASan frees its fake
//   stack). A stack is unpoisoned before reuse: a fiber abandoned mid-call leaves its frames'
//   redzones poisoned. Boost's fiber constructor itself jumps into the new stack and straight
//   back (Boost's fiber_entry, no locals in memory) without an annotation; ASan checks nothing
//   in that window.
// - TSan (__tsan_create_fiber, __tsan_switch_to_fiber before each jump, __tsan_destroy_fiber).
//   Switches synchronise (flag 0): all fibers share one OS thread and run one at a time, so
//   TSan must not report their accesses as races; duet's own detector reports races between
//   fibers on duet::var. The fiber is made current in TSan while Boost constructs it (that jump
//   runs Boost's fiber_entry on the new stack), and main becomes current again only once a
//   finished fiber's last jump has landed (Boost runs the fiber's exit code after our function
//   returns); so every instrumented function's entry and exit land on the same TSan fiber.
//   Creating a TSan fiber costs milliseconds, so a slot keeps its TSan fiber across runs; only
//   Boost's fiber_entry, which never returns, leaves one frame on its shadow stack per run, and
//   the TSan fiber is replaced every kTsanFiberRuns runs (and after an abandoned run, whose
//   frames never return) before that adds up.
#include "execute/fibers/context_switch.hpp"
#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"
#include "execute/fibers/thread_locals.hpp"

#include <cxxabi.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>

#include "duet/executor.hpp"  // detail::abandon
#include "execute/fibers/sanitizers.hpp"

#ifdef DUET_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#ifdef DUET_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace duet::detail::fiber {

constinit thread_local Runtime* t_runtime = nullptr;
constinit thread_local std::uint64_t t_virtual_ns = 0;

namespace {

void asan_start([[maybe_unused]] void** fake_stack_save, [[maybe_unused]] const void* bottom,
                [[maybe_unused]] std::size_t size) {
#ifdef DUET_FIBER_ASAN
  __sanitizer_start_switch_fiber(fake_stack_save, bottom, size);
#endif
}
void asan_finish([[maybe_unused]] void* fake_stack_save, [[maybe_unused]] const void** bottom_old,
                 [[maybe_unused]] std::size_t* size_old) {
#ifdef DUET_FIBER_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_save, bottom_old, size_old);
#endif
}
void tsan_switch([[maybe_unused]] void* fiber) {
#ifdef DUET_FIBER_TSAN
  __tsan_switch_to_fiber(fiber, 0);
#endif
}

// The Itanium C++ ABI's __cxa_eh_globals is { caughtExceptions, uncaughtExceptions } (ARM's EHABI
// adds a field, hence the guard). Without the runtime's layout, fibers share it (see EhGlobals).
#if (defined(__GLIBCXX__) || defined(_LIBCPP_VERSION)) && !defined(__ARM_EABI_UNWINDER__)
EhGlobals* eh_globals() { return reinterpret_cast<EhGlobals*>(abi::__cxa_get_globals()); }
#else
EhGlobals* eh_globals() {
  static thread_local EhGlobals unused;
  return &unused;
}
#endif

}  // namespace

// ---- object table ----

// ---- lifetime and the run loop ----

Runtime::Runtime(SchedulerConfig c) : config(c) {
  stacks_.reserve(kMaxFibers);  // fibers point into it: it must never reallocate
  if (config.stack_size < std::size_t{16} * 1024) config.stack_size = std::size_t{16} * 1024;
  if (config.max_steps == 0) config.max_steps = 1;
}

Runtime::~Runtime() {
  release_fibers(true);
  for (const Stack& s : stacks_) munmap(s.base, s.mapped);
}

Stack map_stack(std::size_t usable) {
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  const std::size_t size = (usable + page - 1) / page * page;
  void* base = mmap(nullptr, size + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (base == MAP_FAILED) throw std::bad_alloc();
  // The guard page: an overflowing fiber faults here instead of writing over other memory.
  if (mprotect(base, page, PROT_NONE) != 0) {
    munmap(base, size + page);
    throw std::runtime_error("duet: mprotect of a fiber stack's guard page failed");
  }
  return {base, size + page, static_cast<char*>(base) + page, size};
}

void Runtime::reset_result() {
  result.outcome = Outcome::completed;
  result.fibers.assign(n_, FiberResult{});
  result.blocked.clear();
  result.race = {};
  result.misuse.clear();
  result.limit.clear();
  result.left_with_process = 0;
  result.crash.clear();
  result.progress.clear();
  result.crash_loc = {};
  result.start_ns = t_virtual_ns;
  result.libraries.clear();
  result.weak_order_used = false;
  result.weak_order_loc = {};
  result.trial_fiber = trial_fiber_;
}

const RunResult& Runtime::run(std::span<const std::function<void()>> branches, Picker& picker, const TrialFrame* frame) {
  if (t_runtime != nullptr) throw std::logic_error("duet: a fiber run cannot start inside another");
  const std::size_t most = frame != nullptr ? kMaxFibers - 1 : kMaxFibers;
  if (branches.empty() || branches.size() > most)
    throw std::invalid_argument("duet: a fiber run takes 1 to " + std::to_string(most) + " branches");
  n_ = branches.size();
  for (std::size_t i = 0; i < n_; ++i) body_[i] = &branches[i];
  begin_frame(frame);  // trial_frame.cpp: the trial's fiber after the branches
  first_spawned_ = n_;
  picker_ = &picker;
  picker_error_ = nullptr;
  trace.clear();
  clock_reads.clear();
  reset_result();
  draining_ = false;
  judging_ = false;
  drain_steps_ = 0;
  objects_.clear();
  table_.reset();
  pointer_names_.reset();
  shadow_.reset();
  released_.fill(0);
  track_releases_ = library_calls_seen();
  model_on_ = config.cpp_memory_model;
  result.cpp_memory_model = model_on_;
  if (model_on_) model_.begin_run();
  switch_points_ = 0;
  time_passes_ = 0;
  block_seq_ = 0;
  current = kNoFiber;
  while (stacks_.size() < n_) {
    stacks_.push_back(map_stack(config.stack_size));
    ++stats.stacks_mapped;
  }
  ++stats.runs;
  stats.run_serial = next_run_serial();
  picker.begin_run(trial_fiber_ != kNoFiber ? trial_fiber_ : n_);  // the branches

#ifdef DUET_FIBER_TSAN
  main_tsan_fiber_ = __tsan_get_current_fiber();
#endif
  eh_ = eh_globals();  // this thread's, for the whole run
  own_tls_ =
      config.own_thread_locals && !config.share_thread_storage && own_thread_locals_enabled() && fiber_tls::supported();
  shared_storage_.begin_run(config.own_thread_locals && !own_tls_ && own_thread_locals_enabled());
  host_tp_ = thread_pointer();
  for (std::uint32_t i = 0; i < n_; ++i) start_fiber(i, main_tsan_fiber_);
  gate_branches();

  watch(true);
  t_runtime = this;
  next_ = choose(false);
  while (next_ != kNoFiber) {
    const std::uint32_t f = next_;
    next_ = kNoFiber;
    resume(f);
  }
  t_runtime = nullptr;
  t_in_runtime = 0;
  if (judging_) config.max_steps = max_steps_before_judging_;
  watch(false);
  run_end();
  if (current_at_stall_ != kNoFiber) {  // the watchdog stopped a stuck fiber (watchdog.cpp)
    result.limit = stall_text();
    current_at_stall_ = kNoFiber;
  }
  settle_spawned();

  result.steps = trace.size();
  result.end_ns = t_virtual_ns;
  if (!result.libraries.empty()) count_run_in_libraries();
  for (std::uint32_t i = 0; i < n_; ++i) {
    result.fibers[i].finished = views_[i].state == FiberState::finished;
    result.fibers[i].steps = views_[i].steps;
  }
  release_fibers(false);
  frame_ = nullptr;
  if (picker_error_) std::rethrow_exception(std::exchange(picker_error_, nullptr));
  return result;
}

// ---- context switching ----

void Runtime::start_fiber(std::uint32_t i, [[maybe_unused]] void* return_tsan_fiber) {
  Fiber& f = fibers_[i];
  f.stack = &stacks_[i];
  f.eh = {};
  f.asan_fake_stack = nullptr;
  f.saved_sp = nullptr;
  f.yielding = false;
  f.blocked_on = nullptr;
  f.deadline = kNoTimeout;
  f.pending_address = nullptr;
  f.library_frame = nullptr;
  f.awaits_join = false;
  f.clock.fill(0);
  f.clock[i] = 1;
  if (model_on_) model_.start_fiber(i);
  shadow_.forget(f.stack->bottom, f.stack->size);  // a stack reused in the run: its old frames are gone
  if (own_tls_) give_thread_locals(i);
  f.seen.fill({});
  f.seen_next = 0;
  f.unchanged = 0;
  views_[i] = FiberView{};
#ifdef DUET_FIBER_ASAN
  __asan_unpoison_memory_region(f.stack->bottom, f.stack->size);
#endif
#ifdef DUET_FIBER_TSAN
  if (f.tsan_fiber != nullptr && f.tsan_runs >= kTsanFiberRuns) __tsan_destroy_fiber(std::exchange(f.tsan_fiber, nullptr));
  if (f.tsan_fiber == nullptr) {
    f.tsan_fiber = __tsan_create_fiber(0);
    f.tsan_runs = 0;
  }
  ++f.tsan_runs;
  __tsan_switch_to_fiber(f.tsan_fiber, 0);
#endif
  // Over the previous run's handle, never destroyed (see FiberHandle).
  new (&f.handle.f) boost::context::fiber(std::allocator_arg, SlotStack{f.stack}, [this, i](boost::context::fiber&& main) {
    return fiber_main(i, std::move(main));
  });
#ifdef DUET_FIBER_TSAN
  __tsan_switch_to_fiber(return_tsan_fiber, 0);
#endif
}

// A fiber of the run starts another. A fresh slot if one is left, else a finished fiber's: its
// clock entry continues from the old fiber's, so epochs stay monotonic per slot (a race between
// the old fiber and the new one in its slot goes unseen: that is the price of reuse).
// A fresh block for a fiber starting (a spawned fiber's slot may hold a finished one's).
void Runtime::give_thread_locals(std::uint32_t i) {
  Fiber& f = fibers_[i];
  if (f.tls != nullptr) {  // the slot's block is made fresh where the old one was
    const fiber_tls::Range old = fiber_tls::static_range(f.tls);
    shadow_.forget(old.begin, old.size);
  }
  f.tls = tls_blocks_.fresh(i, host_tp_);
}

// After a run: its fibers' thread-local storage goes (abandoned ones' too: they never resume),
// and an abandoned fiber's TSan shadow stack holds frames that will never return.
void Runtime::release_fibers(bool all) {
  for (std::size_t i = 0; i < kMaxFibers; ++i)
    if (std::exchange(fibers_[i].tls, nullptr) != nullptr) tls_blocks_.release(i);
#ifdef DUET_FIBER_ASAN
  // LeakSanitizer does not scan fiber stacks, and an abandoned fiber's stack is reused by the
  // next run: what its frames owned (a crashed operation's buffers, say) would be reported as
  // leaked. Its used part is kept in a reachable copy instead, so it counts as reachable.
  // Never destroyed: LeakSanitizer checks after static destructors have run.
  static auto* const kept = new std::vector<std::unique_ptr<char[]>>();
  if (!all)
    for (std::size_t i = 0; i < n_; ++i) {
      if (views_[i].state == FiberState::finished || fibers_[i].saved_sp == nullptr) continue;
      char* top = fibers_[i].stack->bottom + fibers_[i].stack->size;
      char* lo = std::max(static_cast<char*>(fibers_[i].saved_sp) - 512, fibers_[i].stack->bottom);
      const auto n = static_cast<std::size_t>(top - lo);
      __asan_unpoison_memory_region(lo, n);
      kept->push_back(std::make_unique<char[]>(n));
      std::memcpy(kept->back().get(), lo, n);
    }
#endif
#ifdef DUET_FIBER_TSAN
  for (std::size_t i = 0; i < kMaxFibers; ++i) {
    const bool abandoned = i < n_ && views_[i].state != FiberState::finished;
    if (fibers_[i].tsan_fiber != nullptr && (all || abandoned))
      __tsan_destroy_fiber(std::exchange(fibers_[i].tsan_fiber, nullptr));
  }
#else
  (void)all;
#endif
}

// Main side: run fiber i until it switches back.
void Runtime::resume(std::uint32_t i) {
  Fiber& f = fibers_[i];
  current = i;
  ++stats.switches;
  progress.fetch_add(1, std::memory_order_relaxed);
  EhGlobals* eh = eh_;
  main_eh_ = *eh;
  *eh = f.eh;
  asan_start(&main_fake_stack_, f.stack->bottom, f.stack->size);
  tsan_switch(f.tsan_fiber);
  if (f.tls != nullptr) {  // duet's own state, mirrored into the fiber's block and back
    in_block(f.tls, t_runtime) = t_runtime;
    in_block(f.tls, t_virtual_ns) = t_virtual_ns;
    fiber_tls::install(f.tls);
  }
  f.handle.f = resume_keeping_registers(std::move(f.handle.f));
  if (f.tls != nullptr) {
    fiber_tls::install(host_tp_);
    t_virtual_ns = in_block(f.tls, t_virtual_ns);
  }
  asan_finish(main_fake_stack_, nullptr, nullptr);
  // A finished fiber's last jump happens after its function returned: it could not tell TSan.
  if (views_[i].state == FiberState::finished) tsan_switch(main_tsan_fiber_);
  f.eh = *eh;
  *eh = main_eh_;
  current = kNoFiber;
}

// Fiber side: back to main; returns when main resumes this fiber.
void Runtime::suspend() {
  Fiber& f = self();
  f.saved_sp = __builtin_frame_address(0);
  asan_start(&f.asan_fake_stack, main_stack_bottom_, main_stack_size_);
  tsan_switch(main_tsan_fiber_);
  main_ = resume_keeping_registers(std::move(main_));
  asan_finish(f.asan_fake_stack, &main_stack_bottom_, &main_stack_size_);
}

boost::context::fiber Runtime::fiber_main(std::uint32_t i, boost::context::fiber&& main) {
  asan_finish(nullptr, &main_stack_bottom_, &main_stack_size_);
  main_ = std::move(main);
  if (i != trial_fiber_) record_event(Event{Op::start});  // the trial's fiber has no bookends
  bool threw = false;
  t_in_runtime = 0;  // the subject's code (see execute/fibers/instrumented.hpp)
  try {
    (*body_[i])();
  } catch (...) {
    result.fibers[i].error = std::current_exception();
    threw = true;
  }
  // The thread ends: its thread_local variables and thread-specific data are destroyed, by the
  // subject's code.
  run_thread_exit();
  t_in_runtime = 1;
  if (body_[i] == &spawned_[i]) {
    // A spawned body ends with its fiber, in its own run: what it owned (a task's frame, a
    // promise) is destroyed here, and whatever its destructors do is part of this run's trace.
    // Swapped out first: should a destructor stop the run, nothing is left half-destroyed.
    std::function<void()> done;
    done.swap(spawned_[i]);
  }
  if (i != trial_fiber_) record_event(Event{threw ? Op::exit_exception : Op::exit});
  views_[i].state = FiberState::finished;
  if (trial_fiber_ != kNoFiber) frame_fiber_ended(i);
  next_ = i == trial_fiber_ && config.end_with_trial && !draining_ ? leave_to_the_process() : choose_when_idle();
  asan_start(nullptr, main_stack_bottom_, main_stack_size_);  // null: this fiber is done
  return std::move(main_);
}

void Runtime::transfer(std::uint32_t next) {
  if (next == current) return;
  next_ = next;
  suspend();
}

void Runtime::stop_run() {
  next_ = kNoFiber;
  suspend();
  std::abort();  // main never resumes a fiber of a stopped run
}

// ---- scheduling ----

std::uint32_t Runtime::choose(bool at_switch_point) {
  std::size_t k = 0;
  bool continues = false;
  if (at_switch_point) {
    Fiber& f = self();
    bool others = false;
    for (std::uint32_t j = 0; j < n_ && !others; ++j) others = j != current && can_run(j);
    continues = !(f.yielding && others) && can_run(current);
    f.yielding = false;
    if (continues) candidates_[k++] = current;
  }
  for (std::uint32_t j = 0; j < n_; ++j)
    if (can_run(j) && !(at_switch_point && j == current)) candidates_[k++] = j;
  if (k == 0) return kNoFiber;
  if (k == 1) return candidates_[0];
  const PickContext ctx{trace.size(), current, continues, {candidates_.data(), k}, {views_.data(), n_}};
  std::size_t index = 0;
  try {
    index = fair_phase() || draining_ ? fair_pick(ctx) : picker_->pick(ctx);
  } catch (...) {
    picker_error_ = std::current_exception();
    return kNoFiber;
  }
  return candidates_[std::min(index, k - 1)];
}

std::uint32_t Runtime::choose_when_idle() {
  for (;;) {
    const std::uint32_t next = choose(false);
    if (next != kNoFiber || picker_error_) return next;
    bool all_finished = true;
    for (std::uint32_t j = 0; j < n_; ++j) all_finished = all_finished && views_[j].state == FiberState::finished;
    if (all_finished) return kNoFiber;
    // Nobody can run: virtual time jumps to the earliest deadline, and every wait due then times
    // out (the longest waiting first, should they compete).
    std::uint32_t timed = kNoFiber;
    for (std::uint32_t j = 0; j < n_; ++j)
      if (views_[j].state == FiberState::blocked && fibers_[j].deadline != kNoTimeout &&
          (timed == kNoFiber || fibers_[j].deadline < fibers_[timed].deadline ||
           (fibers_[j].deadline == fibers_[timed].deadline && fibers_[j].blocked_since < fibers_[timed].blocked_since)))
        timed = j;
    if (timed == kNoFiber) {
      if (const OutsideWakeHook hook = outside_wake(); hook != nullptr && !draining_) {
        const OutsideWake outside = hook(*this);
        if (outside.kind == OutsideWake::Kind::woke) continue;
        if (outside.kind == OutsideWake::Kind::not_seen) {
          result.outcome = Outcome::limit;
          result.limit = outside.text;
          return kNoFiber;
        }
      }
      // A progress episode's suspended fibers resume, or the run ends as its violation.
      if (const auto idle = monitor && !draining_ ? monitor->idle(*this) : ProgressMonitor::Idle::none;
          idle != ProgressMonitor::Idle::none)
        return idle == ProgressMonitor::Idle::resumed ? choose_when_idle() : kNoFiber;
      if (draining_) return kNoFiber;  // the drain cannot go on: the run is abandoned as it failed
      if (trial_ended()) {             // trial_frame.cpp
        result.outcome = Outcome::limit;
        result.limit = outlived_text();
        remember_outlived(result.limit);
        return kNoFiber;
      }
      result.outcome = Outcome::deadlock;
      for (std::uint32_t j = 0; j < n_; ++j)
        if (views_[j].state != FiberState::finished && !waits_in_frame(j)) result.blocked.push_back({j, views_[j].pending});
      return kNoFiber;
    }
    t_virtual_ns = std::max(t_virtual_ns, fibers_[timed].deadline);
    for (std::uint32_t j = 0; j < n_; ++j)
      if (views_[j].state == FiberState::blocked && fibers_[j].deadline <= t_virtual_ns)
        make_runnable(j, WakeReason::timeout);
  }
}

void Runtime::make_runnable(std::uint32_t j, WakeReason why) {
  views_[j].state = FiberState::runnable;
  fibers_[j].blocked_on = nullptr;
  fibers_[j].deadline = kNoTimeout;
  fibers_[j].wake_reason = why;
}

WakeReason Runtime::block(bool announce, std::uint64_t timeout_ns) {
  Fiber& f = self();
  if (timeout_ns == 0) {  // due already: a timeout at once, without waiting for the others
    f.wake_reason = WakeReason::timeout;
    record(Op::wake, {static_cast<std::uint64_t>(f.wake_reason), ValueType::wake});
    return f.wake_reason;
  }
  views_[current].state = FiberState::blocked;
  f.blocked_on = f.pending_address;
  f.blocked_since = ++block_seq_;
  f.deadline = timeout_ns == kNoTimeout ? kNoTimeout : t_virtual_ns + std::min(timeout_ns, kNoTimeout - 1 - t_virtual_ns);
  if (announce) record(Op::block);
  const std::uint32_t next = choose_when_idle();
  if (next == kNoFiber) stop_run();
  transfer(next);  // returns at once when a timeout woke this very fiber
  if (in_library(__builtin_frame_address(0))) acquire_everything_released();  // as enter() does
  record(Op::wake, {static_cast<std::uint64_t>(f.wake_reason), ValueType::wake});
  return f.wake_reason;
}

void Runtime::wake(const void* object, bool all, WakeReason why, std::size_t* woken) {
  std::array<std::uint32_t, kMaxFibers> waiters;  // the first k only: not zeroed
  std::size_t k = 0;
  for (std::uint32_t j = 0; j < n_; ++j)
    if (views_[j].state == FiberState::blocked && fibers_[j].blocked_on == object) waiters[k++] = j;
  std::sort(waiters.begin(), waiters.begin() + static_cast<std::ptrdiff_t>(k),
            [&](std::uint32_t a, std::uint32_t b) { return fibers_[a].blocked_since < fibers_[b].blocked_since; });
  if (woken) *woken = all ? k : std::min<std::size_t>(k, 1);
  if (all) {
    for (std::size_t w = 0; w < k; ++w) make_runnable(waiters[w], why);
    return;
  }
  if (k == 0) return;
  std::size_t index = 0;
  if (k > 1 && !draining_) {  // a drain wakes the longest waiter
    try {
      index = std::min(picker_->pick_waiter(current, {waiters.data(), k}), k - 1);
    } catch (...) {
      picker_error_ = std::current_exception();
    }
    if (picker_error_) stop_run();  // outside the handler: an abandoned handler leaks its exception
  }
  make_runnable(waiters[index], why);
}

// ---- Scheduler: the interface in scheduler.hpp ----

Scheduler::Scheduler(SchedulerConfig config) : rt_(std::make_unique<Runtime>(config)) {}
Scheduler::~Scheduler() = default;
const RunResult& Scheduler::run(std::span<const std::function<void()>> branches, Picker& picker) {
  return rt_->run(branches, picker, nullptr);
}
const RunResult& Scheduler::run(std::span<const std::function<void()>> branches, Picker& picker, const TrialFrame& frame) {
  return rt_->run(branches, picker, &frame);
}
bool Scheduler::others_alive() const { return rt_->others_alive(); }
void Scheduler::set_progress(ProgressMonitor* monitor) { rt_->monitor = monitor; }
const RunResult& Scheduler::result() const { return rt_->result; }
const std::vector<TraceEvent>& Scheduler::trace() const { return rt_->trace; }
const std::vector<ClockRead>& Scheduler::clock_reads() const { return rt_->clock_reads; }
const SchedulerConfig& Scheduler::config() const { return rt_->config; }
void Scheduler::set_harness_fences(bool on) { rt_->config.harness_fences = on; }
void Scheduler::set_end_with_trial(bool on) { rt_->config.end_with_trial = on; }
void Scheduler::begin_judging(Picker& picker) { rt_->begin_judging(picker); }
bool Scheduler::judged() const { return rt_->judging(); }
std::size_t Scheduler::step() const { return rt_->trace.size(); }
std::uint32_t Scheduler::current_fiber() const { return rt_->current; }
Scheduler::Stats Scheduler::stats() const { return rt_->stats; }

}  // namespace duet::detail::fiber
