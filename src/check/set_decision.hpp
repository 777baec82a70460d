// The steps of the grow-only set's decision (set_decision.cpp), each over small structs and
// tested alone (tests/checker/set_decision_steps_test.cpp): each element's add and the reads,
// the reads as a chain, the blocks of a level's adds and reads, each block placed as early as
// real time allows, the order those places make.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "check/decided_order.hpp"
#include "check/model.hpp"

namespace duet::history::detail::set_decision {

/// The history the steps read: the compiled operations, their times, the sorted initial
/// elements.
struct SetHistory {
  const std::vector<SetOp>& ops;
  const std::vector<TimedOp>& timed;
  const std::vector<std::uint32_t>& start;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ops.size()); }
  bool pending(std::uint32_t i) const { return timed[i].response == TimedOp::kPending; }
  bool initial(std::uint32_t element) const;
};

/// Each element's add, the reads that returned the contents, the rest.
struct SetOperations {
  std::unordered_map<std::uint32_t, std::uint32_t> add_of;  // element -> its add (not a failed one)
  std::vector<std::uint32_t> reads;
  std::vector<std::uint32_t> others;  // completed, never change or check anything
};
/// Nothing when the history is not of the kind: a remove or a contains, an element added
/// twice, an initial element added.
std::optional<SetOperations> gather_operations(const SetHistory& history);

/// The reads from the smallest contents to the largest; stops at a read that misses an initial
/// element or holds one never added, or two reads neither of which includes the other.
Step<std::vector<std::uint32_t>> chain_reads(const SetHistory& history, const SetOperations& operations);

/// Block by block, the shape of every linearization: the adds of what a level adds, that
/// level's reads, ..., and last the completed adds nobody read.
std::vector<std::vector<std::uint32_t>> level_blocks(const SetHistory& history, const SetOperations& operations,
                                                     const std::vector<std::uint32_t>& chained_reads);

/// Each operation's place when every block goes as early as real time allows.
struct Placement {
  std::vector<std::uint64_t> point;     // per operation
  std::vector<std::uint32_t> block_of;  // per operation (kNoOp: in no block)
};
/// Stops at an operation that returned before an operation of an earlier block began (with a
/// read of the level between them when both are adds).
Step<Placement> place_blocks(const SetHistory& history, const std::vector<std::vector<std::uint32_t>>& blocks);

/// The order: by place, earlier blocks first at equal places; the others at their invocation.
std::vector<std::size_t> placed_order(const SetHistory& history, const std::vector<std::vector<std::uint32_t>>& blocks,
                                      const Placement& placement, const std::vector<std::uint32_t>& others);

/// The decision's result for a violation: the operations of `core`, and the adds of every
/// element their reads returned.
SearchResult explain_violation(const SetHistory& history, const SetOperations& operations,
                               const std::vector<std::uint32_t>& core);

}  // namespace duet::history::detail::set_decision
