// The parts of a model's check of one part (duet/detail/history_search.hpp) that do not
// depend on the model's oracle, compiled once.
#include <algorithm>
#include <unordered_map>

#include "duet/history.hpp"

#include "duet/detail/history_search.hpp"  // after duet/history.hpp, whose types it uses

namespace duet::history::detail {

std::vector<TimedOp> part_times(const History& h, const std::vector<std::size_t>& part) {
  std::vector<TimedOp> timed(part.size());
  std::unordered_map<std::int64_t, std::uint32_t> processes;
  for (std::size_t i = 0; i < part.size(); ++i) {
    const Operation& op = h.ops[part[i]];
    auto [it, fresh] = processes.try_emplace(op.process, static_cast<std::uint32_t>(processes.size()));
    timed[i].process = it->second;
    timed[i].invoke = op.invoke;
    timed[i].response = op.outcome == Outcome::info ? TimedOp::kPending : op.response;
  }
  return timed;
}

std::optional<std::size_t> stuck_in_witness(const std::vector<std::size_t>& witness, const std::vector<TimedOp>& timed) {
  std::optional<std::size_t> last;
  for (std::size_t local : witness)
    if (timed[local].response != TimedOp::kPending && (!last || timed[local].response > timed[*last].response)) last = local;
  return last;
}

std::optional<std::size_t> stuck_after_order(const std::vector<std::size_t>& order, const std::vector<TimedOp>& timed) {
  std::vector<bool> placed(timed.size(), false);
  for (std::size_t local : order) placed[local] = true;
  std::optional<std::size_t> stuck;
  for (std::size_t i = 0; i < timed.size(); ++i)
    if (!placed[i] && timed[i].response != TimedOp::kPending && (!stuck || timed[i].response < timed[*stuck].response))
      stuck = i;
  return stuck;
}

SearchBudget short_search_budget(const SearchBudget& budget) {
  SearchBudget short_budget = budget;
  short_budget.max_nodes = std::min<std::uint64_t>(budget.max_nodes, 50'000);
  return short_budget;
}

void take_short_search(SearchResult searched, PartOutcome& out) {
  out.search.nodes += searched.nodes;
  out.partial_known = searched.verdict != SearchVerdict::unknown;
  if (searched.verdict == SearchVerdict::violation) out.search.order = std::move(searched.order);
  if (searched.verdict == SearchVerdict::ok) out.search = std::move(searched);
}

}  // namespace duet::history::detail
