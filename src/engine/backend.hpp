// Where a check's cases run: in this process (InProcessBackend) or in isolation's child process
// (ForkedBackend, DUET_FORK=1). The code that searches, shrinks, replays and reports asks a
// CaseBackend and never which one it is; the choice is made once, by run_property.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/clock.hpp"
#include "engine/isolation/parent.hpp"
#include "engine/progress.hpp"
#include "engine/protocol.hpp"
#include "engine/run_context.hpp"
#include "shrink/shrink.hpp"

namespace duet::detail {

/// A failing case to shrink: its choices, command boundaries and concurrent mark.
struct ShrinkStart {
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
};

class CaseBackend {
 public:
  virtual ~CaseBackend() = default;
  /// One case, as the request says (traced if asked); a case that killed the process is a failure
  /// (CaseRun::death).
  virtual CaseRun run_case(RunRequest request) = 0;
  /// The search from the run's seed, counting into `counts`, until a budget runs out or a case
  /// fails; progress lines on `progress`.
  virtual SearchEnd search(SearchCounts& counts, Clock::time_point start, Progress& progress) = 0;
  /// Shrinks a failing case that has failed again on replay; `token` reproduces the original.
  virtual ShrinkOutcome shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                               const std::string& token) = 0;
  /// After a passing search: why it exercised nothing it should have (empty: it did, or only the
  /// process that ran the cases could tell).
  virtual std::string unexercised() const = 0;
  /// Where the cases ran, for the progress and pass lines: "" or ", in a child process".
  virtual std::string where() const = 0;
  /// Execution::take_trial_processes wherever this backend's cases run: whether they now run
  /// each trial in a process of its own.
  virtual bool take_trial_processes() = 0;
};

/// Cases run here, under the run's monitor. In isolation's child it serves the parent's requests,
/// telling Isolation where each case begins and ends.
class InProcessBackend final : public CaseBackend {
 public:
  InProcessBackend(RunContext& context, bool in_child) : context_(context), in_child_(in_child) {}
  CaseRun run_case(RunRequest request) override;
  SearchEnd search(SearchCounts& counts, Clock::time_point start, Progress& progress) override {
    return search_cases(counts, start, &progress);
  }
  ShrinkOutcome shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                       const std::string& token) override;
  std::string unexercised() const override { return context_.property.execution->unexercised(); }
  std::string where() const override { return {}; }
  bool take_trial_processes() override { return context_.property.execution->take_trial_processes(); }
  /// The search loop (the engine's hot path); `progress` null in isolation's child and in a
  /// walk's worker, which sees the counts after each case (`after_case`).
  SearchEnd search_cases(SearchCounts& counts, Clock::time_point start, Progress* progress,
                         const std::function<void(const SearchCounts&)>& after_case = {});
  /// In isolation's child or a worker of the clean child: the parent's search, counted in the
  /// memory shared with it, its end with what only this process saw (coverage, why nothing was
  /// exercised); with `totals`, also Property::save_totals for the parent to take as its own.
  SearchAnswer search_for_parent(const SearchRequest& request, bool totals);

 private:
  /// Runs one case on `src`, turning what escapes it into an outcome.
  CaseOutcome run_guarded(Source& src, Trace* trace);
  /// The search's case `index`, of `seed` (restarted in `src`), under the monitor.
  CaseOutcome run_seeded(Source& src, Trace* trace, std::uint64_t index, std::uint64_t seed);

  RunContext& context_;
  bool in_child_;
  // Freed when memory runs out, so that the report can still be made.
  // Not zeroed: untouched, the pages cost nothing (a fuzzer runs a check per input).
  std::unique_ptr<char[]> reserve_ = std::make_unique_for_overwrite<char[]>(4 << 20);
};

/// In isolation's child, kept as the process was before the check's first case: cases run in a
/// worker process, which serves one case after another until a case's run leaves calls
/// unfinished or calls into an uninstrumented library (engine/clean_child.hpp); that worker
/// answers and exits, and the next case gets a new one. So no case inherits what another left
/// half-done, and the cost is a fork per such run, not per case (a worker keeps what it has
/// warmed: the symbol cache, the fiber stacks). Workers are forked by a zygote, a process forked
/// once from this one that does nothing but fork: every worker starts from the same memory,
/// where this process's own keeps changing (requests decoded, failures remembered), and a
/// library that hashes an address into its choices (RocksDB's lock stripes) chooses alike.
/// A case that kills its worker kills this process the same way, so that the parent sees the
/// death as isolation reports it (the memory shared with the parent holds what the case left).
class RetiringWorkerBackend final : public CaseBackend {
 public:
  RetiringWorkerBackend(RunContext& context, InProcessBackend& inner) : context_(context), inner_(inner) {}
  ~RetiringWorkerBackend() override;
  RetiringWorkerBackend(const RetiringWorkerBackend&) = delete;
  RetiringWorkerBackend& operator=(const RetiringWorkerBackend&) = delete;
  CaseRun run_case(RunRequest request) override;
  SearchEnd search(SearchCounts& counts, Clock::time_point start, Progress& progress) override {
    return inner_.search(counts, start, progress);
  }
  ShrinkOutcome shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                       const std::string& token) override {
    return inner_.shrink(failing, budget, progress, token);
  }
  std::string unexercised() const override { return inner_.unexercised(); }
  std::string where() const override { return inner_.where(); }
  /// Here, and in the workers forked after it: the worker and the zygote there are end.
  bool take_trial_processes() override;
  /// The parent's search, in a worker, which retires after it: what the search's trials leave
  /// (a library's thread abandoned with its trial, calls left unfinished) never reaches this
  /// process, which every later worker starts from (Execution::searches_in_clean_child).
  SearchAnswer search_in_worker(const SearchRequest& request);
  /// Workers forked so far.
  std::uint64_t workers() const { return workers_; }

 private:
  void spawn();
  /// Ends the worker and the zygote: the next case's worker forks from this process as it is.
  void end_processes();
  /// In the worker: answers the cases its parent sends on `parent` until it retires (after a
  /// search, always).
  [[noreturn]] void serve(int parent);
  /// Sends a request to the worker (forked first where there is none) and reads its answer; a
  /// worker that died or retired is reaped (this process dies as a dead one did). Empty where
  /// no worker could be forked.
  std::optional<std::string> ask_worker(const std::string& request);
  /// The worker's wait status, once it has ended (the zygote waits for it).
  int reap();
  /// The zygote: forked at the first worker's need; forks a worker for each socket it is sent.
  void start_zygote();
  [[noreturn]] void zygote(int control);

  RunContext& context_;
  InProcessBackend& inner_;
  pid_t pid_ = -1;
  int worker_ = -1;  // a socket to the worker
  pid_t zygote_pid_ = -1;
  int zygote_ = -1;  // a socket to the zygote
  std::uint64_t workers_ = 0;
};

/// Cases run in isolation's child process, which serves the requests with an InProcessBackend of
/// its own: a case that crashes, hangs or ends the process kills the child, not the check.
class ForkedBackend final : public CaseBackend {
 public:
  /// Throws std::exception when the isolation cannot be set up.
  explicit ForkedBackend(RunContext& context);
  /// Forks its child now (else at the first request): the child holds the process as it is.
  /// With `fresh_per_case`, the child runs its cases in worker processes
  /// (RetiringWorkerBackend), and so stays as it was when forked.
  void start(bool fresh_per_case) {
    fresh_per_case_ = fresh_per_case;
    isolation_->start();
  }
  CaseRun run_case(RunRequest request) override;
  SearchEnd search(SearchCounts& counts, Clock::time_point start, Progress& progress) override;
  ShrinkOutcome shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                       const std::string& token) override;
  /// What the child's search said of it (a pass on fibers that met no switch point must not be
  /// a pass just because the cases ran in a child).
  std::string unexercised() const override { return unexercised_; }
  std::string where() const override { return ", in a child process"; }
  /// Here and in the child.
  bool take_trial_processes() override;

 private:
  /// The child's side: one request's answer.
  std::string serve(const std::string& request);
  std::string serve_shrink(const ShrinkRequest& request);
  /// The case the child died running (a failure), from what it left.
  CaseRun died(bool traced) const;
  /// A child died on a shrink candidate: go on from the smaller of it and the last case kept.
  /// False when it died outside the case (keep what there is).
  bool after_shrink_death(ShrinkStart& best, ShrinkOutcome& total,
                          std::map<std::vector<std::uint64_t>, KnownDeath, ChoicesLess>& deaths);

  /// The child's backend for the cases it runs: child_side_, or fresh_ (start).
  CaseBackend& case_runner() { return fresh_per_case_ ? static_cast<CaseBackend&>(fresh_) : child_side_; }

  RunContext& context_;
  InProcessBackend child_side_;
  RetiringWorkerBackend fresh_{context_, child_side_};
  bool fresh_per_case_ = false;
  std::unique_ptr<Isolation> isolation_;
  std::string unexercised_;  // the last search's, from the child
};

}  // namespace duet::detail
