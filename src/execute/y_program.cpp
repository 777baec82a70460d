// Y-shaped programs: the history handed to the search core, and the parallel case loop every
// front end runs them through.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <optional>
#include <span>
#include <sstream>

#include <sched.h>

#include "duet/detail/fiber_hooks.hpp"  // fiber::current
#include "duet/detail/trial_driver.hpp"
#include "duet/parallel.hpp"
#include "execute/call_order_check.hpp"
#include "execute/hang_clock.hpp"
#include "execute/named_executor.hpp"
#include "execute/trial_progress.hpp"
#include "execute/scenario_draft.hpp"
#include "execute/fibers/instrumented.hpp"  // the symbolised addresses
#include "execute/threads.hpp"
#include "execute/trial_process.hpp"
#include "generate/enumeration.hpp"

namespace duet::detail {

namespace {
constexpr std::size_t kMaxCpusCounted = 16;  // at most 8 branches of 4 calls: plenty
}

std::vector<TimedOp> y_history(const YShape& shape, const std::vector<Observed>& observed) {
  std::vector<TimedOp> ops(observed.size());
  std::size_t i = 0;
  for (; i < shape.prefix; ++i) ops[i] = {0, observed[i].invoke, observed[i].response, 0};
  for (std::size_t b = 0; b < shape.branches.size(); ++b)
    for (std::size_t k = 0; k < shape.branches[b]; ++k, ++i)
      ops[i] = {static_cast<std::uint32_t>(1 + b), observed[i].invoke, observed[i].response, 1};
  for (; i < observed.size(); ++i) ops[i] = {0, observed[i].invoke, observed[i].response, 2};
  return ops;
}

std::vector<Caller> callers_of(const YShape& shape) {
  std::vector<Caller> callers(shape.size());
  for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b)
    for (std::size_t k = 0; k < shape.branches[b]; ++k) callers[at + k].thread = b + 1;
  return callers;
}

void clear_observed(std::vector<Observed>& observed, const YShape& shape) { observed.assign(shape.size(), Observed{}); }

int current_cpu() noexcept {
  if (fiber::current()) return -1;
  return sched_getcpu();
}

TrialOverlap trial_overlap(const YShape& shape, const std::vector<Observed>& observed) {
  TrialOverlap t;
  int cpus[kMaxCpusCounted];
  std::size_t n_cpus = 0;
  std::vector<std::pair<std::size_t, std::size_t>> ranges;  // each branch's calls in `observed`
  // Front ends that check the prefix as it runs observe the branch calls only.
  const std::size_t first = observed.size() >= shape.size() ? shape.prefix : 0;
  for (std::size_t b = 0, at = first; b < shape.branches.size(); at += shape.branches[b], ++b)
    ranges.emplace_back(at, at + shape.branches[b]);
  for (std::size_t b = 0; b < ranges.size(); ++b) {
    for (std::size_t i = ranges[b].first; i < ranges[b].second && i < observed.size(); ++i) {
      const Observed& x = observed[i];
      if (x.cpu >= 0 && n_cpus < kMaxCpusCounted && std::find(cpus, cpus + n_cpus, x.cpu) == cpus + n_cpus)
        cpus[n_cpus++] = x.cpu;
      for (std::size_t c = b + 1; c < ranges.size() && !t.overlapped; ++c)
        for (std::size_t j = ranges[c].first; j < ranges[c].second && j < observed.size(); ++j)
          if (x.invoke < observed[j].response && observed[j].invoke < x.response) {
            t.overlapped = true;
            break;
          }
    }
  }
  t.cpus = n_cpus;
  return t;
}

namespace {
// Spins for about `ns` nanoseconds (a few cycles when tiny): timed, so that the delays mean the
// same on fast and slow machines.
void spin_for(std::uint64_t ns) {
  if (ns < 32) {
    for (std::uint64_t i = 0; i < ns; ++i) asm volatile("" ::: "memory");
    return;
  }
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
}
}  // namespace

void Noise::before_call(std::size_t call) const {
  if (level == 0) return;
  std::uint64_t h = mix64(seed ^ mix64(trial * 0x9e3779b97f4a7c15ULL + call + 1));
  const unsigned pick = h & 7;
  h >>= 3;
  if (pick < 3) return;  // 3 in 8: straight on
  if (pick == 7 && yields) {
    // Branches that share a CPU meet between calls only if one gives the CPU away.
    sched_yield();
    return;
  }
  // A length spread over orders of magnitude (0 to 2^max_log ns), so that short racy windows
  // and whole calls both get shifted across. Longer delays were measured to hurt: on a loaded
  // machine each one costs the trial rate more than it adds variety.
  const unsigned max_log = 4 + 4 * level;
  const unsigned lg = static_cast<unsigned>(h % (max_log + 1));
  h >>= 8;
  spin_for(h & ((std::uint64_t{1} << lg) - 1));
}

std::string Noise::describe() const {
  if (level == 0) return {};
  static constexpr const char* kMax[] = {"", "0.25 µs", "4 µs"};
  return std::string("random delays of up to ") + kMax[std::min(level, kLevels)] + " before the branches' calls" +
         (yields ? ", and yields" : "") + " (noise level " + std::to_string(level) + " of " + std::to_string(kLevels) + ")";
}

std::string consistency_name(Consistency c) {
  return c == Consistency::linearizable ? "linearizable" : "sequentially consistent";
}

namespace {

// One Y-program case: the program drawn from the stream and accepted by the front end, then run
// trial by trial until one is not explained.
struct YCase {
  YSteps& steps;
  const ParallelParams& pp;
  Source& src;
  Trace* trace;
  const CaseParams& cp;
  CaseOutcome out;
  YShape shape;
  std::size_t stop_at = Source::kNoMark;
  StepVerdict failure;  // why drawing failed, when `failed`
  bool failed = false;
  Noise noise;
  std::vector<Observed> observed;

  YCase(YSteps& y_steps, const ParallelParams& parallel, Source& source, Trace* case_trace, const CaseParams& params)
      : steps(y_steps), pp(parallel), src(source), trace(case_trace), cp(params) {}

  // The case ends on a failure or an error of the spec.
  CaseOutcome end(StepVerdict v) {
    out.kind = v.kind == StepVerdict::Kind::error ? CaseOutcome::Kind::error : CaseOutcome::Kind::fail;
    out.message = std::move(v.message);
    return out;
  }

  // Draws the calls of one part of the program (a branch draws from its role's operations).
  std::size_t draw_part(YSteps::Part part, std::size_t branch, std::size_t max) {
    const std::vector<std::string>* ops = nullptr;
    if (part == YSteps::Part::branch && !pp.branch_role.empty()) ops = &pp.config.roles[pp.branch_role[branch]].ops;
    steps.begin_part(part, branch, ops);
    return draw_call_list(src, max, stop_at, [&] {
      CaseSteps::Drawn drawn = CaseSteps::Drawn::rejected;
      // An enumeration tries once: another attempt's program is another path of its own.
      const int attempts = src.enumerated_values() != 0 ? 1 : kDrawAttempts;
      for (int attempt = 0; attempt < attempts && drawn == CaseSteps::Drawn::rejected; ++attempt) {
        ++out.attempts;
        drawn = steps.draw_call(src, trace, failure);
        if (drawn == CaseSteps::Drawn::rejected) ++out.rejected;
      }
      failed = failed || drawn == CaseSteps::Drawn::failed;
      return drawn == CaseSteps::Drawn::command;
    });
  }

  // Prefix, branches and suffix; false when a draw failed (`failure` says why).
  bool draw_program() {
    if (pp.given) return take_program();
    shape.prefix = draw_part(YSteps::Part::prefix, 0, pp.config.prefix_length);
    if (failed) return false;
    // A call moved out of a branch goes where the prefix's "no more" choice was (else the
    // prefix is full).
    if (stop_at != Source::kNoMark) src.mark_concurrent_start(stop_at);
    for (std::size_t b = 0; b < branch_count(pp.config); ++b) {
      shape.branches.push_back(draw_part(YSteps::Part::branch, b, pp.config.branch_length));
      if (failed) return false;
    }
    shape.roles = pp.branch_labels;
    shape.suffix = draw_part(YSteps::Part::suffix, 0, pp.config.suffix_length);
    return !failed;
  }

  // A hand-written program: its calls taken in report order, part by part; nothing is drawn.
  bool take_program() {
    const YShape& given = pp.given->shape;
    std::size_t i = 0;
    auto take_part = [&](YSteps::Part part, std::size_t branch, std::size_t n) {
      steps.begin_part(part, branch, nullptr);
      for (std::size_t k = 0; k < n && !failed; ++k, ++i) {
        failure = steps.take_call(i);
        failed = !failure.ok();
      }
      return !failed;
    };
    if (!take_part(YSteps::Part::prefix, 0, given.prefix)) return false;
    for (std::size_t b = 0; b < given.branches.size(); ++b)
      if (!take_part(YSteps::Part::branch, b, given.branches[b])) return false;
    if (!take_part(YSteps::Part::suffix, 0, given.suffix)) return false;
    shape = given;
    shape.roles = pp.branch_labels;
    out.attempts += shape.size();
    return true;
  }

  // A choice of the program, so it replays with the token and shrinks to none when the failure
  // does not need it; the delays themselves follow from the program's choices.
  void draw_noise() {
    if (!pp.noise) return;
    noise.level = static_cast<unsigned>(src.draw(Noise::kLevels));
    noise.yields = pp.noise_yields;
    for (std::uint64_t c : src.choices()) noise.seed = hash_combine(noise.seed, c);
  }

  // Isolation mode: if a trial kills the process, the report still shows the program.
  void show_program_before_trials() {
    Trace drawn;
    steps.record(&drawn, shape, std::vector<Observed>(shape.size()), "");
    // The calls without results: none has run yet.
    std::vector<std::string> calls = drawn.y_prefix;
    for (const auto& branch : drawn.y_branches) calls.insert(calls.end(), branch.begin(), branch.end());
    calls.insert(calls.end(), drawn.y_suffix.begin(), drawn.y_suffix.end());
    drawn.diagram = y_diagram(shape, calls, std::vector<std::string>(calls.size()));
    drawn.y_results.clear();
    drawn.failed = false;
    trace->observer->steps_done(drawn);
  }

  CaseOutcome run_trials();
  // How one trial ended: the case's outcome when the case ends there; else whether another
  // trial follows.
  struct TrialEnd {
    std::optional<CaseOutcome> outcome;
    bool next = true;
  };
  std::size_t schedule_start = 0;  // where the current trial's choices begin
  // In a trial's process, the oracle judges the trial's history inside its run, beside the
  // threads the trial left (TrialDriver::judge_at_trial_end): what it found, or what it threw.
  std::optional<bool> explained_in_run;
  std::exception_ptr judged_in_run_threw;
  void judge_in_run(TrialJudge& judge, TrialDriver& driver, std::size_t assertions_before) {
    explained_in_run.reset();
    judged_in_run_threw = nullptr;
    if (!in_trial_process() || !steps.oracle_runs_candidate()) return;
    driver.judge_at_trial_end([this, &judge, &driver, assertions_before] {
      if (cp.capture && cp.capture->count() != assertions_before) return;  // failed: nothing to judge
      try {
        explained_in_run = explains(observed, judge, driver);
      } catch (...) {
        judged_in_run_threw = std::current_exception();
      }
    });
  }
  TrialEnd run_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last);
  // The same in a process of its own (execute/trial_process.hpp).
  TrialEnd run_trial_in_process(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last);
  // The trial that drew its schedule from `schedule_start` on, into the trace, with `verdict`.
  void record_trial(std::size_t schedule_start, const std::string& verdict) {
    steps.record(trace, shape, observed, verdict);
    pp.executor->trial_driver().annotate(*trace, std::span(src.choices()).subspan(schedule_start));
    trace->noise = noise.describe();
    trace->given_program = pp.given != nullptr;
    record_scenario_draft(*trace, steps, pp, shape, std::span(src.choices()).subspan(schedule_start));
  }
  // The case fails with that trial.
  CaseOutcome fail_trial_from(std::size_t schedule_start, std::string message) {
    out.kind = CaseOutcome::Kind::fail;
    out.message = std::move(message);
    if (trace) record_trial(schedule_start, out.message);
    return out;
  }
  // Whether some order of the calls explains history `h`. A front end whose oracle runs the
  // candidate judges where the driver runs the candidate alone (on fibers, a run of its own).
  bool explains(const std::vector<Observed>& h, TrialJudge& judge, TrialDriver& driver) {
    if (&h == &observed && (explained_in_run || judged_in_run_threw)) {  // judged already (judge_in_run)
      if (judged_in_run_threw) std::rethrow_exception(std::exchange(judged_in_run_threw, nullptr));
      return *std::exchange(explained_in_run, std::nullopt);
    }
    if (!steps.oracle_runs_candidate()) return steps.explained(shape, h, judge, pp.config.consistency);
    bool explained = false;
    driver.run_alone([&] { explained = steps.explained(shape, h, judge, pp.config.consistency); },
                     [&](bool keep) { steps.oracle_done(keep); });
    return explained;
  }
  // A trial that ran to its end, judged once per program for each history (results and which
  // calls precede which): the case's outcome when it ends here.
  std::optional<CaseOutcome> judge_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver,
                                         std::size_t schedule_start, bool last) {
    try {
      const bool own = call_orders.explained_before(observed) || explains(observed, judge, driver);
      if (!own && judge.finish(out)) return out;
      const auto in_order = [&](const std::vector<Observed>& h) { return explains(h, judge, driver); };
      const CallOrderCheck::Verdict orders = call_orders.judge(observed, own, in_order);
      if (orders == CallOrderCheck::Verdict::failed)
        return fail_trial_from(schedule_start, steps.violation(pp.config.consistency));
      if (orders == CallOrderCheck::Verdict::unexplained && judge.finish(out)) return out;
    } catch (const ExecutorFailed& e) {  // the oracle's run of the candidate did not complete
      return end(StepVerdict::error(e.message));
    }
    if (trace && trace->record_pass && last) {
      // A replay the engine compares with the failing run it should have reproduced.
      record_trial(schedule_start, "");
      trace->failed = false;
    }
    return std::nullopt;
  }
  // Which operation each fiber's calls are, for their progress guarantees.
  void announce_branch_calls(TrialDriver& driver) {
    Trace drawn;
    steps.record(&drawn, shape, std::vector<Observed>(shape.size()), "");
    driver.branch_calls(drawn.y_branches);
  }
};

// On fibers every trial draws its schedule from the stream. A trial that passes gives its
// choices back (random mode), so a failing case's choices are its program and the failing
// schedule only: the token replays that schedule in the first trial, and the shrinker reduces
// program and schedule together. Replays run that one trial.
CaseOutcome YCase::run_trials() {
  TrialJudge judge;
  TrialDriver& driver = pp.executor->trial_driver();
  if (pp.config.progress.stated()) announce_branch_calls(driver);
  const std::size_t trials = driver.begin_program(shape.branches, pp.config.trials, src);
  // An exhaustive search may leave the calls' real-time orders to this loop: each trial is then
  // judged in every order of its calls its execution allows (call_order_check.hpp).
  CallOrderCheck call_orders(shape, driver, src.mode() == Source::Mode::random);
  for (std::size_t t = 0; t < trials; ++t) {
    ++out.trials;
    trial_starts_here();  // the case's hang limit is per trial
    trial_progress(out.trials);
    if (trace && trace->observer) trace->observer->trial_starts(out);
    noise.trial = t;
    // Asked before each trial: the first one's process tells whether the rest need one. A
    // fuzzer's bytes are read where they are: its trials stay in this process.
    const bool own_process = driver.trials_in_processes() && src.mode() != Source::Mode::bytes;
    const TrialEnd ended = own_process ? run_trial_in_process(judge, call_orders, driver, t + 1 == trials)
                                       : run_trial(judge, call_orders, driver, t + 1 == trials);
    if (ended.outcome) return *ended.outcome;
    if (!ended.next) break;
  }
  if (std::string why = call_orders.unshown_failure(); !why.empty()) return end(StepVerdict::error(std::move(why)));
  return out;
}

YCase::TrialEnd YCase::run_trial(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last) {
  schedule_start = src.position();
  driver.begin_trial(src);
  // Assertions (EXPECT_* and the like) that the calls raise where duet intercepts them (on the
  // calling thread, and on fibers) fail the trial; the oracle's own replays of the calls, while
  // it searches for an order, are not the program's and do not count.
  const std::size_t assertions_before = cp.capture ? cp.capture->count() : 0;
  StepVerdict v;
  judge_in_run(judge, driver, assertions_before);
  try {
    v = steps.trial(shape, *pp.executor, noise, observed);
  } catch (const ExecutorFailed& e) {
    driver.judge_at_trial_end({});
    return {end(StepVerdict::error(e.message))};
  }
  driver.judge_at_trial_end({});
  if (cp.capture && cp.capture->count() != assertions_before) {
    v = StepVerdict::fail("assertion failed: " + cp.capture->messages_since(assertions_before));
  } else {
    const TrialOverlap overlap = trial_overlap(shape, observed);
    out.overlapped += overlap.overlapped;
    out.cpus = std::max<std::uint64_t>(out.cpus, overlap.cpus);
  }
  if (!v.ok()) {
    // A crash, an assertion, a hang: where the run left the check's fences out, the search
    // looks for it again with them (call_order_check.hpp).
    if (v.kind != StepVerdict::Kind::fail) return {end(std::move(v))};
    if (!call_orders.search_again_with_fences(v.message)) return {fail_trial_from(schedule_start, std::move(v.message))};
  } else if (std::optional<CaseOutcome> ended = judge_trial(judge, call_orders, driver, schedule_start, last)) {
    return {std::move(ended)};
  }
  return {std::nullopt, driver.trial_passed(src, schedule_start)};
}

YCase::TrialEnd YCase::run_trial_in_process(TrialJudge& judge, CallOrderCheck& call_orders, TrialDriver& driver, bool last) {
  const std::size_t start = src.position();
  const Source::Drawn drawn_before = src.drawn_since(start);
  const CaseOutcome out_before = out;
  const TrialProcessEnd child = run_in_trial_process([&] {
    driver.enter_trial_process();
    TrialAnswer answer;
    try {
      const TrialEnd ended = run_trial(judge, call_orders, driver, last);
      answer.ended = ended.outcome.has_value();
      answer.next = ended.next;
    } catch (const EngineError& e) {
      answer.escaped = TrialAnswer::Escaped::engine_error;
      answer.what = e.what();
    } catch (const Overrun&) {
      answer.escaped = TrialAnswer::Escaped::overrun;
    } catch (const std::exception& e) {
      answer.escaped = TrialAnswer::Escaped::other;
      answer.what = e.what();
    }
    answer.outcome = out;
    answer.drawn = src.drawn_since(start);
    answer.totals = driver.trial_totals();
    answer.symbolized = fiber::symbolized_addresses();
    if (trace) answer.trace = *trace;
    return answer.encode(trace != nullptr);
  });
  schedule_start = start;
  if (!child.answered && driver.rerun_lost_trial_here()) return run_trial(judge, call_orders, driver, last);
  if (!child.answered) {
    src.truncate(start);
    clear_observed(observed, shape);  // the calls' results died with the process
    return {fail_trial_from(start, "the trial's own process " + child.why +
                                       " (each trial runs in a process of its own: FiberOptions::trial_processes)")};
  }
  TrialAnswer answer = TrialAnswer::decode(child.answer, trace != nullptr);
  driver.add_trial_totals(answer.totals);
  fiber::symbolize_ahead(answer.symbolized);  // the next trial's process starts with them read
  if (!driver.trials_in_processes()) {
    // The first trial, run alone only to learn that the check's trials need no process of their
    // own: it runs here again, so that this process goes on exactly as it would have.
    src.continue_from(start, drawn_before);
    out = out_before;
    return run_trial(judge, call_orders, driver, last);
  }
  src.continue_from(start, answer.drawn);
  out = std::move(answer.outcome);
  if (trace) *trace = std::move(answer.trace);
  switch (answer.escaped) {
    case TrialAnswer::Escaped::none: break;
    case TrialAnswer::Escaped::engine_error: throw EngineError(answer.what);
    case TrialAnswer::Escaped::overrun: throw Overrun{};
    case TrialAnswer::Escaped::other: throw std::runtime_error(answer.what);
  }
  if (answer.ended) return {out};
  return {std::nullopt, answer.next};
}

}  // namespace

namespace {

// After the program is drawn: whether it runs. A generated program the front end rejects is an
// empty case (drawn again); a hand-written one is the test's mistake; a failure ends the case.
enum class Accepted : unsigned char { runs, empty, ended };
Accepted accept_program(YCase& y_case, CaseOutcome& ended) {
  YSteps& steps = y_case.steps;
  if (!steps.accept(y_case.shape, y_case.failure)) {
    if (!y_case.failure.ok()) {
      ended = y_case.end(std::move(y_case.failure));
      return Accepted::ended;
    }
    if (y_case.pp.given) {
      ended = y_case.end(StepVerdict::error(
          "the scenario's calls break the spec's preconditions in some order of the branches (every order must "
          "satisfy them, or a correct candidate could be blamed for the spec's partiality)"));
      return Accepted::ended;
    }
    ++y_case.out.rejected;
    return Accepted::empty;
  }
  return steps.runnable(y_case.shape) ? Accepted::runs : Accepted::empty;
}

// The program, its calls as reports print them, in the form that knows it whatever path drew it.
std::string program_key(const YCase& y_case) {
  Trace drawn;
  y_case.steps.record(&drawn, y_case.shape, std::vector<Observed>(y_case.shape.size()), "");
  return canonical_program(drawn.y_prefix, drawn.y_branches, y_case.pp.branch_role, drawn.y_suffix);
}

CaseOutcome run_program(YCase& y_case) {
  y_case.out.commands = y_case.shape.size();
  if (y_case.trace && y_case.trace->observer) y_case.show_program_before_trials();
  return y_case.run_trials();
}

// Before a walk's first program runs: the scope's programs counted by drawing every path and
// running none (microseconds a path), so that progress and an unfinished walk say "of N". A
// scope too large to count in a few seconds, or whose drawing throws, stays uncounted.
void count_scope(EveryProgramWalk& every, const MakeYSteps& afresh, const ParallelParams& pp, const CaseParams& cp) {
  every.counted = true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  ProgramEnumeration walk(every.values, 1, 0, every.symmetric_values);
  Source src = Source::from_seed(0);
  try {
    while (walk.next(src)) {
      if (std::chrono::steady_clock::now() > deadline) return;
      const std::unique_ptr<YSteps> steps = afresh();
      YCase y_case(*steps, pp, src, nullptr, cp);
      if (!y_case.draw_program()) return;
      src.program_drawn();
      CaseOutcome ended;
      const Accepted accepted = accept_program(y_case, ended);
      if (accepted == Accepted::ended) return;
      walk.drawn(src, accepted == Accepted::runs ? program_key(y_case) : std::string());
    }
  } catch (...) {
    return;  // the walk itself meets it, and says so
  }
  every.total = walk.programs();
}

// A case of a walk over every program: paths drawn (each with steps of its own) until one gives
// a program not run before, which runs; a case that finds none left runs nothing.
CaseOutcome run_next_program(YSteps& first, const MakeYSteps& afresh, const ParallelParams& pp, Source& src, Trace* trace,
                             const CaseParams& cp) {
  EveryProgramWalk& every = *pp.every;
  if (!every.counted) count_scope(every, afresh, pp, cp);
  ProgramEnumeration& walk = every.start(cp.shards, cp.shard_index);
  std::unique_ptr<YSteps> owned;
  CaseOutcome skipped;  // the draws of the paths that gave no program to run
  for (YSteps* steps = &first; walk.next(src); steps = (owned = afresh()).get()) {
    YCase y_case(*steps, pp, src, trace, cp);
    y_case.out.attempts = skipped.attempts;
    y_case.out.rejected = skipped.rejected;
    if (!y_case.draw_program()) return y_case.end(std::move(y_case.failure));
    src.program_drawn();
    CaseOutcome ended;
    const Accepted accepted = accept_program(y_case, ended);
    if (accepted == Accepted::ended) return ended;
    skipped = y_case.out;
    if (!walk.drawn(src, accepted == Accepted::runs ? program_key(y_case) : std::string())) continue;
    y_case.draw_noise();
    ++every.ran;
    CaseOutcome out = run_program(y_case);
    const TrialDriver& driver = pp.executor->trial_driver();
    every.searches_every_run = driver.searches_every_run();
    if (out.kind == CaseOutcome::Kind::pass && driver.program_complete()) ++every.exhausted;
    return out;
  }
  skipped.nothing_left = true;
  return skipped;
}

}  // namespace

CaseOutcome run_y_case(YSteps& steps, const ParallelParams& pp, Source& src, Trace* trace, const CaseParams& cp,
                       const MakeYSteps& afresh) {
  // A search's case walks on; a replay or a shrink candidate reads its program from its choices.
  if (pp.every && src.mode() == Source::Mode::random && src.position() == 0)
    return run_next_program(steps, afresh, pp, src, trace, cp);
  YCase y_case(steps, pp, src, trace, cp);
  if (!y_case.draw_program()) return y_case.end(std::move(y_case.failure));
  src.program_drawn();  // a program replayed from elsewhere: its schedules are drawn afresh
  y_case.draw_noise();
  CaseOutcome ended;
  switch (accept_program(y_case, ended)) {
    case Accepted::ended: return ended;
    case Accepted::empty: return y_case.out;
    case Accepted::runs: break;
  }
  return run_program(y_case);
}

namespace {
// A token of a progress check replays only with the same guarantees (its choices include the
// episodes'); nothing when none is stated, so other tokens read as before.
std::string progress_signature(const Progress& p) {
  if (!p.stated()) return {};
  auto one = [](Progress::Kind k, std::size_t bound) {
    return std::to_string(static_cast<int>(k)) + "." + std::to_string(bound);
  };
  std::string s = "/progress:" + one(p.kind, p.bound);
  for (const Progress::Override& o : p.ops) s += "," + o.op + "=" + one(o.kind, o.bound);
  return s;
}

// A token found on fibers replays its schedule only on fibers with the same strategy; any
// executor on threads ("threads") replays any other's. Empty on threads.
std::string execution_signature(const ParallelConfig& pc) {
  const std::string execution = pc.executor ? pc.executor->trial_driver().execution() : "threads";
  return execution == "threads" ? std::string() : "/" + execution;
}

std::string roles_signature(const ParallelConfig& pc) {
  std::string roles;
  for (const Role& r : pc.roles) {
    roles += "/role:" + r.name + "*" + std::to_string(r.count);
    for (const std::string& op : r.ops) roles += "," + op;
  }
  return roles;
}
}  // namespace

std::string shape_signature(const ParallelConfig& given) {
  const ParallelConfig pc = on_named_executor(given);
  const bool deterministic = pc.executor && pc.executor->trial_driver().deterministic();
  return execution_signature(pc) + "/b" + std::to_string(branch_count(pc)) + "/l" + std::to_string(pc.branch_length) + "/p" +
         std::to_string(pc.prefix_length) + "/s" + std::to_string(pc.suffix_length) + "/t" + std::to_string(pc.trials) +
         (pc.consistency == Consistency::linearizable ? "/lin" : "/sc") +
         (pc.noise.value_or(false) && !deterministic ? "/noise" : "") + roles_signature(pc) +
         progress_signature(pc.progress);
}

std::string scenario_signature(const ParallelConfig& given_pc, const GivenProgram& given) {
  const ParallelConfig pc = on_named_executor(given_pc);
  std::string program = "/scenario/p" + std::to_string(given.shape.prefix);
  for (std::size_t b : given.shape.branches) program += "/b" + std::to_string(b);
  program += "/s" + std::to_string(given.shape.suffix);
  for (const std::string& call : given.calls) program += "/" + call;
  return program + execution_signature(pc) + (pc.consistency == Consistency::linearizable ? "/lin" : "/sc") +
         roles_signature(pc) + progress_signature(pc.progress);
}

std::string given_program_error(const ParallelConfig& pc, const GivenProgram& given) {
  const std::vector<std::size_t>& branches = given.shape.branches;
  if (pc.every_program)
    return "every_program walks the programs a check generates, and a scenario is one program of its own (leave "
           "every_program out)";
  if (branches.size() < 2 || branches.size() > 8)
    return "the scenario has " + std::to_string(branches.size()) + " branches (2 to 8)";
  if (pc.roles.empty()) return {};
  if (branches.size() != branch_count(pc))
    return "the scenario has " + std::to_string(branches.size()) + " branches, and the roles' counts add up to " +
           std::to_string(branch_count(pc));
  std::vector<const Role*> role_of;
  for (const Role& r : pc.roles) role_of.insert(role_of.end(), r.count, &r);
  for (std::size_t b = 0, at = given.shape.prefix; b < branches.size(); at += branches[b], ++b)
    for (std::size_t k = 0; k < branches[b]; ++k)
      if (!op_allowed(&role_of[b]->ops, op_name(given.calls[at + k])))
        return "branch " + std::to_string(b + 1) + " of the scenario calls " + given.calls[at + k] + ", which its role " +
               role_of[b]->name + " does not allow";
  return {};
}

std::string op_name(std::string_view call) {
  const std::size_t paren = call.find('(');
  if (paren == std::string_view::npos) {
    const std::size_t first = call.find_first_not_of(' ');
    if (first == std::string_view::npos) return {};
    const std::size_t end = call.find(' ', first);
    return std::string(call.substr(first, end == std::string_view::npos ? std::string_view::npos : end - first));
  }
  std::size_t start = paren;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '~'; };
  while (start > 0 && word(call[start - 1])) --start;
  return std::string(call.substr(start, paren - start));
}

std::size_t branch_count(const ParallelConfig& pc) {
  if (pc.roles.empty()) return pc.branches;
  std::size_t n = 0;
  for (const Role& r : pc.roles) n += r.count;
  return n;
}

std::string op_names_error(const ParallelConfig& pc, const std::vector<std::string>& known) {
  auto unknown = [&](const std::string& who, const std::string& op) {
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    return who + " names the operation `" + op +
           "`, which the spec does not have (its operations: " + (list.empty() ? "none drawn" : list) + ")";
  };
  auto is_known = [&](const std::string& op) { return std::find(known.begin(), known.end(), op) != known.end(); };
  for (const Role& r : pc.roles)
    for (const std::string& op : r.ops)
      if (!is_known(op)) return unknown("role " + r.name, op);
  for (const Progress::Override& o : pc.progress.ops)
    if (!is_known(o.op)) return unknown("progress", o.op);
  return {};
}

namespace {

// A parallel check's cases run on its executor, as the executor's trial driver says.
class ParallelExecution final : public Execution {
 public:
  ParallelExecution(std::shared_ptr<ParallelParams> pp, bool isolated_as_written)
      : pp_(std::move(pp)), isolated_as_written_(isolated_as_written) {}
  std::string name() const override { return driver().execution(); }
  int replay_attempts() const override { return driver().deterministic() ? 1 : kParallelReplayAttempts; }
  bool exact_replay() const override { return driver().deterministic(); }
  // A hand-written program with calls in fewer than two branches (a draft of a failure that
  // needs no concurrency) cannot overlap: its trials say nothing less for it.
  bool needs_overlap() const override {
    if (pp_->given) {
      const auto& branches = pp_->given->shape.branches;
      if (std::count_if(branches.begin(), branches.end(), [](std::size_t n) { return n > 0; }) < 2) return false;
    }
    return driver().needs_overlap();
  }
  std::string unexercised() const override { return driver().unexercised(); }
  bool may_leave_calls_unfinished() const override { return driver().may_leave_calls_unfinished(); }
  std::uint64_t trials_left_unfinished() const override { return driver().trials_left_unfinished(); }
  std::string trial_processes() const override { return driver().trial_processes_reason(); }
  bool take_trial_processes() override { return driver().take_trial_processes(); }
  bool trial_processes_taken() const override { return driver().trial_processes_taken(); }
  std::string threads_left() const override { return driver().threads_left(); }
  bool searches_in_clean_child() const override { return driver().searches_in_clean_child(); }
  // A hang or a crash on threads takes the process down, unrecoverably: in a child it is a
  // shrunk failure instead (docs/isolation.md has the cost). A check DUET_EXECUTOR moved off
  // threads keeps the child its test was written for: a crash there is a trial's failure that
  // the test may expect (a negative test whose race ends in a crash), not the end of the binary.
  bool isolate_by_default() const override { return driver().isolate_by_default() || isolated_as_written_; }
  void in_child() override { pp_->executor = driver().for_child_process(pp_->executor); }
  void after_check() override { driver().check_ends(); }

 private:
  TrialDriver& driver() const { return pp_->executor->trial_driver(); }
  std::shared_ptr<ParallelParams> pp_;
  bool isolated_as_written_;
};

// Whether the check as written (before DUET_EXECUTOR moved it) ran in a child process by default.
bool isolated_as_written(const ParallelConfig& given, const std::string& executor_note) {
  if (executor_note.empty()) return false;  // not moved: its executor decides
  return given.executor ? given.executor->trial_driver().isolate_by_default() : threads_restart_in_child();
}

// Every program of the scope, one a case, until the walk ends; no time budget unless given (the
// walk is the budget), and a pass only when it ended.
// "2 branches × up to 3 calls after a prefix of up to 1 call", as the walk's pass names its scope.
std::string scope_text(const ParallelConfig& pc) {
  auto calls = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " call" : " calls"); };
  std::string text = std::to_string(branch_count(pc)) + " branches";
  if (!pc.roles.empty()) {
    text += " (";
    for (std::size_t r = 0; r < pc.roles.size(); ++r)
      text +=
          (r == 0 ? "" : ", ") + pc.roles[r].name + (pc.roles[r].count == 1 ? "" : " ×" + std::to_string(pc.roles[r].count));
    text += ")";
  }
  text += " × up to " + calls(pc.branch_length);
  if (pc.prefix_length > 0) text += " after a prefix of up to " + calls(pc.prefix_length);
  if (pc.suffix_length > 0)
    text += std::string(pc.prefix_length > 0 ? " and" : "") + " before a suffix of up to " + calls(pc.suffix_length);
  return text;
}

void walk_every_program(Property& p, const std::shared_ptr<ParallelParams>& pp, const EveryProgram& scope) {
  pp->every = std::make_shared<EveryProgramWalk>();
  pp->every->values = scope.values;
  pp->every->symmetric_values = scope.symmetric_values;
  pp->every->scope = scope_text(pp->config);
  p.covered = [every = pp->every] { return every->walk && every->walk->done(); };
  p.unfinished = [every = pp->every] { return every->unfinished(); };
  p.certificate = [every = pp->every] { return every->certificate(); };
  p.planned_cases = [every = pp->every] { return every->planned(); };
  p.coverage = [pp] {
    const std::string runs = pp->executor->trial_driver().coverage();
    return pp->every->coverage() + (runs.empty() ? "" : "; " + runs);
  };
  p.default_time = 0;
  // A walk on fibers may be split over processes (Config::jobs): its trials need no CPU of
  // their own, and run the same in any process.
  if (!pp->executor->trial_driver().deterministic()) return;
  p.walk_progress = [every = pp->every] { return every->progress(); };
  p.adopt_walk = [every = pp->every](const WalkProgress& w) { every->adopt(w); };
}

}  // namespace

std::shared_ptr<ParallelParams> parallel_params(const ParallelConfig& given_pc, Property& p,
                                                std::shared_ptr<const GivenProgram> given) {
  const ParallelConfig pc = on_named_executor(given_pc, &p.executor_note);
  auto pp = std::make_shared<ParallelParams>();
  pp->config = pc;
  pp->given = std::move(given);
  pp->executor = pc.executor ? pc.executor : std::shared_ptr<Executor>(make_thread_pool(pc.pin_threads, pc.thread_hooks));
  TrialDriver& driver = pp->executor->trial_driver();
  // Timing noise means nothing where a trial is deterministic (fibers).
  pp->noise = pc.noise.value_or(false) && !driver.deterministic();
  pp->noise_yields = !pc.pin_threads || usable_cpus() < branch_count(pc);
  for (std::size_t r = 0; r < pc.roles.size(); ++r) {
    const Role& role = pc.roles[r];
    for (std::size_t k = 0; k < role.count; ++k) {
      pp->branch_role.push_back(r);
      pp->branch_labels.push_back(role.count == 1 ? role.name : role.name + " " + std::to_string(k + 1));
    }
  }
  p.cheap_trace = true;
  p.execution = std::make_shared<ParallelExecution>(pp, isolated_as_written(given_pc, p.executor_note));
  driver.expect_progress(pc.progress);
  driver.check_starts();
  // pp->executor: the child's own in a child process (in_child), where the branches ran.
  p.coverage = [pp] { return pp->executor->trial_driver().coverage(); };
  // What another process's runs counted (a walk's workers, the clean child's searching worker).
  p.save_totals = [pp] { return pp->executor->trial_driver().save_totals(); };
  p.add_totals = [pp](const std::string& saved) { pp->executor->trial_driver().add_totals(saved); };
  // One program: once an exhaustive search has explored its schedules, another case would only
  // repeat it.
  if (pp->given) p.covered = [pp] { return pp->executor->trial_driver().program_exhausted(); };
  if (pc.every_program && !pp->given) walk_every_program(p, pp, *pc.every_program);
  return pp;
}

void offer_fiber_twin(Property& p, const ParallelConfig& pc, std::function<Property(const ParallelConfig&)> build) {
  if (runs_on_fibers(pc) || !fibers_unsupported(pc).empty()) return;
  p.fiber_twin = [pc, build = std::move(build)](const Schedule& schedule) {
    const FibersOverNamedExecutor here;
    ParallelConfig on_fibers = pc;
    on_fibers.executor = fibers(schedule);
    Property twin = build(on_fibers);
    // The strategies' defaults are what DUET_EXECUTOR names, so its tokens replay under it.
    static constexpr const char* kNamed[] = {"fibers:random", "fibers:pct", "fibers:exhaustive"};
    twin.replay_setting = std::string("DUET_EXECUTOR=") + kNamed[static_cast<int>(schedule.kind)];
    return twin;
  };
}

bool runs_on_fibers(const ParallelConfig& given) {
  const ParallelConfig pc = on_named_executor(given);
  return pc.executor && pc.executor->trial_driver().deterministic();
}

// Why the roles cannot shape a program, or empty.
std::string check_roles(const ParallelConfig& pc) {
  const ParallelConfig defaults;
  std::vector<std::string> names;
  for (const Role& r : pc.roles) {
    if (r.name.empty()) return "a role has no name";
    if (std::find(names.begin(), names.end(), r.name) != names.end()) return "two roles are named " + r.name;
    names.push_back(r.name);
    if (r.count == 0) return "role " + r.name + " has count 0 (at least 1 branch)";
    if (r.ops.empty()) return "role " + r.name + " names no operation";
  }
  const std::size_t n = branch_count(pc);
  if (n < 2 || n > 8) return "the roles' counts add up to " + std::to_string(n) + " branches (2 to 8)";
  if (pc.branches != defaults.branches && pc.branches != n)
    return "branches is " + std::to_string(pc.branches) + " but the roles' counts add up to " + std::to_string(n) +
           " (leave branches out, or make them agree)";
  return {};
}

std::string check_parallel_config(const ParallelConfig& pc) {
  if (std::string why = named_executor_error(pc); !why.empty()) return why;
  if (pc.executor && (pc.thread_hooks.start || pc.thread_hooks.stop))
    return "thread_hooks are for the thread pool a check makes, and this check has an executor of its own: give "
           "them to duet::make_thread_pool(pin, hooks), or on fibers to FiberOptions::on_fiber_start / on_fiber_stop";
  if (!pc.roles.empty()) {
    if (std::string why = check_roles(pc); !why.empty()) return why;
  } else if (pc.branches < 2 || pc.branches > 8) {
    return "branches must be 2 to 8 (got " + std::to_string(pc.branches) + ")";
  }
  if (pc.branch_length == 0) return "branch_length must be at least 1";
  if (pc.every_program && pc.every_program->values == 0) return "every_program's values must be at least 1";
  if (pc.trials == 0) return "trials must be at least 1";
  if (pc.progress.stated())
    return pc.executor ? pc.executor->trial_driver().progress_unsupported(pc.progress)
                       : TrialDriver().progress_unsupported(pc.progress);
  return {};
}

CheckResult parallel_config_error(const std::string& name, const std::string& why) {
  return nothing_tested(name, "bad ParallelConfig: " + why);
}

}  // namespace duet::detail
