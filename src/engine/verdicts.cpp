#include "engine/verdicts.hpp"
#include "engine/backend.hpp"

#include <cmath>
#include <cstdio>
#include <optional>

#include "report/report.hpp"

namespace duet {
CheckResult::CheckResult(const CheckResult&) = default;
CheckResult::CheckResult(CheckResult&&) noexcept = default;
CheckResult& CheckResult::operator=(const CheckResult&) = default;
CheckResult& CheckResult::operator=(CheckResult&&) noexcept = default;
CheckResult::~CheckResult() = default;
}  // namespace duet

namespace duet::detail {
namespace {

// Under 1% of the trials with calls of different branches running at once: the branches
// essentially ran one after the other.
bool too_little_overlap(std::uint64_t trials, std::uint64_t overlapped) { return trials > 0 && overlapped * 100 < trials; }

/// A parallel check whose branches never ran at once: an error that says why and what to do.
CheckResult inconclusive(CheckResult r, const std::string& overlap) {
  r.status = CheckResult::Status::error;
  r.report = "duet: " + r.name + ": inconclusive: the branches' calls (almost) never overlapped in time (" + overlap +
             "), so a race could not have shown up; this is not a pass.\n" +
             (r.coverage.empty() ? std::string() : "  " + r.coverage + ".\n") +
             "  Give the check at least as many free CPUs as branches (check the process's CPU affinity and\n"
             "  the machine's load; ParallelConfig::pin_threads is on by default), run it longer (DUET_TIME),\n"
             "  or run it on duet::fibers() for code written with duet/sync.hpp.\n";
  return r;
}

/// A walk over every program that its budget ended: what ran passed, but the scope is not done.
CheckResult unfinished_walk(CheckResult r, const std::string& why) {
  r.status = CheckResult::Status::error;
  r.report = "duet: " + r.name + ": inconclusive: " + why + "; this is not a pass.\n" +
             (r.coverage.empty() ? std::string() : "  " + r.coverage + ".\n") +
             "  Give the walk a larger budget (DUET_TIME, DUET_COUNT; unset, it has none), split it over\n"
             "  shards (DUET_SHARDS, DUET_SHARD_INDEX), or narrow the scope (shorter branches, fewer values).\n";
  return r;
}

// Why a search whose cases ran no command checked nothing, and what to change. However many
// cases it ran, the candidate was never called: a pass would claim what nothing showed.
std::string no_command(const Settings& s, const SearchCounts& c, bool sequential) {
  const std::string why = "no case ran a command in " + plural(c.cases, "case", "cases") + " (" +
                          plural(c.rejected, "attempt", "attempts") +
                          " rejected): the candidate was never called, so this is not a pass; ";
  if (c.rejected > 0) return why + "the spec's preconditions or filters rejected every command it drew";
  if (!sequential)
    return why + "every program drawn was empty: give the operations and the ParallelConfig's prefix_length and "
                 "branch_length room for calls";
  if (s.max_length == 0) return why + "max_length is 0 (DUET_MAX_LENGTH, Config::max_length): give it 1 or more";
  return why + "a case may end before its first command (about 1 case in " +
         std::to_string(std::llround(s.mean_length) + 1) +
         " does): run more cases (DUET_COUNT, DUET_TIME) or longer ones (DUET_MEAN_LENGTH)";
}

// Why a search that found no failure checked nothing, if it did not.
std::optional<std::string> nothing_checked(const Settings& s, const SearchEnd& end, const SearchCounts& c, bool sequential) {
  const std::uint64_t i = c.cases;
  if (end.nothing_generated)
    return "the spec cannot generate any command: all " + std::to_string(c.rejected) +
           " attempts so far were rejected by its precondition or a filter";
  if (c.abandoned > 0 && c.abandoned == c.busy)
    return "every scenario was abandoned (" + end.abandon_reason + "); nothing was checked";
  if (i > 0 && c.overruns == i)
    return std::string("every case ran out of input bytes before finishing; nothing was checked");
  if (i == 0) return std::string("no case ran (DUET_COUNT=0 or DUET_TIME too small)");
  if (c.commands == 0) return no_command(s, c, sequential);
  return std::nullopt;
}

// "duet: Queue: 100 cases passed, 1234 commands, 0.0% discarded, 0.12 s (seed 0x...)", and the coverage.
void print_pass(const Settings& s, const CheckResult& r, const SearchEnd& end, const SearchCounts& c,
                const std::string& where) {
  std::string abandoned_text;
  if (c.abandoned > 0) abandoned_text = ", " + std::to_string(c.abandoned) + " abandoned (" + end.abandon_reason + ")";
  if (c.trials > 0) abandoned_text += ", " + overlap_text(c.trials, c.overlapped, c.cpus);
  abandoned_text += where;
  std::fprintf(stdout, "duet: %s: %s passed, %s, %.1f%% discarded%s, %.2f s (seed 0x%016llx)\n", s.name.c_str(),
               (c.trials > 0 ? plural(c.cases, "program", "programs") : plural(c.cases, "case", "cases")).c_str(),
               plural(c.commands, "command", "commands").c_str(),
               c.attempts ? 100.0 * static_cast<double>(c.rejected) / static_cast<double>(c.attempts) : 0.0,
               abandoned_text.c_str(), r.seconds, static_cast<unsigned long long>(s.seed));
  if (!r.coverage.empty()) std::fprintf(stdout, "duet: %s: %s\n", s.name.c_str(), r.coverage.c_str());
}

// How a negative test's search that found nothing ended, after "found none in ...".
std::string search_end_text(const CheckResult& r, const Settings& s, const Property& p, bool cut_short) {
  if (cut_short)
    return printf_string("; the search did not do its work: the default budget is %s with overlapping branches, and\n"
                         "  its %.0f s limit ended the search after %llu (the machine ran the trials slowly: busy,\n"
                         "  emulated, or with fewer free CPUs than branches). Run it on a quieter machine, or give it a\n"
                         "  time (DUET_TIME) or a count (DUET_COUNT) to search that long whatever the machine does.\n",
                         plural(p.max_overlapped_trials, "trial", "trials").c_str(), s.time,
                         static_cast<unsigned long long>(r.overlapped_trials));
  if (!s.budget_given && p.max_overlapped_trials > 0 && r.overlapped_trials >= p.max_overlapped_trials)
    return "; the default budget ends after " + plural(p.max_overlapped_trials, "trial", "trials") +
           " with overlapping branches: give it a time (DUET_TIME) to go on\n";
  return "; give it more time (DUET_TIME) or more trials\n";
}

// A negative test that found no counterexample: the failure, with what the search tried. On
// threads the default budget is work (trials whose branches overlapped) within a time limit: a
// search that the limit ended first did not do that work, and is inconclusive, not a failure.
CheckResult no_counterexample(CheckResult r, const Settings& s, const Property& p) {
  const bool cut_short =
      !s.budget_given && p.max_overlapped_trials > 0 && r.overlapped_trials < p.max_overlapped_trials && s.time > 0;
  r.status = cut_short ? CheckResult::Status::error : CheckResult::Status::failed;
  char seed[32];
  std::snprintf(seed, sizeof seed, "0x%016llx", static_cast<unsigned long long>(r.seed));
  r.report = "duet: " + r.name + (cut_short ? ": inconclusive" : "") +
             ": expected a counterexample (unsafe under concurrency), found none in " +
             plural(r.cases, "program", "programs") + ", " + overlap_text(r.trials, r.overlapped_trials, r.cpus) +
             " (seed " + seed + ")" + search_end_text(r, s, p, cut_short);
  if (r.trials > 0 && too_little_overlap(r.trials, r.overlapped_trials))
    r.report += "  The branches (almost) never ran at once: give the check at least as many free CPUs as branches.\n";
  if (!p.domain.empty()) r.report += "  The calls drew " + p.domain + ".\n";
  return r;
}

// A negative test whose counterexample needs no concurrency: an error, with the failure shown.
CheckResult sequential_counterexample(CheckResult r, bool on_fibers) {
  r.status = CheckResult::Status::error;
  // On fibers the prefix and suffix run alone on the trial's own fiber, whose identity (thread
  // id, thread_local storage) differs from the branches' where duet_instrument gives them their
  // own: a subject that keys on it fails there by the thread, not by a race, and needs every
  // call on a branch to show what it does under concurrency.
  const std::string fibers =
      on_fibers ? "  On fibers the prefix and the suffix run alone on a fiber of their own (\"main\"), before and\n"
                  "  after the branches. A subject that tells threads apart by their identity (a producer per\n"
                  "  thread, say) may fail here by the thread the prefix ran on: check it with every call on a\n"
                  "  branch, ParallelConfig{.prefix_length = 0}.\n"
                : "";
  r.report = "duet: " + r.name +
             ": error: the subject fails without concurrency: the counterexample's calls all run on one thread\n"
             "  (no two threads ran calls), so it proves no race: a negative test passing on it would pass\n"
             "  whatever the subject does under threads. Fix the failure below (a sequential check shows it\n"
             "  too), then run the negative test again.\n" +
             fibers + "\n" + r.report;
  return r;
}

}  // namespace

CheckResult nothing_tested(const std::string& name, const std::string& why) {
  CheckResult r;
  r.status = CheckResult::Status::error;
  r.name = name;
  r.report = "duet: " + name + ": error: " + why + "\n  nothing was tested\n";
  return r;
}

CheckResult search_verdict(const RunContext& context, const CaseBackend& backend, const SearchEnd& end,
                           const SearchCounts& c, double seconds) {
  const Settings& s = context.settings;
  const Property& p = context.property;
  if (std::optional<std::string> why = nothing_checked(s, end, c, p.execution->name() == "sequential"))
    return nothing_tested(s.name, *why);
  CheckResult r;
  r.status = CheckResult::Status::passed;
  r.name = s.name;
  r.seed = s.seed;
  r.cases = c.cases;
  r.commands = c.commands;
  r.trials = c.trials;
  r.overlapped_trials = c.overlapped;
  r.cpus = c.cpus;
  r.discarded = c.rejected;
  r.seconds = seconds;
  if (end.coverage) r.coverage = *end.coverage;
  else if (p.coverage) r.coverage = p.coverage();
  if (!p.domain.empty()) r.coverage += (r.coverage.empty() ? "" : "; ") + ("the calls drew " + p.domain);
  if (!p.expect_failure)
    if (std::string why = backend.unexercised(); !why.empty()) return nothing_tested(s.name, why);
  // A parallel check on threads whose branches (almost) never ran at once could not have
  // seen a race: not a pass.
  // Where the search ran in isolation's child, the child's walk is the one that ran.
  const std::string unfinished = end.coverage ? end.unfinished : p.unfinished ? p.unfinished() : std::string();
  if (!unfinished.empty() && !p.expect_failure) return unfinished_walk(r, unfinished);
  if (p.execution->needs_overlap() && !p.expect_failure && too_little_overlap(c.trials, c.overlapped))
    return inconclusive(r, overlap_text(c.trials, c.overlapped, c.cpus));
  if (s.verbose >= 0 && !p.expect_failure) {
    print_pass(s, r, end, c,
               backend.where() + (p.executor_note.empty() ? "" : ", " + p.executor_note) +
                   (context.jobs_note.empty() ? "" : ", " + context.jobs_note));  // a negative test says its own verdict
    // What ran where is part of what passed: a library's process-wide state did not carry over.
    if (const std::string why = p.execution->trial_processes(); !why.empty())
      std::fprintf(stdout, "duet: %s: each trial ran in a process of its own: %s\n", s.name.c_str(), why.c_str());
  }
  return r;
}

CheckResult single_case_passed(const RunContext& context, const CaseOutcome& o, Clock::time_point start) {
  CheckResult r;
  r.status = CheckResult::Status::passed;
  r.name = context.settings.name;
  r.cases = 1;
  r.commands = o.commands;
  r.trials = o.trials;
  r.overlapped_trials = o.overlapped;
  r.cpus = o.cpus;
  r.seconds = since(start);
  return r;
}

CheckResult expected_failure_verdict(CheckResult r, const RunContext& context) {
  const Settings& s = context.settings;
  const std::string& replayed = context.replay_summary;
  if (!replayed.empty() && r.status == CheckResult::Status::passed) {
    r.status = CheckResult::Status::failed;
    r.report = "duet: " + r.name + ": expected a counterexample (unsafe under concurrency): " + replayed +
               " (fixed, or the test is nondeterministic)\n";
    return r;
  }
  if (r.status == CheckResult::Status::passed) {
    // Fibers that never met a switch point could not have interleaved anything: the search
    // proves nothing either way (plain std:: code moved to fibers by DUET_EXECUTOR, say).
    if (const std::string why = context.backend ? context.backend->unexercised() : std::string(); !why.empty())
      return nothing_tested(r.name, "expected a counterexample, and none could be found here: " + why);
    return no_counterexample(std::move(r), s, context.property);
  }
  if (r.status != CheckResult::Status::failed) return r;
  // A program whose calls all ran on one thread fails without any concurrency: it proves the
  // subject broken, not unsafe, and a negative test that passed on it would stay green
  // whatever the subject does under threads.
  if (!context.failure_shows_concurrency)
    return sequential_counterexample(std::move(r),
                                     context.property.execution && context.property.execution->name().starts_with("fibers"));
  r.status = CheckResult::Status::passed;
  // Where DUET_EXECUTOR moved the check, said last, as a pass line says it: the verdict's own
  // words stay whole, and a test that reads them passes on either executor.
  const std::string moved = context.property.executor_note.empty() ? "" : ", " + context.property.executor_note;
  const std::string found = "duet: " + r.name + ": unsafe, as expected: " +
                            (!replayed.empty() ? replayed
                                               : "a counterexample after " + plural(r.cases, "program", "programs") + ", " +
                                                     overlap_text(r.trials, r.overlapped_trials, r.cpus)) +
                            moved;
  r.report = found + "\n" + r.report;
  if (s.verbose >= 0)
    std::fprintf(stdout, "%s (%zu calls; the report is in CheckResult::report, or DUET_VERBOSE=1)\n", found.c_str(),
                 r.failing_length);
  return r;
}

}  // namespace duet::detail
