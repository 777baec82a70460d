// What a history model's check of one part runs: the one search core over an oracle the model
// compiled for that part, and the diagnosis of a violation (the states along the longest
// partial linearization, the operation that cannot be placed). Used by duet's own models
// (src/check/models.cpp) and by user models through duet/history_model.hpp.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "duet/detail/search.hpp"
#include "duet/history.hpp"

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
  /// violation found by the search: per operation of the part, whether it is completed and
  /// never changes the state (the oracle's read_only hint; all false without one). What the
  /// failing window may drop.
  std::vector<bool> read_only;
};

/// Runs the search for one part with an oracle built for it (indices local to the part), and
/// fills in the diagnosis: states along the order, the stuck operation and its state.
template <class Oracle>
PartOutcome search_part(const History& h, const std::vector<std::size_t>& part, const Oracle& oracle,
                        const SearchBudget& budget, bool want_states) {
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
  if (!decided) out.search = duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, budget);
  if (!decided && out.search.verdict == SearchVerdict::violation) {
    out.read_only.assign(part.size(), false);
    if constexpr (requires { oracle.read_only(std::size_t{0}); })
      for (std::size_t i = 0; i < part.size(); ++i) out.read_only[i] = timed[i].response != TimedOp::kPending && oracle.read_only(i);
  }
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
  for (std::size_t& i : out.search.order) i = part[i];
  for (std::size_t& i : out.search.witness) i = part[i];
  return out;
}

}  // namespace duet::history::detail
