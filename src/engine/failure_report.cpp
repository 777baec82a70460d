#include "engine/failure_report.hpp"
#include "execute/named_executor.hpp"

#include <algorithm>
#include <optional>
#include <tuple>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/backend.hpp"
#include "engine/crash_stack.hpp"
#include "report/fiber_timeline.hpp"

namespace duet::detail {
namespace {

// "f1  load  atomic#0  = 0  x.hpp:21" with its step number and runs of spaces dropped.
std::string trace_line_text(const std::string& line) {
  std::string s;
  std::size_t i = line.find_first_not_of(' ');
  i = i == std::string::npos ? line.size() : line.find(' ', i);  // the step number
  for (; i < line.size(); ++i)
    if (line[i] != ' ' || (!s.empty() && s.back() != ' ')) s += line[i];
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// ---- what kind of thing a diverging step differs in ----

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> w;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t end = std::min(text.find(' ', i), text.size());
    if (end > i) w.push_back(text.substr(i, end - i));
    i = end + 1;
  }
  return w;
}

bool all_of(std::string_view s, bool (*f)(char)) { return !s.empty() && std::all_of(s.begin(), s.end(), f); }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool hex_digit(char c) { return digit(c) || (c >= 'a' && c <= 'f'); }
bool decimal_char(char c) { return digit(c) || c == '-' || c == '.' || c == 'e' || c == '+'; }

// "atomic#3": the kind, or empty when `w` names no object.
std::string_view object_kind(std::string_view w) {
  const std::size_t hash = w.find('#');
  return hash != std::string_view::npos && hash > 0 && all_of(w.substr(hash + 1), digit) ? w.substr(0, hash)
                                                                                         : std::string_view();
}
bool pointer_name(std::string_view w) { return w.size() > 1 && w[0] == 'p' && all_of(w.substr(1), digit); }
bool duration(std::string_view w) {
  for (const std::string_view unit : {"ns", "us", "ms", "s"})
    if (w.size() > unit.size() && w.ends_with(unit) && all_of(w.substr(0, w.size() - unit.size()), digit)) return true;
  return false;
}
// A value as a trace prints one: a boolean, a number, bits in hex ("0x1f").
bool value_word(std::string_view w) {
  if (w == "true" || w == "false") return true;
  if (w.starts_with("0x")) return all_of(w.substr(2), hex_digit);
  return all_of(w, decimal_char) && w.find_first_of("0123456789") != std::string_view::npos;
}

enum class Differs : unsigned char { other, object, address, clock, value_read, value_written };

// What word `k` of two trace lines that differ there is: `w` is the first line's words.
Differs word_kind(const std::vector<std::string>& w, std::size_t k, const std::string& other) {
  const std::string& here = w[k];
  if (!object_kind(here).empty() && object_kind(here) == object_kind(other)) return Differs::object;
  if (pointer_name(here) && pointer_name(other)) return Differs::address;
  if (duration(here) && duration(other)) return Differs::clock;
  if (!value_word(here) || !value_word(other) || k == 0) return Differs::other;
  // "= 3" and "3 -> 4" read 3; ":= 4" and "3 -> 4" write 4.
  if (w[k - 1] == "=" || (k + 1 < w.size() && w[k + 1] == "->")) return Differs::value_read;
  if (w[k - 1] == ":=" || w[k - 1] == "->") return Differs::value_written;
  return Differs::other;
}

// The kind of thing two diverging trace lines differ in, when every word that differs is of one
// kind.
std::optional<Differs> differs_in(const std::string& first, const std::string& replay) {
  const std::vector<std::string> a = words(first), b = words(replay);
  if (a.size() != b.size()) return std::nullopt;
  std::optional<Differs> kind;
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k] == b[k]) continue;
    Differs d = word_kind(a, k, b[k]);
    // An update that read another value writes another ("5 -> 6", "9 -> 10"): the read says why.
    if (kind == Differs::value_read && d == Differs::value_written) d = Differs::value_read;
    if (d == Differs::other || (kind && *kind != d)) return std::nullopt;
    kind = d;
  }
  return kind;
}

// Names the kind of thing two diverging trace lines differ in, when every word that differs is
// of one kind; empty otherwise.
std::string divergence_kind(const std::string& first, const std::string& replay) {
  const std::optional<Differs> kind = differs_in(first, replay);
  if (!kind) return {};
  switch (*kind) {
    case Differs::object:
      return "the same step reached another object, so which object it reached came from an address (a hash "
             "of a pointer or a thread id, memory an earlier run freed?)";
    case Differs::address: return "only a pointer differs: an address (memory an earlier run freed, reused?)";
    case Differs::clock: return "only a duration differs: a clock duet's virtual time does not cover?";
    case Differs::value_read:
      return "only the value read differs: the memory held something else than in the first run, state that "
             "outlived an earlier run (a global or static, which FiberOptions::before_each_run can reset?)";
    case Differs::value_written:
      return "only the value written differs, with everything read before it the same: it came from outside the "
             "run's memory (a clock, a random number, an address, or a global an earlier run left?)";
    case Differs::other: break;
  }
  return {};
}

// Where the interleavings of two runs first differ; empty when they do not.
std::string interleaving_divergence(const Trace& first, const Trace& replay) {
  const auto& a = first.interleaving;
  const auto& b = replay.interleaving;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    std::string where = "the replay diverged at step " + std::to_string(i) + " (expected `" +
                        (i < a.size() ? trace_line_text(a[i]) : std::string("the end of the run")) + "`, got `" +
                        (i < b.size() ? trace_line_text(b[i]) : std::string("the end of the run")) + "`)";
    if (i < a.size() && i < b.size())
      if (const std::string kind = divergence_kind(trace_line_text(a[i]), trace_line_text(b[i])); !kind.empty())
        where += ": " + kind;
    return where;
  }
  return {};
}

// Two interleavings of one schedule that differ only in the values their steps read (the same
// steps, operations, objects and lines): how many steps differ, and the first in words. Nothing
// when they differ in anything else.
std::optional<std::pair<std::size_t, std::string>> values_only_drift(const Trace& first, const Trace& replay) {
  const auto& a = first.interleaving;
  const auto& b = replay.interleaving;
  if (a.size() != b.size()) return std::nullopt;
  std::size_t steps = 0;
  std::string where;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == b[i]) continue;
    const std::string x = trace_line_text(a[i]), y = trace_line_text(b[i]);
    const std::optional<Differs> kind = differs_in(x, y);
    if (kind != Differs::value_read) return std::nullopt;
    if (steps++ == 0) where = "step " + std::to_string(i) + ": `" + x + "` in the failing run, `" + y + "` in the replay";
  }
  if (steps == 0) return std::nullopt;
  return std::make_pair(steps, where);
}

// A Y-program's calls in order, each with where it is ("branch 0, call 2").
std::vector<std::pair<std::string, std::string>> placed_calls(const Trace& t) {
  std::vector<std::pair<std::string, std::string>> c;  // call, where
  for (std::size_t k = 0; k < t.y_prefix.size(); ++k) c.emplace_back(t.y_prefix[k], "prefix call " + std::to_string(k + 1));
  for (std::size_t b = 0; b < t.y_branches.size(); ++b)
    for (std::size_t k = 0; k < t.y_branches[b].size(); ++k)
      c.emplace_back(t.y_branches[b][k], "branch " + std::to_string(b) + ", call " + std::to_string(k + 1));
  for (std::size_t k = 0; k < t.y_suffix.size(); ++k) c.emplace_back(t.y_suffix[k], "suffix call " + std::to_string(k + 1));
  return c;
}

CheckResult failure_result(const ReportData& data, std::uint64_t commands) {
  CheckResult r;
  r.status = data.error ? CheckResult::Status::error : CheckResult::Status::failed;
  r.name = data.name;
  r.seed = data.seed;
  r.cases = data.cases;
  r.discarded = data.rejected;
  r.commands = commands;
  r.shrink_steps = data.shrink_steps;
  r.shrink_tries = data.shrink_tries;
  r.shrink_end = data.shrink_end;
  r.failing_length = data.trace.diagram.empty() ? data.trace.steps.size() : y_calls(data.trace);
  r.replay_token = data.token;
  r.draft_path = data.draft_path;
  r.report = format_report(data);
  return r;
}

// Re-runs the case for its trace; a failure that does not come back is tried again (thread timing).
CaseRun traced_rerun(RunContext& context, ReportData& data, const std::vector<std::uint64_t>& choices,
                     std::optional<std::uint64_t> seed_of_case) {
  CaseRun run;
  for (int attempt = 0; attempt < context.replay_attempts(); ++attempt) {
    const MonitorScope watched(context.monitor, data.token);
    run = context.backend->run_case(
        RunRequest{seed_of_case, choices, std::nullopt, true, context.property.execution->exact_replay()});
    data.death_output = run.death ? run.death->output : std::string();
    data.crash_stack = run.death ? describe_crash_stack(run.death->stack) : std::string();
    data.died = run.death.has_value();
    data.replay_isolated = context.replay_isolated;
    data.executor_note = context.property.executor_note;
    if (const auto named = named_executor(); named && !data.executor_note.empty())
      data.executor_setting = "DUET_EXECUTOR=" + named->text;
    if (!context.property.replay_setting.empty()) data.executor_setting = context.property.replay_setting;
    if (!uneventful(run.outcome)) break;
  }
  return run;
}

// A failure that did not come back on replay: shown as first seen where it was.
void show_as_first_seen(const FailureMemory::Seen* seen, bool cheap_trace, ReportData& data, Trace& trace, CaseOutcome& o) {
  // A death no replay repeated still shows its last words (a sanitizer's report), and its
  // replay runs in a child process as a death's does.
  if (seen && data.death_output.empty()) data.death_output = seen->death_output;
  if (seen && data.crash_stack.empty()) data.crash_stack = describe_crash_stack(seen->stack);
  if (seen && seen->died) data.died = true;
  if (cheap_trace && seen) {
    // Thread timing: show the failing run seen for these very choices (the replay token
    // re-runs the program).
    trace = seen->trace;
    o.kind = CaseOutcome::Kind::fail;
    o.message = seen->message;
    return;
  }
  data.nondeterministic = true;
  if (!seen) return;
  // Show the failure as first seen: the steps before it as replayed (they agreed with the model
  // both times), then the failing step as it was observed.
  data.message = seen->message;
  if (seen->failing_step && seen->commands > 0) {
    trace.steps.resize(std::min<std::size_t>(trace.steps.size(), seen->commands - 1));
    trace.steps.push_back(*seen->failing_step);
    trace.failed = true;
    data.first_seen = true;
  }
}

// The replay ran every step the dying run was seen to run (a child that dies sends no steps, so
// this holds whenever the replay's program is the same): where the first run died, the replay
// went on.
bool replays_up_to_the_death(const Trace& died, const Trace& replay) {
  if (placed_calls(died) != placed_calls(replay)) return false;
  if (died.interleaving.size() > replay.interleaving.size()) return false;
  return std::equal(died.interleaving.begin(), died.interleaving.end(), replay.interleaving.begin());
}

// A crash that the same case, run again in another child process, did not repeat: what it
// needs is state that earlier cases left in the process that died. That crash is the
// candidate's failure, shown as first seen, with what it takes to see it again.
CheckResult crash_as_first_seen(const FailureMemory::Seen& seen, ReportData& data, std::uint64_t commands) {
  data.crash_needs_earlier_cases = true;
  data.died = true;
  data.death_output = seen.death_output;
  data.crash_stack = describe_crash_stack(seen.stack);
  data.message = seen.message;
  data.trace = seen.trace;
  data.trace.no_draft = "the crash did not come back when the case ran alone";
  return failure_result(data, commands);
}

}  // namespace

std::size_t y_calls(const Trace& t) {
  std::size_t n = t.y_prefix.size() + t.y_suffix.size();
  for (const auto& b : t.y_branches) n += b.size();
  return n;
}

bool shows_concurrency(const Trace& t) {
  const auto with_calls =
      std::count_if(t.y_branches.begin(), t.y_branches.end(), [](const auto& branch) { return !branch.empty(); });
  // On fibers ("wake condition_variable#2 spurious x.hpp:119", "f1 spawn := f2" in the
  // interleaving): a wait woken spuriously, or threads the subject started itself.
  const auto concurrent_step = [](const std::string& line) {
    return line.find(" spurious ") != std::string::npos || line.find(" spawn ") != std::string::npos;
  };
  if (std::any_of(t.interleaving.begin(), t.interleaving.end(), concurrent_step)) return true;
  // On fibers each branch is a fiber of its own, and the prefix and the suffix run alone on the
  // trial's own fiber, before the first branch starts and after the last one ends: a prefix and
  // one branch's calls ran one after the other, so two branches must hold calls.
  if (!t.schedule.empty() || !t.interleaving.empty()) return with_calls >= 2;
  // On threads the calling thread runs the prefix, the suffix and branch 0.
  const bool outside_branches = !t.y_prefix.empty() || !t.y_suffix.empty();
  const bool shares_branch_0 = !t.y_branches.empty() && !t.y_branches[0].empty();
  return with_calls + (outside_branches && !shares_branch_0 ? 1 : 0) >= 2;
}

namespace {
// The same program, results and failure, once the interleavings agree (or differ in values only).
std::string outcome_divergence(const Trace& first, const std::string& first_message, const Trace& replay,
                               const CaseOutcome& o) {
  const auto ca = placed_calls(first), cb = placed_calls(replay);
  if (ca != cb)
    return "the replay drew a different program from the same choices (the spec's generators read something besides the choice stream)";
  for (std::size_t k = 0; k < ca.size() && k < first.y_results.size() && k < replay.y_results.size(); ++k)
    if (first.y_results[k] != replay.y_results[k])
      return "the replay diverged at the result of `" + ca[k].first + "`, " + ca[k].second + " (expected " +
             first.y_results[k] + ", got " + replay.y_results[k] + ")";
  if (o.kind != CaseOutcome::Kind::fail)
    return "the replay ran the same interleaving with the same results and passed: the oracle (the model or the spec's checks) is nondeterministic";
  if (o.message != first_message)
    return "the replay ran the same interleaving with the same results but failed differently (first: " + first_message +
           "; replay: " + o.message + ")";
  return {};
}
}  // namespace

std::string divergence(const Trace& first, const std::string& first_message, const Trace& replay, const CaseOutcome& o) {
  if (o.kind == CaseOutcome::Kind::error) return "the replay ended in an error instead: " + o.message;
  if (o.kind == CaseOutcome::Kind::overrun)
    return "the replay ran out of recorded choices: it drew more than the failing run";
  std::string where = interleaving_divergence(first, replay);
  if (!where.empty() && !values_only_drift(first, replay)) return where;
  std::string outcome = outcome_divergence(first, first_message, replay, o);
  // Values read that differ, and nothing else, are memory an earlier run left (a library's
  // counter): no divergence when the program, the results and the failure are the same
  // (report_failure notes the values).
  return where.empty() || outcome.empty() ? outcome : where;
}

std::string death_message(const Death& d) {
  switch (d.kind) {
    case Death::Kind::signal: return "the process died of " + d.what() + " while running the case";
    case Death::Kind::exit_call: return "the case ended the process with " + d.what() + ": it must not end the process";
    case Death::Kind::exit_status: return "the process died while running the case: " + d.what();
    case Death::Kind::hang: return d.what() + ": the case was still running at the time limit (DUET_CASE_TIMEOUT)";
  }
  return d.what();
}

std::string death_comment(const Death& d) {
  switch (d.kind) {
    case Death::Kind::signal: return "the process died here: " + d.what();
    case Death::Kind::exit_call: return d.what() + " ended the process here";
    case Death::Kind::exit_status: return "the process died here: " + d.what();
    case Death::Kind::hang: return "still running here: " + d.what();
  }
  return d.what();
}

// A failure on fibers, as a page too when DUET_TIMELINE asks for one.
static void write_timeline(const RunContext& context, ReportData& data) {
  if (!context.settings.timeline.empty() && !data.trace.interleaving_steps.empty())
    write_fiber_timeline(data, context.settings.timeline);
}

CheckResult report_failure(RunContext& context, ReportData data, const std::vector<std::uint64_t>& choices,
                           std::optional<std::uint64_t> seed_of_case, std::uint64_t commands) {
  data.trace_steps = context.settings.trace_steps;
  context.failure_nondeterministic = false;
  ReplayRecord rec = context.record(data.cases, data.shrink_steps, choices, seed_of_case);
  rec.seed = data.seed;
  rec.trials = data.trials;  // the search's, so that the token's replay reads the same
  rec.overlapped = data.overlapped;
  rec.cpus = data.cpus;
  data.token = encode_token(rec);
  // Re-run for the trace. A failure that does not come back is reported as such.
  CaseRun run = traced_rerun(context, data, choices, seed_of_case);
  CaseOutcome& o = run.outcome;
  Trace& trace = run.trace;
  const FailureMemory::Seen* seen = seed_of_case ? nullptr : context.failures.find(choices);
  if (context.property.execution->exact_replay() && seen && seen->died && !run.death && !data.error &&
      replays_up_to_the_death(seen->trace, trace))
    return crash_as_first_seen(*seen, data, commands);
  if (context.property.execution->exact_replay() && seen && !data.error) {
    // The replay must run exactly as the failing run did; where it did not, the test is
    // nondeterministic and the failure is no counterexample: say where, show it as seen.
    data.divergence = divergence(seen->trace, seen->message, trace, o);
    if (const auto drift = values_only_drift(seen->trace, trace); drift && data.divergence.empty())
      std::tie(data.value_drift_steps, data.value_drift) = *drift;
    if (!data.divergence.empty()) {
      data.error = true;
      data.nondeterministic = true;
      context.failure_nondeterministic = true;
      data.message = seen->message;
      data.trace = seen->trace;
      write_timeline(context, data);
      return failure_result(data, commands);
    }
  }
  // On fibers a failure that did not come back did not replay as it was met, shown as first seen
  // or not (engine/search.cpp searches again).
  const bool came_back = !uneventful(o);
  if (!came_back) show_as_first_seen(seen, context.property.cheap_trace, data, trace, o);
  context.failure_nondeterministic = data.nondeterministic || (!came_back && context.property.execution->exact_replay());
  if (!uneventful(o)) data.message = o.message;
  data.trace = std::move(trace);
  context.failure_shows_concurrency = shows_concurrency(data.trace);
  if (!data.error && data.trace.no_draft.empty()) {
    try {
      data.draft_path = write_draft_test(data, context.settings.output_dir);
    } catch (const std::exception& e) {
      data.draft_error = e.what();
    }
  }
  write_timeline(context, data);
  return failure_result(data, commands);
}

}  // namespace duet::detail
