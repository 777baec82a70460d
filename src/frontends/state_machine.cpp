// The spec-independent part of the state-machine front end: the engine of a case's steps
// (StateMachineEngine), the per-thread reuse of steps objects, and the property, compiled once
// here so that a test file compiles only the calls into its spec.
#include "duet/state_machine.hpp"

#include <algorithm>
#include <deque>
#include <string>

#include "duet/detail/property.hpp"
#include "duet/faults.hpp"
#include "engine/case_loop.hpp"

namespace duet::detail {

namespace {
// The worlds' limit and wording, which do not depend on what a world is.
using Worlds = PossibleWorlds<Result>;
}  // namespace

void null_subject(const char* maker) {
  throw EngineError(std::string(maker) + " returned a null pointer: there is no candidate to test (it must make one)");
}

CaseSteps::Drawn generator_threw(StepVerdict& failure) {
  try {
    throw;
  } catch (const Discard&) {
    return CaseSteps::Drawn::rejected;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    failure = StepVerdict::error(threw("the spec's generator `command`"));
    return CaseSteps::Drawn::failed;
  }
}

CaseSteps::Drawn precondition_threw(StepVerdict& failure, const std::string& command) {
  try {
    throw;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    failure = StepVerdict::error(threw("the spec's `precondition`") + " on " + command);
    return CaseSteps::Drawn::failed;
  }
}

// ---- StateMachineEngine ----

struct StateMachineEngine::Ran {
  bool crashed = false;
  std::string where;  // the crash's fault point
  std::string error;  // the candidate swallowed a crash
};

StateMachineEngine::StateMachineEngine(const StateMachineShape& shape) : shape_(shape) { no_after_step_checks(); }
StateMachineEngine::~StateMachineEngine() = default;

// The defaults for a spec without the part (StateMachineSteps overrides them where it has it).
void StateMachineEngine::recover() {}
Verdict StateMachineEngine::postcondition(std::size_t, const Result&) { return true; }
void StateMachineEngine::fork_worlds() {}
std::size_t StateMachineEngine::keep_worlds(const std::vector<bool>&) { return worlds(); }
void StateMachineEngine::advance_all() {}
StateMachineEngine::Relaxed StateMachineEngine::relaxed_next(const Result&) { return Relaxed::ok; }
std::string StateMachineEngine::model_state() const { return {}; }
std::string StateMachineEngine::draft_setup() const { return {}; }

StepVerdict StateMachineEngine::start(Trace* trace) {
  if (trace) {
    trace->setup = setup();
    trace->draft_setup = draft_setup();
  }
  try {
    make_candidate();
  } catch (const EngineError& e) {  // init_sut made nothing (null_subject)
    return StepVerdict::error(e.what());
  } catch (...) {
    return StepVerdict::error(threw(candidate_maker()));
  }
  try {
    restart_model();
  } catch (...) {
    return StepVerdict::error(threw("the model's initial state"));
  }
  if (trace && shape_.shows_state) trace->initial_state = printed_state();
  if (shape_.expected && wants_.size() != 1) wants_.resize(1);  // the inline step's one world
  return {};
}

void StateMachineEngine::finish() {
  drop_model();
  wants_.clear();
  drop_candidate();
  got_ = Result();
  ran_ = false;
  src_ = nullptr;
  crashes_ = 0;
}

void StateMachineEngine::untraced_case(Source& src, const CaseParams& params, CaseOutcome& out) {
  out = run_case_loop(*this, src, params, nullptr);
}

bool StateMachineEngine::start_untraced(Source& src, const CaseParams& params, CaseOutcome& out) {
  begin_case(params);
  src_ = &src;
  in_span_ = false;
  StepVerdict started = start(nullptr);
  leave_if_candidates_child();
  judge(started, nullptr);
  if (started.ok()) return true;
  out = ended(std::move(out), started, nullptr);
  return false;
}

// As the case loop (engine/case_loop.hpp) draws: a span that a step closed ends before the next
// command's begins; nothing draws in between.
bool StateMachineEngine::next_command(const CaseParams& params, const CaseOutcome& out) {
  if (in_span_) src_->end_span(span_);
  in_span_ = false;
  if (out.commands >= params.max_length) return false;
  span_ = src_->begin_span();
  in_span_ = true;
  return src_->draw(params.continue_odds, 1) != 0;
}

void StateMachineEngine::end_at_draw(CaseOutcome& out) { out = ended(std::move(out), verdict_, nullptr); }

void StateMachineEngine::end_at_step(CaseOutcome& out, bool ran_ok) {
  src_->end_span(span_);
  in_span_ = false;
  if (ran_ok) verdict_ = assertion_failed(nullptr, assertion_message());
  out = ended(std::move(out), verdict_, nullptr);
}

// A traced step of a spec that prints its state records the state the step left.
StepVerdict StateMachineEngine::step(Command&, Trace* trace) {
  StepVerdict v = judged_step(trace);
  if (trace && shape_.shows_state && v.ok() && !trace->steps.empty()) trace->steps.back().state = printed_state();
  return v;
}

// The spec's printer may throw: the report says so in the state's place.
std::string StateMachineEngine::printed_state() const {
  try {
    return model_state();
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    return "(" + threw("the spec's show_state") + ")";
  }
}

StepVerdict StateMachineEngine::judged_step(Trace* trace) {
  if (shape_.relaxed) return step_relaxed(trace);
  if (worlds() > 1) return step_after_crash(trace);
  std::string async_trace;
  if (auto ended = expect_and_run(trace, async_trace)) return std::move(*ended);
  return judge_one_world(trace, async_trace);
}

bool StateMachineEngine::expected_threw() {
  got_ = Result();
  verdict_ = fail_here(nullptr, nullptr, threw("the model's expected()"));
  return false;
}

bool StateMachineEngine::run_threw() {
  ran_ = true;
  try {
    throw;
  } catch (const duet::crash&) {
    return true;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    got_ = Result::current_exception();
  }
  return false;
}

bool StateMachineEngine::crashed_untraced() {
  verdict_ = crashed(nullptr, Ran{true, {}, {}}, {});
  return verdict_.ok();
}

bool StateMachineEngine::judge_untraced() {
  std::string async_trace;
  verdict_ = assertion_raised() ? assertion_failed(nullptr, assertion_message()) : judge_one_world(nullptr, async_trace);
  return verdict_.ok();
}

bool StateMachineEngine::next_threw() {
  verdict_ = fail_here(nullptr, nullptr, threw("the model's next()"));
  return false;
}

// The model's one world judges the candidate's result: the comparison, the postcondition, next.
StepVerdict StateMachineEngine::judge_one_world(Trace* trace, std::string& async_trace) {
  if (shape_.expected) {
    const Result& want = wants_.front();
    if (!(got_ == want)) return with_async(fail_here(trace, &want, disagreement(got_, &want, {})), trace, async_trace);
  }
  if (shape_.postcondition) {
    Verdict v(true);
    try {
      v = postcondition(0, got_);
    } catch (...) {
      return fail_here(trace, nullptr, threw("the model's postcondition"));
    }
    if (assertion_raised()) return assertion_failed(trace, assertion_message());
    if (!v.ok) return with_async(fail_here(trace, nullptr, disagreement(got_, nullptr, v.why)), trace, async_trace);
  }
  try {
    advance(0);
  } catch (...) {
    return fail_here(trace, nullptr, threw("the model's next()"));
  }
  return {};
}

StepVerdict StateMachineEngine::assertion_failed(Trace* trace, std::string why) {
  if (ran_) return fail_here(trace, nullptr, std::move(why));
  if (trace) record_failure(trace, nullptr, why);  // before any command: the report shows the message
  return StepVerdict::fail(std::move(why));
}

// The last command fails with `why`: traced, or kept as the failing step without a trace.
StepVerdict StateMachineEngine::fail_here(Trace* trace, const Result* want, std::string why) const {
  if (trace) {
    record_failure(trace, want, why);
    return StepVerdict::fail(std::move(why));
  }
  return StepVerdict::fail(why, failing_step(last_command(), got_, want, why));
}

// The failing step shows the async runs it made.
StepVerdict StateMachineEngine::with_async(StepVerdict v, Trace* trace, std::string& async_trace) {
  if (trace && !trace->steps.empty() && !v.ok()) trace->steps.back().async_trace = std::move(async_trace);
  return v;
}

// What each world expects of this step (if the spec says), one entry per world: one vector for
// the case, kept at the worlds' count, so that a step allocates nothing for it (the hot path).
std::optional<StepVerdict> StateMachineEngine::expect_all(Trace* trace) {
  if (!shape_.expected) return std::nullopt;
  const std::size_t count = worlds();
  if (wants_.size() != count) wants_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    try {
      expect(i, wants_[i]);
    } catch (...) {
      got_ = Result();
      if (trace) record_step(trace, last_command(), got_);
      return fail_here(trace, nullptr, threw("the model's expected()"));
    }
  }
  return std::nullopt;
}

// The first phases of a step: what each world expects, then the candidate's run, recorded. A
// verdict when the step ends there (a crash, a failure).
std::optional<StepVerdict> StateMachineEngine::expect_and_run(Trace* trace, std::string& async_trace) {
  if (auto failed = expect_all(trace)) return failed;
  if (trace) announce_call(trace, last_command());
  const Ran ran = run_candidate(trace ? &async_trace : nullptr);
  if (ran.crashed) return crashed(trace, ran, std::move(async_trace));
  if (trace) record_step(trace, last_command(), got_);
  if (!ran.error.empty()) return fail_here(trace, nullptr, ran.error);
  if (assertion_raised()) return with_async(assertion_failed(trace, assertion_message()), trace, async_trace);
  return std::nullopt;
}

namespace {
// Where the crash struck, and the error when the candidate swallowed it and went on.
void note_caught_crash(const FaultPlan& plan, bool crashed, std::string& where, std::string& error) {
  if (plan.where.empty()) return;
  where = plan.where + " (" + plan.location + ")";
  if (!crashed)
    error = "the candidate caught duet::crash (injected at " + where +
            ") and went on: a crash must end the operation (let duet::crash through any catch (...))";
}
}  // namespace

// Runs the command on the candidate, with crash injection when the spec can recover.
StateMachineEngine::Ran StateMachineEngine::run_candidate(std::string* async_trace) {
  Ran ran;
  const AsyncTraceScope traced(async_trace);
  if (shape_.recover) {
    FaultPlan plan;
    plan.src = src_;
    plan.one_in = shape_.crash_one_in;
    const FaultScope faults(plan);
    ran.crashed = !run_on_candidate();
    note_caught_crash(plan, ran.crashed, ran.where, ran.error);
  } else {
    ran.crashed = !run_on_candidate();
  }
  return ran;
}

// The candidate's run into got_ (constructed in place: no Result moved on the hot path); false
// when an injected crash interrupted it.
bool StateMachineEngine::run_on_candidate() {
  bool done = true;
  try {
    run(got_);
  } catch (const duet::crash&) {
    done = false;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    got_ = Result::current_exception();
  }
  ran_ = true;
  return done;
}

// A crash interrupted the command: the candidate is rebuilt from what persisted, and the model
// goes on in every state the command may have left (taken effect, or not).
StepVerdict StateMachineEngine::crashed(Trace* trace, const Ran& ran, std::string async_trace) {
  got_ = Result();
  ++crashes_;
  if (trace) {
    record_step(trace, last_command(), got_);
    trace->steps.back().crash = ran.where;
    trace->steps.back().async_trace = std::move(async_trace);
    trace->no_draft = "a crash was injected; the replay token reproduces it";
  }
  if (!shape_.recover) return {};
  fire_crash_listeners(*src_);
  try {
    recover();
  } catch (...) {
    return fail_here(trace, nullptr, threw("the spec's recover() after the crash at " + ran.where));
  }
  if (assertion_raised()) return assertion_failed(trace, assertion_message());
  try {
    fork_worlds();
  } catch (...) {
    return fail_here(trace, nullptr, threw("the model's next()"));
  }
  if (worlds() > Worlds::kLimit) return StepVerdict::error(Worlds::limit_message("give State an operator=="));
  return {};
}

// After a crash the model may be in several worlds: the candidate's result must be what one of
// them allows; those that disagree are dropped.
StepVerdict StateMachineEngine::step_after_crash(Trace* trace) {
  std::string async_trace;
  if (auto ended = expect_and_run(trace, async_trace)) return std::move(*ended);
  std::string why;
  bool postcondition_threw = false;
  std::vector<bool> keep(worlds());
  for (std::size_t i = 0; i < keep.size(); ++i) keep[i] = explains_after_crash(i, why, postcondition_threw);
  const std::size_t kept = keep_worlds(keep);
  if (postcondition_threw) return fail_here(trace, nullptr, threw("the model's postcondition"));
  if (kept == 0) {
    const std::string allowed = allowed_after_crash();
    const std::string explanation = std::string("candidate ") + (got_.is_exception() ? "threw " : "returned ") +
                                    got_.show() + "; after the crash" + (crashes_ > 1 ? "es" : "") + " the model allows " +
                                    (allowed.empty() ? why : allowed) + Worlds::interrupted(crashes_, "command");
    return with_async(fail_here(trace, wants_.size() == 1 ? &wants_[0] : nullptr, explanation), trace, async_trace);
  }
  try {
    advance_all();
  } catch (...) {
    return fail_here(trace, nullptr, threw("the model's next()"));
  }
  return {};
}

// Whether world `world` explains the candidate's result: its expected result, its postcondition
// (the first refusal's reason kept in `why`; a postcondition that throws explains nothing).
bool StateMachineEngine::explains_after_crash(std::size_t world, std::string& why, bool& postcondition_threw) {
  if (shape_.expected && !(got_ == wants_[world])) return false;
  if (!shape_.postcondition) return true;
  try {
    const Verdict v = postcondition(world, got_);
    if (!v.ok && why.empty()) why = v.why;
    return v.ok;
  } catch (...) {
    postcondition_threw = true;
    return false;
  }
}

// "1 or 2": the results the worlds expected, each once, in order (empty without expected()).
std::string StateMachineEngine::allowed_after_crash() const {
  std::string allowed;
  if (!shape_.expected) return allowed;
  std::vector<std::string> shown;
  for (const Result& w : wants_) {
    const std::string t = w.show();
    if (std::find(shown.begin(), shown.end(), t) == shown.end()) shown.push_back(t);
  }
  for (std::size_t i = 0; i < shown.size(); ++i) allowed += (i == 0 ? "" : i + 1 == shown.size() ? " or " : ", ") + shown[i];
  return allowed;
}

// A relaxed spec: every world sees the result and says which states may follow; the model goes
// on in all of them, and a result none allows is the failure.
StepVerdict StateMachineEngine::step_relaxed(Trace* trace) {
  std::string async_trace;
  if (auto ended = expect_and_run(trace, async_trace)) return std::move(*ended);
  const std::size_t before = worlds();
  Relaxed relaxed = Relaxed::ok;
  try {
    relaxed = relaxed_next(got_);
  } catch (...) {
    return fail_here(trace, nullptr, threw("the model's next_states()"));
  }
  if (relaxed == Relaxed::over_limit)
    return StepVerdict::error("more than " + std::to_string(Worlds::kLimit) +
                              " model states are allowed so far (give State an operator== so that equal ones merge)");
  if (relaxed == Relaxed::none_allowed) {
    const std::string from = before == 1 ? "its state" : "any of its " + std::to_string(before) + " possible states";
    return with_async(fail_here(trace, nullptr,
                                std::string("candidate ") + (got_.is_exception() ? "threw " : "returned ") + got_.show() +
                                    "; the model allows no state after that from " + from),
                      trace, async_trace);
  }
  return {};
}

// ---- one case, and the property ----

namespace {
// A thread's steps object for one spec. On the heap, and left there when the thread ends in the
// middle of a case: exit() called by the candidate (which duet reports) must not destroy the
// candidate and the model under the call, as the thread's own objects are destroyed; a case's
// own object never was.
struct ReusedSteps {
  MakeStateMachineSteps make = nullptr;
  StateMachineEngine* steps = nullptr;
  bool in_use = false;
  ReusedSteps(MakeStateMachineSteps maker, StateMachineEngine* made) : make(maker), steps(made) {}
  ReusedSteps(const ReusedSteps&) = delete;
  ReusedSteps& operator=(const ReusedSteps&) = delete;
  ~ReusedSteps() {
    if (!in_use) delete steps;
  }
};

// One case on `steps`: traced, through the case loop; untraced, as the steps run it.
CaseOutcome case_of(StateMachineEngine& steps, Source& src, const CaseParams& params, Trace* trace) {
  if (trace) return run_case_loop(steps, src, params, trace);
  CaseOutcome out;
  steps.untraced_case(src, params, out);
  return out;
}

// This thread's steps object for the spec that `make` makes (a deque: a case inside a case may
// add one while the outer case holds its own).
ReusedSteps& reused_steps(MakeStateMachineSteps make) {
  static thread_local std::deque<ReusedSteps> reused;
  for (ReusedSteps& r : reused)
    if (r.make == make) return r;
  return reused.emplace_back(make, make().release());
}
}  // namespace

CaseOutcome run_state_machine_case(MakeStateMachineSteps make, Source& src, const CaseParams& params, Trace* trace) {
  ReusedSteps& reused = reused_steps(make);
  if (reused.in_use) {
    const std::unique_ptr<StateMachineEngine> steps = make();
    return case_of(*steps, src, params, trace);
  }
  struct Finish {
    ReusedSteps& reused;
    ~Finish() {
      reused.steps->finish();
      reused.in_use = false;
    }
  };
  reused.in_use = true;
  const Finish finish{reused};
  return case_of(*reused.steps, src, params, trace);
}

Property state_machine_property(std::string name, MakeStateMachineSteps make, std::string domain) {
  Property p;
  p.name = std::move(name);
  p.spec_id = hash32(p.name);
  p.run_case = [make](Source& src, const CaseParams& params, Trace* trace) {
    return run_state_machine_case(make, src, params, trace);
  };
  p.domain = std::move(domain);
  return p;
}

CheckResult check_state_machine(std::string name, MakeStateMachineSteps make, std::string domain, const Config& config,
                                std::optional<std::span<const std::uint8_t>> bytes) {
  return run_property(searching_case_runs(state_machine_property(std::move(name), make, std::move(domain))), config, bytes);
}

CheckResult check_state_machine(std::string name, MakeStateMachineSteps make, std::string domain) {
  return check_state_machine(std::move(name), make, std::move(domain), Config{});
}

std::string command_text(std::string_view sut_name, const std::string& shown) {
  std::string text;
  text.reserve(sut_name.size() + 1 + shown.size());
  return text.append(sut_name).append(".").append(shown);
}

}  // namespace duet::detail
