// What a history model's check of one part runs: the one search core over an oracle the model
// compiled for that part, and the diagnosis of a violation (the states along the longest
// partial linearization, the operation that cannot be placed). Used by duet's own models
// (src/check/models.cpp) and by user models through duet/history_model.hpp.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "duet/detail/history_window.hpp"
#include "duet/detail/search.hpp"
#include "duet/history.hpp"

namespace duet::history {

/// What check_history hands a model's check of one part of a history.
struct PartCheck {
  const duet::detail::SearchBudget& budget;
  bool want_states;                 // fill PartOutcome::states (for reports and the timeline)
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
  SearchResult search;                 // order in History::ops indices
  std::vector<std::string> states;     // printed state after each operation of the order
  std::optional<std::size_t> stuck;    // violation: the operation that cannot be placed
  std::string stuck_state;             // ... and the state where it cannot
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

/// Runs the search for one part with an oracle built for it (indices local to the part), and
/// fills in the diagnosis: states along the order, the stuck operation and its state.
template <class Oracle>
PartOutcome search_part(const History& h, const std::vector<std::size_t>& part, const Oracle& oracle, const PartCheck& check) {
  const SearchBudget& budget = check.budget;
  const bool want_states = check.want_states;
  std::vector<TimedOp> timed(part.size());
  std::unordered_map<std::int64_t, std::uint32_t> processes;
  for (std::size_t i = 0; i < part.size(); ++i) {
    const Operation& op = h.ops[part[i]];
    auto [it, fresh] = processes.try_emplace(op.process, static_cast<std::uint32_t>(processes.size()));
    timed[i].process = it->second;
    timed[i].invoke = op.invoke;
    timed[i].response = op.outcome == Outcome::info ? TimedOp::kPending : op.response;
  }
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
  bool decided = false;
  if constexpr (requires { oracle.decide(timed); }) {
    if (std::optional<SearchResult> d = oracle.decide(timed)) {
      out.search = std::move(*d);
      decided = true;
      if (out.search.verdict == SearchVerdict::violation) {
        // The report's longest partial linearization, where a short search finds it (small
        // histories): shown only when that search, too, ran to the end.
        SearchBudget short_budget = budget;
        short_budget.max_nodes = std::min<std::uint64_t>(budget.max_nodes, 50'000);
        SearchResult searched = duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, short_budget);
        out.search.nodes += searched.nodes;
        out.partial_known = searched.verdict != SearchVerdict::unknown;
        if (searched.verdict == SearchVerdict::violation) out.search.order = std::move(searched.order);
        if (searched.verdict == SearchVerdict::ok) out.search = std::move(searched);  // a witness order beats the decision
      }
    }
  }
  const auto search_began = std::chrono::steady_clock::now();
  if (!decided) out.search = duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, budget);
  const auto search_took = std::chrono::steady_clock::now() - search_began;
  const bool violation = out.search.verdict == SearchVerdict::violation;
  if (want_states || violation) {
    typename Oracle::State s = oracle.initial();
    for (std::size_t local : out.search.order) {
      oracle.apply(s, local);
      if (want_states) out.states.push_back(oracle.show(s));
    }
    if (violation && !out.partial_known) {
      // Decided without a search: no partial linearization to show, but a witness. The one
      // that blocks is the witness's last to return (the others, placed, leave it no room).
      std::optional<std::size_t> last;
      for (std::size_t local : out.search.witness)
        if (timed[local].response != TimedOp::kPending && (!last || timed[local].response > timed[*last].response)) last = local;
      if (last) out.stuck = part[*last];
    } else if (violation) {
      // The operation that blocks: of those not placed, the first to have returned (every
      // later operation would have to follow it, and it fits nowhere).
      std::vector<bool> placed(part.size(), false);
      for (std::size_t local : out.search.order) placed[local] = true;
      std::optional<std::size_t> stuck;
      for (std::size_t i = 0; i < part.size(); ++i)
        if (!placed[i] && timed[i].response != TimedOp::kPending && (!stuck || timed[i].response < timed[*stuck].response))
          stuck = i;
      if (stuck) out.stuck = part[*stuck];
      out.stuck_state = oracle.show(s);
    }
  }
  // The first part of a history to fail stops the others; it alone seeks a window (one is
  // reported).
  const bool first_to_fail = violation && (check.violation_found == nullptr || !check.violation_found->exchange(true));
  if (first_to_fail && out.partial_known && out.search.witness.empty() && check.want_window) {
    // Only the search found it: shrink it to a failing window, spending at most about twice
    // what the search spent in steps (4M at least: small windows are cheap), and no longer
    // than the search took (50 ms at least): the window never costs much more than the check.
    std::vector<bool> read_only(part.size(), false);
    if constexpr (requires { oracle.read_only(std::size_t{0}); })
      for (std::size_t i = 0; i < part.size(); ++i) read_only[i] = timed[i].response != TimedOp::kPending && oracle.read_only(i);
    std::optional<std::size_t> stuck_local;
    for (std::size_t i = 0; out.stuck && i < part.size(); ++i)
      if (part[i] == *out.stuck) stuck_local = i;
    const std::uint64_t allowance = std::max<std::uint64_t>(4'000'000, 2 * out.search.nodes);
    SearchBudget window_budget = budget;
    window_budget.deadline = std::min(budget.deadline, std::chrono::steady_clock::now() +
                                                           std::max<std::chrono::steady_clock::duration>(search_took, std::chrono::milliseconds(50)));
    auto w = failing_window(timed, oracle, window_budget, stuck_local, read_only, allowance);
    out.window_nodes = w.nodes;
    out.window_out_of_budget = w.out_of_budget;
    if (w.ops.size() < part.size() || !w.open.empty() || !w.start.empty()) {
      for (std::size_t i : w.ops) out.window.push_back(part[i]);
      for (std::size_t i : w.open) out.window_open.push_back(part[i]);
      for (const auto& s : w.start) out.window_start.push_back(oracle.show(s));
      // Shortest first, then in text order: numbers come out in numeric order.
      std::sort(out.window_start.begin(), out.window_start.end(), [](const std::string& a, const std::string& b) {
        return a.size() != b.size() ? a.size() < b.size() : a < b;
      });
    }
  }
  for (std::size_t& i : out.search.order) i = part[i];
  for (std::size_t& i : out.search.witness) i = part[i];
  return out;
}

}  // namespace duet::history::detail
