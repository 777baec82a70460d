// The engine every front end plugs into: run cases from the choice stream until a budget
// runs out, shrink the first failure by reducing its recorded choices, report it.
//
// A front end supplies a Property: a function that runs one case from a Source and says
// how it went, and, when asked, records a Trace of the steps for the report.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "duet/detail/declarations.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/trace.hpp"

namespace duet {
struct Schedule;
}  // namespace duet

namespace duet::detail {

/// How far a walk over every program got, in the walk's own numbers.
struct WalkProgress {
  std::uint64_t position = 0;            // the walk's number (from 1) of the last program it met
  std::uint64_t ran = 0, exhausted = 0;  // programs run, of which searched to their end
  bool done = false;                     // every path of the scope walked
  std::uint64_t fingerprint = 0;         // of the programs met (ProgramEnumeration::fingerprint)
  std::uint64_t total = 0;               // the scope's programs when counted beforehand, else 0
  bool searches_every_run = false;       // the executor searches every run of a program
  std::uint32_t shards = 1, shard = 0;   // the shard of the walk (DUET_SHARDS, DUET_SHARD_INDEX)
};

/// Where a check's cases run, as far as the engine must know it: replays, isolation, what a pass
/// needs. The default is in process, deterministic and sequential (check_sequential, Api,
/// check_async); parallel checks give their executor's (src/execute/parallel_params.cpp).
class Execution {
 public:
  virtual ~Execution() = default;
  /// "sequential", "threads", "fibers:pct(3)": replay tokens record it (a token refused for
  /// another execution names the one that recorded it); regression cases are kept per name.
  virtual std::string name() const { return "sequential"; }
  /// How many times a replay is tried before concluding the case does not fail: 1 where a case
  /// is deterministic; more where failures depend on thread timing.
  virtual int replay_attempts() const { return 1; }
  /// Runs replay exactly (the fiber scheduler): a replay whose trace differs from the failing
  /// run it replays is nondeterminism in the test, reported where the two diverged.
  virtual bool exact_replay() const { return false; }
  /// A pass needs trials whose branches overlapped in time (a check on threads that never saw
  /// two calls at once proves nothing and is inconclusive).
  virtual bool needs_overlap() const { return false; }
  /// For a pass: why nothing the check ran could have interleaved (fibers that met no
  /// instrumented operation), or empty. A non-empty answer makes the pass an error.
  virtual std::string unexercised() const { return {}; }
  /// Cases run in process may end with calls left in the middle (a deadlock on fibers), and
  /// what those calls half-did stays in the process (engine/clean_child.hpp).
  virtual bool may_leave_calls_unfinished() const { return false; }
  /// How many cases' trials ended so, over the check's life so far.
  virtual std::uint64_t trials_left_unfinished() const { return 0; }
  /// Why the check's trials ran each in a process of its own, or empty where they did not
  /// (execute/trial_process.hpp): the check's process never ran the subject.
  virtual std::string trial_processes() const { return {}; }
  /// From now on each trial in a process of its own, where it can (FiberOptions::trial_processes
  /// automatic): a failure the search met beside an uninstrumented library did not replay from
  /// the process as it was before the first case, so the search runs again so (engine/search.cpp).
  /// Whether it does.
  virtual bool take_trial_processes() { return false; }
  /// Whether take_trial_processes() took them: the check's tokens say so, and its child
  /// processes are told (engine/backend.hpp).
  virtual bool trial_processes_taken() const { return false; }
  /// Why a trial of this check (run in this process, or in the worker that searched) left a
  /// thread the subject started running (a library's process-wide pool that a later trial than
  /// the first started, or that duet::Lin's oracle started on the calling thread), or empty:
  /// duet's limit in one process. A search with each trial in a process of its own, from the
  /// state before the first case, lets such a thread end with its trial (engine/search.cpp).
  virtual std::string threads_left() const { return {}; }
  /// The search runs in the clean child's worker processes, never in this one
  /// (engine/clean_child.hpp): its trials may leave what no later check of this process could
  /// run beside (a library's thread, started in a trial and abandoned with it).
  virtual bool searches_in_clean_child() const { return false; }
  /// Cases run in a child process (isolation mode) unless the settings say otherwise: a check
  /// on threads, where a hang or a crash cannot be recovered from in process.
  virtual bool isolate_by_default() const { return false; }
  /// First in each child process of isolation mode (restarts what fork did not copy, such as a
  /// thread pool's threads).
  virtual void in_child() {}
  /// Once after the check, however it ended (restores what it changed: the caller's affinity).
  virtual void after_check() {}
};

struct Property {
  std::string name;           // shown in reports, default file names
  std::uint32_t spec_id = 0;  // hash of the spec's type, binds replay tokens to their test
  /// Where its cases run (never null).
  std::shared_ptr<Execution> execution = std::make_shared<Execution>();
  /// Where DUET_EXECUTOR moved it, as reports say it ("on fibers:pct(3) (DUET_EXECUTOR=fibers:pct,
  /// over the check's own threads)"); empty where it runs on its own executor.
  std::string executor_note;
  /// What a replay of its tokens needs set besides DUET_REPLAY ("DUET_EXECUTOR=fibers:random"
  /// for a check rebuilt on fibers), when DUET_EXECUTOR does not say it already; or empty.
  std::string replay_setting;
  /// A parallel check on threads whose calls can also run on fibers: the same property on the
  /// fiber scheduler under a strategy, to search a failing program's schedules there
  /// (engine/fiber_bridge.hpp). Empty where there is no such twin.
  std::function<Property(const Schedule&)> fiber_twin;
  /// Runs one case. When trace is non-null, records every step into it.
  std::function<CaseOutcome(Source&, const CaseParams&, Trace*)> run_case;
  /// The case records its trace only when it fails, so the engine may pass a trace to every
  /// run: a failure that does not come back on replay (thread timing) still has its report.
  bool cheap_trace = false;
  /// For a pass: what it covered beyond the counts (CheckResult::coverage), or empty.
  std::function<std::string()> coverage;
  /// After a passing case: true when the cases so far covered everything the check can run (an
  /// exhaustive search of a body that is the same in every case), so the search ends there.
  std::function<bool()> covered;
  /// For a pass: why it would claim more than its cases ran (a walk over every program that
  /// its budget ended), or empty. A non-empty answer makes the pass inconclusive.
  std::function<std::string()> unfinished;
  /// A walk over every program: what its certificate records of the walk (DUET_CERTIFICATE;
  /// src/certify/), or empty for other checks.
  std::function<std::string()> certificate;
  /// How many cases the search will run, when the property knows (a walk over every program
  /// whose scope was counted), else 0: the progress line says "of N" and the time left.
  std::function<std::uint64_t()> planned_cases;
  /// A walk over every program, split over processes (Config::jobs): where the walk is, and
  /// the walk the process that reports stands for (the shares' added up); what the executor's
  /// pass line is made of, as bytes a share saves and the reporting process adds to its own.
  /// Unset for other checks.
  std::function<WalkProgress()> walk_progress;
  std::function<void(const WalkProgress&)> adopt_walk;
  std::function<std::string()> save_totals;
  std::function<void(const std::string&)> add_totals;
  /// What the calls' arguments were drawn from ("keys 0..3 and values 0..9"), or empty:
  /// named with the coverage, so that a check that found nothing says what it tried.
  std::string domain;
  /// A negative test (expect_unsafe): a shrunk counterexample is the pass, and finding none in
  /// the budget is the failure.
  bool expect_failure = false;
  /// The time budget when the settings give neither a count nor a time; 0 for a property whose
  /// search ends by itself (a walk over every program), which then needs no budget.
  double default_time = 1.0;
  /// With that default budget, the search also ends after this many trials whose branches
  /// overlapped (0: no such cap): a trial that did not overlap could not have raced, so it
  /// does not use up the budget. Where it is set, it is the budget and the time only a limit:
  /// a search that the time ended first did not do its work, and says so.
  std::uint64_t max_overlapped_trials = 0;
};

/// Runs a property under the settings: the whole pipeline (generate, execute, check,
/// shrink, report). Never throws: bad settings or tokens come back as Status::error.
/// With bytes, runs the one case those bytes describe (a fuzzer's input) instead of a search.
CheckResult run_property(const Property& property, const Config& config,
                         std::optional<std::span<const std::uint8_t>> bytes = std::nullopt);

/// A sequential spec's property whose cases search the schedules of their duet::run calls that
/// ask for duet::exhaustive(), each run from the state its case's commands left (the case is
/// executed again for each schedule; src/async/run_search.cpp); the pass names the coverage.
Property searching_case_runs(Property property);

/// The result of a check that could not test anything (a bad setting, token or spec): an
/// error, never a pass, with a report saying why.
CheckResult nothing_tested(const std::string& name, const std::string& why);

}  // namespace duet::detail
