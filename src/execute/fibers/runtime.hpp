// The scheduler's engine: fibers on Boost.Context, pooled stacks, scheduling decisions, and the
// per-run state the instrumented operations act on (object table, vector clocks, waiters).
// Private to src/execute/fibers/: the integrator's interface is scheduler.hpp.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <new>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/context/fiber.hpp>

#include "execute/fibers/identity.hpp"
#include "execute/fibers/memory_model.hpp"
#include "execute/fibers/progress.hpp"
#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/shadow.hpp"
#include "execute/fibers/shared_storage.hpp"
#include "execute/fibers/thread_locals.hpp"

namespace duet::detail::fiber {

/// TSan builds: runs a TSan fiber serves before it is replaced (see runtime.cpp).
inline constexpr std::size_t kTsanFiberRuns = 1024;

/// One mmap'ed stack: [base, base + guard) is PROT_NONE, [bottom, bottom + size) is usable.
struct Stack {
  void* base = nullptr;
  std::size_t mapped = 0;
  char* bottom = nullptr;
  std::size_t size = 0;
};
/// A stack of at least `usable` bytes with its guard page (runtime.cpp); std::bad_alloc when
/// there is no memory for it.
Stack map_stack(std::size_t usable);

/// The Boost.Context StackAllocator handing a fiber the stack its slot owns: stacks stay with
/// the scheduler and are reused run after run, so deallocate has nothing to do.
/// Bytes left unused above a fiber's first frame: a call into uninstrumented code reads that
/// much of its caller's stack arguments (src/execute/instrumented/uninstrumented.cpp).
inline constexpr std::size_t kStackTopSlack = 1024;

struct SlotStack {
  const Stack* stack;
  boost::context::stack_context allocate() const {
    boost::context::stack_context ctx;
    ctx.size = stack->size - kStackTopSlack;
    ctx.sp = stack->bottom + ctx.size;  // stacks grow down: sp is the top
    return ctx;
  }
  void deallocate(boost::context::stack_context&) const noexcept {}
};

/// Storage for a suspended fiber's handle whose destructor is never run: destroying a
/// suspended boost::context::fiber unwinds it (forced_unwind through user code). A fiber of a
/// failed run is abandoned instead; the next run constructs a new handle over the old one.
union FiberHandle {
  FiberHandle() {}
  ~FiberHandle() {}
  boost::context::fiber f;
};

/// The C++ runtime's per-thread exception state (Itanium ABI, __cxa_get_globals): the
/// exceptions being handled and the uncaught count. Fibers share the OS thread, so each
/// keeps its own copy, swapped on every switch; otherwise a fiber that switches inside a catch
/// block would find another fiber's exception on top when it rethrows or ends the handler.
struct EhGlobals {
  void* caught = nullptr;
  unsigned int uncaught = 0;
};

struct Fiber {
  FiberHandle handle;
  const Stack* stack = nullptr;
  EhGlobals eh;
  void* asan_fake_stack = nullptr;
  void* saved_sp = nullptr;  // where its stack was when it last switched out
  void* tsan_fiber = nullptr;
  std::size_t tsan_runs = 0;  // runs since tsan_fiber was created
  void* tls = nullptr;        // its own thread-local storage (thread_locals.hpp), or null: the thread's

  bool yielding = false;  // must let another fiber run at its next switch point
  const void* blocked_on = nullptr;
  std::uint64_t deadline = kNoTimeout;  // virtual time at which a timed wait times out
  std::uint64_t blocked_since = 0;      // FIFO order of waiters
  WakeReason wake_reason = WakeReason::notified;
  const void* pending_address = nullptr;
  // Where the outermost call into uninstrumented code on this fiber's stack made its mark: a
  // frame below it is that library's code (or code it called back). Null: none (uninstrumented.cpp).
  const void* library_frame = nullptr;
  // A thread's fiber that has finished but is still to be joined: its pthread_t (the slot's
  // thread pointer) names it until then, so the slot is not given to a new thread.
  bool awaits_join = false;
  VectorClock clock{};

  // Spin detection: the last values this fiber observed of a few objects.
  struct Seen {
    std::uint32_t object = kNoObject;
    std::uint64_t bits = 0;
  };
  std::array<Seen, 4> seen{};
  std::uint32_t seen_next = 0;
  std::size_t unchanged = 0;  // consecutive observations of values already seen
};

/// Per-run state of one instrumented object.
struct ObjectState {
  ObjectKind kind = ObjectKind::none;
  // Happens-before: the clock a release (store, RMW, unlock) leaves for the next acquire.
  VectorClock clock{};
  VectorClock read_clock{};  // shared_mutex: what unlock_shared releases to the next writer
  // Mutexes.
  std::uint32_t owner = kNoFiber;
  std::uint32_t count = 0;    // recursion depth
  std::uint32_t readers = 0;  // shared owners
  // duet::var: the last write and each fiber's last read, with the epoch (the accessing
  // fiber's own clock entry) that happens-before checks compare.
  Access last_write;
  std::uint32_t write_epoch = 0;
  std::array<Access, kMaxFibers> reads{};
  std::array<std::uint32_t, kMaxFibers> read_epochs{};
};

/// The happens-before a subject's own annotations declare (annotations.cpp), per address: kept
/// apart from ObjectState, so that a library annotating the word its lock is made of neither
/// changes that atomic's clock nor takes it. Belongs to one run (`run`).
struct AnnotatedSyncs {
  struct Sync {
    VectorClock clock{};       // what release annotations left for the next acquire
    VectorClock read_clock{};  // a read lock's releases: only an exclusive acquire takes them
  };
  std::unordered_map<const void*, Sync> at;
  std::uint64_t run = 0;
};

class Runtime {
 public:
  /// Scheduler::begin_judging.
  void begin_judging(Picker& picker);
  bool judging() const { return judging_; }
  explicit Runtime(SchedulerConfig config);
  ~Runtime();

  /// `frame`: the trial around the branches on a fiber of its own (trial_frame.cpp), or null.
  const RunResult& run(std::span<const std::function<void()>> branches, Picker& picker, const TrialFrame* frame);
  /// From inside a run: a fiber other than the calling one has not finished.
  bool others_alive() const;

  // ---- the hooks' implementations (fiber side) ----
  void enter(Op op, ObjectKind kind, const void* object, std::memory_order order, duet::source_location loc);
  void leave(Op op, Value read, Value written);
  Value load(Value latest);
  void fence(std::memory_order order, duet::source_location loc);
  void harness_fence(bool invokes, bool responds);
  void clock_read(std::uint64_t time) noexcept;
  /// Blocks on the pending event's object until woken, or until `timeout_ns` of virtual time.
  WakeReason block(bool announce, std::uint64_t timeout_ns = kNoTimeout);
  void notify(ObjectKind kind, const void* object, bool all, duet::source_location loc);
  void yield(duet::source_location loc);
  void lock(ObjectKind kind, const void* m, bool shared, duet::source_location loc);
  bool try_lock(ObjectKind kind, const void* m, bool shared, duet::source_location loc);
  void unlock(ObjectKind kind, const void* m, bool shared, duet::source_location loc);
  bool timed_lock(ObjectKind kind, const void* m, bool shared, std::uint64_t timeout_ns, duet::source_location loc);
  void memory_access(const void* address, std::size_t size, bool write, const void* pc);
  void thread_storage_access(const void* address, const void* pc);
  /// Freed memory: the free races, as a write, with accesses of other fibers not ordered
  /// before it (a use after free); then the words are forgotten.
  /// False when the memory must not be given back: it was freed while the run drains, where
  /// another fiber may still use it (drain.cpp); it is then kept, never reused.
  bool memory_freed(const void* address, std::size_t size, const void* pc);
  /// The run failed and goes on only to let the fibers end their calls (drain.cpp).
  bool draining() const { return draining_; }
  /// Memory freed in a run by anyone (the subject, duet's own code, the scheduler): the objects
  /// and pointer values in it are forgotten (identity.hpp).
  void forget_memory(const void* address, std::size_t size);
  /// The subject's annotations (annotations.cpp): a release leaves this fiber's clock at
  /// `address`, an acquire there takes what was left; `forget`: a new object at `address`.
  void annotate_release(const void* address, bool shared);
  void annotate_acquire(const void* address, bool shared);
  void annotate_forget(const void* address);
  /// The running fiber acquires every clock any fiber of the run has released so far: a call
  /// into code that was not instrumented (uninstrumented.cpp) may read anything published.
  void acquire_everything_released() {
    if (current != kNoFiber && !draining_) join(self().clock, released_, n_);
  }
  /// The running fiber's record of its outermost call into uninstrumented code (uninstrumented.cpp).
  const void*& library_frame() { return self().library_frame; }
  /// Fiber `i` is a joinable thread's until its join or detach (Fiber::awaits_join).
  void await_join(std::uint32_t i, bool awaits) { fibers_[i].awaits_join = awaits; }
  /// A step of the running fiber's at `frame` is inside a call into uninstrumented code: the
  /// library's code or code it called back (absl::Mutex::Await runs the caller's condition, then
  /// releases its lock with atomics of its own and waits on a futex; oneTBB's workers run tasks
  /// between their own polls). The library's synchronisation around the step is invisible, so
  /// the step releases what the fiber did before it (before its switch point: the fiber that runs
  /// next must find it) and acquires what the run released, as the call's entry and return do.
  bool in_library(const void* frame) {
    const void* outer = self().library_frame;
    return outer != nullptr && frame < outer;
  }
  bool owns(const void* m) {
    const std::uint32_t* id = table_.find(m);
    return id != nullptr && objects_[*id].owner == current;
  }
  WakeReason cv_wait(const void* cv, const void* m, std::uint64_t timeout_ns, duet::source_location loc);
  void created(ObjectKind kind, const void* object, duet::source_location loc);
  void destroyed(ObjectKind kind, const void* object, duet::source_location loc);
  void wake_all(const void* object) { wake(object, true, WakeReason::notified, nullptr); }
  std::uint32_t spawn(std::function<void()>&& body, duet::source_location loc);
  /// What pthread_self() returns on fiber `i`: its own thread pointer, or null when the fibers
  /// share their thread's storage.
  void* thread_id(std::uint32_t i) const { return i < n_ ? fibers_[i].tls : nullptr; }
  void sleep(std::uint64_t ns, duet::source_location loc);
  [[noreturn]] void crash(std::string_view what, duet::source_location loc);

  // ---- the stall watchdog (watchdog.cpp) ----
  /// Switches so far: the watchdog's sign of progress.
  std::atomic<std::uint64_t> progress{0};
  /// Set by the watchdog before it signals this runtime's thread.
  std::atomic<bool> stall_requested{false};
  /// From the watchdog's signal handler, on the stuck fiber: ends the run as duet's limit.
  [[noreturn]] void stalled(const void* pc);

  SchedulerConfig config;
  RunResult result;
  std::vector<TraceEvent> trace;
  std::vector<ClockRead> clock_reads;  // where the check's clock was read in this run
  Scheduler::Stats stats;
  std::uint32_t current = kNoFiber;
  ProgressMonitor* monitor = nullptr;  // progress guarantees checked in the runs (progress.cpp)

 private:
  friend class ProgressMonitor;
  /// A run's result as it starts: completed, nothing seen yet.
  void reset_result();
  /// Runnable, and not suspended by a progress episode.
  bool can_run(std::uint32_t j) const {
    return views_[j].state == FiberState::runnable && !(monitor != nullptr && monitor->suspended(j));
  }
  // The trial's own fiber (trial_frame.cpp).
  void begin_frame(const TrialFrame* frame);
  void gate_branches();
  void frame_main();
  bool open_gate();
  void wait_for_branches();
  void rebase();
  void frame_fiber_ended(std::uint32_t fiber);
  /// The trial's fiber has finished: what is left are fibers the subject started.
  bool trial_ended() const { return trial_fiber_ != kNoFiber && views_[trial_fiber_].state == FiberState::finished; }
  /// A branch not started yet, or the trial's fiber waiting for the branches: no deadlock's part.
  bool waits_in_frame(std::uint32_t j) const { return fibers_[j].blocked_on == &gate_ || fibers_[j].blocked_on == &joined_; }
  std::string outlived_text() const;
  /// SchedulerConfig::end_with_trial: the trial's fiber has finished, and the run ends with the
  /// threads still unfinished left as they are (counted in RunResult::left_with_process).
  std::uint32_t leave_to_the_process();

  std::string started_at(std::uint32_t fiber) const;
  /// The trial's fiber runs alone where no access can race with its own: in the setup before any
  /// other fiber started, or after the branches (all joined) when no other fiber was ever started.
  bool untracked() const { return lone_setup_ || (quiet_ && n_ == trial_fiber_ + std::size_t{1}); }
  // Scheduling.
  Fiber& self() { return fibers_[current]; }
  void switch_point();  // fair_phase.cpp
  std::uint32_t choose(bool at_switch_point);
  /// Past max_steps switch points the picker no longer schedules (fair_phase.cpp).
  bool fair_phase() const { return switch_points_ > config.max_steps; }
  /// The fair phase's pick: the candidate next after the current fiber, in turn by number.
  std::size_t fair_pick(const PickContext& ctx) const;
  // At the end of the fair phase: fibers blocked with a deadline time out, and the fair phase
  // starts again; false when none is (or it happened often enough in this run: fair_phase.cpp).
  bool let_the_time_pass();
  std::uint32_t choose_when_idle();
  void make_runnable(std::uint32_t fiber, WakeReason why);
  void wake(const void* object, bool all, WakeReason why, std::size_t* woken);
  void transfer(std::uint32_t next);
  [[noreturn]] void stop_run();
  // The drain of a failing run (drain.cpp).
  void begin_drain();
  void drain_switch_point();
  [[noreturn]] void refuse_spawn(std::function<void()>&& body, std::string why);
  std::string fiber_limit_text(duet::source_location loc) const;
  void settle_spawned();
  void watch(bool on);
  std::string stall_text() const;
  void set_misuse(std::string_view what, ObjectKind kind, std::string_view detail, duet::source_location loc);
  // Context switching (the sanitizer annotations live in these).
  void start_fiber(std::uint32_t i, void* return_tsan_fiber);
  void release_fibers(bool all);
  void give_thread_locals(std::uint32_t fiber);
  void resume(std::uint32_t i);
  void suspend();
  boost::context::fiber fiber_main(std::uint32_t i, boost::context::fiber&& main);
  // Objects, events, happens-before.
  std::uint32_t object_id(const void* address, ObjectKind kind);
  std::uint32_t new_object(const void* address, ObjectKind kind);
  // Every release (and every other clock-advancing operation) also leaves its clock in
  // released_, which a call into uninstrumented code acquires (acquire_everything_released),
  // in processes where such calls are seen (library_calls_seen).
  void tick(Fiber& f) {
    if (track_releases_) join(released_, f.clock, n_);
    ++f.clock[current];
  }
  void release_everything() {
    if (!draining_) tick(self());
  }
  /// An atomic operation the C++ memory model handles (not a value wider than a Value).
  bool modelled(const Event& pending, Value v) const {
    return model_on_ && pending.kind == ObjectKind::atomic && pending.object != kNoObject && v.type != ValueType::none;
  }
  void leave_modelled(Op op, const Event& pending, Value read, Value written);
  std::size_t pick_store(const Event& pending, std::size_t stores);
  void record(Op op, Value read = {}, Value written = {});  // the pending event, executed as `op`
  Value shown(Value v);                                     // as the trace records it: a pointer by its name (identity.hpp)
  void record_event(const Event& e, Value read = {}, Value written = {});
  void observe(Op op, std::uint32_t object, Value read, Value written);
  void check_var(Op op, ObjectState& o, std::uint32_t object, duet::source_location loc);
  void check_word(ShadowMemory::Word& w, const ShadowAccess& now);
  bool races(const ShadowAccess& earlier, const ShadowAccess& now);
  /// `now_op`: what the second access was (a write, or destroy: memory freed). The run then
  /// drains (drain.cpp).
  void plain_race(const ShadowAccess& earlier, const ShadowAccess& now, Op now_op);
  bool try_acquire(ObjectState& o, ObjectKind kind, bool shared);
  void acquire_clocks(ObjectState& o, bool shared);

  std::vector<Stack> stacks_;
  std::array<Fiber, kMaxFibers> fibers_;
  std::array<FiberView, kMaxFibers> views_;
  std::array<std::uint32_t, kMaxFibers> candidates_{};
  std::size_t n_ = 0;              // fibers of this run so far (spawn adds some)
  std::size_t first_spawned_ = 0;  // the first slot spawn may fill: after the branches and the trial's
  // What each fiber runs: a branch of run(), or a spawned body kept in spawned_.
  std::array<const std::function<void()>*, kMaxFibers> body_{};
  std::array<std::function<void()>, kMaxFibers> spawned_;  // empty once its fiber finished
  std::function<void()> rejected_;                         // a spawn refused at the limit: destroyed after the run
  Picker* picker_ = nullptr;
  std::exception_ptr picker_error_;
  std::uint32_t next_ = kNoFiber;
  std::size_t switch_points_ = 0;
  std::size_t time_passes_ = 0;  // let_the_time_pass in this run
  std::uint64_t block_seq_ = 0;
  std::vector<ObjectState> objects_;
  ObjectTable table_;
  PointerNames pointer_names_;
  int identity_busy_ = 0;
  bool draining_ = false;        // a data race was found: the fibers end their calls, unrecorded
  std::size_t drain_steps_ = 0;  // switch points since the drain began
  std::uint32_t drain_last_ =
      0;  // the fiber the drain last chose (round robin)  // table_ or pointer_names_ is changing: their own frees forget nothing
  ShadowMemory shadow_;          // plain accesses of compiler-instrumented code
  VectorClock released_{};       // the join of every clock a fiber of this run has released (tick)
  bool track_releases_ = false;  // this run keeps released_ (library_calls_seen)
  bool model_on_ = false;        // this run follows the C++ memory model (SchedulerConfig)
  AtomicsModel model_;
  AnnotatedSyncs annotated_;  // the subject's own annotations (annotations.cpp)
  // The trial's own fiber (TrialFrame, trial_frame.cpp): numbered after the branches.
  const TrialFrame* frame_ = nullptr;
  std::uint32_t trial_fiber_ = kNoFiber;
  std::function<void()> frame_body_;
  std::size_t branches_left_ = 0;  // branches not finished: the trial's fiber waits for none
  VectorClock branches_clock_{};   // the finished branches' clocks, joined: what the wait acquires
  bool quiet_ = false;             // the trial's fiber runs alone after the branches: not recorded
  bool judging_ = false;           // the check judges the trial in its run (begin_judging): not recorded
  std::size_t max_steps_before_judging_ = 0;
  bool setup_woke_spuriously_ = false;  // a wait of the setup woke spuriously: its steps are kept
  bool lone_setup_ = false;             // the setup runs and no other fiber has started yet
  char gate_ = 0;                       // what the branches wait on before the setup has ended
  char joined_ = 0;                     // what the trial's fiber waits on while the branches run

  boost::context::fiber main_;  // the scheduler's own context while a fiber runs
  EhGlobals* eh_ = nullptr;
  EhGlobals main_eh_;
  const void* main_stack_bottom_ = nullptr;  // ASan: the scheduler's stack, learnt on entry
  std::size_t main_stack_size_ = 0;
  void* main_fake_stack_ = nullptr;
  void* main_tsan_fiber_ = nullptr;
  bool own_tls_ = false;               // this run's fibers have thread-local storage of their own
  SharedStorageWatch shared_storage_;  // where they share their thread's instead (shared_storage.hpp)
  fiber_tls::Blocks tls_blocks_{kMaxFibers};
  void* host_tp_ = nullptr;           // the scheduling thread's thread pointer, during a run
  const void* stalled_pc_ = nullptr;  // where a stalled fiber was stopped
  std::uint32_t current_at_stall_ = kNoFiber;
  double stall_scale_ = 1;  // the DUET_TIME_SCALE the stall limit was multiplied by (time_scale())
};

/// "file:line", the file without its directories.
std::string location(duet::source_location loc);
/// A virtual-time duration as a trace prints it: "30s", "250ms", "1500us", "7ns".
std::string duration_text(std::uint64_t ns);

/// A new run's number among every fiber run of the process (Scheduler::Stats::run_serial).
std::uint64_t next_run_serial() noexcept;

}  // namespace duet::detail::fiber
