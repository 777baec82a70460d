// Turning a shrunk failure into what the user reads: the report and the draft test.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"

namespace duet::detail {

struct ReportData {
  std::string name;
  Trace trace;
  std::string message;            // one line: the disagreement, or what went wrong
  bool error = false;             // the spec could not run: nothing was tested
  bool nondeterministic = false;  // the failure did not reproduce when replayed
  bool first_seen = false;        // nondeterministic: the trace ends in the failing step as first seen
  /// isolation: the case died, and ran again in another child process it did not: the crash needs
  /// what earlier cases left in the process (shown as first seen, not shrunk)
  bool crash_needs_earlier_cases = false;
  /// The failing run left calls unfinished (a deadlock on fibers): the rest of the check ran in
  /// a child forked before its first case (engine/clean_child.hpp), or here, for this reason.
  bool left_unfinished = false;
  std::string no_clean_child;
  /// The check's runs called into uninstrumented libraries, whose globals outlive a run: the
  /// rest of the check ran in processes forked before its first case, one per replayed case.
  bool library_state = false;
  /// Why each trial ran in a process of its own (Execution::trial_processes), or empty.
  std::string trial_processes;
  /// A replay that should have been exact ran differently: where (with `error`: the failure is
  /// shown as first seen, no draft is written).
  std::string divergence;
  /// The replay ran the failing run's schedule to the same results and failure, but read other
  /// values than it at `value_drift_steps` steps (memory that outlived an earlier run); the
  /// first of them, in words.
  std::size_t value_drift_steps = 0;
  std::string value_drift;
  std::uint64_t seed = 0;
  std::uint64_t cases = 0;
  std::uint64_t shrink_steps = 0;
  std::uint64_t shrink_tries = 0;
  CheckResult::ShrinkEnd shrink_end = CheckResult::ShrinkEnd::none;
  double shrink_time_budget = 0;         // seconds, for the report's note on a stopped shrink
  double time_scale = 1;                 // DUET_TIME_SCALE, which shrink_time_budget includes
  std::uint64_t shrink_step_budget = 0;  // replays
  int replays_tried = 0;                 // replays of the case before shrinking (not_reproduced)
  std::uint64_t replay_trials = 0;       // the program runs those replays made (parallel runner)
  double replay_seconds = 0;             // the time those replays took
  std::uint64_t attempts = 0, rejected = 0;
  std::uint64_t trials = 0;                // parallel runner: program runs (0 for sequential checks)
  std::uint64_t overlapped = 0, cpus = 0;  // on threads: trials whose branches overlapped; CPUs seen
  double search_seconds = 0, shrink_seconds = 0;
  bool replayed = false;  // this report comes from DUET_REPLAY
  /// A replay's outcome with the replay's own counts ("replayed DUET_REPLAY: failed as recorded,
  /// on its 3rd trial"), shown on its own line: the rest of the report reads as the recorded run's.
  std::string replay_outcome;
  bool from_bytes = false;       // the case came from a fuzzer's input (or a file of one), not a seed
  bool died = false;             // isolation: the case ends its process (the replay needs isolation too)
  bool replay_isolated = false;  // a replay is isolated without DUET_FORK=1 (by the code or by default)
  std::string executor_note;     // Property::executor_note: DUET_EXECUTOR chose where it ran
  std::string executor_setting;  // "DUET_EXECUTOR=fibers:pct": what a replay needs set to run there too
  std::string death_output;      // isolation: what the dead child last wrote to stderr (a sanitizer's report)
  std::string crash_stack;       // isolation: the stack of the fiber the case crashed on, as report lines
  std::string token;
  std::string draft_path;      // where the draft test was written, or empty
  std::string draft_error;     // why it could not be written
  std::string timeline_path;   // where the fiber timeline page was written (DUET_TIMELINE), or empty
  std::string timeline_error;  // why it could not be written
  /// The most steps of a fiber interleaving shown (DUET_TRACE_STEPS): the first half and the
  /// last; 0: every step.
  std::uint64_t trace_steps = 80;
};

/// The report: header, numbered C++ statements with observed results, the failing step's
/// explanation, replay token, draft path, timings (the only line that varies between a run
/// and its replay, and it starts with "  time:").
std::string format_report(const ReportData& data);

/// A GoogleTest TEST reproducing the trace.
std::string format_draft_test(const ReportData& data);

/// Writes the draft under dir; returns its path, or throws std::runtime_error.
std::string write_draft_test(const ReportData& data, const std::string& dir);

/// The one line a check that did not pass prints where its report is not printed (DUET_VERBOSE=0):
/// "duet: Queue: FAILED after 3 cases (seed 0x...); shrunk to 2 steps in 9 shrink steps; replay:
/// DUET_REPLAY=duet1...; draft test: duet-output/Queue_repro.cpp (the report: ...)", or ERROR and
/// what its report's first line says, so that a result nobody reads is still seen.
std::string verdict_line(const CheckResult& r);

/// Writes every file duet writes (a draft, a regression case, a timeline page): to a side file
/// next to `path`, renamed into place, so that a reader sees the old file or the new one whole
/// and no write blocks. `path` must be missing or a regular file (a symbolic link to one is
/// followed and stays a link); a directory, a FIFO or a device is refused, not blocked on or
/// replaced. Throws std::runtime_error naming `path`.
void write_file_aside(const std::string& path, std::string_view contents);

/// What a file's st_mode says it is, for messages: "a pipe", "a directory", "a character device".
std::string file_kind(unsigned mode);

/// "20000 trials, 61% with overlapping branches, branches on 2 CPUs".
std::string overlap_text(std::uint64_t trials, std::uint64_t overlapped, std::uint64_t cpus);

/// "Ring buffer<3>" -> "Ring_buffer_3_": a C++ identifier.
std::string identifier(const std::string& name);
/// "1 program", "2 programs".
std::string plural(std::uint64_t n, const char* one, const char* many);
/// "1st", "2nd", "3rd", "11th", "22nd".
std::string ordinal(std::uint64_t n);

}  // namespace duet::detail
