// Each trial in a process of its own (FiberOptions::trial_processes). A library keeps state for
// the whole process: threads it starts once and never joins (RocksDB's default Env, leveldb's
// compaction thread), a one-time initialisation (a function-local static, pthread_once), counters
// and caches in its globals. A trial that leaves any of it changes every later trial of the
// process: a fiber run cannot carry a thread into the next run, and a replay of a failing trial,
// which runs it first, starts from another state than the search's did ("nondeterministic").
//
// So the process running the case forks before each trial; the child runs the trial and judges
// it, sends back what the case needs to go on (the choices it drew, the outcome, the trace when
// traced, the executor's counts) and ends at once, with whatever the trial left. The process
// that forks never runs the subject: every trial starts from the same state, the search's as
// the replay's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/case_wire.hpp"

namespace duet::detail {

/// Whether a child of fork() can start a thread here, as a trial's process does (the stall
/// watchdog's): Debian 12's qemu-user (7.2) aborts such a child when its parent had another
/// thread ("qemu_plugin_vcpu_init_hook: assertion failed"), and every trial's process would be
/// lost. Probed once, with a thread alive as the check's process has one; true natively.
bool forked_processes_start_threads();
/// Whether duet may start a helper thread of its own (a watchdog's) in this process: false only
/// in a child of fork() where forked_processes_start_threads() found that a thread would end it;
/// there the parent's deadline on the child bounds what a watchdog would have.
bool duets_threads_start_here() noexcept;

/// What a trial's process sends back: how the trial ended, the case as it stands after it, the
/// choices it drew and the executor's counts of it (TrialDriver::trial_totals).
struct TrialAnswer {
  enum class Escaped : std::uint8_t { none, engine_error, overrun, other };  // what the trial threw
  bool ended = false;  // the case ends with this trial: `outcome` is its outcome
  bool next = true;    // otherwise: another trial follows
  Escaped escaped = Escaped::none;
  std::string what;                     // of what escaped
  CaseOutcome outcome;                  // the case's outcome so far (its counts)
  Source::Drawn drawn;                  // from the trial's first choice on
  std::string totals;                   // TrialDriver::trial_totals
  Trace trace;                          // a traced trial's (empty otherwise)
  std::vector<const void*> symbolized;  // code addresses the trial's process symbolised
};
constexpr TrialAnswer::Escaped wire_last(TrialAnswer::Escaped) { return TrialAnswer::Escaped::other; }
template <WireSelf<TrialAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.ended, a.next, a.escaped, a.what, a.outcome, a.drawn, a.totals, a.trace, a.symbolized);
}

/// What came back from a trial's process: its answer, or why none came.
struct TrialProcessEnd {
  bool answered = false;
  std::string answer;
  std::string why;  // not answered: "killed by signal 11 (Segmentation fault)", ...
};

/// Forks a child that runs `trial` and sends back what it returns, then ends (_exit: no
/// destructor or exit handler of the process runs there). Waits for it in this process.
///
///   const TrialProcessEnd end = run_in_trial_process([&] { return encode(one_trial()); });
TrialProcessEnd run_in_trial_process(const std::function<std::string()>& trial);

/// In the child of run_in_trial_process, while its trial runs: true.
bool in_trial_process() noexcept;

}  // namespace duet::detail
