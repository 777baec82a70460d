#include "report/report.hpp"
#include "report/witness.hpp"
#include "duet/show.hpp"
#include "execute/hang_clock.hpp"
#include "show/text.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <fcntl.h>  // AT_FDCWD
#include <sys/stat.h>
#include <unistd.h>

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

// The lines that make the draft's subject, indented: the trace's draft setup (a model over a
// binding: an adapter that calls the subject through the binding), else its setup.
static std::string draft_setup(const Trace& t, const std::string& indent) {
  const std::string& setup = t.draft_setup.empty() ? t.setup : t.draft_setup;
  std::string out;
  std::istringstream lines(setup);
  for (std::string line; std::getline(lines, line);) out += indent + line + "\n";
  return out;
}

namespace {

// The draft's capture of each call in turn: r1, r2, ... in program order.
struct DraftCalls {
  std::size_t count = 0;
  std::string operator()(const std::string& code) {
    std::string line = "r";  // appended, not "r" + ...: GCC 12's -Wrestrict misfires on that
    line += std::to_string(++count);
    line += " = duet::capture([&] { return " + code + "; });";
    return line;
  }
};

}  // namespace

// The comment above a Y-program's draft (what failed, the diagram, how the draft runs it) and
// its #include lines.
static std::string y_draft_preamble(const ReportData& d, bool fibers, bool completed) {
  std::string out;
  out += "// Draft reproducer written by duet for " + d.name + ".\n";
  std::istringstream message(d.message + " in this program:");
  for (std::string line; std::getline(message, line);) out += "// " + line + "\n";
  std::istringstream diagram(d.trace.diagram);
  for (std::string line; std::getline(diagram, line);) out += "//   " + line + "\n";
  if (fibers)
    out += "// It replays the failing interleaving on duet's fiber scheduler, so it fails as reported,\n"
           "// and passes once the candidate no longer " +
           std::string(completed ? "gives these results" : "fails that way") + " in that schedule.\n";
  else
    out += "// It runs the program on threads until the results duet found unexplained come back (then it\n"
           "// fails); on threads that is a matter of chance, so a pass proves little: run it under\n"
           "// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().\n";
  out += "// duet's replay re-checks every order of the calls: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types.\n";
  out += "#include <duet/" + std::string(fibers ? "executor" : "result") + ".hpp>\n";
  if (fibers) out += "#include <duet/result.hpp>\n";
  out += "#include <gtest/gtest.h>\n\n";
  out += fibers ? "#include <string>\n#include <vector>\n\n"
                : "#include <atomic>\n#include <string>\n#include <thread>\n#include <vector>\n\n";
  return out;
}

// "  // producer" after a branch's opening line, when the branch has a role.
static std::string y_role_comment(const Trace& t, std::size_t branch) {
  return branch < t.y_roles.size() ? "  // " + t.y_roles[branch] : std::string();
}

// The branches as fibers, run in the failing schedule by duet::run_fibers.
static std::string y_draft_fiber_branches(const Trace& t, DraftCalls& call) {
  std::string out = "  const duet::FiberRun run = duet::run_fibers(\n      {\n";
  for (std::size_t b = 0; b < t.y_branches.size(); ++b) {
    out += "          [&] {" + y_role_comment(t, b) + "\n";
    for (const auto& c : t.y_branches[b]) out += "            " + call(c) + "\n";
    out += "          },\n";
  }
  out += "      },\n      " + show_string(t.fiber_schedule);
  if (!t.fiber_options.empty()) out += ", " + t.fiber_options;
  out += ");\n";
  out += "  ASSERT_TRUE(run.completed) << run.failure;\n";
  return out;
}

// The branches as threads that start together and are joined.
static std::string y_draft_thread_branches(const Trace& t, DraftCalls& call) {
  const std::size_t nb = t.y_branches.size();
  std::string out = "    std::atomic<int> ready{0};  // the branches start together\n";
  for (std::size_t b = 0; b < nb; ++b) {
    out += "    std::thread t" + std::to_string(b) + "([&] {" + y_role_comment(t, b) + "\n";
    out += "      ready.fetch_add(1);\n      while (ready.load() < " + std::to_string(nb) + ") std::this_thread::yield();\n";
    for (const auto& c : t.y_branches[b]) out += "      " + call(c) + "\n";
    out += "    });\n";
  }
  for (std::size_t b = 0; b < nb; ++b) out += "    t" + std::to_string(b) + ".join();\n";
  return out;
}

// A Y-program's draft runs the program and checks its outcome: on fibers it replays the failing
// interleaving with duet::run_fibers (so it fails every time, as reported); on threads it runs
// the program until the unexplained results come back. Either passes once the candidate no
// longer gives them. It checks that one outcome, not every order (duet's replay does that).
static std::string format_y_draft(const ReportData& d) {
  const Trace& t = d.trace;
  const bool fibers = !t.interleaving.empty();
  // Calls that never returned: the run itself failed (a deadlock, a data race): the draft
  // checks that the run completes, and has no results to compare.
  bool completed = true;
  for (const std::string& r : t.y_results) completed = completed && r != "(did not return)" && r != "(not started)";
  std::string results_list, unexplained_list;
  std::string declared = "duet::Result";
  for (std::size_t i = 0; i < t.y_results.size(); ++i) {
    results_list += (i ? ", r" : "r") + std::to_string(i + 1) + ".show()";
    unexplained_list += (i ? ", " : "") + show_string(t.y_results[i]);
    declared += (i ? ", r" : " r") + std::to_string(i + 1);
  }
  declared += ";";

  std::string out = y_draft_preamble(d, fibers, completed);
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  std::string in = "  ";
  if (!fibers) {
    out += "  const std::vector<std::string> unexplained = {" + unexplained_list + "};\n";
    out += "  for (int trial = 0; trial < 10000; ++trial) {\n";
    in = "    ";
  }
  out += draft_setup(t, in);
  out += in + declared + "\n";
  DraftCalls call;
  for (const auto& c : t.y_prefix) out += in + call(c) + "\n";
  out += fibers ? y_draft_fiber_branches(t, call) : y_draft_thread_branches(t, call);
  for (const auto& c : t.y_suffix) out += in + call(c) + "\n";
  if (fibers && completed) {
    out += "  const std::vector<std::string> results = {" + results_list + "};\n";
    out += "  // No order of the calls gives these results:\n";
    out += "  EXPECT_NE(results, (std::vector<std::string>{" + unexplained_list + "}));\n";
  } else if (!fibers) {
    out += "    const std::vector<std::string> results = {" + results_list + "};\n";
    out +=
        "    ASSERT_NE(results, unexplained) << \"trial \" << trial << \": no order of the calls gives these results\";\n";
    out += "  }\n";
  }
  out += "}\n";
  return out;
}

// The comment above a scenario draft: what failed, the diagram, how the draft checks it.
static std::string scenario_draft_preamble(const ReportData& d, bool fibers) {
  std::string out = "// Draft reproducer written by duet for " + d.name + ".\n";
  std::istringstream message(d.message + " in this program:");
  for (std::string line; std::getline(message, line);) out += "// " + line + "\n";
  std::istringstream diagram(d.trace.diagram);
  for (std::string line; std::getline(diagram, line);) out += "//   " + line + "\n";
  if (fibers)
    out += "// It checks that program as a hand-written scenario, replaying the failing schedule on duet's\n"
           "// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.\n";
  else
    out += "// It checks that program as a hand-written scenario on threads, for a second of trials: whether\n"
           "// the failing interleaving recurs is a matter of chance, so a pass proves little: run it under\n"
           "// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().\n";
  if (fibers)
    out += "// The failing schedule, as duet::run_fibers replays it: " + show_string(d.trace.fiber_schedule) + "\n";
  out += "// The search that found it: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types.\n";
  return out + "#include <duet/parallel.hpp>\n#include <gtest/gtest.h>\n\n";
}

// A parallel failure's draft as a scenario test (Trace::ScenarioDraft): the failing program
// checked by duet::check_scenario, on fibers replaying the failing schedule with its token.
static std::string format_scenario_draft(const ReportData& d) {
  const Trace::ScenarioDraft& s = d.trace.scenario;
  const bool fibers = !s.token.empty();
  std::string out = scenario_draft_preamble(d, fibers);
  if (!s.declarations.empty()) out += s.declarations + "\n";
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  out += "  const " + s.type + " scenario{\n";
  std::size_t at = 0;
  auto list = [&](std::size_t n) {
    std::string text = "{";
    for (std::size_t k = 0; k < n; ++k, ++at) text += (k == 0 ? "" : ", ") + s.calls[at];
    return text + "}";
  };
  if (!d.trace.y_prefix.empty()) out += "      .prefix = " + list(d.trace.y_prefix.size()) + ",\n";
  out += "      .branches = {";
  for (std::size_t b = 0; b < d.trace.y_branches.size(); ++b)
    out += (b == 0 ? "" : ", ") + list(d.trace.y_branches[b].size());
  out += "},\n";
  if (!d.trace.y_suffix.empty()) out += "      .suffix = " + list(d.trace.y_suffix.size()) + ",\n";
  out += "  };\n";
  out += "  const duet::CheckResult r = " + s.check;
  if (fibers) out += ",\n      " + s.config + ",\n      {.replay = " + show_string(s.token) + "}";
  else if (!s.config.empty()) out += ", " + s.config;
  out += ");\n";
  out += "  EXPECT_TRUE(r) << r.report;\n}\n";
  return out;
}

// `expr` as one argument of a GoogleTest macro: the preprocessor splits arguments at commas
// outside parentheses, so `std::pair{0, 0}` is parenthesised.
static std::string macro_arg(const std::string& expr) {
  int depth = 0;
  for (char c : expr) {
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == ',' && depth == 0) return "(" + expr + ")";
  }
  return expr;
}

std::string format_draft_test(const ReportData& d) {
  if (!d.trace.diagram.empty() && !d.trace.scenario.calls.empty()) return format_scenario_draft(d);
  if (!d.trace.diagram.empty()) return format_y_draft(d);
  std::string out;
  out += "// Draft reproducer written by duet for " + d.name + ".\n";
  out += "// " + d.message + "\n";
  out += "// Replay the case that produced it: DUET_REPLAY=" + d.token + "\n";
  out += "// Add the #include lines for your types, then move the TEST into your suite.\n";
  out += "#include <gtest/gtest.h>\n\n";
  const bool died = d.trace.failed && !d.trace.steps.empty() && !d.trace.steps.back().died.empty();
  if (died) out += "#include <unistd.h>\n\n#include <cstdlib>\n";
  out += "#include <optional>\n#include <stdexcept>\n#include <string>\n#include <vector>\n\n";
  // The check that failed after the last step, when duet cannot spell it: declared here, defined
  // by the user, so that the draft runs the same check (and passes once the candidate is fixed).
  if (d.trace.failed && !d.trace.steps.empty() && !d.trace.steps.back().check_declaration.empty())
    out += "// duet's check, as a function: define it with the check you gave duet.\n" +
           d.trace.steps.back().check_declaration + "\n\n";
  out += "TEST(" + identifier(d.name) + ", DuetRepro) {\n";
  out += draft_setup(d.trace, "  ");
  for (std::size_t i = 0; i < d.trace.steps.size(); ++i) {
    const Step& s = d.trace.steps[i];
    const bool failing = d.trace.failed && i + 1 == d.trace.steps.size();
    if (failing && !s.died.empty()) {
      // The process died in this call: the draft runs it in a child process (a death test),
      // which fails while the call crashes, hangs or ends the process, and passes once the call
      // returns.
      out += "  // duet: " + s.explanation + ".\n";
      out +=
          "  EXPECT_EXIT(\n      {\n        alarm(10);  // a hang ends the child (SIGALRM)\n        " + s.code +
          ";\n        std::_Exit(42);  // the call returned\n      },\n      ::testing::ExitedWithCode(42), \"\")\n      << " +
          show_string("duet saw this call end the process: " + s.died) + ";\n";
    } else if (failing && !s.check.empty()) {
      // The call itself did what it should; the check after it failed: run both.
      if (s.kind == Step::Kind::value) out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ");\n";
      else if (s.kind == Step::Kind::exception)
        out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.exception_type + ");\n";
      else out += "  " + s.code + ";\n";
      out += "  EXPECT_TRUE(" + macro_arg(s.check) + ") << " + show_string(s.explanation) + ";\n";
    } else if (failing && !s.expected.empty() && s.expected_exception) {
      out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.expected + ");  // " + s.explanation + "\n";
    } else if (failing && !s.expected.empty()) {
      out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.expected) + ");  // " + s.explanation + "\n";
    } else if (failing && s.kind == Step::Kind::value) {
      // No single right result (a postcondition judged it): the wrong one must not come back,
      // so the draft fails as reported and passes once the candidate is fixed.
      out +=
          "  EXPECT_NE(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ") << " + show_string(s.explanation) + ";\n";
    } else if (failing && s.kind == Step::Kind::exception) {
      out += "  try {\n    " + s.code + ";\n  } catch (const " + s.exception_type + "&) {\n    ADD_FAILURE() << " +
             show_string(s.explanation) + ";\n  }\n";
    } else if (failing) {
      // Nothing the draft can re-run decided this (a postcondition on a void call, the model's
      // own code): it says so and fails, as a placeholder for the user's own check.
      out += "  " + s.code + ";  // " + s.explanation + "\n";
      out += "  ADD_FAILURE() << " + show_string(s.explanation + " (duet's check of this step: put it here)") + ";\n";
    } else if (s.kind == Step::Kind::value) {
      out += "  EXPECT_EQ(" + macro_arg(s.code) + ", " + macro_arg(s.observed) + ");\n";
    } else if (s.kind == Step::Kind::exception) {
      out += "  EXPECT_THROW(" + macro_arg(s.code) + ", " + s.exception_type + ");\n";
    } else {
      out += "  " + s.code + ";\n";
    }
  }
  out += "}\n";
  return out;
}

namespace {

// Puts the file at `part` where `path` is, which a reader sees whole before and after. Where
// there is a file at `path`, the two are exchanged and the old one (now at `part`) removed: a
// rename over it made ext4 write the new file out to the disk first (auto_da_alloc, so that a
// file replaced just before a crash is not left empty): two thirds of the draft's cost, a
// tenth of a short failing check's. duet's files need no such care: the next run writes them again.
void replace_file(const std::filesystem::path& part, const std::filesystem::path& path, std::error_code& ec) {
#ifdef RENAME_EXCHANGE
  if (::renameat2(AT_FDCWD, part.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    std::error_code ignored;  // the file is in place; a stale copy at `part` at worst
    std::filesystem::remove(part, ignored);
    return;
  }
#endif
  std::filesystem::rename(part, path, ec);  // no file there yet, or no exchange on this system
}

// Where a write to `path` lands: the file a symbolic link leads to, there or not yet (the link
// stays a link, as when a file is opened through it). A loop is left to stat to name.
std::filesystem::path write_target(const std::filesystem::path& path) {
  std::filesystem::path target = path;
  std::error_code ec;
  for (int links = 0; links < 40 && std::filesystem::is_symlink(target, ec); ++links) {
    const std::filesystem::path next = std::filesystem::read_symlink(target, ec);
    if (ec) return path;
    target = target.parent_path() / next;  // an absolute `next` replaces the whole
  }
  return std::filesystem::is_symlink(target, ec) ? path : target;
}

// Refuses `target` unless it is missing or a regular file: a FIFO with no reader would block the
// write forever, a device would swallow it, and a rename would replace either without a word.
void require_regular_or_missing(const std::string& path, const std::filesystem::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) {
    if (errno == ENOENT) return;
    throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  }
  if (S_ISREG(st.st_mode)) return;
  const std::string what = target == path ? "it is " : "it leads to " + target.string() + ", ";
  throw std::runtime_error("cannot write " + path + ": " + what + file_kind(st.st_mode) + ", not a regular file");
}

// Writes `contents` to a new file at `part` (any old one there is removed first: O_EXCL then
// neither follows a link nor opens a FIFO); throws naming `path`, the file it stands in for.
void write_new_file(const std::string& path, const std::filesystem::path& part, std::string_view contents) {
  ::unlink(part.c_str());  // left by a process of the same id that ended mid-write
  const int fd = ::open(part.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
  int error = 0;
  for (std::size_t done = 0; done < contents.size() && error == 0;) {
    const ssize_t n = ::write(fd, contents.data() + done, contents.size() - done);
    if (n >= 0) done += static_cast<std::size_t>(n);
    else if (errno != EINTR) error = errno;
  }
  if (::close(fd) != 0 && error == 0) error = errno;
  if (error == 0) return;
  ::unlink(part.c_str());
  throw std::runtime_error("cannot write " + path + ": " + std::strerror(error));
}

}  // namespace

std::string file_kind(unsigned mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a pipe";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a file";
}

void write_file_aside(const std::string& path, std::string_view contents) {
  const std::filesystem::path target = write_target(path);
  require_regular_or_missing(path, target);
  // Aside, next to the target (a rename does not cross file systems), with this process's id:
  // two processes writing the same file each rename a whole one into place.
  const std::filesystem::path part = std::filesystem::path(target).concat(".part" + std::to_string(::getpid()));
  write_new_file(path, part, contents);
  std::error_code ec;
  replace_file(part, target, ec);
  if (!ec) return;
  ::unlink(part.c_str());
  throw std::runtime_error("cannot write " + path + ": " + ec.message());
}

std::string write_draft_test(const ReportData& d, const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  // Written aside: a test binary run in parallel with another that fails the same spec never
  // reads half a file.
  std::string path = (fs::path(dir) / (identifier(d.name) + "_repro.cpp")).string();
  write_file_aside(path, format_draft_test(d));
  return path;
}

// Declared in duet/gtest_glue.hpp (the library itself does not depend on GoogleTest).
void append_assertion_message(std::string& out, const char* file, int line, const char* message) {
  if (!out.empty()) out += " | ";
  if (file) out += std::string(file) + ":" + std::to_string(line) + ": ";
  std::string m = message;
  for (char& c : m)
    if (c == '\n') c = ' ';
  out += m;
}

}  // namespace duet::detail
