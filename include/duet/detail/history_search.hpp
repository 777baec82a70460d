// What a history model's check of one part runs: the one search core over an oracle the model
// compiled for that part, and the diagnosis of a violation (the states along the longest
// partial linearization, the operation that cannot be placed). Used by duet's own models
// (src/check/models*.cpp) and by user models through duet/history_model.hpp; included after
// duet/history.hpp, whose types it uses.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "duet/detail/declarations.hpp"
#include "duet/detail/history_window.hpp"
#include "duet/detail/search.hpp"

namespace duet::history {

/// What check_history hands a model's check of one part of a history.
struct PartCheck {
  const duet::detail::SearchBudget& budget;
  bool want_states;                  // fill PartOutcome::states (for reports and the timeline)
  const std::optional<Value>& init;  // --init / CheckOptions::init, or the format's default; none: the model's own
  /// a violation the search finds: shrink it to a failing window (PartOutcome::window)
  bool want_window = false;
  /// set as soon as this part's violation is known, before its window is sought: the other
  /// parts stop then, and only the part that set it first seeks a window
  std::atomic<bool>* violation_found = nullptr;
};

}  // namespace duet::history

namespace duet::history::detail {

using duet::detail::SearchBudget;
using duet::detail::SearchResult;
using duet::detail::SearchVerdict;
using duet::detail::TimedOp;

/// "file:line: what (the operation)" as std::invalid_argument, for an operation that does not
/// fit its model.
[[noreturn]] void reject(const History& h, const Operation& op, const std::string& what);

/// One partition's outcome, in indices of History::ops.
struct PartOutcome {
  SearchResult search;               // order in History::ops indices
  std::vector<std::string> states;   // printed state after each operation of the order
  std::optional<std::size_t> stuck;  // violation: the operation that cannot be placed
  std::string stuck_state;           // ... and the state where it cannot
  /// violation: search.order is the longest partial linearization (false when a decision
  /// found the violation and no search ran to its end: search.witness shows why instead)
  bool partial_known = true;
  /// violation found by the search, with PartCheck::want_window: a failing window (indices of
  /// History::ops), the operations of it taken as open, the states it starts in (printed;
  /// empty: the initial state) and the steps spent finding it.
  std::vector<std::size_t> window, window_open;
  std::vector<std::string> window_start;
  std::uint64_t window_nodes = 0;
  bool window_out_of_budget = false;  // a window was sought, and none found within its budget
};

/// The part's operations as the search sees them (indices local to the part): times, and
/// processes numbered densely in order of first appearance; an operation that ended in `info`
/// never returned.
std::vector<TimedOp> part_times(const History& h, const std::vector<std::size_t>& part);

/// The operation that blocks a violation a decision found (no search ran to its end): of the
/// witness's completed operations, the last to return (the others, placed, leave it no room).
std::optional<std::size_t> stuck_in_witness(const std::vector<std::size_t>& witness, const std::vector<TimedOp>& timed);

/// The operation that blocks a violation the search found: of those its longest partial order
/// did not place, the first to have returned (every later operation would have to follow it,
/// and it fits nowhere).
std::optional<std::size_t> stuck_after_order(const std::vector<std::size_t>& order, const std::vector<TimedOp>& timed);

/// A decision's verdict on the part (Oracle::decide), if the oracle has one and the part is
/// of its kind.
template <class Oracle>
bool decide_part(const std::vector<TimedOp>& timed, const Oracle& oracle, PartOutcome& out) {
  if constexpr (requires { oracle.decide(timed); }) {
    std::optional<SearchResult> decided = oracle.decide(timed);
    if (!decided) return false;
    out.search = std::move(*decided);
    return true;
  } else {
    return false;
  }
}

/// The budget of the short search after a decision's violation: at most 50,000 steps.
SearchBudget short_search_budget(const SearchBudget& budget);

/// What a short search after a decision's violation adds to it: the report's longest partial
/// linearization, shown only when that search, too, ran to the end (PartOutcome::partial_known);
/// or, should it find one, a witness order, which beats the decision.
void take_short_search(SearchResult searched, PartOutcome& out);

/// The diagnosis along the order found: the state after each operation (with `want_states`),
/// and for a violation the operation that blocks and the state where it cannot be placed.
template <class Oracle>
void diagnose_part(const std::vector<TimedOp>& timed, const std::vector<std::size_t>& part, const Oracle& oracle,
                   bool want_states, PartOutcome& out) {
  const bool violation = out.search.verdict == SearchVerdict::violation;
  if (!want_states && !violation) return;
  typename Oracle::State s = oracle.initial();
  for (std::size_t local : out.search.order) {
    oracle.apply(s, local);
    if (want_states) out.states.push_back(oracle.show(s));
  }
  if (!violation) return;
  if (!out.partial_known) {
    // Decided without a search: no partial linearization to show, but a witness.
    if (std::optional<std::size_t> last = stuck_in_witness(out.search.witness, timed)) out.stuck = part[*last];
    return;
  }
  if (std::optional<std::size_t> stuck = stuck_after_order(out.search.order, timed)) out.stuck = part[*stuck];
  out.stuck_state = oracle.show(s);
}

/// A violation only the search found, shrunk to a failing window (PartOutcome::window...),
/// spending at most about twice what the search spent in steps (4M at least: small windows are
/// cheap), and no longer than the search took (50 ms at least): the window never costs much
/// more than the check.
template <class Oracle>
void seek_window(const std::vector<TimedOp>& timed, const std::vector<std::size_t>& part, const Oracle& oracle,
                 const SearchBudget& budget, std::chrono::steady_clock::duration search_took, PartOutcome& out) {
  std::vector<bool> read_only(part.size(), false);
  if constexpr (requires { oracle.read_only(std::size_t{0}); })
    for (std::size_t i = 0; i < part.size(); ++i)
      read_only[i] = timed[i].response != TimedOp::kPending && oracle.read_only(i);
  std::optional<std::size_t> stuck_local;
  for (std::size_t i = 0; out.stuck && i < part.size(); ++i)
    if (part[i] == *out.stuck) stuck_local = i;
  const std::uint64_t allowance = std::max<std::uint64_t>(4'000'000, 2 * out.search.nodes);
  SearchBudget window_budget = budget;
  window_budget.deadline =
      std::min(budget.deadline, std::chrono::steady_clock::now() + std::max<std::chrono::steady_clock::duration>(
                                                                       search_took, std::chrono::milliseconds(50)));
  auto w = failing_window(timed, oracle, window_budget, stuck_local, read_only, allowance);
  out.window_nodes = w.nodes;
  out.window_out_of_budget = w.out_of_budget;
  if (w.ops.size() == part.size() && w.open.empty() && w.start.empty()) return;  // nothing smaller than the part
  for (std::size_t i : w.ops) out.window.push_back(part[i]);
  for (std::size_t i : w.open) out.window_open.push_back(part[i]);
  for (const auto& s : w.start) out.window_start.push_back(oracle.show(s));
  // Shortest first, then in text order: numbers come out in numeric order.
  std::sort(out.window_start.begin(), out.window_start.end(),
            [](const std::string& a, const std::string& b) { return a.size() != b.size() ? a.size() < b.size() : a < b; });
}

/// Runs the search for one part with an oracle built for it (indices local to the part), and
/// fills in the diagnosis: states along the order, the stuck operation and its state.
template <class Oracle>
PartOutcome search_part(const History& h, const std::vector<std::size_t>& part, const Oracle& oracle,
                        const PartCheck& check) {
  const SearchBudget& budget = check.budget;
  const std::vector<TimedOp> timed = part_times(h, part);
  PartOutcome out;
  // The deadline may have passed while the history was read or this part prepared: the
  // search's own setup is not worth starting then (on a huge part it takes a while).
  if (std::chrono::steady_clock::now() >= budget.deadline) {
    out.search.verdict = SearchVerdict::unknown;
    out.search.stop = duet::detail::SearchStop::time;
    return out;
  }
  // An oracle may decide its part without a search (a polynomial decision for histories of a
  // special kind); it says nothing when the part is not of that kind.
  const bool decided = decide_part(timed, oracle, out);
  if (decided && out.search.verdict == SearchVerdict::violation)  // (small histories: a short search finds the order)
    take_short_search(
        duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, short_search_budget(budget)), out);
  const auto search_began = std::chrono::steady_clock::now();
  if (!decided) out.search = duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, budget);
  const auto search_took = std::chrono::steady_clock::now() - search_began;
  diagnose_part(timed, part, oracle, check.want_states, out);
  // The first part of a history to fail stops the others; it alone seeks a window (one is
  // reported), where only the search found the violation.
  const bool violation = out.search.verdict == SearchVerdict::violation;
  const bool first_to_fail = violation && (check.violation_found == nullptr || !check.violation_found->exchange(true));
  if (first_to_fail && out.partial_known && out.search.witness.empty() && check.want_window)
    seek_window(timed, part, oracle, budget, search_took, out);
  for (std::size_t& i : out.search.order) i = part[i];
  for (std::size_t& i : out.search.witness) i = part[i];
  return out;
}

}  // namespace duet::history::detail
