// The parallel runner: Y-shaped programs (a sequential prefix, then branches run at once on
// threads, then an optional suffix), each run for many trials. An outcome passes only if some
// sequential order of the calls, consistent with each branch's order and with real-time order,
// explains every observed result — with the state-machine model as the oracle, or, for a
// signature-only description, the candidate itself run sequentially.
//
//   TEST(Queue, Linearizable) { EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3})); }
//   TEST(StdVector, NotThreadSafe) { EXPECT_TRUE(duet::expect_unsafe<VectorSpec>()); }
//   TEST(TbbQueue, Linearizable) { EXPECT_TRUE(lin.check_parallel()); }   // duet::Lin<T>
#pragma once

#include <algorithm>
#include <functional>
#include <numeric>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/engine.hpp"
#include "duet/detail/executor.hpp"
#include "duet/detail/hash.hpp"
#include "duet/detail/search.hpp"
#include "duet/lin.hpp"
#include "duet/result.hpp"
#include "duet/state_machine.hpp"

namespace duet {

using detail::Consistency;

/// The shape of Y-programs and how they run. Defaults: see docs/parallel.md for the
/// measurements behind them.
struct ParallelConfig {
  std::size_t branches = 2;        // 2 to 8
  std::size_t branch_length = 4;   // calls per branch at most (about half on average)
  std::size_t prefix_length = 3;   // calls before the branches at most
  std::size_t suffix_length = 0;   // calls after the branches at most
  std::size_t trials = 20;         // runs of each program (stops at the first failing one)
  Consistency consistency = Consistency::linearizable;
  bool pin_threads = false;        // bind worker i to CPU i
  std::shared_ptr<detail::Executor> executor;  // default: a thread pool kept for the check
};

namespace detail {

/// A program's calls, in the order a report lists them: prefix, branch 0, branch 1, ..., suffix.
struct YShape {
  std::size_t prefix = 0;
  std::vector<std::size_t> branches;  // lengths
  std::size_t suffix = 0;
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
};

/// Builds the history the search core checks: phases 0/1/2 for prefix, branches, suffix;
/// process 0 for prefix and suffix, 1 + b for branch b.
std::vector<TimedOp> y_history(const YShape& shape, const std::vector<Observed>& observed);

/// The Y diagram: the prefix on top, one column per branch, the suffix below; `call : result`.
std::string y_diagram(const YShape& shape, const std::vector<std::string>& calls, const std::vector<std::string>& results);

std::string describe_current_exception();

/// How often each program is run, as settings: trials are the parallel runner's inner loop.
struct ParallelParams {
  ParallelConfig config;
  std::shared_ptr<Executor> executor;
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

/// Draws a Y-program's commands from the model (state-machine specs): the prefix from the
/// initial state, each branch from the state after the prefix, the suffix after the prefix and
/// all branches in order. Returns false (and leaves the case empty) when the spec's
/// precondition could fail in some interleaving.
template <class Spec>
bool generate_y(Source& src, const ParallelConfig& pc, std::vector<typename Spec::Cmd>& cmds, YShape& shape,
                std::uint64_t& attempts, std::uint64_t& rejected) {
  using Cmd = typename Spec::Cmd;
  using State = typename Spec::State;
  std::size_t stop_at = Source::kNoMark;
  auto draw_calls = [&](State& state, std::size_t max) {
    return draw_call_list(src, max, stop_at, [&] {
      std::optional<Cmd> cmd;
      for (int attempt = 0; attempt < 16 && !cmd; ++attempt) {
        ++attempts;
        try {
          Cmd c = Spec::command(state)(src);
          if constexpr (HasPrecondition<Spec>)
            if (!Spec::precondition(c, state)) {
              ++rejected;
              continue;
            }
          cmd.emplace(std::move(c));
        } catch (const Discard&) {
          ++rejected;
        }
      }
      if (!cmd) return false;
      apply_next<Spec>(*cmd, state);
      cmds.push_back(std::move(*cmd));
      return true;
    });
  };
  State state = initial_state<Spec>();
  shape.prefix = draw_calls(state, pc.prefix_length);
  if (stop_at != Source::kNoMark) src.mark_concurrent_start(stop_at);  // else the prefix is full
  shape.branches.clear();
  State after_branches = state;
  for (std::size_t b = 0; b < pc.branches; ++b) {
    State branch_state = state;
    shape.branches.push_back(draw_calls(branch_state, pc.branch_length));
  }
  // The suffix is drawn from the state after the branches run one after another: one of the
  // orders the search may pick. Its preconditions are checked in every order below.
  for (std::size_t b = 0, at = shape.prefix; b < pc.branches; at += shape.branches[b], ++b)
    for (std::size_t k = 0; k < shape.branches[b]; ++k) {
      apply_next<Spec>(cmds[at + k], after_branches);
    }
  shape.suffix = draw_calls(after_branches, pc.suffix_length);

  if constexpr (HasPrecondition<Spec>) {
    // Every interleaving of the branches must satisfy every precondition (qcheck-stm's
    // all_interleavings_ok), or a correct candidate could be blamed for the spec's partiality.
    std::uint64_t budget = 20000;
    std::vector<std::size_t> pos(shape.branches.size(), 0);
    std::vector<std::size_t> start(shape.branches.size());
    for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b) start[b] = at;
    const std::size_t suffix_at = shape.prefix + std::accumulate(shape.branches.begin(), shape.branches.end(), std::size_t{0});
    std::function<bool(const State&)> all_ok = [&](const State& s) -> bool {
      if (budget-- == 0) return false;
      bool any = false;
      for (std::size_t b = 0; b < pos.size(); ++b) {
        if (pos[b] == shape.branches[b]) continue;
        any = true;
        const Cmd& c = cmds[start[b] + pos[b]];
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
          if (!Spec::precondition(cmds[suffix_at + k], t)) return false;
          apply_next<Spec>(cmds[suffix_at + k], t);
        }
      }
      return true;
    };
    if (!all_ok(state)) {
      ++rejected;
      cmds.clear();
      shape = YShape{};
      return false;
    }
  }
  return true;
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
      const SearchResult r = linearize(ops, oracle, consistency, budget);
      nodes = r.nodes;
      if (r.verdict == SearchVerdict::unknown) {
        undecided = true;
        return false;
      }
      return r.verdict == SearchVerdict::ok;
    } catch (...) {
      model_error = "the oracle threw " + describe_current_exception();
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

struct ParallelOutcome {
  bool failed = false;
  std::uint64_t trials = 0;
  std::string message;
};

/// Runs a program's trials: fresh subject, prefix on this thread, branches on the executor,
/// suffix on this thread, then the search. Subject and calls are type-erased by the caller.
template <class Subject>
struct TrialRunner {
  std::function<std::unique_ptr<Subject>()> make;
  std::function<Result(std::size_t call, Subject&)> call;
};

template <class Subject>
std::vector<Observed> run_trial(const TrialRunner<Subject>& r, const YShape& shape, Executor& executor) {
  std::vector<Observed> observed(shape.size());
  std::unique_ptr<Subject> subject = r.make();
  auto one = [&](std::size_t i) {
    Observed& o = observed[i];
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
    branches.push_back([&one, at, len = shape.branches[b]] {
      for (std::size_t k = 0; k < len; ++k) one(at + k);
    });
  executor.run(branches);
  const std::size_t suffix_at = shape.size() - shape.suffix;
  for (std::size_t i = suffix_at; i < shape.size(); ++i) one(i);
  return observed;
}

/// Trials of one program until one is not explained (or the trials run out).
template <class Subject, class Check>
ParallelOutcome run_trials(const TrialRunner<Subject>& runner, const YShape& shape, const ParallelParams& pp,
                           std::vector<Observed>& last, Check explained) {
  ParallelOutcome out;
  for (std::size_t t = 0; t < pp.config.trials; ++t) {
    ++out.trials;
    last = run_trial(runner, shape, *pp.executor);
    if (!explained(last)) {
      out.failed = true;
      return out;
    }
  }
  return out;
}

std::string consistency_name(Consistency c);
std::string shape_signature(const ParallelConfig& pc);

/// The report part of a failing program: the diagram and the verdict line.
void record_y(Trace* trace, const YShape& shape, const std::vector<std::string>& calls, const std::vector<Observed>& observed,
              const std::string& setup, const std::string& verdict);

template <class Spec>
CaseOutcome run_parallel_case(const ParallelParams& pp, Source& src, Trace* trace) {
  using Cmd = typename Spec::Cmd;
  CaseOutcome out;
  std::vector<Cmd> cmds;
  YShape shape;
  if (!generate_y<Spec>(src, pp.config, cmds, shape, out.attempts, out.rejected)) return out;
  out.commands = cmds.size();
  if (cmds.empty()) return out;
  TrialRunner<typename Spec::Sut> runner{[] { return make_sut<Spec>(); },
                                         [&cmds](std::size_t i, typename Spec::Sut& sut) { return Spec::run(cmds[i], sut); }};
  ModelOracle<Spec> oracle{&cmds, nullptr};
  std::vector<Observed> last;
  ParallelOutcome po;
  TrialJudge judge;
  try {
    po = run_trials(runner, shape, pp, last, [&](const std::vector<Observed>& observed) {
      oracle.observed = &observed;
      return judge(y_history(shape, observed), oracle, pp.config.consistency);
    });
  } catch (...) {
    out.kind = CaseOutcome::Kind::error;
    out.message = "the candidate's constructor threw " + describe_current_exception();
    return out;
  }
  out.trials = po.trials;
  if (!po.failed) return out;
  if (judge.finish(out)) return out;
  out.kind = CaseOutcome::Kind::fail;
  out.message = "no " + consistency_name(pp.config.consistency) + " order of the calls explains the results";
  if (trace) {
    std::vector<std::string> calls;
    for (const Cmd& c : cmds) calls.push_back(show_command<Spec>(c));
    record_y(trace, shape, calls, last, setup_cpp<Spec>(), out.message);
  }
  return out;
}

/// The candidate as its own oracle (qcheck-lin): the calls placed so far are replayed on a
/// fresh subject, and each call's result there must equal the observed one. Replaying, rather
/// than copying the subject, is what stays true to the candidate: a copy need not behave like
/// the original (a copied vector has a different capacity), nor == mean "behaves the same".
template <class T>
struct CandidateOracle {
  static constexpr bool memo = false;
  using State = std::vector<std::size_t>;
  const Lin<T>* lin;
  const std::vector<typename Lin<T>::Call>* calls;
  const std::vector<Observed>* observed;

  State initial() const { return {}; }
  static Result run_call(const typename Lin<T>::Call& call, T& t) {
    try {
      return call.run(t);
    } catch (...) {
      return Result::current_exception();
    }
  }
  bool apply(State& s, std::size_t i) const {
    std::unique_ptr<T> t = lin->make_subject();
    for (std::size_t k : s) run_call((*calls)[k], *t);
    if (!(run_call((*calls)[i], *t) == (*observed)[i].result)) return false;
    s.push_back(i);
    return true;
  }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};

enum class LinMode { oracle, stress };

/// Replays of a parallel program (each already `trials` runs) before concluding it passes.
inline constexpr int kParallelReplayAttempts = 20;

template <class T>
CaseOutcome run_lin_parallel_case(const Lin<T>& lin, LinMode mode, const ParallelParams& pp, Source& src, Trace* trace) {
  using Call = typename Lin<T>::Call;
  CaseOutcome out;
  std::vector<Call> calls;
  YShape shape;
  std::size_t stop_at = Source::kNoMark;
  auto draw_calls = [&](std::size_t max) {
    return draw_call_list(src, max, stop_at, [&] {
      ++out.attempts;
      calls.push_back(lin.generate_call(src));
      return true;
    });
  };
  shape.prefix = draw_calls(pp.config.prefix_length);
  if (stop_at != Source::kNoMark) src.mark_concurrent_start(stop_at);
  for (std::size_t b = 0; b < pp.config.branches; ++b) shape.branches.push_back(draw_calls(pp.config.branch_length));
  shape.suffix = draw_calls(pp.config.suffix_length);
  out.commands = calls.size();
  if (calls.empty()) return out;

  TrialRunner<T> runner{[&lin] { return lin.make_subject(); },
                        [&calls](std::size_t i, T& t) { return calls[i].run(t); }};
  CandidateOracle<T> oracle{&lin, &calls, nullptr};
  std::vector<Observed> last;
  std::string why;
  ParallelOutcome po;
  TrialJudge judge;
  try {
    po = run_trials(runner, shape, pp, last, [&](const std::vector<Observed>& observed) {
      if (mode == LinMode::stress) {
        for (std::size_t i = 0; i < observed.size(); ++i)
          if (observed[i].result.is_exception() && !lin.op_may_throw(calls[i].op)) {
            why = calls[i].text + " threw " + observed[i].result.exception_type() + " (declare it .may_throw() if it may)";
            return false;
          }
        return true;
      }
      oracle.observed = &observed;
      return judge(y_history(shape, observed), oracle, pp.config.consistency);
    });
  } catch (...) {
    out.kind = CaseOutcome::Kind::error;
    out.message = "the subject's constructor threw " + describe_current_exception();
    return out;
  }
  out.trials = po.trials;
  if (!po.failed) return out;
  if (judge.finish(out)) return out;
  out.kind = CaseOutcome::Kind::fail;
  out.message = mode == LinMode::stress ? why
                                        : "no " + consistency_name(pp.config.consistency) +
                                              " order of the calls explains the results (the oracle: the candidate "
                                              "run sequentially)";
  if (trace) {
    std::vector<std::string> texts;
    for (const Call& c : calls) texts.push_back(c.text);
    record_y(trace, shape, texts, last, lin.setup_cpp(), out.message);
  }
  return out;
}

template <class T>
Property lin_parallel_property(const Lin<T>& lin, LinMode mode, const ParallelConfig& pc) {
  Property p;
  p.name = lin.name();
  p.spec_id = hash32(lin.signature() + (mode == LinMode::stress ? "/stress-parallel" : "/parallel") + shape_signature(pc));
  p.replay_attempts = kParallelReplayAttempts;
  p.cheap_trace = true;
  auto pp = std::make_shared<ParallelParams>();
  pp->config = pc;
  pp->executor = pc.executor ? pc.executor : std::shared_ptr<Executor>(make_thread_pool(pc.pin_threads));
  p.run_case = [lin, mode, pp](Source& src, const CaseParams&, Trace* trace) {
    return run_lin_parallel_case(lin, mode, *pp, src, trace);
  };
  return p;
}

template <class Spec>
Property parallel_property(const ParallelConfig& pc) {
  Property p = state_machine_property<Spec>();
  auto pp = std::make_shared<ParallelParams>();
  pp->config = pc;
  pp->executor = pc.executor ? pc.executor : std::shared_ptr<Executor>(make_thread_pool(pc.pin_threads));
  p.spec_id = hash32(p.name + "/parallel" + shape_signature(pc));
  p.replay_attempts = kParallelReplayAttempts;
  p.cheap_trace = true;
  p.run_case = [pp](Source& src, const CaseParams&, Trace* trace) { return run_parallel_case<Spec>(*pp, src, trace); };
  return p;
}

/// What a replay token must match besides the spec: the program's shape and how it is run.
std::string shape_signature(const ParallelConfig& pc);
/// Validates the shape; empty when fine.
std::string check_parallel_config(const ParallelConfig& pc);
CheckResult parallel_config_error(const std::string& name, const std::string& why);
/// expect_unsafe's verdict from a search's: passes when a counterexample was found.
/// The property as a negative test: it passes when the check finds a counterexample.
inline Property expecting_failure(Property p) {
  p.expect_failure = true;
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
  if (auto why = detail::check_parallel_config(pc); !why.empty())
    return detail::parallel_config_error(type_name<Spec>(), why);
  return detail::run_property(detail::parallel_property<Spec>(pc), config);
}

/// The negative test: passes only when duet finds (and shrinks) a program whose outcome no
/// sequential order explains, proving the subject unsafe for concurrent use. The report, shown
/// as information, says how many programs and trials it took.
///
///   EXPECT_TRUE(duet::expect_unsafe<StdVectorSpec>({}, {.time = 10}));
template <class Spec>
CheckResult expect_unsafe(const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::check_parallel_config(pc); !why.empty())
    return detail::parallel_config_error(type_name<Spec>(), why);
  return detail::run_property(detail::expecting_failure(detail::parallel_property<Spec>(pc)), config);
}

/// Y-programs over a signature-only description, with the candidate as its own oracle: an
/// outcome passes if running the calls sequentially on a fresh subject, in some order that
/// respects real time, gives the same results (qcheck-lin).
///
///   auto lin = duet::Lin<tbb::concurrent_queue<int>>("queue", "q").op("push", ...).op("try_pop", ...);
///   EXPECT_TRUE(duet::check_parallel(lin));
template <class T>
CheckResult check_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::check_parallel_config(pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::oracle, pc), config);
}

/// The negative test over a signature-only description: passes when duet finds a program
/// whose outcome no sequential run of the candidate explains.
template <class T>
CheckResult expect_unsafe(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::check_parallel_config(pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::expecting_failure(detail::lin_parallel_property(lin, detail::LinMode::oracle, pc)),
                              config);
}

/// Stress on threads with no oracle: fails only on an exception from an operation not declared
/// may_throw, a crash or a hang (checked while Y-programs run on threads).
template <class T>
CheckResult stress_parallel(const Lin<T>& lin, const ParallelConfig& pc = {}, const Config& config = {}) {
  if (auto why = detail::check_parallel_config(pc); !why.empty()) return detail::parallel_config_error(lin.name(), why);
  return detail::run_property(detail::lin_parallel_property(lin, detail::LinMode::stress, pc), config);
}

}  // namespace duet
