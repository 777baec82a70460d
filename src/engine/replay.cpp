#include "engine/replay.hpp"

#include <cstdio>
#include <stdexcept>
#include <string_view>

#include "engine/backend.hpp"
#include "engine/case_files.hpp"
#include "engine/failure_report.hpp"
#include "engine/shrinking.hpp"
#include "engine/verdicts.hpp"
#include "report/report.hpp"
#include "report/token.hpp"

namespace duet::detail {
namespace {

std::span<const std::uint8_t> bytes_of(const std::string& text) {
  return std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
}

/// The runs of a replayed token: on threads a failure may take several runs of the program to
/// come back, as in shrinking.
struct ReplayRuns {
  CaseRun last;
  std::uint64_t attempts = 0, trials = 0, overlapped = 0, cpus = 0;
  // "1 replay", "20 replays, 4000 trials, 61% with overlapping branches, branches on 2 CPUs"
  std::string text() const {
    return plural(attempts, "replay", "replays") + (trials == 0 ? std::string()
                                                    : cpus > 0  ? ", " + overlap_text(trials, overlapped, cpus)
                                                                : ", " + plural(trials, "trial", "trials"));
  }
  // A replay's result counts the replay's own runs, not the recorded search's.
  CheckResult counted(CheckResult r) const {
    r.cases = attempts;
    r.trials = trials;
    r.overlapped_trials = overlapped;
    r.cpus = cpus;
    return r;
  }
};

ReplayRuns replay_runs(RunContext& context, const ReplayRecord& rec, const std::string& token) {
  ReplayRuns runs;
  while (runs.attempts < static_cast<std::uint64_t>(context.replay_attempts())) {
    {
      const MonitorScope watched(context.monitor, token);
      runs.last = context.backend->run_case(
          RunRequest{rec.case_seed, rec.choices, std::nullopt, context.property.cheap_trace, false});
    }
    ++runs.attempts;
    runs.trials += runs.last.outcome.trials;
    runs.overlapped += runs.last.outcome.overlapped;
    runs.cpus = std::max(runs.cpus, runs.last.outcome.cpus);
    if (!uneventful(runs.last.outcome)) break;
  }
  return runs;
}

// The executor tag without its memory model and trial processes: "fibers:random" for
// "fibers:random,memory_model=sc,trial_processes".
std::string_view without_memory_model(std::string_view executor) { return executor.substr(0, executor.find(',')); }

/// Why a token recorded on this check's fibers under another memory model cannot be replayed
/// (empty: the models agree, or the executors differ in more than their model).
std::string memory_model_refusal(const RunContext& context, const ReplayRecord& rec, const std::string& from,
                                 bool regression) {
  const std::string here = context.property.execution->name();
  const std::string recorded = tagged_memory_model(rec.executor), current = tagged_memory_model(here);
  if (recorded.empty() || current.empty() || recorded == current ||
      without_memory_model(rec.executor) != without_memory_model(here))
    return {};
  return "the token in " + from + " was recorded on fibers under MemoryModel::" + recorded + ", and " +
         context.settings.name + " runs its fibers under MemoryModel::" + current +
         ": a schedule replays only under the memory model that recorded it" +
         (regression ? " (move the file to that check's directory, or delete it)"
                     : " (set DUET_MEMORY_MODEL=" + recorded + ", or FiberOptions::memory_model)");
}

/// Why a token cannot be replayed by this check (empty: it can). `from`: where it came from.
std::string refusal(const RunContext& context, const ReplayRecord& rec, const std::string& from, bool regression) {
  const Property& p = context.property;
  if (rec.spec_id == p.spec_id) return {};
  if (std::string why = memory_model_refusal(context, rec, from, regression); !why.empty()) return why;
  // Tokens of parallel checks name their executor (sequential ones, and older tokens, none).
  std::string by = "another test";
  if (!rec.executor.empty()) by = (rec.executor != p.execution->name() ? "a check on " : "another test on ") + rec.executor;
  // A token of a check that DUET_EXECUTOR moved replays with the setting that moved it.
  const bool other_executor =
      !rec.executor.empty() && rec.executor != p.execution->name() && p.execution->name() != "sequential";
  const std::string setting(without_memory_model(rec.executor.substr(0, rec.executor.find('('))));
  return "the token in " + from + " was recorded by " + by + ", not by " + context.settings.name +
         (p.execution->name() == "sequential" ? std::string() : " on " + p.execution->name()) +
         (regression       ? " (move the file to that test's directory, or delete it)"
          : other_executor ? " (if DUET_EXECUTOR ran it there, set DUET_EXECUTOR=" + setting +
                                 " again; else run only that test, e.g. with --gtest_filter)"
                           : " (run only that test, e.g. with --gtest_filter)");
}

/// Why a fuzzer's input in `path` cannot be replayed by this check (empty: it can).
std::string bytes_refusal(const RunContext& context, const std::string& path) {
  if (context.property.execution->name() != "threads") return {};
  return path + " holds a fuzzer's input (raw bytes), and " + context.settings.name +
         " runs on threads, where the outcome follows the timing, not the bytes: a fuzzer's input replays on "
         "sequential checks and on fibers only";
}

// A replayed token's failure, reported as the recorded run's.
CheckResult report_replayed_failure(RunContext& context, const ReplayRecord& rec, ReplayRuns& runs,
                                    Clock::time_point start) {
  const CaseOutcome& o = runs.last.outcome;
  ReportData data;
  data.name = context.settings.name;
  data.error = o.kind == CaseOutcome::Kind::error;
  data.seed = rec.seed;
  data.cases = rec.cases;
  data.shrink_steps = rec.shrink_steps;
  // The header reads as the recorded run's; tokens that did not record its trials (sequential
  // ones, older ones) show the replay's. The replay's own counts are on the line "replayed:".
  const bool recorded = !rec.executor.empty();
  data.trials = recorded ? rec.trials : runs.trials;
  data.overlapped = recorded ? rec.overlapped : runs.overlapped;
  data.cpus = recorded ? rec.cpus : runs.cpus;
  data.replayed = true;
  data.replay_outcome = context.replay_summary;
  data.from_bytes = rec.cases == 0;  // a search fails after 1 case or more: 0 marks a fuzzer's input
  data.search_seconds = since(start);
  CheckResult r = report_failure(context, std::move(data), rec.choices, rec.case_seed, o.commands);
  r.seconds = since(start);
  return runs.counted(std::move(r));
}

// Replays a decoded token under the settings it was recorded with.
CheckResult replay_record(RunContext& context, const ReplayRecord& rec, const std::string& token, const std::string& label,
                          bool regression) {
  const Settings& s = context.settings;
  if (context.monitor) context.monitor->crash.set_header(context.record(0, 0, {}, std::nullopt));
  const auto start = Clock::now();
  ReplayRuns runs = replay_runs(context, rec, token);
  const CaseOutcome& o = runs.last.outcome;
  if (uneventful(o)) {
    context.replay_summary = "replayed " + label + ": passed, the failure did not come back in " + runs.text();
    if (!regression && s.verbose >= 0 && !context.property.expect_failure)
      std::fprintf(stdout, "duet: %s: %s (fixed, or the test is nondeterministic)\n", s.name.c_str(),
                   context.replay_summary.c_str());
    return runs.counted(single_case_passed(context, o, start));
  }
  if (o.kind == CaseOutcome::Kind::fail) context.failures.remember(runs.last.choices, std::move(runs.last.trace), o);
  context.replay_summary =
      "replayed " + label + ": " +
      (o.kind == CaseOutcome::Kind::error ? std::string("ended in an error") : std::string("failed as recorded")) +
      (runs.trials > 0 ? ", on its " + ordinal(runs.trials) + " trial" : std::string()) +
      (runs.attempts > 1 ? ", in " + plural(runs.attempts, "replay", "replays") : std::string());
  return report_replayed_failure(context, rec, runs, start);
}

/// One regression case; nullopt when it is not this check's: another executor's, in the
/// directory the older layout shared between executors.
std::optional<CheckResult> regression_case(RunContext& context, const RegressionFile& file, const CaseFile& f) {
  const std::string label = "the regression case " + file.path;
  if (f.is_token) {
    if (file.shared) {
      try {
        if (!refusal(context, decode_token(f.token), file.path, true).empty()) return std::nullopt;
      } catch (const std::invalid_argument&) {
        // replay_token says what is wrong with it
      }
    }
    return replay_token(context, f.token, "regression case " + file.path, label, true);
  }
  if (std::string why = bytes_refusal(context, file.path); !why.empty()) {
    if (file.shared) return std::nullopt;
    return nothing_tested(context.settings.name, "regression case " + why);
  }
  CheckResult r = bytes_case(context, bytes_of(f.bytes), &label, true);
  // A fuzzer's input in the shared directory may be another executor's (its bytes mean another program).
  if (file.shared && r.status == CheckResult::Status::error && r.replay_token.empty()) return std::nullopt;
  return r;
}

// A fuzzer's input that failed or erred: shrunk and reported.
CheckResult report_bytes_failure(RunContext& context, CaseRun& run, const std::string* replayed, const std::string& what,
                                 Clock::time_point start) {
  const CaseOutcome& o = run.outcome;
  if (o.kind == CaseOutcome::Kind::fail) context.failures.remember(run.choices, std::move(run.trace), o);
  ReportData data;
  data.name = context.settings.name;
  data.from_bytes = true;
  data.cases = 0;  // no seeded case: its token says so (0 cases), and so does its replay's report
  data.attempts = o.attempts;
  data.rejected = o.rejected;
  data.trials = o.trials;
  data.overlapped = o.overlapped;
  data.cpus = o.cpus;
  data.error = o.kind == CaseOutcome::Kind::error;
  if (replayed) {
    context.replay_summary = what + ": " + (data.error ? "ended in an error" : "failed");
    data.replay_outcome = context.replay_summary;
  }
  return shrink_and_report(context, std::move(data), run, std::nullopt, o.commands, start);
}

}  // namespace

CheckResult replay_token(RunContext& context, const std::string& token, const std::string& from, const std::string& label,
                         bool regression) {
  ReplayRecord rec;
  try {
    rec = decode_token(token);
  } catch (const std::invalid_argument& e) {
    return nothing_tested(context.settings.name, std::string(e.what()) + " (from " + from + ")");
  }
  if (std::string why = refusal(context, rec, from, regression); !why.empty())
    return nothing_tested(context.settings.name, why);
  // A token of a check whose failure replayed only with each trial in a process of its own.
  if (rec.executor.find(kTrialProcessesTag) != std::string::npos && !context.backend->take_trial_processes())
    return nothing_tested(context.settings.name,
                          "the token in " + from + " was recorded with each trial in a process of its own (its failure " +
                              "replays only so), and " + context.settings.name +
                              " cannot run its trials so (TrialProcesses::never, an exhaustive search, a progress "
                              "check or a ThreadSanitizer build)");
  // Generate under the settings the case was recorded with, whatever the current ones; the
  // random cases after a regression case go back to the run's own.
  struct Restore {
    CaseParams& params;
    CaseParams before;
    ~Restore() { params = before; }
  } restore{context.params, context.params};
  context.params.max_length = static_cast<std::size_t>(rec.max_length);
  context.params.continue_odds = rec.continue_odds;
  return replay_record(context, rec, token, label, regression);
}

CheckResult bytes_case(RunContext& context, std::span<const std::uint8_t> bytes, const std::string* replayed, bool quiet) {
  const Settings& s = context.settings;
  const auto start = Clock::now();
  std::string input(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  CaseRun run;
  {
    const MonitorScope watched(context.monitor, "(the fuzzer's current input)");
    run = context.backend->run_case(RunRequest{std::nullopt, {}, std::move(input), context.property.cheap_trace, false});
  }
  const CaseOutcome& o = run.outcome;
  const std::string what =
      replayed ? "replayed " + *replayed + " (" + plural(bytes.size(), "byte", "bytes") + ", a fuzzer's input)"
               : std::string();
  if (replayed && uneventful(o) && (o.kind != CaseOutcome::Kind::pass || o.commands == 0)) {
    const std::string why = o.kind == CaseOutcome::Kind::overrun     ? "its bytes ran out before the case ended"
                            : o.kind == CaseOutcome::Kind::abandoned ? "the case was abandoned (" + o.message + ")"
                                                                     : "it gives no command";
    return nothing_tested(s.name, what + ": not a valid input for this check: " + why);
  }
  if (uneventful(o)) {
    if (replayed) context.replay_summary = what + ": passed, " + plural(o.commands, "command", "commands") + " checked";
    if (replayed && !quiet && s.verbose >= 0 && !context.property.expect_failure)
      std::fprintf(stdout, "duet: %s: %s\n", s.name.c_str(), context.replay_summary.c_str());
    return single_case_passed(context, o, start);
  }
  return report_bytes_failure(context, run, replayed, what, start);
}

CheckResult replay_file(RunContext& context) {
  const Settings& s = context.settings;
  CaseFile f;
  try {
    f = read_case_file(s.replay_file);
  } catch (const std::invalid_argument& e) {
    return nothing_tested(s.name, std::string("DUET_REPLAY_FILE: ") + e.what());
  }
  const std::string label = "DUET_REPLAY_FILE=" + s.replay_file;
  if (f.is_token) return replay_token(context, f.token, s.replay_file, label);
  if (std::string why = bytes_refusal(context, s.replay_file); !why.empty())
    return nothing_tested(s.name, "DUET_REPLAY_FILE: " + why);
  return bytes_case(context, bytes_of(f.bytes), &label);
}

std::optional<CheckResult> replay_regressions(RunContext& context) {
  const Settings& s = context.settings;
  std::vector<RegressionFile> files;
  try {
    files = regression_files(s.regressions, s.name, context.property.execution->name());
  } catch (const std::invalid_argument& e) {
    return nothing_tested(s.name, e.what());
  }
  std::uint64_t passed = 0, skipped = 0;
  for (const RegressionFile& file : files) {
    CaseFile f;
    try {
      f = read_case_file(file.path);
    } catch (const std::invalid_argument& e) {
      return nothing_tested(s.name, std::string("regression case: ") + e.what());
    }
    std::optional<CheckResult> r = regression_case(context, file, f);
    if (!r) {
      ++skipped;
      continue;
    }
    if (r->status == CheckResult::Status::passed) {
      ++passed;
      continue;
    }
    r->report = "duet: " + s.name + ": the regression case " + file.path + " " +
                (r->status == CheckResult::Status::failed ? "fails again" : "cannot run") + ":\n" + r->report;
    return r;
  }
  context.replay_summary.clear();  // the search decides the check
  if (!files.empty() && s.verbose >= 0)
    std::fprintf(
        stdout, "duet: %s: %s passed%s\n", s.name.c_str(), plural(passed, "regression case", "regression cases").c_str(),
        skipped == 0 ? ""
                     : (", " + std::to_string(skipped) + " of the shared directory skipped (another executor's)").c_str());
  return std::nullopt;
}

}  // namespace duet::detail
