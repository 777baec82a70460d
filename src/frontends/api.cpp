// The reference-vs-candidate front end: its scenario loop and its Y-programs, which the engine
// sees as Properties. An operation's typed part (detail::Op, duet/detail/api/operation.hpp)
// only draws arguments, calls into the user's functions and deconstructs their results; a
// call (api_call.cpp), running it, judging its results and reporting them are compiled once.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <memory>
#include <stdexcept>

#include "duet/api.hpp"
#include "duet/detail/case_loop.hpp"
#include "duet/parallel.hpp"

namespace duet {
namespace detail {
namespace {

std::uint64_t next_data_serial() {
  static std::atomic<std::uint64_t> next{0};
  return ++next;
}

struct ApiData {
  const std::uint64_t serial = next_data_serial();         // tells the checks' data apart, whatever their addresses
  std::vector<std::shared_ptr<const HandleStore>> stores;  // by abstract type id: an empty store each
  std::vector<std::string> prefixes;
  std::vector<std::shared_ptr<const OpBase>> ops;
  std::size_t max_handles = 32;
  std::vector<std::function<void(HandleStore&)>> recovers;  // by type id; crash injection when any
  std::uint64_t crash_one_in = 25;
  std::vector<std::function<std::string(const void*)>> shows;  // by type id (Api::state); empty: none
  bool shows_state() const {
    return std::any_of(shows.begin(), shows.end(), [](const auto& f) { return static_cast<bool>(f); });
  }
  std::string parallel_signature;  // what a parallel check's spec id hashes before its shape or scenario
  bool crashes() const {
    return std::any_of(recovers.begin(), recovers.end(), [](const auto& r) { return static_cast<bool>(r); });
  }
};

Env fresh_env(const ApiData& d) {
  Env env;
  env.prefixes = &d.prefixes;
  env.max_handles = d.max_handles;
  env.stores.reserve(d.stores.size());
  for (const auto& store : d.stores) env.stores.push_back(store->empty_copy());
  return env;
}

// The live values of the types Api::state prints, "a0 = ...; a1 = ...", in the order they were
// made; a printer that throws says so in the value's place.
std::string env_state(const ApiData& d, const Env& env) {
  std::string text;
  for (std::size_t t = 0; t < env.stores.size() && t < d.shows.size(); ++t) {
    if (!d.shows[t]) continue;
    const HandleStore& store = *env.stores[t];
    for (std::size_t i = 0; i < store.size(); ++i) {
      std::string value;
      try {
        value = d.shows[t](store.values(i));
      } catch (...) {
        value = "(" + threw("the spec's `state` printer") + ")";
      }
      text += (text.empty() ? "" : "; ") + store.name(i) + " = " + value;
    }
  }
  return text;
}

// Every world's, "... or ...", as a spec's show_state shows its model's worlds.
std::string worlds_state(const ApiData& d, const PossibleWorlds<Env>& worlds) {
  std::string text;
  for (const Env& env : worlds) text += (text.empty() ? "" : " or ") + env_state(d, env);
  return text;
}

bool same_references(const Env& a, const Env& b) {
  for (std::size_t i = 0; i < a.stores.size(); ++i)
    if (!a.stores[i]->same_references(*b.stores[i])) return false;
  return true;
}

void take_candidates(Env& to, Env& from) {
  for (std::size_t i = 0; i < to.stores.size(); ++i) to.stores[i]->take_candidates(*from.stores[i]);
}

// ---------------------------------------------------------------------------------------
// A step's failures and records, as the report shows them.

/// A failure at a call: traced, or kept as the failing step when the case runs without a trace.
StepVerdict failed_at(Trace* trace, const std::string& call, std::string expected, std::string explanation,
                      std::string message) {
  Step step = api_failure_step(call, std::move(expected), std::move(explanation));
  if (!trace) return StepVerdict::fail(std::move(message), std::move(step));
  trace->steps.push_back(std::move(step));
  trace->failed = true;
  return StepVerdict::fail(std::move(message));
}

/// The whole (concrete) result differs: the step reads as an assertion of the reference's value.
StepVerdict whole_mismatch(Trace* trace, const std::string& call, const std::string& reference,
                           const std::string& candidate) {
  return failed_at(trace, call, reference, "candidate finds " + candidate,
                   "candidate finds " + candidate + "; the reference finds " + reference + " (" + call + ")");
}

/// The results differ at m. A whole concrete result (whole_value) reads as an assertion; a part
/// of a composite one does not.
StepVerdict mismatch_failure(Trace* trace, const std::string& call, const Mismatch& m, bool whole_value) {
  const std::string why = "candidate finds " + m.candidate + "; the reference finds " + m.reference;
  if (whole_value) return failed_at(trace, call, m.reference, "candidate finds " + m.candidate, why + " (" + call + ")");
  return failed_at(trace, call, "", why, why + " (" + call + ")");
}

/// A failure whose explanation is also the message, with the call after it.
StepVerdict failed_with(Trace* trace, const std::string& call, const std::string& why) {
  return failed_at(trace, call, "", why, why + " (" + call + ")");
}

/// The candidate threw where the spec does not say it may.
StepVerdict undeclared_throw(Trace* trace, const std::string& call, const Result& exception) {
  return failed_with(
      trace, call, "candidate throws " + exception_text(exception) + " (declare the result duet::may_throw(...) if it may)");
}

/// "{s2, s3}": braces around comma-separated C++ identifiers.
bool is_name_list(const std::string& text) {
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return false;
  bool at_start = true;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (at_start) {
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) return false;
      at_start = false;
    } else if (c == ',') {
      if (i + 1 >= text.size() - 1 || text[i + 1] != ' ') return false;
      ++i;
      at_start = true;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return !at_start;
}

/// Prints and records a finished step: "auto a3 = op(...)", "auto [s2, s3] = split(...)",
/// "op(...)  // 7".
void record_done(Trace* trace, Env& env, const ApiCall& call, const std::string& shown) {
  if (!trace) return;
  const OpShape& shape = call.op->shape;
  if (shape.inner == SpecKind::abstract) {
    record_api_step(trace, "auto " + shown + " = " + call.text, "", true);
  } else if (shape.binds) {
    // A pair or tuple of variables only: a structured binding. Anything else: a named
    // result, with what it holds in the comment.
    const bool all_names = (shape.inner == SpecKind::pair || shape.inner == SpecKind::tuple) && is_name_list(shown);
    if (all_names) record_api_step(trace, "auto [" + shown.substr(1, shown.size() - 2) + "] = " + call.text, "", true);
    else record_api_step(trace, "auto r" + std::to_string(env.next_var++) + " = " + call.text, shown, true);
  } else {
    record_api_step(trace, call.text, shown, false);
  }
}

/// The call as a parallel report shows it: "auto a1 = set(a0, 0, 1)" once its result is bound.
std::string shown_call(const ApiCall& call) {
  const std::string& bound = call.bound;
  if (call.op->shape.binds && !bound.empty()) {
    if (is_name_list(bound)) return "auto [" + bound.substr(1, bound.size() - 2) + "] = " + call.text;
    if (bound.find_first_of("{}") == std::string::npos) return "auto " + bound + " = " + call.text;
  }
  return call.text;
}

/// What the candidate did, as a parallel report shows it: "7", "throws std::out_of_range", "()".
std::string outcome_text(const ApiCall& call) {
  if (call.candidate_threw.is_exception()) return "throws " + call.candidate_threw.exception_type();
  if (call.op->shape.inner == SpecKind::abstract) return "";
  if (call.op->shape.returns_void) return "()";
  return call.show_candidate();
}

/// What the reference found, as a failure after a crash lists it.
std::string reference_outcome(const ApiCall& call) {
  if (call.reference_threw.is_exception()) return "that it throws " + exception_text(call.reference_threw);
  if (call.op->shape.binds || call.op->shape.returns_void) return "a result";
  return call.show_reference();
}

/// may_throw: the two sides' exceptions are equivalent (by default: of the same type).
bool exceptions_match(const ApiCall& call) {
  const auto* equivalent = call.op->shape.equivalent;
  return equivalent ? (*equivalent)(call.reference_threw, call.candidate_threw)
                    : call.reference_threw.exception_type() == call.candidate_threw.exception_type();
}

// ---------------------------------------------------------------------------------------
// Drawing a call, and judging it once both sides have run.

enum class ArgumentsDrawn { ready, declined, spec_error };

/// Draws the call's arguments in env. Declined when a result would pass the handle limit, when
/// no live handle suits an argument or when a generator discards; a spec error (why in
/// `spec_error`) when the spec's own code (a generator, a where() predicate) throws.
ArgumentsDrawn draw_arguments(ApiCall& call, Source& src, Env& env, std::string& spec_error) {
  for (std::size_t id : call.op->result_ids)
    if (env.stores[id]->size() >= env.max_handles) return ArgumentsDrawn::declined;
  try {
    return call.draw_arguments(src, env) ? ArgumentsDrawn::ready : ArgumentsDrawn::declined;
  } catch (const Discard&) {
    return ArgumentsDrawn::declined;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    spec_error = threw("the spec's argument generator for " + call.op->name);
    return ArgumentsDrawn::spec_error;
  }
}

/// A result that is not may_throw nor nondet: neither side may throw, and the results agree.
StepVerdict judge_plain(ApiCall& call, Env& env, Trace* trace) {
  const OpShape& shape = call.op->shape;
  std::string shown;
  std::optional<Mismatch> mismatch;
  if (!shape.solo && call.reference_threw.is_exception()) {
    const std::string why = "the reference implementation of " + call.op->name + " threw " +
                            exception_text(call.reference_threw) + " (declare the result duet::may_throw(...) if it may)";
    return failed_at(trace, call.text, "", why, why);
  }
  if (call.candidate_threw.is_exception()) return undeclared_throw(trace, call.text, call.candidate_threw);
  if (!call.deconstruct(env, false, shown, mismatch)) {
    if (!shape.binds) return whole_mismatch(trace, call.text, call.show_reference(), call.show_candidate());
    return mismatch_failure(trace, call.text, *mismatch, shape.inner == SpecKind::value);
  }
  record_done(trace, env, call, shown);
  return {};
}

/// may_throw: both sides throw equivalent exceptions, or both return results that agree.
StepVerdict judge_may_throw(ApiCall& call, Env& env, Trace* trace) {
  const bool solo = call.op->shape.solo;
  const Result& reference = call.reference_threw;  // never an exception in solo mode
  const Result& candidate = call.candidate_threw;
  if (candidate.is_exception() && (solo || reference.is_exception())) {
    if (!solo && !exceptions_match(call)) {
      return failed_with(
          trace, call.text,
          "candidate throws " + exception_text(candidate) + "; the reference throws " + exception_text(reference));
    }
    if (trace) record_api_step(trace, call.text, "throws " + candidate.exception_type());
    return {};
  }
  if (reference.is_exception() || candidate.is_exception()) {
    std::string found = candidate.is_exception() ? "that it throws " + exception_text(candidate) : "a result";
    std::string expected = reference.is_exception() ? "that it throws " + exception_text(reference) : "a result";
    if (!call.op->shape.returns_void) {
      if (!candidate.is_exception()) found = call.show_candidate();
      if (!reference.is_exception()) expected = call.show_reference();
    }
    return failed_with(trace, call.text, "candidate finds " + found + "; the reference finds " + expected);
  }
  std::string shown;
  std::optional<Mismatch> mismatch;
  if (!call.deconstruct(env, false, shown, mismatch)) {
    if (!call.op->shape.binds) return whole_mismatch(trace, call.text, call.show_reference(), call.show_candidate());
    return mismatch_failure(trace, call.text, *mismatch, call.op->shape.inner == SpecKind::value);
  }
  record_done(trace, env, call, shown);
  return {};
}

/// nondet: the reference judges the candidate's outcome (a value; under may_throw, an exception
/// too) and gives its own value to go on with.
StepVerdict judge_nondet(ApiCall& call, Env& env, Trace* trace) {
  const Result& thrown = call.candidate_threw;
  std::string why;
  if (call.op->shape.judges_outcome) {
    Result seen = thrown.is_exception() ? thrown : Result();
    const bool valid = call.judge_candidate(seen, why);
    const std::string shown = thrown.is_exception() ? "that it throws " + exception_text(thrown) : seen.show();
    if (!valid) return failed_with(trace, call.text, "candidate finds " + shown + (why.empty() ? "" : ": " + why));
    if (trace) record_api_step(trace, call.text, thrown.is_exception() ? "throws " + thrown.exception_type() : shown);
    return {};
  }
  if (thrown.is_exception()) {
    return failed_with(
        trace, call.text,
        "candidate throws " + exception_text(thrown) + " (declare the result duet::nondet(duet::may_throw(...)) if it may)");
  }
  Result unused;
  if (!call.judge_candidate(unused, why))
    return failed_with(trace, call.text, "candidate finds " + call.show_candidate() + (why.empty() ? "" : ": " + why));
  std::string shown;
  std::optional<Mismatch> mismatch;
  if (!call.deconstruct(env, false, shown, mismatch))
    return mismatch_failure(trace, call.text, *mismatch, call.op->shape.inner == SpecKind::value);
  record_done(trace, env, call, shown);
  return {};
}

/// A sequential step's verdict once the candidate has run (and the reference, unless it judges).
StepVerdict judge_step(ApiCall& call, Env& env, Trace* trace) {
  switch (call.op->shape.kind) {
    case SpecKind::nondet: return judge_nondet(call, env, trace);
    case SpecKind::may_throw: return judge_may_throw(call, env, trace);
    default: return judge_plain(call, env, trace);
  }
}

/// The reference's verdict on the call's kept candidate outcome, run on env (a state the
/// parallel search tries, or a world after a crash): the comparison of a sequential step,
/// without moving the candidate's value. `expected`, if given, receives what the reference
/// found ("7", "that it throws std::out_of_range").
bool judge_kept(ApiCall& call, Env& env, std::string* why, std::string* expected) {
  call.run_reference();
  if (expected) *expected = reference_outcome(call);
  const bool reference_threw = call.reference_threw.is_exception();
  const bool candidate_threw = call.candidate_threw.is_exception();
  if (call.op->shape.kind == SpecKind::may_throw) {
    if (reference_threw || candidate_threw) return reference_threw && candidate_threw && exceptions_match(call);
  } else if (reference_threw) {
    if (why) *why = "the reference implementation of " + call.op->name + " threw " + exception_text(call.reference_threw);
    return false;
  } else if (candidate_threw) {
    return false;
  }
  if (call.op->shape.returns_void) return true;
  std::string shown;
  std::optional<Mismatch> mismatch;
  const bool ok = call.deconstruct(env, true, shown, mismatch);
  call.bound = std::move(shown);
  return ok;
}

/// judge_kept on env's handles. False, with why, when the reference declines or cannot judge.
bool check_reference(ApiCall& call, Env& env, std::string* why, std::string* expected = nullptr) {
  call.rebind(env);
  if (!call.op->parallel_ok) {
    if (why) *why = "not supported under threads";
    return false;
  }
  try {
    return judge_kept(call, env, why, expected);
  } catch (const BackOff&) {
    if (why) *why = "the reference declines " + call.op->name + " here";
    return false;
  }
}

/// Runs only the reference on env, for its effect on the arguments (a call a crash
/// interrupted, taken effect): its result is dropped.
void apply_reference(ApiCall& call, Env& env) {
  call.rebind(env);
  if (!call.op->shape.reference_first()) return;
  try {
    call.run_reference();
  } catch (const BackOff&) {
  }
}

/// A duet::BackOff once the draw is over (from the candidate, or from a nondet reference, which
/// judges what the candidate did): too late to decline, an error of the spec.
std::string late_back_off(const ApiCall& call) {
  return "duet::BackOff thrown while " + call.text +
         " ran: only a reference declines an operation, before the candidate runs (a nondet reference "
         "judges the candidate's result and cannot decline it; declare a precondition with where(...))";
}

/// The fault plan and the async trace sink, armed around a step's calls when crash injection
/// is on. A plan that has injected its crash stays disarmed for the rest of the operation.
class ArmedCalls {
 public:
  ArmedCalls(bool on, FaultPlan& plan, std::string* async_trace) {
    if (!on) return;
    if (plan.where.empty()) faults_.emplace(plan);
    if (async_trace) traced_.emplace(async_trace);
  }

 private:
  std::optional<FaultScope> faults_;
  std::optional<AsyncTraceScope> traced_;
};

/// Drops a sequential call's arguments and results when its step ends.
class ReleasedAtEnd {
 public:
  explicit ReleasedAtEnd(ApiCall& call) : call_(call) {}
  ~ReleasedAtEnd() { call_.release(); }
  ReleasedAtEnd(const ReleasedAtEnd&) = delete;
  ReleasedAtEnd& operator=(const ReleasedAtEnd&) = delete;

 private:
  ApiCall& call_;
};

// ---------------------------------------------------------------------------------------
// The scenario loop's steps.

// The API's steps for the case loop: draw picks an operation and its arguments, step runs the
// candidate and judges the call. An operation whose reference runs first (neither nondet nor
// without a reference) also runs its reference in draw: a reference declines (duet::BackOff)
// only by running, and a declined draw is drawn again, before the loop counts a command.
//
// With crash injection (Api::recover), the reference may be in several possible worlds after
// a crash: worlds_[0] holds the live candidate values (and one world's reference values), the
// others are copies whose candidate values are stale. Until a crash, every step runs as
// without crashes, on a copy taken first (the world where a crash leaves the call without
// effect); after one, the candidate runs once and each world's reference judges its result.
class ApiSteps final : public CaseSteps {
 public:
  explicit ApiSteps(const ApiData& d) : d_(d), crashes_on_(d.crashes()) {
    if (t_kept.serial == d.serial) calls_ = std::move(t_kept.calls);
    else calls_.resize(d.ops.size());
    t_kept.serial = 0;  // taken: a case inside this one makes calls of its own
  }
  ~ApiSteps() override {
    for (const auto& call : calls_)
      if (call) call->release();
    t_kept.serial = d_.serial;
    t_kept.calls = std::move(calls_);
  }
  ApiSteps(const ApiSteps&) = delete;
  ApiSteps& operator=(const ApiSteps&) = delete;

  StepVerdict start(Trace* trace) override {
    trace_ = trace;
    worlds_ = Worlds(fresh_env(d_));
    return {};
  }

  Drawn draw(Source& src, StepVerdict& failure) override {
    const auto k = static_cast<std::size_t>(src.draw(d_.ops.size() - 1));
    if (!calls_[k]) calls_[k] = d_.ops[k]->new_call();
    call_ = calls_[k].get();
    src_ = &src;
    verdict_ = {};
    in_worlds_ = worlds_.size() > 1;
    const Drawn drawn = in_worlds_ ? draw_in_worlds(failure) : draw_in_one_world();
    if (drawn != Drawn::command) call_->release();
    return drawn;
  }

  StepVerdict step(Trace*) override {
    if (!verdict_.ok()) return std::move(verdict_);
    const ReleasedAtEnd released(*call_);
    StepVerdict v = in_worlds_ ? step_in_worlds() : step_in_one_world();
    // With Api::state, a traced step records the live values it left.
    if (trace_ && v.ok() && d_.shows_state() && !trace_->steps.empty())
      trace_->steps.back().state = worlds_state(d_, worlds_);
    return v;
  }

  // Well-formedness of every live value, not only of those this step touched: a candidate
  // that shares structure between values may corrupt one through another. After a crash, the
  // check passes if it passes in one of the possible worlds.
  StepVerdict after_step(Trace* trace) override {
    std::optional<IllFormed> broken = check_all(worlds_[0]);
    for (std::size_t w = 1; broken && w < worlds_.size(); ++w) {
      take_candidates(worlds_[w], worlds_[0]);
      if (!check_all(worlds_[w])) broken.reset();
      take_candidates(worlds_[0], worlds_[w]);
    }
    if (broken) {
      if (trace) {
        record_failure(trace, nullptr, broken->message);
        // The draft test re-runs the check on that value, through a function the user defines
        // (duet holds the check as a lambda, not as C++ it can print).
        if (!trace->steps.empty()) {
          Step& step = trace->steps.back();
          step.check = "duet_well_formed(" + broken->var + ")";
          step.check_declaration = "bool duet_well_formed(const " + broken->type + "& value);";
        }
      }
      return StepVerdict::fail(broken->message);
    }
    return {};
  }
  StepVerdict assertion_failed(Trace* trace, std::string why) override {
    if (trace) record_failure(trace, nullptr, why);
    return StepVerdict::fail(std::move(why));
  }

 private:
  using Worlds = PossibleWorlds<Env>;

  // The calls of the check this thread ran a case of last, kept (released) for its next case:
  // a case would otherwise allocate one per operation it draws.
  struct KeptCalls {
    std::uint64_t serial = 0;  // the ApiData's
    std::vector<std::unique_ptr<ApiCall>> calls;
  };
  static thread_local KeptCalls t_kept;

  static std::optional<IllFormed> check_all(const Env& env) {
    for (const auto& store : env.stores)
      if (auto broken = store->check_all()) return broken;
    return std::nullopt;
  }

  static StepVerdict swallowed(const FaultPlan& plan) {
    return StepVerdict::fail("the candidate caught duet::crash (injected at " + plan.where + " (" + plan.location +
                             ")) and went on: a crash must end the operation (let duet::crash through any catch (...))");
  }

  // One world: the arguments, then (under the fault plan, which may crash the reference too)
  // the reference when it runs first. A spec error or the reference's Unimplemented is kept in
  // drawn_ for step, which reports it as it reports the candidate's.
  Drawn draw_in_one_world() {
    ApiCall& call = *call_;
    drawn_ = {};
    crashed_ = false;
    faults_on_ = crashes_on_ && call.op->crash_ok;
    untaken_.reset();
    if (faults_on_) {
      try {
        untaken_.emplace(worlds_[0]);
      } catch (const std::logic_error&) {
        verdict_ = StepVerdict::error(
            "crash injection in duet::Api keeps a copy of every live value for each world a crash may leave: "
            "every abstract type's reference and candidate types must be copyable");
        return Drawn::command;
      }
    }
    plan_ = FaultPlan{};
    if (faults_on_) {
      plan_.src = src_;
      plan_.one_in = d_.crash_one_in;
    }
    async_trace_.clear();
    const ArmedCalls armed(faults_on_, plan_, trace_ ? &async_trace_ : nullptr);
    std::string spec_error;
    switch (draw_arguments(call, *src_, worlds_[0], spec_error)) {
      case ArgumentsDrawn::declined: return Drawn::rejected;
      case ArgumentsDrawn::spec_error: drawn_ = StepVerdict::error(std::move(spec_error)); return Drawn::command;
      case ArgumentsDrawn::ready: break;
    }
    announce_call(trace_, call.text);
    if (!call.op->shape.reference_first()) return Drawn::command;
    try {
      call.run_reference();
    } catch (const BackOff&) {
      return Drawn::rejected;
    } catch (const Unimplemented&) {
      drawn_ = StepVerdict::abandoned(call.op->name + " is not implemented by the candidate");
    } catch (const duet::crash&) {
      crashed_ = true;
    }
    return Drawn::command;
  }

  // The candidate runs (under the fault plan still), then the call is judged; a crash in either
  // side forks the worlds.
  StepVerdict step_in_one_world() {
    ApiCall& call = *call_;
    StepVerdict verdict = std::move(drawn_);
    if (verdict.ok() && !crashed_) {
      const ArmedCalls armed(faults_on_, plan_, trace_ ? &async_trace_ : nullptr);
      try {
        call.run_candidate();
        verdict = judge_step(call, worlds_[0], trace_);
      } catch (const BackOff&) {
        verdict = StepVerdict::error(late_back_off(call));
      } catch (const Unimplemented&) {
        verdict = StepVerdict::abandoned(call.op->name + " is not implemented by the candidate");
      } catch (const duet::crash&) {
        crashed_ = true;
      }
    }
    if (crashed_) {
      // worlds_[0]'s reference ran before the candidate crashed: the call took effect there.
      // The world without it comes first (as failures list them), with the live candidate.
      take_candidates(*untaken_, worlds_[0]);
      worlds_.add_first(std::move(*untaken_));
      return after_crash(call.text, plan_, std::move(async_trace_));
    }
    if (!plan_.where.empty()) return swallowed(plan_);
    if (!verdict.ok() && trace_ && !trace_->steps.empty()) trace_->steps.back().async_trace = std::move(async_trace_);
    return verdict;
  }

  // After a crash: the step's line in the report, the candidate rebuilt by the spec's recover
  // functions, and equal worlds merged (worlds_ holds every world the call may have left).
  StepVerdict after_crash(const std::string& call, const FaultPlan& plan, std::string async_trace) {
    ++crashes_;
    const std::string where = plan.where + " (" + plan.location + ")";
    if (trace_) {
      record_api_step(trace_, call, "");
      trace_->steps.back().crash = where;
      trace_->steps.back().async_trace = std::move(async_trace);
      trace_->no_draft = "a crash was injected; the replay token reproduces it";
    }
    fire_crash_listeners(*src_);
    for (std::size_t id = 0; id < d_.recovers.size(); ++id) {
      if (!d_.recovers[id]) continue;
      try {
        d_.recovers[id](*worlds_[0].stores[id]);
      } catch (...) {
        const std::string why = threw("the spec's recover function after the crash at " + where);
        if (trace_) record_failure(trace_, nullptr, why);
        return StepVerdict::fail(why);
      }
    }
    worlds_.merge(same_references);  // worlds_[0], with the live candidate, always stays
    if (worlds_.over_limit()) return StepVerdict::error(worlds_.limit_message("give the reference types an operator=="));
    return {};
  }

  // After a crash, the arguments only: each world's reference judges the candidate's result in
  // step. Judging a kept outcome needs a reference that does not depend on it: nondeterministic
  // operations and those without a reference wait until the worlds agree again.
  Drawn draw_in_worlds(StepVerdict& failure) {
    if (!call_->op->parallel_ok) return Drawn::rejected;
    std::string spec_error;
    switch (draw_arguments(*call_, *src_, worlds_[0], spec_error)) {
      case ArgumentsDrawn::declined: return Drawn::rejected;
      case ArgumentsDrawn::spec_error: failure = StepVerdict::error(std::move(spec_error)); return Drawn::failed;
      case ArgumentsDrawn::ready: break;
    }
    return Drawn::command;
  }

  // A step after a crash: the candidate runs once (it may crash again, forking every world),
  // then every world's reference judges its outcome.
  StepVerdict step_in_worlds() {
    ApiCall& call = *call_;
    FaultPlan plan;
    std::string async_trace;
    bool crashed = false;
    {
      std::optional<FaultScope> faults;
      if (call.op->crash_ok) {
        plan.src = src_;
        plan.one_in = d_.crash_one_in;
        faults.emplace(plan);
      }
      const AsyncTraceScope traced(trace_ ? &async_trace : nullptr);
      try {
        call.run_candidate();
      } catch (const duet::crash&) {
        crashed = true;
      } catch (const BackOff&) {
        return StepVerdict::error(late_back_off(call));
      } catch (const Unimplemented&) {
        return StepVerdict::abandoned(call.op->name + " is not implemented by the candidate");
      }
    }
    if (crashed) {
      worlds_.fork([&](Env& taken) { apply_reference(call, taken); });
      return after_crash(call.text, plan, std::move(async_trace));
    }
    if (!plan.where.empty()) return swallowed(plan);
    return judge_in_worlds(call, std::move(async_trace));
  }

  // The worlds that cannot explain the candidate's outcome are dropped; none left is a failure,
  // listing what the worlds' references found instead.
  StepVerdict judge_in_worlds(ApiCall& call, std::string async_trace) {
    std::vector<bool> explains;
    std::vector<std::string> allowed;
    std::string why;
    for (std::size_t i = 0; i < worlds_.size(); ++i) {
      std::string world_why, expected;
      explains.push_back(check_reference(call, worlds_[i], &world_why, &expected));
      if (explains.back()) continue;
      if (why.empty()) why = world_why;
      if (!expected.empty() && std::find(allowed.begin(), allowed.end(), expected) == allowed.end())
        allowed.push_back(expected);
    }
    const auto first_kept = static_cast<std::size_t>(std::find(explains.begin(), explains.end(), true) - explains.begin());
    if (first_kept == explains.size()) return unexplained(call, allowed, why, std::move(async_trace));
    // The live candidate values go with the first world that explains them.
    if (first_kept != 0) take_candidates(worlds_[first_kept], worlds_[0]);
    worlds_.keep_at(explains);
    worlds_.merge(same_references);
    if (trace_) record_api_step(trace_, shown_call(call), outcome_text(call));
    return {};
  }

  // No world explains the candidate's outcome: the failure lists what the references found.
  StepVerdict unexplained(const ApiCall& call, const std::vector<std::string>& allowed, const std::string& why,
                          std::string async_trace) {
    std::string listed;
    for (std::size_t i = 0; i < allowed.size(); ++i)
      listed += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
    const std::string found = outcome_text(call);
    std::string explanation = "candidate finds " + (found.empty() ? std::string("a result no world allows") : found) +
                              "; after the crash" + (crashes_ > 1 ? "es" : "") + " the reference finds " +
                              (listed.empty() ? why : listed) + Worlds::interrupted(crashes_, "call");
    if (trace_) {
      record_api_failure(trace_, shown_call(call), "", explanation);
      trace_->steps.back().async_trace = std::move(async_trace);
    }
    return StepVerdict::fail(explanation + " (" + call.text + ")");
  }

  const ApiData& d_;
  const bool crashes_on_;
  Worlds worlds_;  // one, except after crashes; [0] holds the live candidate values
  Trace* trace_ = nullptr;
  Source* src_ = nullptr;
  std::vector<std::unique_ptr<ApiCall>> calls_;  // by operation, each made at its first draw
  ApiCall* call_ = nullptr;                      // the call drawn last
  bool in_worlds_ = false;                       // it was drawn after a crash
  StepVerdict verdict_;                          // decided while drawing, returned as it is
  // One world: what the draw left for the step.
  StepVerdict drawn_;           // a spec error, or the reference's Unimplemented
  bool crashed_ = false;        // the reference crashed
  bool faults_on_ = false;      // crash injection armed for this call
  FaultPlan plan_;              // armed around both sides' runs
  std::string async_trace_;     // what duet::run traced during them
  std::optional<Env> untaken_;  // the world where a crash leaves the call without effect
  std::size_t crashes_ = 0;
};

thread_local ApiSteps::KeptCalls ApiSteps::t_kept;

CaseOutcome run_api_case(const ApiData& d, Source& src, const CaseParams& params, Trace* trace) {
  ApiSteps steps(d);
  return run_case_loop(steps, src, params, trace);
}

// ---------------------------------------------------------------------------------------
// Y-programs.

// The search's oracle for an API's branches: the reference, from the state after the prefix.
struct ReferenceOracle {
  using State = Env;
  static constexpr bool memo = false;
  const std::vector<std::unique_ptr<ApiCall>>* calls;
  const Env* start;
  State initial() const { return *start; }
  bool apply(State& env, std::size_t i) const { return check_reference(*(*calls)[i], env, nullptr); }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};

// The API's Y-programs: the prefix drawn and run on both sides (it must agree), the branches
// drawn from the handles the prefix made; in each trial the prefix runs again on both sides,
// the branches at once on the candidate, and the reference is the search's oracle. No suffix.
class ApiYSteps final : public YSteps {
 public:
  /// `given`: a scenario's calls in report order (take_call), or null.
  explicit ApiYSteps(const ApiData& d, const std::vector<Call>* given = nullptr)
      : d_(d), gen_(fresh_env(d)), given_(given) {}

  ApiYSteps(const ApiYSteps&) = delete;
  ApiYSteps& operator=(const ApiYSteps&) = delete;

  void begin_part(Part part, std::size_t, const std::vector<std::string>* ops) override {
    part_ = part;
    among_.clear();
    if (!ops) return;
    for (std::size_t k = 0; k < d_.ops.size(); ++k)
      if (op_allowed(ops, d_.ops[k]->name)) among_.push_back(k);
  }

  CaseSteps::Drawn draw_call(Source& src, Trace* trace, StepVerdict& failure) override {
    if (part_ == Part::suffix) return CaseSteps::Drawn::none;
    std::string spec_error;
    const std::size_t k = among_.empty() ? static_cast<std::size_t>(src.draw(d_.ops.size() - 1))
                                         : among_[static_cast<std::size_t>(src.draw(among_.size() - 1))];
    std::unique_ptr<ApiCall> call = d_.ops[k]->new_call();
    switch (draw_arguments(*call, src, gen_, spec_error)) {
      case ArgumentsDrawn::declined: return CaseSteps::Drawn::rejected;
      case ArgumentsDrawn::spec_error: failure = StepVerdict::error(std::move(spec_error)); return CaseSteps::Drawn::failed;
      case ArgumentsDrawn::ready: break;
    }
    return place(std::move(call), trace, failure);
  }

  // A scenario's call: its arguments bound among the live values the prefix made so far (the
  // operation and the arity were checked before the check ran).
  StepVerdict take_call(std::size_t i) override {
    const Call& given = (*given_)[i];
    const auto op = std::find_if(d_.ops.begin(), d_.ops.end(), [&](const auto& o) { return o->name == given.op; });
    std::unique_ptr<ApiCall> call = (*op)->new_call();
    for (std::size_t id : (*op)->result_ids)
      if (gen_.stores[id]->size() >= gen_.max_handles)
        return StepVerdict::error("the scenario makes more live values of a type than ApiOptions::max_handles");
    std::string why;
    try {
      why = call->give_arguments(given.args, gen_);
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      why = threw("the spec's where() precondition");
    }
    if (!why.empty()) return StepVerdict::error("call " + std::to_string(i + 1) + " of the scenario: " + why);
    StepVerdict failure;
    if (place(std::move(call), nullptr, failure) == CaseSteps::Drawn::failed) return failure;
    return {};
  }

  // Each call as duet::call("op", args...), a live value by its name; the draft calls
  // duet_api(), which the user defines. `keys`: the calls as check_scenario names them.
  bool scenario_draft(Trace::ScenarioDraft& draft, std::string& signature, std::vector<std::string>& keys) const override {
    auto add = [&](const ApiCall& c) {
      std::string args;
      for (std::size_t k = 0; k < c.op->arity; ++k) {
        const ArgSlot& slot = c.arguments[k];
        args += (k == 0 ? "" : ", ") + (slot.handle != ArgSlot::none ? show_string(slot.text) : slot.text);
      }
      draft.calls.push_back("duet::call(" + show_string(c.op->name) + (args.empty() ? "" : ", " + args) + ")");
      keys.push_back(c.op->name + "(" + args + ")");
    };
    for (const auto& c : prefix_) add(*c);
    for (const auto& c : calls_) add(*c);
    draft.declarations =
        "#include <duet/api.hpp>\n\n// The duet::Api of the test that found this: define duet_api() to return "
        "it.\nduet::Api duet_api();\n";
    draft.type = "duet::Scenario<>";
    draft.check = "duet_api().check_scenario(scenario";
    signature = d_.parallel_signature;
    return true;
  }

 private:
  // A drawn or given call: a branch's is kept for the trials; the prefix's runs on both sides
  // now, and the program fails if they disagree.
  CaseSteps::Drawn place(std::unique_ptr<ApiCall> call, Trace* trace, StepVerdict& failure) {
    if (part_ == Part::branch) {
      calls_.push_back(std::move(call));
      return CaseSteps::Drawn::command;
    }
    ApiCall& prefix_call = *prefix_.emplace_back(std::move(call));
    prefix_call.run_candidate();
    std::string why;
    if (check_reference(prefix_call, gen_, &why)) return CaseSteps::Drawn::command;
    failure = StepVerdict::fail("in the sequential prefix: " + prefix_call.text + ": " +
                                (why.empty() ? "candidate finds " + outcome_text(prefix_call) : why));
    if (trace) {  // the prefix ran like a sequential scenario: report it as one
      for (std::size_t i = 0; i + 1 < prefix_.size(); ++i)
        record_api_step(trace, shown_call(*prefix_[i]), outcome_text(*prefix_[i]));
      record_api_failure(trace, shown_call(prefix_call), "", failure.message);
    }
    return CaseSteps::Drawn::failed;
  }

 public:
  bool runnable(const YShape&) const override { return !calls_.empty(); }

  // `observed` holds the branch calls only: the prefix is checked on both sides as it runs.
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) override {
    Env env = fresh_env(d_);
    std::string why;
    for (auto& c : prefix_) {
      c->rebind(env);
      c->run_candidate();
      if (!check_reference(*c, env, &why))
        return StepVerdict::fail("in the sequential prefix (a trial): " + c->text + ": " +
                                 (why.empty() ? "candidate finds " + outcome_text(*c) : why));
    }
    after_prefix_ = env;
    for (auto& c : calls_) c->rebind(env);
    observed.assign(calls_.size(), Observed{});
    std::vector<std::function<void()>> branches;
    for (std::size_t b = 0, at = 0; b < shape.branches.size(); at += shape.branches[b], ++b)
      branches.push_back([&, at, len = shape.branches[b]] {
        for (std::size_t k = 0; k < len; ++k) {
          noise.before_call(at + k);
          observed[at + k].cpu = current_cpu();
          observed[at + k].invoke = event_time(CallEdge::invoke);
          calls_[at + k]->run_candidate();
          observed[at + k].response = event_time(CallEdge::response);
        }
      });
    executor.run(branches);
    return {};
  }

  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    YShape branches_only = shape;
    branches_only.prefix = 0;
    const ReferenceOracle oracle{&calls_, &*after_prefix_};
    const bool explained = judge(y_history(branches_only, observed), oracle, consistency);
    if (!explained && d_.shows_state()) keep_witness(oracle, judge.order);
    return explained;
  }

  std::string violation(Consistency consistency) const override {
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the reference implementation)";
  }

  // Results as the API shows them (bindings, handles), from the calls themselves.
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>&, const std::string& verdict) const override {
    std::vector<std::string> texts, results;
    texts.reserve(prefix_.size() + calls_.size());
    results.reserve(texts.capacity());
    for (const auto& c : prefix_) texts.push_back(shown_call(*c));
    for (const auto& c : calls_) texts.push_back(shown_call(*c));
    record_y(trace, shape, texts, std::vector<Observed>(texts.size()), "", verdict);
    for (const auto& c : prefix_) results.push_back(outcome_text(*c));
    for (const auto& c : calls_) results.push_back(outcome_text(*c));
    trace->diagram = y_diagram(shape, texts, results);
    // The witness orders the branch calls, which come after the prefix in the trace's numbering.
    trace->y_witness.clear();
    for (std::size_t i : witness_) trace->y_witness.push_back(prefix_.size() + i);
    trace->y_witness_states = witness_states_;
    trace->y_witness_after_prefix = true;
    trace->y_shown_results = results;
  }

 private:
  // The closest sequential witness with the live values along it: the reference replayed from
  // the values the prefix left, as the search ran it. None when that throws.
  void keep_witness(const ReferenceOracle& oracle, const std::vector<std::size_t>& order) {
    witness_.clear();
    witness_states_.clear();
    try {
      Env env = oracle.initial();
      witness_states_.push_back(env_state(d_, env));
      for (std::size_t i : order) {
        oracle.apply(env, i);
        witness_states_.push_back(env_state(d_, env));
      }
      witness_ = order;
    } catch (...) {
      witness_states_.clear();
    }
  }


  const ApiData& d_;
  Env gen_;  // the environment calls are drawn in (the prefix runs in it)
  Part part_ = Part::prefix;
  std::vector<std::size_t> among_;  // the current part's operations (ParallelConfig::roles; empty: all)
  std::vector<std::unique_ptr<ApiCall>> prefix_, calls_;
  std::optional<Env> after_prefix_;
  std::vector<std::size_t> witness_;  // with Api::state, when no order explained the trial
  std::vector<std::string> witness_states_;
  const std::vector<Call>* given_;  // a scenario's calls, or null
};

CaseOutcome run_api_parallel_case(const ApiData& d, const ParallelParams& pp, Source& src, Trace* trace,
                                  const CaseParams& cp, const std::vector<Call>* given) {
  ApiYSteps steps(d, given);
  return run_y_case(steps, pp, src, trace, cp, [&] { return std::make_unique<ApiYSteps>(d, given); });
}

// Why a scenario cannot be an API's program (before any call is bound), or empty: a suffix, an
// operation the API does not declare, a call with the wrong number of arguments.
std::string api_scenario_error(const Scenario<>& scenario, const std::vector<std::shared_ptr<const OpBase>>& ops) {
  if (!scenario.suffix.empty()) return "the scenario has a suffix, and a duet::Api program has none";
  const std::vector<Call> calls = scenario_calls(scenario);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto op = std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return o->name == calls[i].op; });
    std::string why;
    if (op == ops.end()) {
      std::string names;
      for (const auto& o : ops) names += (names.empty() ? "" : ", ") + o->name;
      why = "the scenario calls `" + calls[i].op + "`, which the API does not declare (its operations: " + names + ")";
    } else {
      why = scenario_arity_error(calls[i].op, calls[i].args.size(), (*op)->arity);
    }
    if (!why.empty()) return "call " + std::to_string(i + 1) + " of the scenario: " + why;
  }
  return {};
}

// A scenario's program as check_scenario names it: "op(args)", the arguments as C++.
std::shared_ptr<const GivenProgram> api_given_program(const Scenario<>& scenario) {
  auto program = std::make_shared<GivenProgram>();
  program->shape = scenario_shape(scenario);
  for (const Call& c : scenario_calls(scenario)) {
    std::string text = c.op + "(";
    for (std::size_t k = 0; k < c.args.size(); ++k) text += (k == 0 ? "" : ", ") + scenario_arg_cpp(c.args[k]);
    program->calls.push_back(text + ")");
  }
  return program;
}

}  // namespace

IllFormed ill_formed(const std::string& var, const std::string& why, std::string type) {
  return {"the well-formedness check fails on " + var + (why.empty() ? "" : ": " + why), var, std::move(type)};
}

std::string Env::fresh(std::size_t type_id) { return (*prefixes)[type_id] + std::to_string(next_var++); }

Env::Env(const Env& o) : prefixes(o.prefixes), next_var(o.next_var), max_handles(o.max_handles) {
  stores.reserve(o.stores.size());
  for (const auto& s : o.stores) stores.push_back(s->clone());
}
Env& Env::operator=(const Env& o) {
  if (this != &o) *this = Env(o);
  return *this;
}

}  // namespace detail

Api::Api(std::string name) : name_(std::move(name)) {}
Api::Api(const Api&) = default;
Api::Api(Api&&) noexcept = default;
Api& Api::operator=(const Api&) = default;
Api& Api::operator=(Api&&) noexcept = default;
Api::~Api() = default;

std::size_t Api::add_abstract(std::unique_ptr<detail::HandleStore> empty_store, const std::string& prefix) {
  stores_.push_back(std::move(empty_store));
  prefixes_.push_back(prefix);
  return stores_.size() - 1;
}

void Api::add_op(std::unique_ptr<detail::OpBase> op) { ops_.push_back(std::move(op)); }

detail::Property Api::property(const ApiOptions& options) const {
  auto data = std::make_shared<detail::ApiData>();
  data->stores = stores_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
  data->recovers = recovers_;
  data->crash_one_in = options.crash_one_in;
  data->shows = shows_;
  detail::Property p;
  p.name = name_;
  std::string signature = name_;
  for (const auto& op : ops_) signature += "/" + op->name;
  p.spec_id = detail::hash32(signature);
  p.run_case = [data](Source& src, const detail::CaseParams& params, detail::Trace* trace) {
    return detail::run_api_case(*data, src, params, trace);
  };
  return p;
}

detail::Property Api::parallel_property(const ParallelConfig& pc, const ApiOptions& options,
                                        const Scenario<>* scenario) const {
  detail::Property p = property(options);
  auto data = std::make_shared<detail::ApiData>();
  data->stores = stores_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
  data->shows = shows_;
  data->parallel_signature = std::to_string(p.spec_id) + "/parallel";
  std::shared_ptr<const detail::GivenProgram> given;
  std::shared_ptr<const std::vector<Call>> calls;
  if (scenario) {
    given = detail::api_given_program(*scenario);
    calls = std::make_shared<const std::vector<Call>>(detail::scenario_calls(*scenario));
  }
  p.spec_id = detail::hash32(data->parallel_signature +
                             (given ? detail::scenario_signature(pc, *given) : detail::shape_signature(pc)));
  auto pp = detail::parallel_params(pc, p, given);
  p.run_case = [data, pp, calls](Source& src, const detail::CaseParams& cp, detail::Trace* trace) {
    return detail::run_api_parallel_case(*data, *pp, src, trace, cp, calls.get());
  };
  // The check that built it runs the twin, while this Api lives.
  detail::offer_fiber_twin(
      p, pc, [this, options, scenario](const ParallelConfig& on) { return parallel_property(on, options, scenario); });
  return p;
}

static std::string parallel_unsupported(const std::vector<std::shared_ptr<const detail::OpBase>>& ops) {
  for (const auto& op : ops)
    if (!op->parallel_ok)
      return "operation " + op->name + " is nondeterministic or has no reference: not supported under threads";
  return {};
}

// Why the API cannot run under pc, or empty.
static std::string parallel_error(const ParallelConfig& pc, const std::vector<std::shared_ptr<const detail::OpBase>>& ops) {
  if (ops.empty()) return "the API declares no operation";
  std::string why = detail::check_parallel_config(pc);
  if (why.empty()) why = parallel_unsupported(ops);
  if (why.empty()) {
    std::vector<std::string> names;
    names.reserve(ops.size());
    for (const auto& op : ops) names.push_back(op->name);
    why = detail::op_names_error(pc, names);
  }
  return why;
}

CheckResult Api::check_parallel(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(parallel_property(pc, options), config);
}

CheckResult Api::expect_unsafe(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(detail::expecting_failure(parallel_property(detail::unsafe_config(pc), options)), config);
}

CheckResult Api::check_scenario(const Scenario<>& scenario, const ParallelConfig& pc, const Config& config,
                                const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  std::string why = detail::api_scenario_error(scenario, ops_);
  if (why.empty()) why = detail::given_program_error(pc, *detail::api_given_program(scenario));
  if (!why.empty()) return detail::nothing_tested(name_, why);
  return detail::run_property(parallel_property(pc, options, &scenario), config);
}

static Config with_fuel(Config config, const ApiOptions& options) {
  if (options.fuel > 0 && !config.max_length) config.max_length = options.fuel;
  return config;
}

CheckResult Api::check(const Config& config, const ApiOptions& options) const {
  if (ops_.empty()) return detail::nothing_tested(name_, "the API declares no operation");
  return detail::run_property(detail::searching_case_runs(property(options)), with_fuel(config, options));
}

CheckResult Api::check_bytes(std::span<const std::uint8_t> bytes, const Config& config, const ApiOptions& options) const {
  return detail::run_property(detail::searching_case_runs(property(options)), with_fuel(config, options), bytes);
}

}  // namespace duet
