#include "engine/search.hpp"

#include <algorithm>
#include <optional>

#include "engine/backend.hpp"
#include "engine/clean_child.hpp"
#include "engine/shrinking.hpp"
#include "engine/verdicts.hpp"
#include "report/report.hpp"
#include "show/text.hpp"

namespace duet::detail {
namespace {

CheckResult search_again(RunContext& context, CheckResult first, const SearchCounts& first_counts);
std::optional<CheckResult> search_in_trial_processes(RunContext& context, const SearchCounts& first_counts);

// The search's first failing (or erring) case: shrunk and reported. `before`: the counts of a
// first search whose failure did not replay (search_again).
CheckResult report_search_failure(RunContext& context, SearchEnd& end, const SearchCounts& c, Clock::time_point start,
                                  const SearchCounts* before = nullptr) {
  const Settings& s = context.settings;
  CaseRun& failing = end.run;
  if (before == nullptr && failing.outcome.kind == CaseOutcome::Kind::error &&
      !context.property.execution->threads_left().empty())
    if (std::optional<CheckResult> again = search_in_trial_processes(context, c)) return std::move(*again);
  if (failing.outcome.kind == CaseOutcome::Kind::fail)
    context.failures.remember(failing.choices, std::move(failing.trace), failing.outcome, failing.death);
  ReportData data;
  data.name = s.name;
  data.seed = s.seed;
  data.cases = c.cases;
  data.attempts = c.attempts;
  data.rejected = c.rejected;
  data.error = failing.outcome.kind == CaseOutcome::Kind::error;
  data.message = failing.outcome.message;  // as met: a replay that does not repeat it keeps it
  data.trials = c.trials;
  data.overlapped = c.overlapped;
  data.cpus = c.cpus;
  if (data.error && failing.death)  // the child died outside any case: nothing to replay
    return nothing_tested(s.name,
                          failing.outcome.message + (failing.death->output.empty() ? "" : "\n" + failing.death->output));
  // A failing run that left calls unfinished here: the rest of the check runs in a child.
  data.trial_processes = context.property.execution->trial_processes();
  if (before != nullptr)
    data.trial_processes += "; it met that failure after " + plural(before->cases, "program", "programs") + " and " +
                            plural(before->trials, "trial", "trials");
  const bool in_process = data.trial_processes.empty();
  if (context.clean_child && in_process) context.clean_child->take_over(context, data);
  // A case the child died in is shrunk from its recorded choices: its seed cannot be replayed
  // here without running it in this process.
  CheckResult r =
      shrink_and_report(context, std::move(data), failing,
                        failing.death || end.by_choices ? std::nullopt : std::optional(end.case_seed), c.commands, start);
  r.trials = c.trials;
  r.overlapped_trials = c.overlapped;
  r.cpus = c.cpus;
  if (in_process && before == nullptr && context.failure_nondeterministic) return search_again(context, std::move(r), c);
  return r;
}

// The search's failure (`first`) did not replay as it was met: the trial that failed started from
// what earlier trials had left in the process (a library's one-time initialisation done, a
// counter of instances moved on), which its replays, in the clean child (engine/clean_child.hpp)
// or after it here, did not. The clean child, the process as it was before the check's first
// case, searches again from the seed, each trial in a process of its own forked from it: the
// search, the shrinking and any replay of the token then start from that same state. Where
// there is no clean child, or it meets no failure, `first` stands, and says so.
CheckResult search_again(RunContext& context, CheckResult first, const SearchCounts& first_counts) {
  if (!context.clean_child || !context.clean_child->hand_over(context) || !context.backend->take_trial_processes())
    return first;
  // As far as twice the programs the first search took, and ten more: the same seed draws the
  // same programs, and a subject nondeterministic outside the process must not cost a whole
  // budget of forks (a count of 100,000 programs) again.
  context.settings.count = std::min(context.settings.count, 2 * first_counts.cases + 10);
  const auto start = Clock::now();
  Progress progress(context.settings.name, context.settings.verbose);
  SearchCounts again;
  SearchEnd end = context.backend->search(again, start, progress);
  if (end.failed) return report_search_failure(context, end, again, start, &first_counts);
  first.report += wrapped("note: the check searched again from its seed with each trial in a process of its own, "
                          "every one from the state the replays start from, and met no failure in " +
                              plural(again.cases, "program", "programs") + " (" + plural(again.trials, "trial", "trials") +
                              "): the failure above needed what the trials before it left in the process, or what no trial "
                              "controls (a clock, another process).",
                          2, 96);
  return first;
}

// A trial of the search ran in this process and left a thread the subject started running (a
// library starting its process-wide thread in a later trial than the first, which only the
// first runs in a process of its own to learn): duet's limit here, and this process is no longer
// the one the check started from. The clean child searches from the seed again, each trial in a
// process of its own, with the check's whole budget; its verdict is the check's. Nothing where it
// cannot (no clean child, trials that cannot fork): the error stands.
std::optional<CheckResult> search_in_trial_processes(RunContext& context, const SearchCounts& first_counts) {
  if (!context.clean_child || !context.clean_child->hand_over(context) || !context.backend->take_trial_processes())
    return std::nullopt;
  const auto start = Clock::now();
  Progress progress(context.settings.name, context.settings.verbose);
  SearchCounts again;
  SearchEnd end = context.backend->search(again, start, progress);
  if (end.failed) return report_search_failure(context, end, again, start, &first_counts);
  return search_verdict(context, *context.backend, end, again, since(start));
}

}  // namespace

void print_search_progress(const RunContext& context, Progress& progress, const SearchCounts& c, const std::string& where) {
  const Settings& s = context.settings;
  // Parallel runs count programs and the trials that ran them; sequential ones, cases.
  const double t = std::max(progress.seconds(), 1e-9);
  const std::string rate = printf_string("%.0f %s/s", static_cast<double>(c.trials > 0 ? c.trials : c.cases) / t,
                                         c.trials > 0 ? "trials" : "cases");
  // The budget counts cases (programs), never trials: "679 of 2000 programs, 13320 trials".
  std::string what = std::to_string(c.cases);
  const std::uint64_t planned = context.property.planned_cases ? context.property.planned_cases() : 0;
  if (s.count != ~std::uint64_t{0}) what += " of " + std::to_string(s.count);
  else if (planned > 0) what += " of " + std::to_string(planned);
  what += c.trials > 0 ? " programs, " + std::to_string(c.trials) + " trials" : " cases";
  // A negative test's default budget on threads is work: trials whose branches overlapped.
  const std::uint64_t work = context.property.max_overlapped_trials;
  if (!s.budget_given && work > 0)
    what += " (" + std::to_string(c.overlapped) + " of " + std::to_string(work) + " with overlapping branches)";
  // A walk that knows its size: the time left at the rate so far (its programs differ in cost).
  std::string left;
  if (s.count == ~std::uint64_t{0} && planned > c.cases && c.cases > 0)
    left = printf_string(", about %.0f s left at this rate",
                         t * static_cast<double>(planned - c.cases) / static_cast<double>(c.cases));
  progress.print("searching", what + ", " + progress.elapsed(s.time) + ", " + rate + left + where);
}

void print_case_progress(Progress& progress, const SearchCounts& c, const TrialProgress& p, double seconds) {
  const double t = std::max(seconds, 1e-9);
  const double rate = static_cast<double>(p.trials) / t;
  std::string what = "program " + std::to_string(c.cases) + ": " + std::to_string(p.trials) + " trials";
  if (p.runs_in_all > static_cast<double>(p.runs)) {
    what += ", " + std::to_string(p.runs) + " runs of about " + estimated_count(p.runs_in_all);
  }
  what += printf_string(", %.1f s in it, %.0f trials/s", seconds, rate);
  if (p.runs_in_all > static_cast<double>(p.runs) && p.runs_in_all < 1e15 && rate > 0)
    what += printf_string(", about %.0f s left in it at this rate", (p.runs_in_all - static_cast<double>(p.runs)) / rate);
  progress.print("searching", what);
}

CheckResult run_search(RunContext& context) {
  const auto start = Clock::now();
  Progress progress(context.settings.name, context.settings.verbose);
  SearchCounts counts;
  SearchEnd end = context.backend->search(counts, start, progress);
  // Where the search ran in isolation's child, the child's walk is the one that ran.
  const Property& p = context.property;
  context.walk_certificate = end.coverage ? end.certificate : p.certificate ? p.certificate() : std::string();
  if (end.failed) return report_search_failure(context, end, counts, start);
  return search_verdict(context, *context.backend, end, counts, since(start));
}

}  // namespace duet::detail
