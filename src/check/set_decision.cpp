// A set history of adds and reads whose elements are each added at most once (Jepsen's set
// workload) decides without a search.
//
// The set only grows, so the reads that returned its contents form a chain under inclusion (two
// reads neither of which includes the other cannot both be right), and every linearization has
// the same shape, block by block: the reads that returned equal sets together, just before
// them the adds of the elements their level adds, and after every read the adds nobody read.
// Placing each block's operations as early as real time allows (at their invocation, or at the
// latest invocation of an earlier block) fits exactly when no operation returned before an
// operation of an earlier block began; such a pair, with a read between them when both are adds,
// is the violation. The order is replayed on the set and checked against the history before
// "linearizable" is said.
#include "check/set_decision.hpp"

#include <algorithm>
#include <iterator>
#include <tuple>

namespace duet::history::detail {

namespace set_decision {

bool SetHistory::initial(std::uint32_t element) const { return std::binary_search(start.begin(), start.end(), element); }

std::optional<SetOperations> gather_operations(const SetHistory& history) {
  SetOperations out;
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const SetOp& op = history.ops[i];
    if (op.kind == SetOp::remove || op.kind == SetOp::contains) return std::nullopt;
    if (op.kind == SetOp::add) {
      if (history.initial(op.value)) return std::nullopt;  // adds an initial element
      if (op.mode == Mode::fail) {
        out.others.push_back(i);
        continue;
      }
      if (!out.add_of.emplace(op.value, i).second) return std::nullopt;  // added twice
    } else if (op.mode == Mode::ok) {
      out.reads.push_back(i);
    } else if (!history.pending(i)) {
      out.others.push_back(i);
    }
  }
  return out;
}

Step<std::vector<std::uint32_t>> chain_reads(const SetHistory& history, const SetOperations& operations) {
  for (std::uint32_t r : operations.reads) {
    const std::vector<std::uint32_t>& s = history.ops[r].elements;
    if (!std::includes(s.begin(), s.end(), history.start.begin(), history.start.end())) return Stop::violation({r});
    for (std::uint32_t x : s)
      if (!history.initial(x) && operations.add_of.find(x) == operations.add_of.end()) return Stop::violation({r});
  }
  std::vector<std::uint32_t> reads = operations.reads;
  std::stable_sort(reads.begin(), reads.end(), [&](std::uint32_t a, std::uint32_t b) {
    return history.ops[a].elements.size() < history.ops[b].elements.size();
  });
  for (std::size_t k = 1; k < reads.size(); ++k) {
    const std::vector<std::uint32_t>&a = history.ops[reads[k - 1]].elements, &b = history.ops[reads[k]].elements;
    if (!std::includes(b.begin(), b.end(), a.begin(), a.end())) return Stop::violation({reads[k - 1], reads[k]});
  }
  return reads;
}

std::vector<std::vector<std::uint32_t>> level_blocks(const SetHistory& history, const SetOperations& operations,
                                                     const std::vector<std::uint32_t>& chained_reads) {
  std::vector<std::vector<std::uint32_t>> blocks;
  const std::vector<std::uint32_t>* before = &history.start;
  for (std::size_t k = 0; k < chained_reads.size();) {
    const std::vector<std::uint32_t>& level = history.ops[chained_reads[k]].elements;
    std::vector<std::uint32_t> adds, added;
    std::set_difference(level.begin(), level.end(), before->begin(), before->end(), std::back_inserter(added));
    for (std::uint32_t x : added) adds.push_back(operations.add_of.at(x));
    std::vector<std::uint32_t> same;
    for (; k < chained_reads.size() && history.ops[chained_reads[k]].elements == level; ++k)
      same.push_back(chained_reads[k]);
    blocks.push_back(std::move(adds));
    blocks.push_back(std::move(same));
    before = &level;
  }
  std::vector<std::uint32_t> unread;
  for (const auto& [x, i] : operations.add_of)
    if (!std::binary_search(before->begin(), before->end(), x) && !history.pending(i)) unread.push_back(i);
  std::sort(unread.begin(), unread.end());
  blocks.push_back(std::move(unread));
  return blocks;
}

Step<Placement> place_blocks(const SetHistory& history, const std::vector<std::vector<std::uint32_t>>& blocks) {
  Placement placement{std::vector<std::uint64_t>(history.size(), 0), std::vector<std::uint32_t>(history.size(), kNoOp)};
  std::uint64_t t = 0;
  std::uint32_t t_op = kNoOp, t_block = 0;  // the operation whose invocation set t, and its block
  for (std::uint32_t b = 0; b < blocks.size(); ++b) {
    for (std::uint32_t i : blocks[b])
      if (history.timed[i].response < t) {
        // i returned before t_op (of an earlier block) began, yet must follow it. Two adds are
        // ordered through a read of the level between them.
        std::vector<std::uint32_t> core{t_op, i};
        if (history.ops[t_op].kind == SetOp::add && history.ops[i].kind == SetOp::add && t_block + 1 < blocks.size() &&
            !blocks[t_block + 1].empty())
          core.push_back(blocks[t_block + 1].front());
        return Stop::violation(std::move(core));
      }
    std::uint64_t next = t;
    std::uint32_t next_op = t_op, next_block = t_block;
    for (std::uint32_t i : blocks[b]) {
      placement.point[i] = std::max(history.timed[i].invoke, t);
      placement.block_of[i] = b;
      if (history.timed[i].invoke > next) next = history.timed[i].invoke, next_op = i, next_block = b;
    }
    t = next, t_op = next_op, t_block = next_block;
  }
  return placement;
}

std::vector<std::size_t> placed_order(const SetHistory& history, const std::vector<std::vector<std::uint32_t>>& blocks,
                                      const Placement& placement, const std::vector<std::uint32_t>& others) {
  std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> keyed;
  for (const std::vector<std::uint32_t>& block : blocks)
    for (std::uint32_t i : block) keyed.emplace_back(placement.point[i], placement.block_of[i], i);
  for (std::uint32_t i : others) keyed.emplace_back(history.timed[i].invoke, 0, i);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> order;
  order.reserve(keyed.size());
  for (const auto& k : keyed) order.push_back(std::get<2>(k));
  return order;
}

SearchResult explain_violation(const SetHistory& history, const SetOperations& operations,
                               const std::vector<std::uint32_t>& core) {
  std::vector<std::uint32_t> witness;
  for (std::uint32_t i : core) {
    witness.push_back(i);
    if (history.ops[i].kind != SetOp::read) continue;
    for (std::uint32_t x : history.ops[i].elements) {
      auto it = operations.add_of.find(x);
      if (it != operations.add_of.end()) witness.push_back(it->second);
    }
  }
  return decided_violation(history.size(), std::move(witness));
}

}  // namespace set_decision

std::optional<SearchResult> decide_grow_only_set(const std::vector<SetOp>& ops, const std::vector<TimedOp>& timed,
                                                 const std::vector<std::uint32_t>& start) {
  using namespace set_decision;
  const SetHistory history{ops, timed, start};
  const std::optional<SetOperations> operations = gather_operations(history);
  if (!operations) return std::nullopt;
  const Step<std::vector<std::uint32_t>> reads = chain_reads(history, *operations);
  if (auto* stop = std::get_if<Stop>(&reads)) return explain_violation(history, *operations, *stop->witness);
  const std::vector<std::vector<std::uint32_t>> blocks =
      level_blocks(history, *operations, std::get<std::vector<std::uint32_t>>(reads));
  const Step<Placement> placement = place_blocks(history, blocks);
  if (auto* stop = std::get_if<Stop>(&placement)) return explain_violation(history, *operations, *stop->witness);
  std::vector<std::uint32_t> state = start;
  return certify_order(placed_order(history, blocks, std::get<Placement>(placement), operations->others), timed,
                       [&](std::size_t i) {
                         const SetOp& op = ops[i];
                         if (op.kind == SetOp::add && op.mode != Mode::fail)
                           state.insert(std::lower_bound(state.begin(), state.end(), op.value), op.value);
                         return !(op.kind == SetOp::read && op.mode == Mode::ok && state != op.elements);
                       });
}

}  // namespace duet::history::detail
