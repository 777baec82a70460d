// How a Y-program's branches run at once: on a pool of threads (the default), on threads
// created for every run, or (duet::fibers) on the deterministic fiber scheduler.
//
//   duet::ParallelConfig pc;
//   pc.executor = duet::make_thread_pool();   // one pool for every check using pc
//   EXPECT_TRUE(duet::check_parallel<QueueSpec>(pc));
//
//   // Code written with duet/sync.hpp's types, interleavings chosen from the choice stream:
//   EXPECT_TRUE(duet::check_parallel<StackSpec>({.executor = duet::fibers(duet::pct(3))}));
//
// An executor also runs your own stress code: every function starts together (a spin
// barrier) and run() returns when all have finished.
//   duet::make_thread_pool()->run({[&] { q.push(1); }, [&] { q.pop(); }});
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "duet/detail/executor_support.hpp"

namespace duet {

namespace detail {
class TrialDriver;
}

/// Runs branch functions concurrently.
class Executor {
 public:
  virtual ~Executor() = default;
  /// Starts every branch together (a spin barrier) and returns when all have finished.
  virtual void run(const std::vector<std::function<void()>>& branches) = 0;
  virtual const char* name() const = 0;
  /// How the parallel runner drives this executor's trials (duet/detail/trial_driver.hpp). The
  /// default suits an executor that runs the branches on threads of its own.
  virtual detail::TrialDriver& trial_driver();
};

/// Code that every thread running a check's calls must run first and last: registration with an
/// RCU library, a hazard-pointer or epoch domain. A thread pool runs `start` on each worker before
/// its first branch and `stop` when the worker ends (the pool's destruction); on the calling
/// thread, which runs branch 0 and every prefix and suffix call, from the check's start to its
/// end (outside a check: around each run()). A hook that throws fails the run that needed it.
/// With liburcu, say, domain_register and domain_unregister are rcu_register_thread and
/// rcu_unregister_thread:
///
///   auto pool = duet::make_thread_pool(true, {.start = [] { domain_register(); }, .stop = [] { domain_unregister(); }});
struct ThreadHooks {
  std::function<void()> start;
  std::function<void()> stop;
};

/// A pool of threads kept for the whole check: spawning threads per trial costs more than the
/// trial itself. `pin`: each branch on its own CPU (the calling thread, which runs branch 0,
/// included) when the caller's affinity mask has a CPU per branch; the caller's own mask is
/// restored after each run, or after the check when a check runs the pool. `hooks`: see
/// ThreadHooks (ParallelConfig::thread_hooks gives them to the pool a check makes).
std::unique_ptr<Executor> make_thread_pool(bool pin = true, ThreadHooks hooks = {});
/// New threads for every run (the naive way; kept for the benchmark that measures the pool).
std::unique_ptr<Executor> make_thread_per_run();

/// How the fiber scheduler chooses which fiber runs at each switch point. Whatever the strategy,
/// every choice is recorded in the choice stream, so a failure replays exactly from its token
/// and shrinks toward fewer preemptions.
struct Schedule {
  enum class Kind : unsigned char { random, pct, exhaustive } kind = Kind::random;
  std::size_t depth = 0;             // pct
  std::size_t preemption_bound = 0;  // exhaustive
  std::size_t stale_reads = 0;       // exhaustive, under the C++ memory model
};
/// Uniform among the fibers that can run, at every switch point.
Schedule random();
/// Probabilistic concurrency testing (Burckhardt et al.): random fiber priorities and depth-1
/// priority change points; a bug that needs `depth` ordering constraints is found with
/// probability at least 1/(n·k^(depth−1)) per run (n fibers, k steps). Depth 0 is depth 1 (no
/// change point), and reports name it pct(1).
Schedule pct(std::size_t depth = 3);
/// No preemption bound: duet::exhaustive(duet::unbounded).
inline constexpr std::size_t unbounded = static_cast<std::size_t>(-1);
/// Every schedule of each program with at most `preemption_bound` preemptions, depth first,
/// with sleep sets so that independent steps are not explored in both orders. Under the C++
/// memory model, also every choice of store for up to `stale_reads` loads per schedule that
/// read an older store than the newest.
///
/// Unbounded, the search is optimal dynamic partial-order reduction: each class of schedules
/// that differ only in the order of independent steps (and, under the C++ memory model, the
/// stores the loads read, within `stale_reads` per schedule) runs once, so a complete search has
/// run every execution of the program (docs/parallel.md). A program that blocks (a mutex, a
/// condition variable) or makes notify_one choose a waiter is searched with sleep sets instead,
/// and the pass says so. With ParallelConfig::every_program, every program of a scope is
/// searched so (docs/verifying.md).
///
///   EXPECT_TRUE(duet::check_parallel<QueueSpec>({.executor = duet::fibers(duet::exhaustive(duet::unbounded))}));
Schedule exhaustive(std::size_t preemption_bound = 2, std::size_t stale_reads = 2);
/// Prints a schedule as the call that makes it ("duet::pct(3)", "duet::exhaustive(2, 2)"), so
/// that whatever prints one reads the same in every build: GoogleTest prints the parameters of
/// a test over schedules (their bytes, padding included, without this), and a message may.
///
///   std::ostringstream os;
///   os << duet::exhaustive(1);   // "duet::exhaustive(1, 2)"
std::ostream& operator<<(std::ostream& os, const Schedule& schedule);

/// How fiber runs treat the memory orders of atomic operations (docs/memory-model.md).
enum class MemoryModel : unsigned char {
  /// Every atomic operation as seq_cst, whatever order it names: a wrong order is never found.
  sc,
  /// The C++ memory model, as store buffers emulate it: a load may read an older store where
  /// coherence and happens-before allow (a choice of the schedule, replayed and shrunk), and
  /// only release/acquire pairs synchronise, so a relaxed publication is a stale read or a data
  /// race. Load buffering and modification orders against execution order are not explored.
  cpp,
};

/// Where a check's fiber trials run (FiberOptions::trial_processes, docs/real-libraries.md).
enum class TrialProcesses : unsigned char {
  /// In the process that runs the check, unless its first trial, run in a process of its own,
  /// left a thread the subject started running after it (a library's process-wide pool): then
  /// each trial of the check runs so. A failure that does not replay as it was met (its trial
  /// started from what earlier ones left) is searched for again with each trial so.
  automatic,
  /// Each trial in a process of its own, forked before it: what it leaves (threads a library
  /// keeps for the process, a one-time initialisation, its globals changed) ends with that
  /// process, so every trial starts from the same state and a failing one replays exactly
  /// (RocksDB with a pool of its own, whose globals alone made replays diverge).
  always,
  /// Each trial in the process that runs the check: a thread that outlives its trial is an error,
  /// and a failure that does not replay is reported as nondeterminism.
  never,
};

struct FiberOptions {
  std::size_t stack_size = std::size_t{256} * 1024;  // usable bytes per fiber stack (a guard page lies below)
  std::size_t max_steps = 10'000;                    // switch points per run the strategy schedules; as many
                                                     // more on a fair schedule, then "livelock or spin loop"
  /// Real seconds a fiber may run without reaching a switch point before its run is stopped as
  /// blocked outside instrumented code (an error of the check, naming where; 0: never).
  double stall_seconds = 10;
  /// For duet::fibers(), the environment variable DUET_MEMORY_MODEL=sc|cpp overrides it (any
  /// other value is an error); duet::run_fibers replays with exactly what it is given.
  MemoryModel memory_model = MemoryModel::cpp;
  /// Run inside each fiber, before its branch and after it (also when the branch throws), and
  /// in a check's trials around the trial's own fiber (the subject made, the prefix; the suffix,
  /// the subject destroyed): what a subject needs once per thread of its own (a reclamation
  /// domain's per-thread record). Their instrumented operations are part of the run, scheduled
  /// like the branch's.
  std::function<void()> on_fiber_start;
  std::function<void()> on_fiber_stop;
  /// Run on the calling thread before every fiber run (each trial of a check, each replay and
  /// shrinking attempt, each duet::run_fibers), before the subject is made: puts back what a
  /// library keeps in globals from run to run (id counters, recycled thread records, caches),
  /// which would make a replay differ from the run it replays ("nondeterministic"). Random
  /// numbers and clocks need no hook (docs/instrumented.md). A hook that throws is an error of
  /// the check. Give a draft test's duet::run_fibers the same options.
  ///
  ///   auto reset = [] { mylib::next_id = 0; };  // a global the library never resets
  ///   auto executor = duet::fibers(duet::random(), {.before_each_run = reset});
  ///   EXPECT_TRUE(duet::expect_unsafe<CounterSpec>({.executor = executor}));
  std::function<void()> before_each_run;
  /// Each trial in a process of its own, or in the check's (TrialProcesses). Costs a fork a
  /// trial: about a millisecond, beside a store's trial of tens. For duet::fibers(), the
  /// environment variable DUET_TRIAL_PROCESSES=automatic|always|never overrides it.
  ///
  ///   // RocksDB with its default Env: its background threads live as long as the process
  ///   auto executor = duet::fibers(duet::random(), {.trial_processes = duet::TrialProcesses::always});
  TrialProcesses trial_processes = TrialProcesses::automatic;
};

/// The deterministic fiber scheduler as an executor: the branches run as fibers on the calling
/// thread, switching only at duet/sync.hpp's operations. Deadlocks, livelocks and data races on
/// duet::var are failures of the program; the report shows the interleaving.
///
///   EXPECT_TRUE(duet::expect_unsafe<CounterSpec>({.executor = duet::fibers()}));
std::shared_ptr<Executor> fibers(Schedule schedule = random(), FiberOptions options = {});

/// What duet::run_fibers did. [[nodiscard]], as duet::CheckResult is: a run whose result is
/// dropped passes silently, whatever deadlock or race it met.
struct [[nodiscard("a fiber run's result says whether it completed: ASSERT_TRUE(run.completed) << run.failure")]] FiberRun {
  bool completed = false;                 // every fiber finished
  std::string failure;                    // otherwise: the deadlock, livelock, data race or misuse, described
  std::vector<std::string> interleaving;  // the run, one line per step, as duet's reports print it
};

/// Runs `branches` as fibers on the calling thread, picking who runs at each switch point from
/// `schedule`: the picks of one trial as a duet report's draft test gives them (numbers separated
/// by dots; past the last one, the current fiber keeps running). The same code and the same
/// schedule give the same run, step for step; this is how a draft test replays a fiber failure:
///
///   Counter c;
///   duet::Result a, b;
///   const duet::FiberRun run = duet::run_fibers({[&] { a = duet::capture([&] { return c.incr(); }); },
///                                                [&] { b = duet::capture([&] { return c.incr(); }); }},
///                                               "1.0.0.1");
///   ASSERT_TRUE(run.completed) << run.failure;
///
/// An exception escaping a branch is rethrown after the run. Throws std::invalid_argument for a
/// malformed schedule, std::logic_error when called from inside a fiber run.
FiberRun run_fibers(const std::vector<std::function<void()>>& branches, std::string_view schedule,
                    const FiberOptions& options = {});

}  // namespace duet
