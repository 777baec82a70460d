// What a fiber check's executor and its strategy send another process of the same check
// (engine/wire.hpp field lists): a worker's totals, added to the check's (save_totals,
// add_totals), and one trial's, run in a process of its own (trial_totals, add_trial_totals).
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/wire.hpp"
#include "execute/fibers/strategies.hpp"  // ExplorerStats

namespace duet::detail {

/// A process's totals of the check (FiberExecutor::save_totals).
struct CheckTotals {
  std::string strategy;                 // ScheduleStrategy::save_totals
  std::vector<std::uint64_t> progress;  // ProgressMonitor::totals
  std::vector<std::string> libraries;   // the uninstrumented libraries the runs called
  std::uint64_t operations = 0;         // switch points met
  std::uint64_t left_unfinished = 0;    // trials that left calls unfinished
  // What a worker that searched learnt of its trials' processes (searches_in_clean_child).
  bool first_trial_back = false;
  bool threads_left_to_process = false;
  bool weak_order_noted = false;
  std::string threads_left;  // the threads its trials left running, described
};
template <WireSelf<CheckTotals> Self, class Visit>
auto wire_fields(Self& t, Visit&& visit) {
  return visit(t.strategy, t.progress, t.libraries, t.operations, t.left_unfinished, t.first_trial_back,
               t.threads_left_to_process, t.weak_order_noted, t.threads_left);
}

/// One trial's counts, from the process it ran in (FiberExecutor::trial_totals).
struct TrialTotals {
  std::vector<std::uint64_t> progress;  // ProgressMonitor::totals, the trial's part
  std::vector<std::string> libraries;
  std::uint64_t operations = 0;
  std::uint64_t left_unfinished = 0;
  std::uint64_t left_with_process = 0;  // threads it left to its process
  bool weak_order_noted = false;
  bool subject_started_threads = false;
  std::string learnt;  // ScheduleStrategy::learnt
};
template <WireSelf<TrialTotals> Self, class Visit>
auto wire_fields(Self& t, Visit&& visit) {
  return visit(t.progress, t.libraries, t.operations, t.left_unfinished, t.left_with_process, t.weak_order_noted,
               t.subject_started_threads, t.learnt);
}

/// An exhaustive strategy's counts over the check's programs, finished searches only (the current
/// one is added when asked).
struct ExhaustiveTotals {
  std::size_t programs = 0, complete = 0, schedules = 0, redundant = 0, optimal = 0;
  std::size_t orders_left = 0;  // programs whose calls' real-time orders the check judged (not run)
  // Runs, and the searches' runs in all (a search stopped early: its estimate); 0 when a
  // stopped search had no estimate yet.
  std::uint64_t runs = 0;
  double runs_in_all = 0;
  bool estimated = true;
  std::string fell_back;  // why the first program that left the optimal reduction did
  // The shape of the programs searched: what a complete search says nothing beyond.
  std::size_t min_branches = ~std::size_t{0}, max_branches = 0, max_calls = 0;
  // Another process's totals of the same check (a walk split over processes).
  void add(const ExhaustiveTotals& t) {
    programs += t.programs;
    complete += t.complete;
    schedules += t.schedules;
    redundant += t.redundant;
    optimal += t.optimal;
    orders_left += t.orders_left;
    runs += t.runs;
    runs_in_all += t.runs_in_all;
    estimated = estimated && t.estimated;
    if (fell_back.empty()) fell_back = t.fell_back;
    min_branches = std::min(min_branches, t.min_branches);
    max_branches = std::max(max_branches, t.max_branches);
    max_calls = std::max(max_calls, t.max_calls);
  }
  void add(const fiber::ExplorerStats& s, bool was_optimal, bool left_orders, std::span<const std::size_t> branch_lengths) {
    ++programs;
    orders_left += left_orders;
    complete += s.complete;
    schedules += s.schedules;
    redundant += s.redundant;
    runs += s.runs;
    runs_in_all += s.complete ? static_cast<double>(s.runs) : s.runs_in_all;
    estimated = estimated && (s.complete || s.runs_in_all > 0);
    optimal += was_optimal;
    min_branches = std::min(min_branches, branch_lengths.size());
    max_branches = std::max(max_branches, branch_lengths.size());
    for (std::size_t n : branch_lengths) max_calls = std::max(max_calls, n);
  }
};
template <WireSelf<ExhaustiveTotals> Self, class Visit>
auto wire_fields(Self& t, Visit&& visit) {
  return visit(t.programs, t.complete, t.schedules, t.redundant, t.optimal, t.orders_left, t.runs, t.runs_in_all,
               t.estimated, t.fell_back, t.min_branches, t.max_branches, t.max_calls);
}

// What an exhaustive strategy's save_totals sends another process of the check.
struct SavedTotals {
  ExhaustiveTotals totals;
  bool weak_seen = false;
  std::string stopped_for;
};
template <WireSelf<SavedTotals> Self, class Visit>
auto wire_fields(Self& t, Visit&& visit) {
  return visit(t.totals, t.weak_seen, t.stopped_for);
}

}  // namespace duet::detail
