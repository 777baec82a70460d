// The parallel runner: Y-shaped programs (a sequential prefix, then branches run at once on
// threads, then an optional suffix), each run for many trials. An outcome passes only if some
// sequential order of the calls, consistent with each branch's order and with real-time order,
// explains every observed result — with the state-machine model as the oracle, or, for a
// signature-only description, the candidate itself run sequentially.
//
//   TEST(Queue, Linearizable) { EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3})); }
//   TEST(StdVector, NotThreadSafe) { EXPECT_TRUE(duet::expect_unsafe<VectorSpec>()); }
//   TEST(TbbQueue, Linearizable) { EXPECT_TRUE(duet::check_parallel(lin)); }   // lin: a duet::Lin<T>
#pragma once

#include <algorithm>
#include <functional>
#include <numeric>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/engine.hpp"
#include "duet/executor.hpp"
#include "duet/hash.hpp"
#include "duet/detail/erased_oracle.hpp"
#include "duet/detail/rng.hpp"
#include "duet/lin.hpp"
#include "duet/result.hpp"
#include "duet/state_machine.hpp"

namespace duet {

using detail::Consistency;

/// Who may call what: `count` branches of a Y-program call only the operations `ops`, by the
/// name a call prints before its `(` (`push` for `q.push(3)`). A single-producer queue is
/// correct only with one producer; a work-stealing deque only when one owner pushes and pops.
///
///   EXPECT_TRUE(duet::check_parallel<SpscSpec>({.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}}));
///   EXPECT_TRUE(duet::check_parallel(deque, {.roles = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}}}));
struct Role {
  std::string name;
  std::size_t count = 1;
  std::vector<std::string> ops;
};

/// The shape of Y-programs and how they run. Defaults: see docs/parallel.md for the
/// measurements behind them.
struct ParallelConfig {
  std::size_t branches = 2;        // 2 to 8; with roles, the roles' counts add up to it
  // Which operations each branch may call (none: every branch may call every operation). The
  // prefix and the suffix run alone, ordered before and after every branch, and may call any
  // operation (a handle's constructor, say). See Role.
  std::vector<Role> roles = {};
  std::size_t branch_length = 4;   // calls per branch at most (about half on average)
  std::size_t prefix_length = 3;   // calls before the branches at most
  std::size_t suffix_length = 0;   // calls after the branches at most
  std::size_t trials = 20;         // runs of each program (stops at the first failing one)
  Consistency consistency = Consistency::linearizable;
  // Pin every branch (the calling thread runs branch 0) to its own CPU for the check, when the
  // process may use at least as many CPUs as there are branches; the caller's affinity is
  // restored afterwards. Without it the kernel often runs both branches on one CPU.
  bool pin_threads = true;
  // Random short delays (spins, now and then a yield) before the branches' calls on threads, so
  // that the branches meet at different points from trial to trial. Default: on for
  // expect_unsafe, off for check_parallel. Ignored on fibers, whose scheduler does that job.
  std::optional<bool> noise = std::nullopt;
  std::shared_ptr<Executor> executor = nullptr;  // default: a thread pool kept for the check
  // Per-thread setup and teardown for the pool a check makes (registration with an RCU library,
  // say): see ThreadHooks. With an executor of your own, give them to make_thread_pool (or, on
  // fibers, FiberOptions::on_fiber_start / on_fiber_stop) instead: here they would be an error.
  ThreadHooks thread_hooks = {};
};

namespace detail {

/// A program's calls, in the order a report lists them: prefix, branch 0, branch 1, ..., suffix.
struct YShape {
  std::size_t prefix = 0;
  std::vector<std::size_t> branches;  // lengths
  std::size_t suffix = 0;
  std::vector<std::string> roles;     // each branch's role as reports label it, or none
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
  unsigned level = 0;  // 0: none; 1: spins up to 0.25 µs; 2: up to 4 µs
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

/// The Y diagram: the prefix on top, one column per branch, the suffix below; `call : result`.
std::string y_diagram(const YShape& shape, const std::vector<std::string>& calls, const std::vector<std::string>& results);

/// The operation a call's text names: the word before its first `(` ("push" for "push(3)",
/// "set" for "auto a1 = set(a0, 0, 1)"), or the text when it has no `(`.
std::string op_name(std::string_view call);

/// Whether `ops` (null: any) lets a call of operation `name` run.
inline bool op_allowed(const std::vector<std::string>* ops, std::string_view name) {
  return !ops || std::find(ops->begin(), ops->end(), name) != ops->end();
}

/// Why the roles name an operation the spec does not have (`known`: its operations), or empty.
std::string roles_error(const ParallelConfig& pc, const std::vector<std::string>& known);

/// The number of branches: the roles' counts added up, or ParallelConfig::branches.
std::size_t branch_count(const ParallelConfig& pc);

/// How often each program is run, as settings: trials are the parallel runner's inner loop.
struct ParallelParams {
  ParallelConfig config;
  std::shared_ptr<Executor> executor;
  bool noise = false;  // on threads, with ParallelConfig::noise (or expect_unsafe's default)
  bool noise_yields = false;  // branches share CPUs (or are not pinned)
  // With roles: each branch's role (an index into config.roles) and label.
  std::vector<std::size_t> branch_role;
  std::vector<std::string> branch_labels;
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
    if (src.draw(3) == 0) break;
    stop_at = Source::kNoMark;
    if (!draw_one()) break;
    src.end_span(span);
  }
  return n;
}

/// The state-machine model as the search core's oracle.
template <class Spec>
struct ModelOracle {
  using State = typename Spec::State;
  using Cmd = typename Spec::Cmd;
  static constexpr bool memo = EqualityComparable<State>;
  const std::vector<Cmd>* cmds;
  const std::vector<Observed>* observed;
  State initial() const { return initial_state<Spec>(); }
  bool apply(State& s, std::size_t i) const {
    const Cmd& c = (*cmds)[i];
    const Result& got = (*observed)[i].result;
    if constexpr (HasPrecondition<Spec>)
      if (!Spec::precondition(c, s)) return false;
    if constexpr (HasExpected<Spec>)
      if (!(Spec::expected(c, s) == got)) return false;
    if constexpr (HasPostcondition<Spec>)
      if (!Spec::postcondition(c, s, got).ok) return false;
    apply_next<Spec>(c, s);
    return true;
  }
  std::uint64_t hash(const State& s) const { return hash_value(s); }
  bool equal(const State& a, const State& b) const {
    if constexpr (memo) return a == b;
    else return false;
  }
};

/// A relaxed spec (next_states) as the search core's oracle: its state is the set of states the
/// model may be in, each call's observed result taking every one of them to the states it
/// allows. Deciding on sets keeps the search exact (an order fits if some choice of states fits
/// it all the way), and memoises on the set: two prefixes that leave the same set are one.
template <class Spec>
struct RelaxedModelOracle {
  using ModelState = typename Spec::State;
  using State = std::vector<ModelState>;
  using Cmd = typename Spec::Cmd;
  static constexpr bool memo = EqualityComparable<ModelState>;
  const std::vector<Cmd>* cmds;
  const std::vector<Observed>* observed;
  const std::vector<Caller>* callers = nullptr;  // each call's thread (null: all the main thread's)
  State initial() const { return {initial_state<Spec>()}; }
  bool apply(State& states, std::size_t i) const {
    const Cmd& c = (*cmds)[i];
    const Result& got = (*observed)[i].result;
    State next;
    for (const ModelState& s : states) {
      if constexpr (HasPrecondition<Spec>)
        if (!Spec::precondition(c, s)) continue;
      for (ModelState& t : next_states_of<Spec>(c, s, got, callers ? (*callers)[i] : Caller{})) {
        if constexpr (memo)
          if (std::find(next.begin(), next.end(), t) != next.end()) continue;
        next.push_back(std::move(t));
      }
    }
    states = std::move(next);
    return !states.empty();
  }
  // Order-independent: a set's hash does not depend on the order its states were reached in.
  std::uint64_t hash(const State& states) const {
    std::uint64_t h = states.size();
    for (const ModelState& s : states) h += mix64(hash_value(s));
    return h;
  }
  bool equal(const State& a, const State& b) const {
    if constexpr (memo) {
      if (a.size() != b.size()) return false;
      for (const ModelState& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) return false;
      return true;
    } else {
      return false;
    }
  }
};

/// The oracle of a state-machine spec: relaxed or not.
template <class Spec>
using SpecOracle = std::conditional_t<HasNextStates<Spec>, RelaxedModelOracle<Spec>, ModelOracle<Spec>>;

/// Runs the search on one trial's history; remembers why it could not say yes. Model code
/// that throws is the spec's failure, and a search that runs out of budget decides nothing:
/// neither may pass for "explained".
struct TrialJudge {
  std::string model_error;
  bool undecided = false;
  std::uint64_t nodes = 0;

  template <class Oracle>
  bool operator()(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency) {
    SearchBudget budget;
    budget.max_seconds = 10;
    try {
      const SearchResult r = linearize_short(ops, oracle, consistency, budget);
      nodes = r.nodes;
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

/// Runs a program's trials: fresh subject, prefix on this thread, branches on the executor,
/// suffix on this thread, then the search. Subject and calls are type-erased by the caller.
template <class Subject>
struct TrialRunner {
  std::function<std::unique_ptr<Subject>()> make;
  std::function<Result(std::size_t call, Subject&)> call;
  /// Takes the subject of a trial that ran to its end (to reset and reuse); empty: destroyed.
  std::function<void(std::unique_ptr<Subject>)> recycle = {};
};

/// Returns the subject, unless the run stopped mid-call (then it is abandoned: see below).
template <class Subject>
std::unique_ptr<Subject> run_trial(const TrialRunner<Subject>& r, std::unique_ptr<Subject> subject, const YShape& shape,
                                   Executor& executor, const Noise& noise, std::vector<Observed>& observed) {
  auto one = [&](std::size_t i) {
    Observed& o = observed[i];
    o.cpu = current_cpu();
    o.invoke = event_time();
    try {
      o.result = r.call(i, *subject);
    } catch (...) {
      o.result = Result::current_exception();
    }
    o.response = event_time();
  };
  for (std::size_t i = 0; i < shape.prefix; ++i) one(i);
  std::vector<std::function<void()>> branches;
  for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b)
    branches.push_back([&one, &noise, at, len = shape.branches[b]] {
      for (std::size_t k = 0; k < len; ++k) {
        noise.before_call(at + k);
        one(at + k);
      }
    });
  try {
    executor.run(branches);
  } catch (const ScheduleFailed&) {
    // The run stopped mid-call (a deadlock, or the choices ran out): abandoned fibers may still
    // hold the subject's locks or be inside its operations, so it is neither used again nor
    // destroyed.
    abandon(subject.release());
    throw;
  } catch (const Overrun&) {
    abandon(subject.release());
    throw;
  }
  const std::size_t suffix_at = shape.size() - shape.suffix;
  for (std::size_t i = suffix_at; i < shape.size(); ++i) one(i);
  return subject;
}

/// run_trial as a step's verdict: a subject that cannot be made (`maker` threw: the spec's
/// init_sut, say) is an error, named as the sequential engine names it; a fiber run that
/// deadlocked, livelocked or raced is the program's failure.
template <class Subject>
StepVerdict run_trial_verdict(const TrialRunner<Subject>& r, const YShape& shape, Executor& executor,
                              const Noise& noise, std::vector<Observed>& observed, const char* maker) {
  observed.assign(shape.size(), Observed{});
  std::unique_ptr<Subject> subject;
  try {
    subject = r.make();
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    return StepVerdict::error(threw(maker));
  }
  try {
    subject = run_trial(r, std::move(subject), shape, executor, noise, observed);
    if (r.recycle) r.recycle(std::move(subject));
  } catch (const ScheduleFailed& f) {
    return f.duet_limit ? StepVerdict::error(f.message) : StepVerdict::fail(f.message);
  }
  return {};
}

std::string consistency_name(Consistency c);
/// What a replay token must match besides the spec: the program's shape and how it is run.
std::string shape_signature(const ParallelConfig& pc);
/// The settings a parallel property's cases share: the shape, the executor (a thread pool
/// unless one is given); sets the property's replay attempts for that executor.
std::shared_ptr<ParallelParams> parallel_params(const ParallelConfig& pc, Property& p);

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
  /// The failing trial's verdict line.
  virtual std::string violation(Consistency consistency) const = 0;
  /// Records the failing trial for the report.
  virtual void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
                      const std::string& verdict) const = 0;
};

/// One parallel case: a Y-program drawn, then its trials until one is not explained.
CaseOutcome run_y_case(YSteps& steps, const ParallelParams& pp, Source& src, Trace* trace, const CaseParams& cp);

/// The report part of a failing program: the diagram and the verdict line.
void record_y(Trace* trace, const YShape& shape, const std::vector<std::string>& calls, const std::vector<Observed>& observed,
              const std::string& setup, const std::string& verdict);

/// A state-machine spec's Y-programs: the prefix drawn from the initial state, each branch from
/// the state after the prefix, the suffix after the prefix and all branches in order; the
/// model is the oracle.
template <class Spec>
class ModelYSteps final : public YSteps {
  using Cmd = typename Spec::Cmd;
  using State = typename Spec::State;

 public:
  ModelYSteps() : state_(initial_state<Spec>()) {}

  void begin_part(Part part, std::size_t branch, const std::vector<std::string>* ops) override {
    ops_ = ops;
    if (part == Part::prefix) {
      drawing_ = &state_;
    } else if (part == Part::branch) {
      if (branch == 0) {
        after_prefix_ = state_;
        prefix_ = cmds_.size();
      }
      branch_state_ = *after_prefix_;
      drawing_ = &branch_state_;
    } else {
      // The suffix is drawn from the state after the branches run one after another: one of
      // the orders the search may pick. accept() checks its preconditions in every order.
      after_branches_ = *after_prefix_;
      for (std::size_t i = prefix_; i < cmds_.size(); ++i) apply_next<Spec>(cmds_[i], *after_branches_);
      drawing_ = &*after_branches_;
    }
  }

  CaseSteps::Drawn draw_call(Source& src, Trace*, StepVerdict& failure) override {
    std::optional<Cmd> c;
    CaseSteps::Drawn drawn = draw_command<Spec>(src, *drawing_, std::span(drawing_, 1), c, failure);
    // Another role's operation is drawn again here, not counted as a discard: the spec's
    // generator does not know roles, so its draws for a role are not its waste.
    for (int again = 0; ops_ && drawn == CaseSteps::Drawn::command && !op_allowed(ops_, op_name(show_command<Spec>(*c)));
         ++again) {
      if (again == kDrawAttempts) return CaseSteps::Drawn::rejected;
      drawn = draw_command<Spec>(src, *drawing_, std::span(drawing_, 1), c, failure);
    }
    if (drawn != CaseSteps::Drawn::command) return drawn;
    apply_next<Spec>(*c, *drawing_);
    cmds_.push_back(std::move(*c));
    return drawn;
  }

  // Every interleaving of the branches must satisfy every precondition (qcheck-stm's
  // all_interleavings_ok), or a correct candidate could be blamed for the spec's partiality.
  bool accept(const YShape& shape, StepVerdict& failure) override {
    if constexpr (HasPrecondition<Spec>) {
      std::uint64_t budget = 20000;
      std::vector<std::size_t> pos(shape.branches.size(), 0);
      std::vector<std::size_t> start(shape.branches.size());
      for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b) start[b] = at;
      const std::size_t suffix_at = shape.size() - shape.suffix;
      std::function<bool(const State&)> all_ok = [&](const State& s) -> bool {
        if (budget-- == 0) return false;
        bool any = false;
        for (std::size_t b = 0; b < pos.size(); ++b) {
          if (pos[b] == shape.branches[b]) continue;
          any = true;
          const Cmd& c = cmds_[start[b] + pos[b]];
          if (!Spec::precondition(c, s)) return false;
          State t = s;
          apply_next<Spec>(c, t);
          ++pos[b];
          const bool ok = all_ok(t);
          --pos[b];
          if (!ok) return false;
        }
        if (!any) {
          State t = s;
          for (std::size_t k = 0; k < shape.suffix; ++k) {
            if (!Spec::precondition(cmds_[suffix_at + k], t)) return false;
            apply_next<Spec>(cmds_[suffix_at + k], t);
          }
        }
        return true;
      };
      try {
        if (after_prefix_ && !all_ok(*after_prefix_)) return false;
      } catch (const EngineSignal&) {
        throw;
      } catch (...) {
        failure = StepVerdict::error(threw("the spec's `precondition`"));
        return false;
      }
    } else {
      (void)shape;
      (void)failure;
    }
    return true;
  }

  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise,
                    std::vector<Observed>& observed) override {
    const TrialRunner<typename Spec::Sut> runner{
        [] { return make_sut<Spec>(); }, [this](std::size_t i, typename Spec::Sut& sut) { return Spec::run(cmds_[i], sut); }};
    return run_trial_verdict(runner, shape, executor, noise, observed, sut_maker<Spec>());
  }

  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    SpecOracle<Spec> oracle{&cmds_, &observed};
    std::vector<Caller> callers;
    if constexpr (NextStatesOfCaller<Spec>) {
      callers = callers_of(shape);
      oracle.callers = &callers;
    }
    return judge(y_history(shape, observed), oracle, consistency);
  }

  std::string violation(Consistency consistency) const override {
    return "no " + consistency_name(consistency) + " order of the calls explains the results";
  }

  void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
              const std::string& verdict) const override {
    std::vector<std::string> calls;
    for (const Cmd& c : cmds_) calls.push_back(show_command<Spec>(c));
    record_y(trace, shape, calls, observed, setup_cpp<Spec>(), verdict);
    if (trace) trace->draft_setup = draft_setup_cpp<Spec>();
  }

 private:
  std::vector<Cmd> cmds_;
  State state_;  // the prefix's, as it is drawn
  std::optional<State> after_prefix_, after_branches_;
  State branch_state_ = state_;
  State* drawing_ = &state_;
  std::size_t prefix_ = 0;
  const std::vector<std::string>* ops_ = nullptr;
};

/// The names of the operations a state-machine spec's generator draws, as calls print them,
/// found by random walks from the initial state (a fixed seed: the same names every run). Roles
/// that name an operation not among them are refused before the check runs.
template <class Spec>
std::vector<std::string> sampled_op_names(std::size_t draws = 2000) {
  std::vector<std::string> names;
  try {
    Source src = Source::from_seed(0x0d0e5e11);
    std::optional<typename Spec::State> state;
    for (std::size_t i = 0; i < draws; ++i) {
      if (i % 25 == 0) state.emplace(initial_state<Spec>());
      std::optional<typename Spec::Cmd> c;
      StepVerdict failure;
      const CaseSteps::Drawn drawn = draw_command<Spec>(src, *state, std::span(&*state, 1), c, failure);
      if (drawn == CaseSteps::Drawn::failed) break;
      if (drawn != CaseSteps::Drawn::command) continue;
      std::string name = op_name(show_command<Spec>(*c));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
      apply_next<Spec>(*c, *state);
    }
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    // The spec's own code threw: the check itself will say so; the names seen so far stand.
  }
  return names;
}

template <class Spec>
CaseOutcome run_parallel_case(const ParallelParams& pp, Source& src, Trace* trace, const CaseParams& cp) {
  std::optional<ModelYSteps<Spec>> steps;
  try {
    steps.emplace();
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    CaseOutcome out;
    out.kind = CaseOutcome::Kind::error;
    out.message = threw("the model's initial state");
    return out;
  }
  return run_y_case(*steps, pp, src, trace, cp);
}

/// The candidate as its own oracle (qcheck-lin): the calls placed so far are replayed on a
/// fresh subject, and each call's result there must equal the observed one. Replaying, rather
/// than copying the subject, is what stays true to the candidate: a copy need not behave like
/// the original (a copied vector has a different capacity), nor == mean "behaves the same".
///
/// The subject of the last replay is kept with the calls it has run: the search goes deeper
/// from the state it just reached, so most calls run on it directly, and a replay from scratch
/// (after backtracking) resets it when the spec gives Lin::reset, else makes a fresh one.
template <class T>
struct CandidateOracle {
  static constexpr bool memo = false;
  using State = std::vector<std::size_t>;
  const Lin<T>* lin;
  const std::vector<typename Lin<T>::Call>* calls;
  const std::vector<Observed>* observed;
  mutable std::unique_ptr<T> kept = nullptr;  // a subject that has run exactly the calls of kept_calls
  mutable State kept_calls = {};
  mutable bool kept_used = false;  // kept has run other calls (a trial's subject, given to reset)

  State initial() const { return {}; }
  static Result run_call(const typename Lin<T>::Call& call, T& t) {
    try {
      return call.run(t);
    } catch (...) {
      return Result::current_exception();
    }
  }
  bool apply(State& s, std::size_t i) const {
    if (!kept || kept_used || kept_calls != s) {
      if (!kept || !lin->reset_subject(*kept)) kept = lin->make_subject();
      kept_used = false;
      kept_calls.clear();
      for (std::size_t k : s) {
        run_call((*calls)[k], *kept);
        kept_calls.push_back(k);
      }
    }
    kept_calls.push_back(i);
    if (!(run_call((*calls)[i], *kept) == (*observed)[i].result)) return false;
    s.push_back(i);
    return true;
  }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};

enum class LinMode { oracle, stress };

/// Replays of a parallel program (each already `trials` runs) before concluding it passes.
inline constexpr int kParallelReplayAttempts = 20;

/// A signature-only description's Y-programs: calls drawn independently of any state; the
/// candidate run sequentially is the oracle (or, for stress, no oracle: undeclared exceptions
/// fail).
template <class T>
class LinYSteps final : public YSteps {
  using Call = typename Lin<T>::Call;

 public:
  LinYSteps(const Lin<T>& lin, LinMode mode) : lin_(lin), mode_(mode), names_(lin.op_names()) {}
  void begin_part(Part, std::size_t, const std::vector<std::string>* ops) override {
    among_.clear();
    if (!ops) return;
    for (std::size_t k = 0; k < names_.size(); ++k)
      if (op_allowed(ops, names_[k])) among_.push_back(k);
  }
  CaseSteps::Drawn draw_call(Source& src, Trace*, StepVerdict& failure) override {
    Call call;
    const CaseSteps::Drawn drawn = lin_.draw_call(src, call, failure, among_);
    if (drawn == CaseSteps::Drawn::command) calls_.push_back(std::move(call));
    return drawn;
  }
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise,
                    std::vector<Observed>& observed) override {
    TrialRunner<T> runner{[this] { return fresh_subject(); }, [this](std::size_t i, T& t) { return calls_[i].run(t); }};
    if (lin_.resets()) runner.recycle = [this](std::unique_ptr<T> t) { spare_ = std::move(t); };
    return run_trial_verdict(runner, shape, executor, noise, observed, lin_.maker());
  }
  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    if (mode_ == LinMode::stress) {
      for (std::size_t i = 0; i < observed.size(); ++i)
        if (observed[i].result.is_exception() && !lin_.op_may_throw(calls_[i].op)) {
          why_ = calls_[i].text + " threw " + observed[i].result.exception_type() + " (declare it .may_throw() if it may)";
          return false;
        }
      return true;
    }
    // With Lin::reset, one subject serves the trials and the searches in turn.
    CandidateOracle<T> oracle{&lin_, &calls_, &observed};
    oracle.kept = std::move(spare_);
    oracle.kept_used = true;
    const bool explained = judge(y_history(shape, observed), oracle, consistency);
    if (lin_.resets()) spare_ = std::move(oracle.kept);
    return explained;
  }
  std::string violation(Consistency consistency) const override {
    if (mode_ == LinMode::stress) return why_;
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the candidate run sequentially)";
  }
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
              const std::string& verdict) const override {
    std::vector<std::string> texts;
    for (const Call& c : calls_) texts.push_back(c.text);
    record_y(trace, shape, texts, observed, lin_.setup_cpp(), verdict);
  }

 private:
  // The previous trial's or search's subject, reset (Lin::reset), or a new one.
  std::unique_ptr<T> fresh_subject() {
    if (spare_ && lin_.reset_subject(*spare_)) return std::move(spare_);
    return lin_.make_subject();
  }

  const Lin<T>& lin_;
  LinMode mode_;
  std::vector<Call> calls_;
  std::string why_;
  std::vector<std::string> names_;
  std::vector<std::size_t> among_;  // the current part's operations (empty: all)
  std::unique_ptr<T> spare_;        // with Lin::reset: a used subject, to reset
};

template <class T>
CaseOutcome run_lin_parallel_case(const Lin<T>& lin, LinMode mode, const ParallelParams& pp, Source& src, Trace* trace,
                                  const CaseParams& cp) {
  LinYSteps<T> steps(lin, mode);
  return run_y_case(steps, pp, src, trace, cp);
}

template <class T>
Property lin_parallel_property(const Lin<T>& lin, LinMode mode, const ParallelConfig& pc) {
  Property p;
  p.name = lin.name();
  p.spec_id = hash32(lin.signature() + (mode == LinMode::stress ? "/stress-parallel" : "/parallel") + shape_signature(pc));
  auto pp = parallel_params(pc, p);
  p.run_case = [lin, mode, pp](Source& src, const CaseParams& cp, Trace* trace) {
    return run_lin_parallel_case(lin, mode, *pp, src, trace, cp);
  };
  return p;
}

template <class Spec>
Property parallel_property(const ParallelConfig& pc) {
  Property p = state_machine_property<Spec>();
  auto pp = parallel_params(pc, p);
  p.spec_id = hash32(p.name + "/parallel" + shape_signature(pc));
  p.run_case = [pp](Source& src, const CaseParams& cp, Trace* trace) { return run_parallel_case<Spec>(*pp, src, trace, cp); };
  return p;
}


/// Validates the shape; empty when fine.
std::string check_parallel_config(const ParallelConfig& pc);
CheckResult parallel_config_error(const std::string& name, const std::string& why);

/// Validates the shape, and the roles against the operations the spec's generator draws.
template <class Spec>
std::string spec_parallel_error(const ParallelConfig& pc) {
  std::string why = check_parallel_config(pc);
  if (why.empty() && !pc.roles.empty()) why = roles_error(pc, sampled_op_names<Spec>());
  return why;
}

/// Validates the shape, and the roles against the description's operations.
template <class T>
std::string lin_parallel_error(const Lin<T>& lin, const ParallelConfig& pc) {
  std::string why = check_parallel_config(pc);
  if (why.empty()) why = roles_error(pc, lin.op_names());
  return why;
}
/// expect_unsafe's program settings: noise on unless the caller said otherwise.
inline ParallelConfig unsafe_config(ParallelConfig pc) {
  if (!pc.noise) pc.noise = true;
  return pc;
}

/// expect_unsafe's default budget: a race is a matter of chance, so a negative test searches
/// far longer than a positive check's 1 s, but stops early once this many trials had their
/// branches overlapping (docs/parallel.md has the measurements behind both numbers).
inline constexpr double kUnsafeSeconds = 60;
inline constexpr std::uint64_t kUnsafeOverlappedTrials = 2'000'000;

/// The property as a negative test: it passes when the check finds a counterexample. Its
/// default budget (no count or time given) is kUnsafeSeconds, and on threads also
/// kUnsafeOverlappedTrials.
inline Property expecting_failure(Property p) {
  p.expect_failure = true;
  p.default_time = kUnsafeSeconds;
  if (p.execution->needs_overlap()) p.max_overlapped_trials = kUnsafeOverlappedTrials;
  return p;
}

}  // namespace detail

/// Y-shaped programs on threads against the state-machine model: passes if every trial of
/// every program is linearizable (or sequentially consistent, with
/// `.consistency = duet::Consistency::sequential`).
///
///   EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3}));
template <class Spec>
CheckResult check_parallel(const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::spec_parallel_error<Spec>(pc); !why.empty())
    return detail::parallel_config_error(type_name<Spec>(), why);
  return detail::run_property(detail::parallel_property<Spec>(pc), config);
}

namespace detail {
/// The check runs on the fiber scheduler (pc.executor is duet::fibers(...)).
bool runs_on_fibers(const ParallelConfig& pc);
}  // namespace detail

/// One parallel case from raw bytes (a fuzzer's input; see duet/fuzz.hpp): the bytes choose the
/// program and, on the fiber scheduler, its schedules. Fibers only: on threads the outcome would
/// follow the timing, not the bytes.
///
///   auto r = duet::check_parallel_bytes<CounterSpec>({data, size}, {.executor = duet::fibers()});
template <class Spec>
CheckResult check_parallel_bytes(std::span<const std::uint8_t> bytes, const ParallelConfig& pc, const Config& config = {}) {
  if (auto why = detail::spec_parallel_error<Spec>(pc); !why.empty())
    return detail::parallel_config_error(type_name<Spec>(), why);
  if (!detail::runs_on_fibers(pc))
    return detail::nothing_tested(type_name<Spec>(), "a parallel check driven by a fuzzer's bytes needs the fiber scheduler "
                                                     "(ParallelConfig{.executor = duet::fibers()}): on threads the outcome "
                                                     "follows the timing, not the bytes");
  return detail::run_property(detail::parallel_property<Spec>(pc), config, bytes);
}

/// The negative test: passes only when duet finds (and shrinks) a program whose outcome no
/// sequential order explains, proving the subject unsafe for concurrent use. The report, shown
/// as information, says how many programs and trials it took.
///
///   EXPECT_TRUE(duet::expect_unsafe<StdVectorSpec>({}, {.time = 10}));
template <class Spec>
CheckResult expect_unsafe(const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::spec_parallel_error<Spec>(pc); !why.empty())
    return detail::parallel_config_error(type_name<Spec>(), why);
  return detail::run_property(detail::expecting_failure(detail::parallel_property<Spec>(detail::unsafe_config(pc))),
                              config);
}

/// Y-programs over a signature-only description, with the candidate as its own oracle: an
/// outcome passes if running the calls sequentially on a fresh subject, in some order that
/// respects real time, gives the same results (qcheck-lin).
///
///   auto lin = duet::Lin<tbb::concurrent_queue<int>>("queue", "q")
///       .op("push", [](tbb::concurrent_queue<int>& q, int x) { q.push(x); }, duet::small_int())
///       .op("try_pop", [](tbb::concurrent_queue<int>& q) { int x = 0; return q.try_pop(x) ? std::optional<int>(x) : std::nullopt; });
///   EXPECT_TRUE(duet::check_parallel(lin));
template <class T>
CheckResult check_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::oracle, pc), config);
}

/// The negative test over a signature-only description: passes when duet finds a program
/// whose outcome no sequential run of the candidate explains.
template <class T>
CheckResult expect_unsafe(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(
      detail::expecting_failure(detail::lin_parallel_property(lin, detail::LinMode::oracle, detail::unsafe_config(pc))),
      config);
}

/// Stress on threads with no oracle: fails only on an exception from an operation not declared
/// may_throw, a crash or a hang (checked while Y-programs run on threads).
template <class T>
CheckResult stress_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::lin_parallel_error(lin, pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::stress, pc), config);
}

}  // namespace duet
