// A register history whose values are each written at most once decides without a search.
//
// Such a history says which write every read read from: the value names its one writer. In any
// linearization the register then holds each value for one contiguous run (a *segment*: the
// value's writer, then the operations that observe it), and a compare-and-set that succeeds
// from v to w ends v's segment and starts w's, so the two segments are adjacent: segments
// chained by successful cas form *blocks* that stay contiguous. (Gibbons & Korach's zones, with
// cas chains.) Real time orders two blocks B, C when an operation of one returned before an
// operation of the other was invoked: B before C exactly when lo(B) < hi(C), lo being a block's
// earliest response and hi its latest invocation. If no two blocks must each come first, the
// blocks sorted by lo + hi are in an order real time allows (along an edge lo + hi grows), so:
//
//   linearizable  <=>  no read returned before its writer was invoked, no chain runs against
//                      real time, and no two blocks must each precede the other
//
// for the history without its failed compare-and-sets and without pending operations nobody
// observed (removing read-only operations, or a pending write whose value nobody read, keeps a
// linearizable history linearizable, so a violation found there is one of the whole history).
// Those operations are then put back into the order built: each failed cas at a place real time
// allows where the register does not hold its expected value. The whole order is checked step
// by step before "linearizable" is claimed; where any of this does not go through, the function
// returns nothing and the search decides. O(n log n) on n operations.
#include "check/register_decision.hpp"

#include <algorithm>
#include <numeric>

namespace duet::history::detail {

namespace register_decision {

std::optional<Writers> unique_writers(const RegisterHistory& history) {
  Writers writers;
  writers.reserve(history.size());
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const RegisterOp& op = history.ops[i];
    if (op.kind == RegisterOp::cas && op.mode == Mode::unknown_result) return std::nullopt;  // took effect or not: a search
    if (!history.writes(i)) continue;
    const std::uint32_t value = history.written(i);
    if (value == history.start || !writers.emplace(value, i).second) return std::nullopt;  // written twice
  }
  return writers;
}

KeptWriters kept_writers(const RegisterHistory& history, const Writers& writers) {
  const std::uint32_t n = history.size();
  KeptWriters out{std::vector<char>(n, 0), std::vector<std::uint32_t>(n, kNoOp)};
  std::vector<std::uint32_t> work;
  auto require = [&](std::uint32_t value, std::uint32_t by) {
    auto it = writers.find(value);
    if (it != writers.end() && !out.kept[it->second]) {
      out.kept[it->second] = 1;
      out.kept_for[it->second] = by;
      work.push_back(it->second);
    }
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    if (history.reads(i)) require(history.ops[i].a, i);
    if (history.writes(i) && !history.pending(i)) {
      out.kept[i] = 1;
      work.push_back(i);
    }
  }
  // A pending cas that is kept took effect, so it observes its expected value in turn.
  while (!work.empty()) {
    const std::uint32_t i = work.back();
    work.pop_back();
    if (history.ops[i].kind == RegisterOp::cas) require(history.ops[i].a, i);
  }
  return out;
}

namespace {

Segment make_segment(std::uint32_t value, std::uint32_t writer) {
  Segment segment;
  segment.value = value;
  segment.writer = writer;
  return segment;
}

void add_to(const RegisterHistory& history, Segment& segment, std::uint32_t i) {
  if (history.response(i) < segment.lo) segment.lo = history.response(i), segment.lo_op = i;
  if (history.invoke(i) > segment.hi) segment.hi = history.invoke(i), segment.hi_op = i;
}

// One value's segment per kept writer, after the initial value's (written before everything).
Segments writer_segments(const RegisterHistory& history, const KeptWriters& kept) {
  Segments segments;
  segments.list.reserve(history.size() + 1);
  segments.list.push_back(make_segment(history.start, kNoOp));
  segments.of_value.emplace(history.start, 0);
  for (std::uint32_t i = 0; i < history.size(); ++i)
    if (kept.kept[i]) {
      segments.of_value.emplace(history.written(i), static_cast<std::uint32_t>(segments.list.size()));
      segments.list.push_back(make_segment(history.written(i), i));
    }
  segments.list[0].lo = -1;
  for (Segment& segment : segments.list)
    if (segment.writer != kNoOp) add_to(history, segment, segment.writer);
  return segments;
}

}  // namespace

Step<Segments> build_segments(const RegisterHistory& history, const KeptWriters& kept) {
  Segments segments = writer_segments(history, kept);
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const RegisterOp& op = history.ops[i];
    const bool observes = history.reads(i) || (kept.kept[i] && op.kind == RegisterOp::cas);
    if (!observes) continue;
    auto it = segments.of_value.find(op.a);
    if (it == segments.of_value.end()) return Stop::violation({i});  // a value nobody wrote
    Segment& segment = segments.list[it->second];
    if (op.kind == RegisterOp::read) {
      segment.readers.push_back(i);
      add_to(history, segment, i);
      if (segment.writer != kNoOp && history.response(i) < history.invoke(segment.writer))
        return Stop::violation({segment.writer, i});  // read before its write began
    } else {
      const std::uint32_t to = segments.of_value.at(op.b);
      if (segment.next != kNoOp)  // two cas from one value
        return Stop::violation({segments.list[segment.next].writer, i, segment.writer == kNoOp ? i : segment.writer});
      segment.next = to;
      segments.list[to].prev = it->second;
    }
  }
  return segments;
}

namespace {

// The chain from segment `first` as a block, or the operations that show it runs against real
// time: one of its segments returned before an earlier segment of the chain began, yet the
// chain's cas operations put that one first.
Step<Block> chain_from(const std::vector<Segment>& segments, std::uint32_t first, std::size_t& chained) {
  Block block;
  Time prefix_hi = -1;
  std::uint32_t prefix_hi_segment = 0;
  for (std::uint32_t t = first; t != kNoOp; t = segments[t].next) {
    const Segment& segment = segments[t];
    if (segment.lo < prefix_hi) {
      std::vector<std::uint32_t> witness{segment.lo_op, segments[block.segments[prefix_hi_segment]].hi_op};
      for (std::size_t k = prefix_hi_segment; k < block.segments.size(); ++k)
        if (segments[block.segments[k]].writer != kNoOp) witness.push_back(segments[block.segments[k]].writer);
      if (segment.writer != kNoOp) witness.push_back(segment.writer);
      return Stop::violation(std::move(witness));
    }
    const auto position = static_cast<std::uint32_t>(block.segments.size());
    if (segment.hi > prefix_hi) prefix_hi = segment.hi, prefix_hi_segment = position;
    if (segment.lo < block.lo) block.lo = segment.lo, block.lo_segment = position;
    if (segment.hi > block.hi) block.hi = segment.hi, block.hi_segment = position;
    block.segments.push_back(t);
    if (++chained > segments.size()) return Stop::undecided();  // a cycle of cas (cannot happen with unique values)
  }
  return block;
}

// The operations that make `block` span from its segment at position p to that at q.
void block_witness(const std::vector<Segment>& segments, const Block& block, std::uint32_t p, std::uint32_t q,
                   std::vector<std::uint32_t>& witness) {
  for (std::uint32_t k = std::min(p, q); k <= std::max(p, q); ++k)
    if (segments[block.segments[k]].writer != kNoOp) witness.push_back(segments[block.segments[k]].writer);
}

}  // namespace

Step<std::vector<Block>> chain_blocks(const std::vector<Segment>& segments) {
  std::vector<Block> blocks;
  std::size_t chained = 0;
  for (std::uint32_t s = 0; s < segments.size(); ++s) {
    if (segments[s].prev != kNoOp) continue;
    Step<Block> block = chain_from(segments, s, chained);
    if (auto* stop = std::get_if<Stop>(&block)) return std::move(*stop);
    blocks.push_back(std::get<Block>(std::move(block)));
  }
  if (chained != segments.size()) return Stop::undecided();
  return blocks;
}

Step<std::vector<std::uint32_t>> order_blocks(const std::vector<Block>& blocks, const std::vector<Segment>& segments) {
  std::vector<std::uint32_t> order(blocks.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Time kx = blocks[x].lo + blocks[x].hi, ky = blocks[y].lo + blocks[y].hi;
    return kx != ky ? kx < ky : x < y;
  });
  Time prefix_hi = -1;
  std::uint32_t prefix_block = 0;
  for (std::uint32_t k = 0; k < order.size(); ++k) {
    const Block& c = blocks[order[k]];
    if (c.lo < prefix_hi) {
      const Block& b = blocks[prefix_block];  // c before b (c.lo < b.hi) and b before c (b.lo < c.hi)
      std::vector<std::uint32_t> witness{segments[c.segments[c.lo_segment]].lo_op, segments[b.segments[b.hi_segment]].hi_op,
                                         segments[b.segments[b.lo_segment]].lo_op, segments[c.segments[c.hi_segment]].hi_op};
      block_witness(segments, c, c.lo_segment, c.hi_segment, witness);
      block_witness(segments, b, b.lo_segment, b.hi_segment, witness);
      return Stop::violation(std::move(witness));
    }
    if (c.hi > prefix_hi) prefix_hi = c.hi, prefix_block = order[k];
  }
  return order;
}

ValueOrder block_order(const RegisterHistory& history, const std::vector<Block>& blocks,
                       const std::vector<std::uint32_t>& block_order, const std::vector<Segment>& segments) {
  ValueOrder out;
  out.ops.reserve(history.size());
  std::vector<std::uint32_t> readers;
  for (std::uint32_t b : block_order)
    for (std::uint32_t s : blocks[b].segments) {
      const Segment& segment = segments[s];
      if (segment.writer != kNoOp) {
        out.ops.push_back(segment.writer);
        out.value_after.push_back(segment.value);
      }
      readers = segment.readers;
      std::sort(readers.begin(), readers.end(),
                [&](std::uint32_t x, std::uint32_t y) { return history.response(x) < history.response(y); });
      for (std::uint32_t r : readers) {
        out.ops.push_back(r);
        out.value_after.push_back(segment.value);
      }
    }
  return out;
}

std::pair<std::size_t, std::size_t> Gaps::allowed(const RegisterHistory& history, std::uint32_t i) const {
  // Nothing after returned before i began, nothing before began after i returned.
  const Time invoke = history.invoke(i), response = history.response(i);
  const auto first =
      std::partition_point(suffix_min_response.begin(), suffix_min_response.end(), [&](Time t) { return t < invoke; });
  const auto end =
      std::partition_point(prefix_max_invoke.begin(), prefix_max_invoke.end(), [&](Time t) { return t <= response; });
  return {static_cast<std::size_t>(first - suffix_min_response.begin()),
          static_cast<std::size_t>(end - prefix_max_invoke.begin())};
}

Gaps gaps_of(const RegisterHistory& history, const ValueOrder& order) {
  const std::size_t m = order.ops.size();
  Gaps gaps;
  gaps.start = history.start;
  gaps.value_after = &order.value_after;
  gaps.prefix_max_invoke.assign(m + 1, -1);
  gaps.suffix_min_response.assign(m + 1, kNever);
  for (std::size_t k = 0; k < m; ++k)
    gaps.prefix_max_invoke[k + 1] = std::max(gaps.prefix_max_invoke[k], history.invoke(order.ops[k]));
  for (std::size_t k = m; k-- > 0;)
    gaps.suffix_min_response[k] = std::min(gaps.suffix_min_response[k + 1], history.response(order.ops[k]));
  gaps.next_change.assign(m + 2, m + 1);
  for (std::size_t g = m; g-- > 0;)
    gaps.next_change[g] = gaps.value_at(g + 1) != gaps.value_at(g) ? g + 1 : gaps.next_change[g + 1];
  return gaps;
}

std::vector<std::uint32_t> left_out(const RegisterHistory& history, const KeptWriters& kept) {
  std::vector<std::uint32_t> out;
  for (std::uint32_t i = 0; i < history.size(); ++i)
    if (!history.pending(i) && !kept.kept[i] && !history.reads(i)) out.push_back(i);
  std::sort(out.begin(), out.end(), [&](std::uint32_t x, std::uint32_t y) { return history.invoke(x) < history.invoke(y); });
  return out;
}

namespace {

// The latest gap taken by an operation that returned before time t, over the left-out
// operations' responses (a Fenwick tree of maxima).
class LatestGapBefore {
 public:
  explicit LatestGapBefore(std::vector<Time> responses)
      : responses_(std::move(responses)), latest_(responses_.size() + 1, 0) {
    std::sort(responses_.begin(), responses_.end());
  }
  std::size_t before(Time t) const {
    std::size_t gap = 0;
    for (std::size_t k = rank_below(t); k > 0; k -= k & (~k + 1)) gap = std::max(gap, latest_[k]);
    return gap;
  }
  void returned_at(Time response, std::size_t gap) {
    for (std::size_t k = rank_below(response) + 1; k < latest_.size(); k += k & (~k + 1))
      latest_[k] = std::max(latest_[k], gap);
  }

 private:
  std::size_t rank_below(Time t) const {  // how many responses are < t
    return static_cast<std::size_t>(std::lower_bound(responses_.begin(), responses_.end(), t) - responses_.begin());
  }
  std::vector<Time> responses_;
  std::vector<std::size_t> latest_;  // 1-based
};

}  // namespace

std::optional<std::vector<std::pair<std::size_t, std::uint32_t>>> place_left_out(
    const RegisterHistory& history, const Gaps& gaps, const std::vector<std::uint32_t>& left_out) {
  // Among themselves they keep real time too: one that returned before another began goes to a
  // gap no later than the other's. Taken in order of invocation, each goes to the first gap at
  // or after those of the ones that returned before it began.
  std::vector<Time> responses;
  responses.reserve(left_out.size());
  for (std::uint32_t i : left_out) responses.push_back(history.response(i));
  LatestGapBefore latest(std::move(responses));
  std::vector<std::pair<std::size_t, std::uint32_t>> placed;
  for (std::uint32_t i : left_out) {
    const auto [first, end] = gaps.allowed(history, i);
    std::size_t gap = std::max(first, latest.before(history.invoke(i)));
    const RegisterOp& op = history.ops[i];
    if (gap < end && op.kind == RegisterOp::cas && gaps.value_at(gap) == op.a) gap = gaps.next_change[gap];
    if (gap >= end) return std::nullopt;  // no place found: leave it to the search
    placed.emplace_back(gap, i);
    latest.returned_at(history.response(i), gap);
  }
  return placed;
}

std::vector<std::size_t> merge_placed(const RegisterHistory& history, const std::vector<std::uint32_t>& order,
                                      std::vector<std::pair<std::size_t, std::uint32_t>> placed) {
  std::sort(placed.begin(), placed.end(), [&](const auto& x, const auto& y) {
    return x.first != y.first ? x.first < y.first : history.response(x.second) < history.response(y.second);
  });
  std::vector<std::size_t> merged;
  merged.reserve(order.size() + placed.size());
  std::size_t next = 0;
  for (std::size_t g = 0; g <= order.size(); ++g) {
    for (; next < placed.size() && placed[next].first == g; ++next) merged.push_back(placed[next].second);
    if (g < order.size()) merged.push_back(order[g]);
  }
  return merged;
}

SearchResult explain_violation(std::vector<std::uint32_t> witness, const KeptWriters& kept, std::size_t nodes) {
  // (the initial value has no writer: kNoOp stands for "before everything")
  witness.erase(std::remove(witness.begin(), witness.end(), kNoOp), witness.end());
  for (std::size_t k = 0; k < witness.size(); ++k) {
    const std::uint32_t observer = kept.kept_for[witness[k]];
    if (observer != kNoOp && std::find(witness.begin(), witness.end(), observer) == witness.end())
      witness.push_back(observer);
  }
  return decided_violation(nodes, std::move(witness));
}

namespace {

// The segments of a history whose writers are known, in an order that passes unless a step
// stops it.
Step<ValueOrder> ordered_values(const RegisterHistory& history, const KeptWriters& kept) {
  Step<Segments> segments = build_segments(history, kept);
  if (auto* stop = std::get_if<Stop>(&segments)) return std::move(*stop);
  const std::vector<Segment>& list = std::get<Segments>(segments).list;
  Step<std::vector<Block>> blocks = chain_blocks(list);
  if (auto* stop = std::get_if<Stop>(&blocks)) return std::move(*stop);
  Step<std::vector<std::uint32_t>> order = order_blocks(std::get<std::vector<Block>>(blocks), list);
  if (auto* stop = std::get_if<Stop>(&order)) return std::move(*stop);
  return block_order(history, std::get<std::vector<Block>>(blocks), std::get<std::vector<std::uint32_t>>(order), list);
}

}  // namespace

}  // namespace register_decision

std::optional<SearchResult> decide_unique_register(const std::vector<RegisterOp>& ops, const std::vector<TimedOp>& timed,
                                                   std::uint32_t start) {
  using namespace register_decision;
  const RegisterHistory history{ops, timed, start};
  const std::optional<Writers> writers = unique_writers(history);
  if (!writers) return std::nullopt;
  const KeptWriters kept = kept_writers(history, *writers);
  Step<ValueOrder> values = ordered_values(history, kept);
  if (auto* stop = std::get_if<Stop>(&values)) {
    if (!stop->witness) return std::nullopt;
    return explain_violation(std::move(*stop->witness), kept, ops.size());
  }
  // The operations left out go back in: failed cas where the register differs from what they
  // expected, other completed operations without effect anywhere real time allows.
  const ValueOrder& order = std::get<ValueOrder>(values);
  const auto placed = place_left_out(history, gaps_of(history, order), left_out(history, kept));
  if (!placed) return std::nullopt;
  std::uint32_t state = start;
  std::optional<SearchResult> result = certify_order(merge_placed(history, order.ops, *placed), timed,
                                                     [&](std::size_t i) { return register_apply(ops[i], state); });
  if (result) result->memo_bytes = ops.size() * (sizeof(Segment) + 4 * sizeof(std::uint32_t));
  return result;
}

}  // namespace duet::history::detail
