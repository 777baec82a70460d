// A Y-program as every parallel front end runs it: its shape, one trial's observed calls and
// their history, noise on threads, a trial run on an executor and judged by the search core,
// the steps a front end supplies to the parallel case loop (YSteps, run_y_case), the settings
// a parallel property's cases share, and expect_unsafe's budget.
// Included by duet/parallel.hpp after the vocabulary it uses (ParallelConfig, Role, Result,
// CheckResult, Executor, Verdict); not a public header.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "duet/detail/case_loop.hpp"
#include "duet/detail/declarations.hpp"
#include "duet/detail/property.hpp"
#include "duet/detail/erased_oracle.hpp"
#include "duet/detail/rng.hpp"
#include "duet/detail/trace_steps.hpp"
#include "duet/detail/trial_driver.hpp"

namespace duet {
namespace detail {

struct EveryProgramWalk;  // src/generate/enumeration.hpp

/// A program's calls, in the order a report lists them: prefix, branch 0, branch 1, ..., suffix.
struct YShape {
  std::size_t prefix = 0;
  std::vector<std::size_t> branches;  // lengths
  std::size_t suffix = 0;
  std::vector<std::string> roles;  // each branch's role as reports label it, or none
  std::size_t size() const {
    std::size_t n = prefix + suffix;
    for (std::size_t b : branches) n += b;
    return n;
  }
};

/// One executed call of a trial.
struct Observed {
  Result result;
  std::uint64_t invoke = 0, response = 0;
  int cpu = -1;  // where the call was invoked (sched_getcpu), -1 on fibers or when unknown
};

/// The CPU the calling thread runs on (sched_getcpu), -1 inside a fiber run or when unknown.
int current_cpu() noexcept;

/// A trial's observations before it runs: one empty Observed per call of `shape` (out of line:
/// the same code for every spec).
void clear_observed(std::vector<Observed>& observed, const YShape& shape);

/// What a trial's branches did at once: whether calls of different branches overlapped in time,
/// and on how many distinct CPUs the branches' calls were invoked.
struct TrialOverlap {
  bool overlapped = false;
  std::size_t cpus = 0;
};
TrialOverlap trial_overlap(const YShape& shape, const std::vector<Observed>& observed);

/// Noise on threads (rr's chaos mode and stress tools do the same): before each branch call,
/// nothing, a spin of a random length, or (when branches share CPUs) a yield. It moves the branches
/// against each other from trial to trial, so that racy windows the start barrier's steady skew
/// never lines up meet in some trial. The level is a choice of the program (0 = none, so the
/// shrinker drops noise a failure does not need, and a token replays it); the delays of a trial
/// follow from the program's choices and the trial's number.
struct Noise {
  static constexpr unsigned kLevels = 2;
  unsigned level = 0;   // 0: none; 1: spins up to 0.25 µs; 2: up to 4 µs
  bool yields = false;  // branches share CPUs: now and then a yield instead of a spin
  std::uint64_t seed = 0;
  std::uint64_t trial = 0;
  /// Waits before call `call` of the program (a no-op at level 0).
  void before_call(std::size_t call) const;
  /// "random delays of up to 4 µs before each branch call (noise level 2 of 3)", or empty.
  std::string describe() const;
};

/// Builds the history the search core checks: phases 0/1/2 for prefix, branches, suffix;
/// process 0 for prefix and suffix, 1 + b for branch b.
std::vector<TimedOp> y_history(const YShape& shape, const std::vector<Observed>& observed);
/// Who makes each call of a program of this shape: the main thread (prefix, suffix), branch b's.
std::vector<Caller> callers_of(const YShape& shape);


/// The operation a call's text names: the word before its first `(` ("push" for "push(3)",
/// "set" for "auto a1 = set(a0, 0, 1)"), or the text when it has no `(`.
std::string op_name(std::string_view call);

/// Whether `ops` (null: any) lets a call of operation `name` run.
inline bool op_allowed(const std::vector<std::string>* ops, std::string_view name) {
  return !ops || std::find(ops->begin(), ops->end(), name) != ops->end();
}

/// Why the roles or the progress guarantees name an operation the spec does not have (`known`:
/// its operations), or empty: a name that never matches would change nothing, silently.
std::string op_names_error(const ParallelConfig& pc, const std::vector<std::string>& known);

/// The number of branches: the roles' counts added up, or ParallelConfig::branches.
std::size_t branch_count(const ParallelConfig& pc);

/// A hand-written program (duet::Scenario) as the case loop takes it: its shape and each call as
/// reports print it, in report order; the calls themselves are the front end's (YSteps::take_call).
struct GivenProgram {
  YShape shape;
  std::vector<std::string> calls;
};

/// The shape of a scenario.
template <class C>
YShape scenario_shape(const Scenario<C>& s) {
  YShape shape;
  shape.prefix = s.prefix.size();
  for (const auto& branch : s.branches) shape.branches.push_back(branch.size());
  shape.suffix = s.suffix.size();
  return shape;
}

/// Why a hand-written program cannot run under `pc`, or empty: not 2 to 8 branches, or a branch
/// calling an operation its role (ParallelConfig::roles) does not allow. Branches may be empty
/// (a draft's program whose failure needs no concurrency).
std::string given_program_error(const ParallelConfig& pc, const GivenProgram& given);

/// What a scenario's replay token must match besides the front end's signature: the program's
/// calls and shape, and how it is run (the executor and strategy, the consistency, the roles and
/// the progress guarantees; not the shape settings of generated programs, which it ignores).
std::string scenario_signature(const ParallelConfig& pc, const GivenProgram& given);

/// How often each program is run, as settings: trials are the parallel runner's inner loop.
struct ParallelParams {
  ParallelConfig config;
  std::shared_ptr<Executor> executor;
  bool noise = false;         // on threads, with ParallelConfig::noise (or expect_unsafe's default)
  bool noise_yields = false;  // branches share CPUs (or are not pinned)
  // With roles: each branch's role (an index into config.roles) and label.
  std::vector<std::size_t> branch_role;
  std::vector<std::string> branch_labels;
  // A hand-written program: each case takes its calls (YSteps::take_call) instead of drawing one.
  std::shared_ptr<const GivenProgram> given;
  // Every program of a scope, each case the next one (ParallelConfig::every_program), or null.
  std::shared_ptr<EveryProgramWalk> every;
};

/// Draws a list of up to `max` calls for a Y-program: before each, a "one more?" choice (about
/// 3 calls on average), and each call a span for the shrinker. `draw_one()` draws one call and
/// returns false when none can be drawn (the list ends there). `stop_at` receives where the
/// list was ended by a "no more" choice (kNoMark when it ended otherwise): after the prefix,
/// that is where a call moved out of a branch goes (Source::mark_concurrent_start).
template <class DrawOne>
std::size_t draw_call_list(Source& src, std::size_t max, std::size_t& stop_at, DrawOne draw_one) {
  std::size_t n = 0;
  stop_at = Source::kNoMark;
  for (; n < max; ++n) {
    const std::size_t span = src.begin_span();
    stop_at = src.position();
    if (src.draw(3, 1) == 0) break;
    stop_at = Source::kNoMark;
    if (!draw_one()) break;
    src.end_span(span);
  }
  return n;
}

/// Runs the search on one trial's history; remembers why it could not say yes. Model code
/// that throws is the spec's failure, and a search that runs out of budget decides nothing:
/// neither may pass for "explained".
struct TrialJudge {
  std::string model_error;
  bool undecided = false;
  std::uint64_t nodes = 0;
  /// After a violation: the longest order of the calls the search placed (the closest
  /// sequential witness reports show, with the states along it, when the spec prints them).
  std::vector<std::size_t> order;

  template <class Oracle>
  bool operator()(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency) {
    SearchBudget budget;
    budget.max_seconds = 10;
    try {
      SearchResult r = linearize_short(ops, oracle, consistency, budget);
      nodes = r.nodes;
      if (r.verdict == SearchVerdict::violation) order = std::move(r.order);
      if (r.verdict == SearchVerdict::unknown) {
        undecided = true;
        return false;
      }
      return r.verdict == SearchVerdict::ok;
    } catch (...) {
      model_error = threw("the oracle");
      return false;
    }
  }
  /// Fills out for the two non-verdict endings; false when the trial was a real violation.
  bool finish(CaseOutcome& out) const {
    if (!model_error.empty()) {
      out.kind = CaseOutcome::Kind::fail;
      out.message = model_error;
      return true;
    }
    if (undecided) {
      out.kind = CaseOutcome::Kind::error;
      out.message = "the linearizability search could not decide within its budget (" + std::to_string(nodes) +
                    " steps, 10 s): the program is too large for this oracle; use shorter branches";
      return true;
    }
    return false;
  }
};

/// Runs a program's trials: fresh subject, prefix, branches on the executor, suffix, then the
/// search. Subject and calls are type-erased by the caller.
template <class Subject>
struct TrialRunner {
  std::function<std::unique_ptr<Subject>()> make;
  std::function<Result(std::size_t call, Subject&)> call;
  /// Takes the subject of a trial that ran to its end (to reset and reuse); empty: destroyed.
  /// Not given a subject that started threads still running (on fibers they end with the run).
  std::function<void(std::unique_ptr<Subject>)> recycle = {};
  /// Told that the subject of a trial that ran to its end is destroyed, not recycled (optional).
  std::function<void()> destroyed = {};
};

/// Runs one trial (TrialDriver::run_whole_trial: on fibers, the whole trial is in the run) as a
/// step's verdict: a subject that cannot be made (`maker` threw: the spec's init_sut, say) is an
/// error, named as the sequential engine names it; a fiber run that deadlocked, livelocked or
/// raced is the program's failure. A run that stopped mid-call (that, or the choices ran out)
/// abandons the subject: its fibers may still hold its locks or be inside its operations, so it
/// is neither used again nor destroyed.
template <class Subject>
StepVerdict run_trial_verdict(const TrialRunner<Subject>& r, const YShape& shape, Executor& executor, const Noise& noise,
                              std::vector<Observed>& observed, const char* maker) {
  clear_observed(observed, shape);
  std::unique_ptr<Subject> subject;
  std::string make_error;
  auto one = [&](std::size_t i) {
    Observed& o = observed[i];
    o.cpu = current_cpu();
    o.invoke = event_time(CallEdge::invoke);
    try {
      o.result = r.call(i, *subject);
    } catch (...) {
      o.result = Result::current_exception();
    }
    o.response = event_time(CallEdge::response);
  };
  TrialParts parts;
  parts.setup = [&] {
    try {
      subject = r.make();
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      make_error = threw(maker);
      return;
    }
    for (std::size_t i = 0; i < shape.prefix; ++i) one(i);
  };
  std::vector<std::function<void()>> branches;
  for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b)
    branches.push_back([&one, &noise, &subject, at, len = shape.branches[b]] {
      if (!subject) return;  // not made: the trial is an error
      for (std::size_t k = 0; k < len; ++k) {
        noise.before_call(at + k);
        one(at + k);
      }
    });
  parts.suffix = [&] {
    if (!subject) return;
    for (std::size_t i = shape.size() - shape.suffix; i < shape.size(); ++i) one(i);
  };
  parts.finish = [&](bool keep) {
    if (subject && keep && r.recycle) r.recycle(std::move(subject));
    if (subject && r.destroyed) r.destroyed();
    subject.reset();
  };
  try {
    executor.trial_driver().run_whole_trial(executor, branches, parts);
  } catch (const ScheduleFailed& f) {
    abandon(subject.release());
    return f.duet_limit ? StepVerdict::error(f.message) : StepVerdict::fail(f.message);
  } catch (const Overrun&) {
    abandon(subject.release());
    throw;
  }
  if (!make_error.empty()) return StepVerdict::error(make_error);
  return {};
}

std::string consistency_name(Consistency c);
/// What a replay token must match besides the spec: the program's shape and how it is run.
std::string shape_signature(const ParallelConfig& pc);
/// The settings a parallel property's cases share: the shape, the executor (a thread pool
/// unless one is given); sets the property's replay attempts for that executor. With `given`
/// (a scenario), every case runs that program, and an exhaustive search ends the check once it
/// has explored the program's schedules.
std::shared_ptr<ParallelParams> parallel_params(const ParallelConfig& pc, Property& p,
                                                std::shared_ptr<const GivenProgram> given = nullptr);
/// Gives a property that runs on threads its twin on fibers (Property::fiber_twin): `build`
/// makes the same property under another ParallelConfig. Nothing where the check runs on fibers
/// already, or cannot (per-thread hooks, an executor of its own).
void offer_fiber_twin(Property& p, const ParallelConfig& pc, std::function<Property(const ParallelConfig&)> build);

/// What a front end supplies to the parallel case loop: how to draw a call for each part of a
/// Y-program, run a trial, judge it and show it. The loop (run_y_case) draws the shape from the
/// choice stream, runs the trials and builds the outcome, the same for every front end.
class YSteps {
 public:
  enum class Part : unsigned char { prefix, branch, suffix };
  virtual ~YSteps() = default;
  /// A new list of calls starts: the prefix, branch `branch`, or the suffix. `ops`: the
  /// operations its calls may use (ParallelConfig::roles), by name; null: any.
  virtual void begin_part(Part part, std::size_t branch, const std::vector<std::string>* ops) = 0;
  /// Draws one call of the current part (CaseSteps::Drawn's meanings). On `failed`, fills
  /// `failure`, recording the trace itself when given one.
  virtual CaseSteps::Drawn draw_call(Source& src, Trace* trace, StepVerdict& failure) = 0;
  /// Takes call `i` (report order) of the hand-written program (ParallelParams::given) into the
  /// current part, instead of drawing one: anything but ok is an error of the scenario (a
  /// precondition it breaks, say).
  virtual StepVerdict take_call(std::size_t i) {
    (void)i;
    return StepVerdict::error("this front end takes no hand-written program");
  }
  /// After drawing: false rejects the whole program (a precondition could fail in some
  /// interleaving): the case is empty, not failed, unless `failure` says why it ended (spec
  /// code threw).
  virtual bool accept(const YShape&, StepVerdict&) { return true; }
  /// Whether the program has anything to run.
  virtual bool runnable(const YShape& shape) const { return shape.size() > 0; }
  /// One trial: a fresh subject, the program run (with `noise` before each branch call),
  /// `observed` filled. Anything but ok ends the case (a constructor that throws, say).
  virtual StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise,
                            std::vector<Observed>& observed) = 0;
  /// Whether some order of the calls explains the trial (searching with `judge`).
  virtual bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                         Consistency consistency) = 0;
  /// explained() runs the candidate (duet::Lin's oracle): the loop runs it with
  /// TrialDriver::run_alone, and then oracle_done(keep) in the same place, where a subject the
  /// oracle keeps is destroyed unless `keep` (nothing it started is still running).
  virtual bool oracle_runs_candidate() const { return false; }
  virtual void oracle_done(bool keep) { (void)keep; }
  /// The failing trial's verdict line.
  virtual std::string violation(Consistency consistency) const = 0;
  /// For a failing program's draft: the program as a scenario test (Trace::ScenarioDraft's
  /// declarations, type, check and calls), `signature`, what the front end's scenario check
  /// hashes into its spec id before scenario_signature, and `keys`, the calls as that check's
  /// GivenProgram names them when not as the report does. False when it cannot be written.
  virtual bool scenario_draft(Trace::ScenarioDraft& draft, std::string& signature, std::vector<std::string>& keys) const {
    (void)draft;
    (void)signature;
    (void)keys;
    return false;
  }
  /// Records the failing trial for the report.
  virtual void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
                      const std::string& verdict) const = 0;
};

/// Makes a case's steps afresh: a walk over every program (ParallelConfig::every_program) draws
/// paths until one gives a program not run before, each with steps of its own.
using MakeYSteps = std::function<std::unique_ptr<YSteps>()>;

/// One parallel case: a Y-program drawn, then its trials until one is not explained. `steps`
/// draws the case's program, or its first path in a walk over every program; `afresh` makes
/// the steps of each further path.
CaseOutcome run_y_case(YSteps& steps, const ParallelParams& pp, Source& src, Trace* trace, const CaseParams& cp,
                       const MakeYSteps& afresh);

/// The report part of a failing program: the diagram and the verdict line.
void record_y(Trace* trace, const YShape& shape, const std::vector<std::string>& calls,
              const std::vector<Observed>& observed, const std::string& setup, const std::string& verdict);

/// Replays of a parallel program (each already `trials` runs) before concluding it passes.
inline constexpr int kParallelReplayAttempts = 20;

/// Validates the shape; empty when fine.
std::string check_parallel_config(const ParallelConfig& pc);
CheckResult parallel_config_error(const std::string& name, const std::string& why);

/// expect_unsafe's program settings: noise on unless the caller said otherwise.
inline ParallelConfig unsafe_config(ParallelConfig pc) {
  if (!pc.noise) pc.noise = true;
  return pc;
}

/// expect_unsafe's default budget: a race is a matter of chance, so a negative test searches
/// far longer than a positive check's 1 s: kUnsafeSeconds on fibers; on threads a quantity of
/// work, kUnsafeOverlappedTrials trials whose branches overlapped (about a minute on an idle
/// machine), within kUnsafeSecondsOnThreads, since a loaded machine runs trials tens of times
/// slower and a budget in seconds would then search far less than it says (docs/parallel.md has
/// the measurements behind the numbers).
inline constexpr double kUnsafeSeconds = 60;
inline constexpr std::uint64_t kUnsafeOverlappedTrials = 2'000'000;
inline constexpr double kUnsafeSecondsOnThreads = 600;

/// The property as a negative test: it passes when the check finds a counterexample. Its
/// default budget (no count or time given) is above; a walk over every program has none but
/// the walk.
inline Property expecting_failure(Property p) {
  p.expect_failure = true;
  const bool on_threads = p.execution->needs_overlap();
  if (!p.unfinished) p.default_time = on_threads ? kUnsafeSecondsOnThreads : kUnsafeSeconds;
  if (on_threads) p.max_overlapped_trials = kUnsafeOverlappedTrials;
  return p;
}

/// The check runs on the fiber scheduler (pc.executor is duet::fibers(...)).
bool runs_on_fibers(const ParallelConfig& pc);

}  // namespace detail
}  // namespace duet
