// The deterministic fiber scheduler: runs N branch functions as fibers on the calling thread,
// one at a time, switching only at instrumented operations (duet/sync.hpp), where a Picker
// chooses who runs next. Same picks => same interleaving => same trace, byte for byte.
//
//   duet::detail::fiber::Scheduler sched;                  // keep it: stacks are reused
//   duet::Source src = duet::Source::from_seed(7);
//   duet::detail::fiber::RandomPicker picker(src);
//   std::vector<std::function<void()>> branches = {f0, f1};
//   const auto& r = sched.run(branches, picker);
//   if (r.outcome != Outcome::completed) std::puts(describe(r, sched.trace()).c_str());
//   // replay: a Source::replay(src.choices()) reproduces the run and sched.trace() exactly.
//
// Internal (src/): the Y-program runner, the strategies and the report build on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/source_location.hpp"
#include <span>
#include <string>
#include <vector>

#include "duet/detail/property.hpp"
#include "duet/detail/fiber_hooks.hpp"
#include "duet/source.hpp"

namespace duet::detail::fiber {

/// Fibers alive at once per run: vector clocks are fixed arrays of this size, so every
/// instrumented object of a run costs 36 bytes per fiber of the limit (measured in
/// docs/async.md). Set when duet is configured: cmake -DDUET_MAX_FIBERS=128.
#ifndef DUET_MAX_FIBERS
#define DUET_MAX_FIBERS 64
#endif
inline constexpr std::size_t kMaxFibers = DUET_MAX_FIBERS;
static_assert(kMaxFibers >= 2 && kMaxFibers <= 4096, "DUET_MAX_FIBERS: 2 to 4096");
inline constexpr std::uint32_t kNoFiber = ~std::uint32_t{0};
inline constexpr std::uint32_t kNoObject = ~std::uint32_t{0};
inline constexpr std::uint32_t kNoStep = ~std::uint32_t{0};

/// An operation, pending (the one a fiber performs when next scheduled: switch points come
/// before operations) or executed (a trace line).
struct Event {
  Op op = Op::start;
  ObjectKind kind = ObjectKind::none;
  std::memory_order order = std::memory_order_seq_cst;
  /// Run-local number of the object, by first appearance in the run (or construction during
  /// it): stable across replays, unlike addresses. kNoObject for start, yield.
  std::uint32_t object = kNoObject;
  duet::source_location loc{};
};

struct TraceEvent {
  std::uint32_t step = 0;  // position in the run's trace
  std::uint32_t fiber = 0;
  Event event;
  Value read, written;  // what the operation read / wrote, when it does and the type prints
  /// A load under the C++ memory model that read an older store: how many newer stores it did
  /// not see (0: it read the newest), the step of the store it read (kNoStep: the value from
  /// before the run) and of the oldest store it did not see.
  std::uint32_t stale = 0;
  std::uint32_t read_step = kNoStep;
  std::uint32_t unseen_step = kNoStep;
  /// The check read a call's invoke (`invokes`) or response (`responds`) time after this
  /// event, before the fiber's next switch point: the real-time order of calls the check
  /// judges by, which an exhaustive search orders under any memory model. `fenced`: under the
  /// C++ memory model, that time is also a seq_cst fence of the check's own.
  bool invokes = false;
  bool responds = false;
  bool fenced = false;
};

enum class FiberState : std::uint8_t { runnable, blocked, finished };

/// What a Picker sees of one fiber.
struct FiberView {
  FiberState state = FiberState::runnable;
  /// Its next operation (Op::start before it first runs). For a blocked fiber, the operation
  /// it is blocked in (lock, wait).
  Event pending;
  std::uint32_t steps = 0;  // events it has executed in this run
};

/// One scheduling decision. `candidates` lists the fibers that may run next, in a fixed order:
/// when the current fiber may keep running, it is candidates[0] (so index 0 = no preemption,
/// the choice the shrinker moves toward); the others follow by ascending fiber number. The
/// current fiber is not a candidate when it blocked, finished, or yields (duet::yield, or a
/// detected spin) while another fiber can run.
struct PickContext {
  std::size_t step = 0;              // events executed so far in this run
  std::uint32_t current = kNoFiber;  // the fiber at the switch point; kNoFiber at the run's start
  bool current_continues = false;    // candidates[0] == current
  std::span<const std::uint32_t> candidates;
  std::span<const FiberView> fibers;  // every fiber of the run, by number
};

/// Strategy plug-in: random, PCT, exhaustive and replay implement it. Called only when there is
/// a choice (two or more candidates / waiters).
class Picker {
 public:
  virtual ~Picker() = default;
  /// A run of `fibers` fibers begins (PCT draws its priorities here).
  virtual void begin_run(std::size_t fibers) { (void)fibers; }
  /// Fiber `fiber` was spawned during the run (duet::spawn): it joins the candidates from now on.
  virtual void fiber_started(std::uint32_t fiber) { (void)fiber; }
  /// Index into ctx.candidates of the fiber to run next.
  virtual std::size_t pick(const PickContext& ctx) = 0;
  /// `fiber` is about to wait on a condition variable (`wait` says where): true makes the wait
  /// return at once, as a spurious wake-up (std allows them; code must re-check its
  /// predicate). The default never.
  virtual bool spurious_wakeup(std::uint32_t fiber, const Event& wait) {
    (void)fiber, (void)wait;
    return false;
  }
  /// notify_one with several waiters: index into `waiters` (longest waiting first).
  virtual std::size_t pick_waiter(std::uint32_t notifier, std::span<const std::uint32_t> waiters) {
    (void)notifier, (void)waiters;
    return 0;
  }
  /// Under the C++ memory model, a load of `fiber` (`load` says where) that may read any of
  /// `stores` stores (2 or more): index 0 is the newest, what sequential consistency reads;
  /// higher ones are older. The default reads the newest.
  virtual std::size_t pick_store(std::uint32_t fiber, const Event& load, std::size_t stores) {
    (void)fiber, (void)load, (void)stores;
    return 0;
  }
};

/// How the sampling pickers choose a store: the newest with probability 1/2, else one of the
/// older ones uniformly (the decision is recorded as its index, so it replays and shrinks
/// toward the newest).
std::size_t random_store(Source& src, std::size_t stores);

/// Uniform among the candidates, every decision a draw from the choice stream: draw 0 keeps the
/// current fiber running (or, when it cannot, runs the lowest-numbered candidate). Spurious
/// wake-ups: a draw per condition-variable wait, true with probability 1/spurious_one_in
/// (0 disables them); draw 0 = no spurious wake-up.
class RandomPicker final : public Picker {
 public:
  explicit RandomPicker(Source& src, std::uint64_t spurious_one_in = 8) : src_(src), spurious_one_in_(spurious_one_in) {}
  std::size_t pick(const PickContext& ctx) override {
    return static_cast<std::size_t>(src_.draw(ctx.candidates.size() - 1));
  }
  bool spurious_wakeup(std::uint32_t, const Event&) override {
    return spurious_one_in_ > 0 && src_.chance(1, spurious_one_in_);
  }
  std::size_t pick_waiter(std::uint32_t, std::span<const std::uint32_t> waiters) override {
    return static_cast<std::size_t>(src_.draw(waiters.size() - 1));
  }
  std::size_t pick_store(std::uint32_t, const Event&, std::size_t stores) override { return random_store(src_, stores); }

 private:
  Source& src_;
  std::uint64_t spurious_one_in_;
};

struct SchedulerConfig {
  /// Usable bytes per fiber stack (rounded up to pages); a PROT_NONE guard page lies below it.
  std::size_t stack_size = std::size_t{256} * 1024;
  /// Switch points per run the picker schedules. A run still going then gets as many more on a
  /// fair schedule (each runnable fiber in turn, fair_phase.cpp): a fiber that spins waiting
  /// for one the strategy starved finishes there; only a run that does not finish even then
  /// ends as "livelock or spin loop".
  std::size_t max_steps = 10'000;
  /// A fiber whose last `spin_threshold` operations each re-read a value it had already seen
  /// (loads, failed CAS, failed try_lock, RMWs that change nothing; it remembers the last value
  /// of 4 objects) is spinning: at its next switch point it must let another fiber run, as
  /// after duet::yield(). Values that do not fit in 64 bits are never "already seen".
  std::size_t spin_threshold = 2;
  /// Real seconds a fiber may run without reaching a switch point before the run is stopped as
  /// blocked outside instrumented code (a call the scheduler cannot see); 0 never.
  double stall_seconds = 10;
  /// Each fiber has thread-local storage and a thread identity of its own (thread_local
  /// variables, pthread_getspecific, pthread_self, std::this_thread::get_id), as threads would,
  /// where duet::instrument is linked and the platform allows it (x86-64 with glibc); otherwise
  /// the fibers share their thread's. The async runtime keeps its state in the thread's.
  bool own_thread_locals = true;
  /// With own_thread_locals, the fibers share their thread's storage even where blocks of their
  /// own can be made: as on every platform but x86-64, for the tests of that case on x86-64.
  bool share_thread_storage = false;
  /// The C++ memory model for atomics (memory_model.hpp): loads may read older stores where
  /// the model allows it, and only acquire/release pairs synchronise. False: every atomic
  /// operation is seq_cst whatever its order says.
  bool cpp_memory_model = false;
  /// Under the C++ memory model, the check's clock reads (each call's invoke and response) are
  /// seq_cst fences of the run, as on threads. False where an exhaustive search leaves the
  /// calls' real-time orders to the check: the run is the structure's alone, and the check keeps
  /// each order only where the execution is consistent with the fences placed in it
  /// (dpor/fence_orders.hpp). The reads still mark their steps (TraceEvent::invokes).
  bool harness_fences = true;
  /// The run is a trial in a process of its own (FiberOptions::trial_processes): once the
  /// trial's fiber has finished, the run ends, and threads the subject started that are still
  /// unfinished are left as they are (RunResult::left_with_process): the process ends after the
  /// trial, and they with it, as a library's threads end with a process.
  bool end_with_trial = false;
};

enum class Outcome : std::uint8_t {
  completed,  // every fiber finished (some maybe by an exception: see FiberResult)
  deadlock,   // fibers remain, none can run: RunResult::blocked says where each waits
  livelock,   // max_steps switch points, then max_steps fair ones, without finishing
  data_race,  // conflicting duet::var accesses not ordered by happens-before: RunResult::race
  misuse,     // unlocking a mutex the fiber does not hold, waiting without the lock...
  crashed,    // duet::fault_point crashed the subject: RunResult::crash says where
  limit,      // duet's own limit, not the code's failure (kMaxFibers alive): RunResult::limit
  progress,   // a stated progress guarantee broke (duet/progress.hpp): RunResult::progress says how
};
const char* outcome_name(Outcome o) noexcept;

struct FiberResult {
  bool finished = false;
  std::exception_ptr error;  // what escaped the branch function, if anything
  std::uint32_t steps = 0;
};
struct BlockedFiber {
  std::uint32_t fiber = 0;
  Event op;  // the operation it is blocked in, with its location
};
struct Access {
  std::uint32_t fiber = kNoFiber;
  Op op = Op::read;
  std::uint32_t step = 0;
  duet::source_location loc{};
};
struct DataRace {
  std::uint32_t object = kNoObject;  // kNoObject: plain memory of instrumented code
  Access first, second;              // first happened earlier in the trace; neither happens-before the other
  std::uint32_t size = 0;            // plain memory: the bytes the second access touched
};

/// The result of one run. Reused by the next run (no allocation per run after warm-up).
struct RunResult {
  Outcome outcome = Outcome::completed;
  std::size_t steps = 0;       // trace events
  std::size_t fair_steps = 0;  // livelock: the last switch points, each runnable fiber in turn
  std::vector<FiberResult> fibers;
  std::vector<BlockedFiber> blocked;  // deadlock: every fiber not finished
  DataRace race;                      // data_race
  std::string misuse;                 // misuse: what and where
  std::string limit;                  // limit: which, where, and how to raise it
  std::size_t left_with_process = 0;  // SchedulerConfig::end_with_trial: threads still unfinished
  std::string crash;                  // crashed: the fault point ("disk.write, sector 3")
  std::string progress;               // progress: the guarantee, the suspended fiber, what the others did
  duet::source_location crash_loc{};
  /// Virtual time (ns, duet::virtual_clock) when the run began and ended.
  std::uint64_t start_ns = 0, end_ns = 0;
  /// A non-seq_cst memory order was used in this run: the first one. Without the C++ memory
  /// model (SchedulerConfig::cpp_memory_model) it executed as seq_cst.
  /// The uninstrumented libraries the run called into (file names, each once): their calls were
  /// black boxes that synchronise (src/execute/instrumented/uninstrumented.cpp).
  std::vector<const char*> libraries;
  bool weak_order_used = false;
  duet::source_location weak_order_loc{};
  bool cpp_memory_model = false;  // the run followed the C++ memory model
  /// The trial's own fiber (TrialFrame): the one after the branches; kNoFiber in a run without.
  std::uint32_t trial_fiber = kNoFiber;
};

/// A trial around its branches, run on a fiber of its own (the trial's fiber, numbered after
/// the branches) so that threads the subject starts anywhere in the trial (its constructor, a
/// prefix call, its destructor joining them) are fibers of the run: `setup` makes the subject
/// and runs the prefix; then the branches start, as threads the trial's fiber started would;
/// once they have all finished, `teardown` runs the suffix and destroys the subject.
///
/// While the trial's fiber runs alone its steps are not the run's: when the setup started no
/// fiber, the run begins as the branches start, exactly as a run without a frame (its steps,
/// object numbers, clocks and memory-model histories from there); a teardown that starts none
/// is not recorded. Its start and end, the start of the branches and the wait for them are no
/// steps; the check's clock reads on it are no call boundaries of the run. A fiber the subject
/// started that is still unfinished when the teardown has ended outlived the trial: the run
/// ends as duet's limit (outlived_text), since a fiber cannot be carried into the next run.
struct TrialFrame {
  std::function<void()> setup;
  std::function<void()> teardown;
  /// Last on the trial's fiber, however it ends (a failed run drains without the teardown; a
  /// setup that threw): per-thread hooks (FiberOptions::on_fiber_stop). Optional.
  std::function<void()> last = {};
};

/// A run ended by a thread that outlived its trial: remembered for the process's later runs.
void remember_outlived(const std::string& what);
/// Why no fiber run can be judged after such a run (the library's globals may wait for the
/// abandoned thread), or empty when none ended so.
std::string earlier_outlived_error();

/// One event as a phrase for a sentence: "cas atomic#1 p1 -> p2 queue.hpp:40".
std::string event_phrase(const TraceEvent& e);
/// One trace line: step, fiber, operation, object, value, file:line. Pointer values print as
/// p1, p2, ... numbered by first appearance in `pointers` (addresses differ between processes;
/// their numbering does not), null as nullptr.
std::string format_event(const TraceEvent& e, std::vector<std::uint64_t>& pointers);
/// The whole trace, one line per event, pointers numbered across it.
std::vector<std::string> format_trace(std::span<const TraceEvent> trace);
/// The same events in parts (operation, object, value, location, a stale read's note), pointers
/// numbered as format_trace numbers them: what the report's HTML timeline draws.
std::vector<InterleavingStep> interleaving_steps(std::span<const TraceEvent> trace);
/// One line per load that read an older store (C++ memory model): "step 7: stale read: read the
/// store of step 2, not step 5's (...): no happens-before orders ...". format_trace puts each
/// under its load; format_trace_columns appends them after the table.
std::vector<std::string> stale_read_notes(std::span<const TraceEvent> trace);
/// The whole trace as a table with one column per fiber (Lincheck's layout): a header row
/// ("step | fiber 0 | fiber 1 ..."), then one row per event, its step number and its text
/// (operation, object, value, file:line) in its fiber's column, the others blank. Pointers are
/// numbered as format_trace numbers them. Empty when a row would be wider than `max_width`: the
/// caller then uses format_trace's lines. `main_fiber`'s column (the trial's own fiber, when it
/// has steps) is headed "main".
std::vector<std::string> format_trace_columns(std::span<const TraceEvent> trace, std::size_t fibers,
                                              std::size_t max_width = 100, std::uint32_t main_fiber = kNoFiber);
/// The outcome in words: deadlock with each fiber's blocked operation and location, the race's
/// two accesses, the livelock's last `tail` events.
std::string describe(const RunResult& r, std::span<const TraceEvent> trace, std::size_t tail = 12);

class ProgressMonitor;

class Scheduler {
 public:
  explicit Scheduler(SchedulerConfig config = {});
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Runs every branch as a fiber on the calling thread until all finish or the run fails
  /// (deadlock, livelock, data race, misuse), choosing at every switch point with `picker`.
  /// Exceptions escaping a branch are captured in the result; an exception from the picker
  /// (Source overrun) ends the run and is rethrown here. Fibers of a failed run are abandoned,
  /// not unwound: unwinding would run user code (destructors that lock, noexcept frames that
  /// terminate) in a state that cannot continue; their stacks are simply reused, and what their
  /// frames owned leaks. Not reentrant. 1 to kMaxFibers branches; fibers may spawn more
  /// (duet::spawn), up to kMaxFibers alive at once.
  ///
  /// The branches share the OS thread: only duet's types may block (a std::mutex held by one
  /// fiber and wanted by another hangs the thread, unless duet::instrument interposes it), and
  /// thread_local variables and std::this_thread::get_id() are the same in every fiber unless
  /// SchedulerConfig::own_thread_locals applies.
  const RunResult& run(std::span<const std::function<void()>> branches, Picker& picker);
  /// The same with the trial around the branches on a fiber of its own (TrialFrame): 1 to
  /// kMaxFibers - 1 branches. Pickers are told of the branches only (Picker::begin_run).
  const RunResult& run(std::span<const std::function<void()>> branches, Picker& picker, const TrialFrame& frame);
  /// From inside a run: a fiber other than the calling one has not finished.
  bool others_alive() const;

  /// The progress guarantees the runs check (progress.hpp), or null: none.
  void set_progress(ProgressMonitor* monitor);

  const RunResult& result() const;
  /// Every event of the last run, in order; the buffer is reused by the next run.
  const std::vector<TraceEvent>& trace() const;
  /// Where the last run read the check's clock (duet::detail::event_time), in order.
  const std::vector<ClockRead>& clock_reads() const;
  const SchedulerConfig& config() const;
  /// SchedulerConfig::harness_fences for the runs from now on.
  void set_harness_fences(bool on);
  /// SchedulerConfig::end_with_trial for the runs from now on.
  void set_end_with_trial(bool on);
  /// From inside a run, on the trial's fiber after its teardown, in a trial's process of its
  /// own: what the check does there from now on (its oracle judging the trial, threads it starts
  /// included) is no longer the trial's. It is not traced, `picker` schedules it, and it has no
  /// step bound; the threads the trial left run beside it (a library's pool its oracle uses).
  void begin_judging(Picker& picker);
  /// begin_judging was called in the last run.
  bool judged() const;

  /// From inside a run (a branch function): events so far (a logical clock for invoke and
  /// response stamps) and the calling fiber's number.
  std::size_t step() const;
  std::uint32_t current_fiber() const;

  struct Stats {
    std::size_t runs = 0;
    /// The latest run's number among all fiber runs of the process, whatever their scheduler
    /// (the interposers' per-run tables, kept per thread, are keyed by it).
    std::uint64_t run_serial = 0;
    std::size_t stacks_mapped = 0;  // mmap calls for stacks over the scheduler's life
    std::size_t switches = 0;       // context switches (to a fiber and back counts 1)
  };
  Stats stats() const;

 private:
  std::unique_ptr<Runtime> rt_;
};

}  // namespace duet::detail::fiber
