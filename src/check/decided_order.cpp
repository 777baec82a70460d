// The check a decision's order passes before it may say "linearizable": the history's orders,
// as the search respects them (search.hpp's event list and before_in_process); and the
// results a decision's violation makes.
#include "check/decided_order.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace duet::history::detail {

bool order_fits_history(const std::vector<std::size_t>& order, const std::vector<TimedOp>& timed) {
  const std::size_t n = timed.size();
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  // Real time: scanning from the end, nothing later may have returned before this one began.
  std::uint64_t suffix_min = TimedOp::kPending;
  for (std::size_t k = order.size(); k-- > 0;) {
    if (order[k] >= n) return false;
    if (suffix_min < timed[order[k]].invoke) return false;
    suffix_min = std::min(suffix_min, timed[order[k]].response);
  }
  std::vector<std::uint32_t> position(n, kNone);
  for (std::uint32_t k = 0; k < order.size(); ++k) {
    if (position[order[k]] != kNone) return false;
    position[order[k]] = k;
  }
  // Each process's completed operations in invocation order; an operation that never returned
  // does not hold back its process's later ones.
  std::vector<std::uint32_t> by_invoke(n);
  std::iota(by_invoke.begin(), by_invoke.end(), 0u);
  std::stable_sort(by_invoke.begin(), by_invoke.end(),
                   [&](std::uint32_t x, std::uint32_t y) { return timed[x].invoke < timed[y].invoke; });
  std::unordered_map<std::uint32_t, std::uint32_t> last;  // process -> its last completed operation
  for (std::uint32_t i : by_invoke) {
    const bool pending = timed[i].response == TimedOp::kPending;
    if (!pending && position[i] == kNone) return false;
    auto it = last.find(timed[i].process);
    if (position[i] != kNone && it != last.end() && position[it->second] > position[i]) return false;
    if (!pending) last[timed[i].process] = i;
  }
  return true;
}

SearchResult decided_violation(std::size_t nodes, std::vector<std::uint32_t> witness) {
  witness.erase(std::remove(witness.begin(), witness.end(), kNoOp), witness.end());
  std::sort(witness.begin(), witness.end());
  witness.erase(std::unique(witness.begin(), witness.end()), witness.end());
  SearchResult result;
  result.verdict = SearchVerdict::violation;
  result.nodes = nodes;
  result.witness.assign(witness.begin(), witness.end());
  return result;
}

std::optional<SearchResult> stopped(std::size_t nodes, const Stop& stop) {
  if (!stop.witness) return std::nullopt;
  return decided_violation(nodes, *stop.witness);
}

}  // namespace duet::history::detail
