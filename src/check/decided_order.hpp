// What the deciders (register_decision.cpp, queue_decision.cpp, set_decision.cpp) share: how a
// step stops a decision, how a violation becomes the decision's result, and the one
// certification an order they built passes before they say "linearizable".
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <variant>
#include <vector>

#include "check/model.hpp"

namespace duet::history::detail {

/// "No operation" in the deciders' 32-bit operation and segment indices.
constexpr std::uint32_t kNoOp = std::numeric_limits<std::uint32_t>::max();

/// Where a step of a decision stops it: at a violation, with the operations that show it (the
/// decider completes and explains them), or with nothing to say (`witness` empty: the history
/// is not of the decider's kind, or the construction did not go through, and the search
/// decides).
struct Stop {
  std::optional<std::vector<std::uint32_t>> witness;

  static Stop undecided() { return Stop{}; }
  static Stop violation(std::vector<std::uint32_t> witness) { return Stop{std::move(witness)}; }
};

/// A step's product, or where it stopped the decision.
template <class T>
using Step = std::variant<T, Stop>;

/// The decision's result for a violation shown by `witness` (operations of the part, kNoOp
/// entries standing for "before everything" left out): sorted, each operation once.
SearchResult decided_violation(std::size_t nodes, std::vector<std::uint32_t> witness);

/// The result a Stop makes: a violation (decided_violation) or nothing.
std::optional<SearchResult> stopped(std::size_t nodes, const Stop& stop);

/// The one certification of an order a decision built, before it says "linearizable": every
/// operation of `order` legal where it is placed (`legal_step(op)` applies `op` to the
/// decider's model state and says whether the operation's observed result is allowed there,
/// in order, stopping at the first that is not), and the history's orders respected
/// (order_fits_history). The ok result with that order, or nothing.
template <class LegalStep>
std::optional<SearchResult> certify_order(std::vector<std::size_t> order, const std::vector<TimedOp>& timed,
                                          LegalStep&& legal_step) {
  for (std::size_t op : order)
    if (!legal_step(op)) return std::nullopt;
  if (!order_fits_history(order, timed)) return std::nullopt;
  SearchResult result;
  result.verdict = SearchVerdict::ok;
  result.nodes = timed.size();
  result.order = std::move(order);
  return result;
}

}  // namespace duet::history::detail
