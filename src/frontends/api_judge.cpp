// Drawing one Api call's arguments among the live values, and judging the call once both sides
// ran: the results compared or bound as new handles, exceptions and nondet references, and the
// failures as the report shows them. Shared by the sequential steps and the Y-programs.
#include <algorithm>
#include <cctype>
#include <string>

#include "frontends/api_data.hpp"

namespace duet::detail {
namespace {

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

}  // namespace

// ---------------------------------------------------------------------------------------
// What the steps and the Y-programs use (api_data.hpp).

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

/// A sequential step's verdict once the candidate has run (and the reference, unless it judges).
StepVerdict judge_step(ApiCall& call, Env& env, Trace* trace) {
  switch (call.op->shape.kind) {
    case SpecKind::nondet: return judge_nondet(call, env, trace);
    case SpecKind::may_throw: return judge_may_throw(call, env, trace);
    default: return judge_plain(call, env, trace);
  }
}

/// judge_kept on env's handles. False, with why, when the reference declines or cannot judge.
bool check_reference(ApiCall& call, Env& env, std::string* why, std::string* expected) {
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

}  // namespace duet::detail
