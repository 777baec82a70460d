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
#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

#include "model.hpp"

namespace duet::history::detail {

std::optional<SearchResult> decide_grow_only_set(const std::vector<SetOp>& ops, const std::vector<TimedOp>& timed,
                                                 const std::vector<std::uint32_t>& start) {
  using duet::detail::SearchVerdict;
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  const std::size_t n = ops.size();
  auto pending = [&](std::uint32_t i) { return timed[i].response == TimedOp::kPending; };

  // ---- what each element's add is; the reads that returned the contents; the rest ----
  std::unordered_map<std::uint32_t, std::uint32_t> add_of;  // element -> its add (not a failed one)
  std::vector<std::uint32_t> reads, others;                  // others: completed, never change or check anything
  for (std::uint32_t i = 0; i < n; ++i) {
    const SetOp& op = ops[i];
    if (op.kind == SetOp::remove || op.kind == SetOp::contains) return std::nullopt;
    if (op.kind == SetOp::add) {
      if (std::binary_search(start.begin(), start.end(), op.value)) return std::nullopt;  // adds an initial element
      if (op.mode == Mode::fail) {
        others.push_back(i);
        continue;
      }
      if (!add_of.emplace(op.value, i).second) return std::nullopt;  // added twice
    } else if (op.mode == Mode::ok) {
      reads.push_back(i);
    } else if (!pending(i)) {
      others.push_back(i);
    }
  }

  SearchResult result;
  result.nodes = n;
  // The witness: the given operations, and the adds of every element their reads returned.
  auto violation = [&](std::vector<std::uint32_t> core) {
    std::vector<std::size_t> witness;
    for (std::uint32_t i : core) {
      witness.push_back(i);
      if (ops[i].kind != SetOp::read) continue;
      for (std::uint32_t x : ops[i].elements) {
        auto it = add_of.find(x);
        if (it != add_of.end()) witness.push_back(it->second);
      }
    }
    std::sort(witness.begin(), witness.end());
    witness.erase(std::unique(witness.begin(), witness.end()), witness.end());
    result.verdict = SearchVerdict::violation;
    result.witness = std::move(witness);
    return result;
  };

  // ---- the reads: every one holds the initial elements and only elements added; a chain ----
  for (std::uint32_t r : reads) {
    const std::vector<std::uint32_t>& s = ops[r].elements;
    if (!std::includes(s.begin(), s.end(), start.begin(), start.end())) return violation({r});
    for (std::uint32_t x : s)
      if (!std::binary_search(start.begin(), start.end(), x) && add_of.find(x) == add_of.end()) return violation({r});
  }
  std::stable_sort(reads.begin(), reads.end(), [&](std::uint32_t a, std::uint32_t b) { return ops[a].elements.size() < ops[b].elements.size(); });
  for (std::size_t k = 1; k < reads.size(); ++k) {
    const std::vector<std::uint32_t>&a = ops[reads[k - 1]].elements, &b = ops[reads[k]].elements;
    if (!std::includes(b.begin(), b.end(), a.begin(), a.end())) return violation({reads[k - 1], reads[k]});
  }

  // ---- the blocks: adds of what a level adds, that level's reads, ..., the adds nobody read ----
  std::vector<std::vector<std::uint32_t>> blocks;
  const std::vector<std::uint32_t>* before = &start;
  for (std::size_t k = 0; k < reads.size();) {
    const std::vector<std::uint32_t>& level = ops[reads[k]].elements;
    std::vector<std::uint32_t> adds, added;
    std::set_difference(level.begin(), level.end(), before->begin(), before->end(), std::back_inserter(added));
    for (std::uint32_t x : added) adds.push_back(add_of.at(x));
    std::vector<std::uint32_t> same;
    for (; k < reads.size() && ops[reads[k]].elements == level; ++k) same.push_back(reads[k]);
    blocks.push_back(std::move(adds));
    blocks.push_back(std::move(same));
    before = &level;
  }
  {
    std::vector<std::uint32_t> unread;
    for (const auto& [x, i] : add_of)
      if (!std::binary_search(before->begin(), before->end(), x) && !pending(i)) unread.push_back(i);
    std::sort(unread.begin(), unread.end());
    blocks.push_back(std::move(unread));
  }

  // ---- real time: each block as early as it can be ----
  std::vector<std::uint64_t> point(n, 0);
  std::vector<std::uint32_t> block_of(n, kNone);
  std::uint64_t t = 0;
  std::uint32_t t_op = kNone, t_block = 0;  // the operation whose invocation set t, and its block
  for (std::uint32_t b = 0; b < blocks.size(); ++b) {
    for (std::uint32_t i : blocks[b])
      if (timed[i].response < t) {
        // i returned before t_op (of an earlier block) began, yet must follow it. Two adds are
        // ordered through a read of the level between them.
        std::vector<std::uint32_t> core{t_op, i};
        if (ops[t_op].kind == SetOp::add && ops[i].kind == SetOp::add && t_block + 1 < blocks.size() && !blocks[t_block + 1].empty())
          core.push_back(blocks[t_block + 1].front());
        return violation(core);
      }
    std::uint64_t next = t;
    std::uint32_t next_op = t_op, next_block = t_block;
    for (std::uint32_t i : blocks[b]) {
      point[i] = std::max(timed[i].invoke, t);
      block_of[i] = b;
      if (timed[i].invoke > next) next = timed[i].invoke, next_op = i, next_block = b;
    }
    t = next, t_op = next_op, t_block = next_block;
  }

  // ---- the order: by point, earlier blocks first at equal points; the rest at their invocation ----
  std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>> keyed;
  for (const std::vector<std::uint32_t>& block : blocks)
    for (std::uint32_t i : block) keyed.emplace_back(point[i], block_of[i], i);
  for (std::uint32_t i : others) keyed.emplace_back(timed[i].invoke, 0, i);
  std::sort(keyed.begin(), keyed.end());
  std::vector<std::size_t> order;
  for (const auto& k : keyed) order.push_back(std::get<2>(k));
  if (!order_fits_history(order, timed)) return std::nullopt;
  std::vector<std::uint32_t> state = start;
  for (std::size_t i : order) {
    const SetOp& op = ops[i];
    if (op.kind == SetOp::add && op.mode != Mode::fail) state.insert(std::lower_bound(state.begin(), state.end(), op.value), op.value);
    if (op.kind == SetOp::read && op.mode == Mode::ok && state != op.elements) return std::nullopt;
  }
  result.verdict = SearchVerdict::ok;
  result.order = std::move(order);
  return result;
}

}  // namespace duet::history::detail
