// The report of a check that did not pass, as the user reads it: the headline, the warnings,
// the failing case (numbered steps, or a Y-program's diagram and interleaving), the footer; the
// one-line verdict printed in its place; the wording the rest of duet shares (plural, ordinal,
// identifier); and a GoogleTest assertion's message as the glue (src/integration/gtest_glue.cpp) collects it. The
// draft test the report names is made by draft.cpp and written by write_file.cpp.
#include "report/report.hpp"
#include "report/witness.hpp"
#include "execute/hang_clock.hpp"
#include "show/text.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace duet::detail {
namespace {

std::string hex(std::uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string seconds(double s) { return printf_string("%.2f s", s); }


// "shrunk to 3 steps in 13 shrink steps", or "not shrunk (11 calls)" when the failure did not
// come back to be shrunk.
std::string shrunk_to(const ReportData& d, const std::string& size) {
  if (d.shrink_end == CheckResult::ShrinkEnd::not_reproduced) return "not shrunk (" + size + ")";
  return "shrunk to " + size + " in " + plural(d.shrink_steps, "shrink step", "shrink steps");
}

// A shrink that did not reach a fixed point says so: the case may not be minimal, and with a
// time budget the same seed may shrink further on another run.
std::string shrink_note(const ReportData& d) {
  using End = CheckResult::ShrinkEnd;
  char budget[96];
  switch (d.shrink_end) {
    case End::step_budget:
      std::snprintf(budget, sizeof budget, "budget of %llu replays (DUET_SHRINK_STEPS)",
                    static_cast<unsigned long long>(d.shrink_step_budget));
      break;
    case End::time_budget:
      std::snprintf(budget, sizeof budget, "%g s budget (DUET_SHRINK_TIME)%s", d.shrink_time_budget / d.time_scale,
                    scale_note(d.time_scale).c_str());
      break;
    case End::not_reproduced:
      return "  not shrunk: the failure did not come back in " +
             plural(static_cast<std::uint64_t>(d.replays_tried), "replay", "replays") + " of the case" +
             (d.replay_trials > 0
                  ? " (" + plural(d.replay_trials, "trial", "trials") + " in " + seconds(d.replay_seconds) + ")"
                  : std::string()) +
             ", so no smaller case could be told to fail: shown unshrunk, as first seen\n";
    default: return "";
  }
  return std::string("  shrinking stopped by its ") + budget + " after " +
         plural(d.shrink_steps, "shrink step", "shrink steps") + ": the case may not be minimal\n";
}

}  // namespace

std::string plural(std::uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string ordinal(std::uint64_t n) {
  const std::uint64_t tens = n % 100, ones = n % 10;
  const char* suffix = tens >= 11 && tens <= 13 ? "th" : ones == 1 ? "st" : ones == 2 ? "nd" : ones == 3 ? "rd" : "th";
  return std::to_string(n) + suffix;
}

std::string verdict_line(const CheckResult& r) {
  const bool failed = r.status == CheckResult::Status::failed;
  std::string said = r.report.substr(0, r.report.find('\n'));  // the headline
  if (const std::string prefix = "duet: " + r.name + ": "; said.starts_with(prefix)) said.erase(0, prefix.size());
  while (!said.empty() && (said.back() == ':' || said.back() == ' ')) said.pop_back();
  // "failed after 3 cases" reads "FAILED after 3 cases", "error: no case ran" "ERROR: no case ran".
  if (const std::string word = failed ? "failed" : "error"; said.starts_with(word)) said.erase(0, word.size());
  else if (!said.empty()) said = ": " + said;
  std::string line = "duet: " + r.name + ": " + (failed ? "FAILED" : "ERROR") + said;
  if (!r.replay_token.empty()) line += "; replay: DUET_REPLAY=" + r.replay_token;
  if (!r.draft_path.empty()) line += "; draft test: " + r.draft_path;
  return line + " (the report: CheckResult::report, or DUET_VERBOSE=1)";
}

// "20000 trials, 61% with overlapping branches, branches on 2 CPUs".
std::string overlap_text(std::uint64_t trials, std::uint64_t overlapped, std::uint64_t cpus) {
  char pct[32];
  const double share = trials ? 100.0 * static_cast<double>(overlapped) / static_cast<double>(trials) : 0.0;
  std::snprintf(pct, sizeof pct, share > 0 && share < 1 ? "%.2f%%" : "%.0f%%", share);
  std::string text = plural(trials, "trial", "trials") + ", " + pct + " with overlapping branches";
  if (cpus > 0) text += ", branches on " + plural(cpus, "CPU", "CPUs");
  return text;
}

std::string identifier(const std::string& name) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  while (id.find("__") != std::string::npos) id.erase(id.find("__"), 1);  // "__" is reserved
  while (!id.empty() && id.back() == '_') id.pop_back();
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "Spec_" + id;
  return id;
}

// Under an error, what was tested: nothing, unless the error came after the case or program had
// run (an undecidable history, a search that cannot show its failure): then no verdict is drawn
// from what did run.
static std::string tested_before_the_error(const ReportData& d) {
  if (d.cases == 0 || (d.trials == 0 && d.cases == 1)) return "nothing was tested";
  const bool programs = d.trials > 0;
  std::string out =
      std::string("no verdict: the error came in ") + (programs ? "program " : "case ") + std::to_string(d.cases);
  if (d.cases > 1)
    out += ", after " + plural(d.cases - 1, programs ? "program" : "case", programs ? "programs" : "cases") + " that passed";
  if (programs) out += " (" + plural(d.trials, "trial", "trials") + " in all)";
  return out;
}

// The first line: what failed, after how many cases, and how far it shrank.
static std::string report_headline(const ReportData& d) {
  std::string out = "duet: " + d.name + ": ";
  if (!d.divergence.empty()) {
    out += "error: the test is nondeterministic: " + d.divergence + "\n";
    out += "  A trial failed, but its replay token does not run it the same way again: something the\n"
           "  fiber scheduler does not control decides the run (a clock, a global random generator,\n"
           "  addresses, global or static state, threads of its own). No counterexample is claimed;\n"
           "  make the test deterministic, then run it again.";
    if (!d.trial_processes.empty())  // what the trials before it left in the process is not the cause
      out += "\n" + wrapped("Each trial ran in a process of its own (" + d.trial_processes +
                                "), and the replay still diverged: what decides the run is kept outside the process "
                                "(a file, a clock, memory shared with other processes) or out of duet's sight.",
                            2, 96);
    else if (d.library_state)  // what an uninstrumented library keeps across trials is out of the test's reach
      out += " The runs called into uninstrumented libraries: with\n"
             "  DUET_TRIAL_PROCESSES=always (FiberOptions::trial_processes) each trial runs in a process of\n"
             "  its own, every one from the same state.";
    out += (d.trial_processes.empty() ? " " : "  ") + std::string("The failing trial as first seen:");
  } else if (d.error) {
    out += "error: " + d.message + "\n  " + tested_before_the_error(d);
  } else if (d.trace.diagram.empty()) {
    out += (d.from_bytes ? std::string("failed on a fuzzer's input")
                         : "failed after " + plural(d.cases, "case", "cases") + " (seed " + hex(d.seed) + ")") +
           "; " + shrunk_to(d, plural(d.trace.steps.size(), "step", "steps"));
  } else {
    std::size_t calls = d.trace.y_prefix.size() + d.trace.y_suffix.size();
    for (const auto& b : d.trace.y_branches) calls += b.size();
    // On threads, whether the branches ran at once at all is part of what the failure shows.
    out += (d.from_bytes ? std::string("failed on a fuzzer's input, ")
                         : "failed after " + plural(d.cases, "program", "programs") + ", ") +
           (d.cpus > 0 ? overlap_text(d.trials, d.overlapped, d.cpus) : plural(d.trials, "trial", "trials")) +
           (d.from_bytes ? std::string() : " (seed " + hex(d.seed) + ")") + "; " +
           shrunk_to(d, plural(calls, "call", "calls"));
  }
  return out + "\n";
}

// A shrink that stopped early, and a failure that did not come back when replayed.
static std::string report_warnings(const ReportData& d) {
  // A nondeterministic test says so in its headline.
  if (!d.divergence.empty()) return "";
  std::string out = shrink_note(d);
  if (d.left_unfinished && d.no_clean_child.empty())
    out += "  note: the failing run left calls unfinished (fibers blocked or spinning for good), and what\n"
           "  they half-did stays in this process: the shrinking and the replay shown ran in a child\n"
           "  process forked before the check's first case.\n";
  else if (d.left_unfinished)
    out += "  note: the failing run left calls unfinished (fibers blocked or spinning for good), and what\n"
           "  they half-did stays in this process; the shrinking and the replay shown ran here all the\n"
           "  same: " +
           d.no_clean_child + ".\n";
  else if (d.library_state)
    out += "  note: the runs called into uninstrumented libraries, whose globals outlive a run: the\n"
           "  shrinking and the replay shown ran in processes forked before the check's first case, a\n"
           "  fresh one for each case that called them.\n";
  if (!d.trial_processes.empty())
    out += wrapped("note: each trial ran in a process of its own (" + d.trial_processes +
                       "): what a trial left there (threads, globals, a one-time initialisation) ended with it, "
                       "so the search, the shrinking and the replay shown each started from the same state.",
                   2, 96);
  if (d.value_drift_steps > 0)
    out += "  note: the replay read other values than the failing run at " + std::to_string(d.value_drift_steps) +
           (d.value_drift_steps == 1 ? " step" : " steps") +
           ", with the same schedule,\n"
           "  results and failure: memory that outlived earlier runs (a library's global counter, a\n"
           "  recycled per-thread record), or a value code duet does not see computed from what no\n"
           "  run controls (an uninstrumented library's read of the CPU's cycle counter: Abseil's\n"
           "  SpinLock keeps wait cycles in its lock word). The first, " +
           d.value_drift + ".\n";
  if (d.crash_needs_earlier_cases)
    out += "  warning: the process died running this case, but not when the case ran again in another\n"
           "  child process, which went on past the point where the first one died: the crash needs what\n"
           "  earlier cases left in the process (global or static state, the heap, threads the subject\n"
           "  started). It was not shrunk, and its replay token does not reproduce it alone; the same\n"
           "  seed with DUET_FORK=1 runs the same cases again. Shown: the case as first run.\n";
  else if (d.nondeterministic && d.first_seen)
    out += "  warning: the failure did not reproduce when replayed; the candidate or the spec is\n"
           "  nondeterministic (global state, time, addresses, threads?). Shown: the failing step as\n"
           "  first seen, after the steps before it as replayed.\n";
  else if (d.nondeterministic)
    out += "  warning: the failure did not reproduce when replayed; the candidate or the spec is\n"
           "  nondeterministic (global state, time, addresses, threads?). Shown: the case as replayed,\n"
           "  where it passed" +
           (d.message.empty() ? std::string(".\n") : "; when first run it failed: " + d.message + "\n");
  return out;
}

// The fiber scheduler's interleaving: one column per fiber when the table fits, else one line
// per step.
static std::string report_interleaving(const ReportData& d) {
  std::string out = "\n  interleaving (fiber scheduler, " + d.trace.schedule + " schedules), " +
                    plural(d.trace.interleaving.size(), "step", "steps") + ":\n";
  // The table's first line is its header; the rest are steps, one per row.
  const auto& columns = d.trace.interleaving_columns;
  const bool table = !columns.empty();
  const auto& rows = table ? columns : d.trace.interleaving;
  const std::size_t first = table ? 1 : 0;
  if (table) out += "    " + columns.front() + "\n";
  // Long runs (a livelock) show their start and their end, unless every step is asked for
  // (DUET_TRACE_STEPS=0).
  const std::size_t n = rows.size() - first;
  const std::size_t shown = d.trace_steps > 0 && n > d.trace_steps ? static_cast<std::size_t>(d.trace_steps) : n;
  const std::size_t head = shown / 2, tail = shown - head;
  for (std::size_t i = 0; i < n; ++i) {
    if (shown < n && i == head) {
      out += "    ... " + plural(n - head - tail, "step", "steps") + " not shown ...\n";
      i = n - tail;
    }
    out += "    " + rows[first + i] + "\n";
  }
  if (!d.trace.uninstrumented.empty()) out += "  " + d.trace.uninstrumented + ".\n";
  if (d.divergence.empty() && !(d.nondeterministic && !d.first_seen))
    out += "  (The replay token re-runs this program with this interleaving, step for step.)\n";
  else if (d.divergence.empty())  // the interleaving shown is a replay's, which did not fail
    out += "  (The replay token re-runs this program with this interleaving, step for step; it did not fail\n"
           "  when replayed.)\n";
  return out;
}

// A Y-program's failure: its diagram, the verdict, and how the replay token runs it again.
static std::string report_y_program(const ReportData& d) {
  std::string out = "\n";
  if (!d.trace.setup.empty()) out += "        " + d.trace.setup + "\n";
  out += d.trace.diagram;
  if (!d.trace.verdict.empty()) out += "\n  " + d.trace.verdict + ".\n";  // none: a replay that passed
  out += report_witness(d.trace);
  if (!d.trace.y_subject_state.empty()) out += "  the subject where the run ended: " + d.trace.y_subject_state + "\n";
  if (!d.trace.noise.empty()) out += "  noise: " + d.trace.noise + ".\n";
  if (d.trace.given_program)
    out += std::string("  the program is a hand-written scenario: fixed, so the shrinker reduced ") +
           (d.trace.interleaving.empty() ? "nothing of it" : "its schedule only") + ".\n";
  if (!d.trace.interleaving.empty()) {
    out += report_interleaving(d);
  } else if (d.crash_needs_earlier_cases) {
    // Its warning says what the token does and does not do.
  } else if (d.died) {
    out += "  (The replay token re-runs this program, in a child process, until a trial ends the process\n"
           "  again or the trials run out.)\n";
  } else {
    out += "  (The replay token re-runs this program; on threads, whether the same interleaving recurs is\n"
           "  a matter of chance, so it runs the program until a trial fails or the trials run out.)\n";
  }
  return out;
}

// The state the spec printed, as a comment under a step at the column of the steps' comments;
// nothing when it printed none.
static std::string state_line(const std::string& state, std::size_t width) {
  if (state.empty()) return "";
  return std::string(8 + width + 1, ' ') + "// state: " + state + "\n";
}

// One numbered step as C++, its comment aligned at `width`, its async runs and the state after
// it under it.
static std::string report_step(const Step& s, std::size_t number, std::size_t width) {
  char num[32];
  std::snprintf(num, sizeof num, "  %4zu  ", number);
  std::string line = num + (s.assertion ? "assert(" + s.code + " == " + s.expected + ")" : s.code) + ";";
  // The failing step's explanation already says what the candidate did.
  const std::string comment = !s.explanation.empty() ? "<-- " + s.explanation
                              : !s.crash.empty()     ? "crash at " + s.crash + "; recovered"
                                                     : s.observed;
  if (!comment.empty()) {
    line.resize(std::max(line.size() + 2, 8 + width + 1), ' ');
    line += "// " + comment;
  }
  std::string out = line + "\n";
  // The async runs of the step, indented under it.
  for (std::size_t at = 0; at < s.async_trace.size();) {
    const std::size_t end = s.async_trace.find('\n', at);
    const std::size_t stop = end == std::string::npos ? s.async_trace.size() : end;
    out += "          | " + s.async_trace.substr(at, stop - at) + "\n";
    at = stop + 1;
  }
  // The failing step's state is not shown: what it left is what the failure is about.
  return out + (s.explanation.empty() ? state_line(s.state, width) : std::string());
}

// A sequential case's failure: its setup and numbered steps.
static std::string report_steps(const ReportData& d) {
  std::string out = "\n";
  std::size_t width = 0;
  for (const auto& s : d.trace.steps) width = std::max(width, s.code.size() + 1);
  width = std::min<std::size_t>(std::max<std::size_t>(width, 16), 48);
  if (!d.trace.setup.empty()) out += "        " + d.trace.setup + "\n";
  out += state_line(d.trace.initial_state, width);
  for (std::size_t i = 0; i < d.trace.steps.size(); ++i) out += report_step(d.trace.steps[i], i + 1, width);
  // A failure no step was marked with (memory ran out between steps, say): say it after them.
  if (!d.error && !d.trace.failed && !d.message.empty()) out += "  then: " + d.message + "\n";
  return out;
}

// A sanitizer's report of the minimal case, or the candidate's last words: the end of it.
static std::string report_death_output(const ReportData& d) {
  std::vector<std::string> lines;
  std::istringstream text(d.death_output);
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  constexpr std::size_t kShown = 60;
  const std::size_t first = lines.size() > kShown ? lines.size() - kShown : 0;
  std::string out =
      "\n  what the process wrote to stderr before it died" + std::string(first ? " (the last 60 lines)" : "") + ":\n";
  for (std::size_t i = first; i < lines.size(); ++i) out += "    | " + lines[i] + "\n";
  return out;
}

// The closing lines: the replay token, the draft test, discarded attempts, the times.
static std::string report_footer(const ReportData& d) {
  // A case that ends its process replays in a child process too (else the replay ends the test):
  // said only where the replay would not be isolated anyway.
  const bool fork_to_replay = d.died && !d.replay_isolated;
  // A check DUET_EXECUTOR moved replays there only with the same setting.
  std::string out = d.executor_note.empty() ? std::string() : "\n  executor:   " + d.executor_note;
  out += "\n  replay:     " + std::string(fork_to_replay ? "DUET_FORK=1 " : "") +
         (d.executor_setting.empty() ? std::string() : d.executor_setting + " ") + "DUET_REPLAY=" + d.token + "\n";
  if (!d.draft_path.empty()) out += "  draft test: " + d.draft_path + "\n";
  // An error has no draft to explain the absence of: nothing failed.
  else if (!d.trace.no_draft.empty() && !d.error) out += "  draft test: none (" + d.trace.no_draft + ")\n";
  if (!d.draft_error.empty()) out += "  draft test: not written: " + d.draft_error + "\n";
  if (!d.timeline_path.empty()) out += "  timeline:   " + d.timeline_path + "\n";
  if (!d.timeline_error.empty()) out += "  timeline:   not written: " + d.timeline_error + "\n";
  if (d.attempts > 0 && d.rejected > 0) {
    out += printf_string("  discarded:  %llu of %llu command attempts (%.1f%%)\n",
                         static_cast<unsigned long long>(d.rejected), static_cast<unsigned long long>(d.attempts),
                         100.0 * static_cast<double>(d.rejected) / static_cast<double>(d.attempts));
  }
  if (!d.replay_outcome.empty()) out += "  replayed:   " + d.replay_outcome.substr(d.replay_outcome.find(' ') + 1) + "\n";
  if (d.replayed) out += "  time:       " + seconds(d.search_seconds) + " replaying\n";
  else if (d.error && d.divergence.empty())  // an error is not shrunk
    out += "  time:       " + seconds(d.search_seconds) + " searching\n";
  else
    out += "  time:       " + seconds(d.search_seconds) + " searching, " + seconds(d.shrink_seconds) + " shrinking (" +
           plural(d.shrink_tries, "replay", "replays") + ")\n";
  return out;
}

std::string format_report(const ReportData& d) {
  std::string out = report_headline(d) + report_warnings(d);
  if (!d.trace.diagram.empty()) out += report_y_program(d);
  else if (!d.trace.setup.empty() || !d.trace.steps.empty()) out += report_steps(d);
  if (!d.error && d.trace.steps.empty() && d.trace.diagram.empty() && !d.message.empty()) out += "  " + d.message + "\n";
  if (!d.crash_stack.empty()) out += "\n  the crashing fiber's stack, innermost call first:\n" + d.crash_stack;
  if (!d.death_output.empty()) out += report_death_output(d);
  if (d.error && d.trace.steps.empty() && d.trace.diagram.empty()) out += "\n";
  return out + report_footer(d);
}

namespace {
// One assertion failure as AssertionLog keeps it: "file:line: message" on one line.
std::string assertion_message(const char* file, int line, const char* message) {
  std::string out;
  if (file) out += std::string(file) + ":" + std::to_string(line) + ": ";
  std::string m = message;
  for (char& c : m)
    if (c == '\n') c = ' ';
  return out + m;
}
}  // namespace

// Declared in duet/detail/engine.hpp.
void AssertionLog::add(const char* file, int line, const char* message) {
  lines_.push_back(assertion_message(file, line, message));
}

std::string AssertionLog::messages_since(std::size_t first) const {
  std::string out;
  for (std::size_t i = first; i < lines_.size(); ++i) {
    if (!out.empty()) out += " | ";
    out += lines_[i];
  }
  return out;
}

}  // namespace duet::detail
