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
#include <algorithm>
#include <unordered_map>

#include "model.hpp"

namespace duet::history::detail {

namespace {

using duet::detail::SearchVerdict;
__extension__ typedef __int128 Time;  // room for "before everything" (the initial value's writer) and "never"
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr Time kNever = Time{1} << 100;

struct Segment {
  std::uint32_t value = 0;
  std::uint32_t writer = kNone;  // kNone: the initial value
  std::vector<std::uint32_t> readers;
  std::uint32_t next = kNone, prev = kNone;  // chained by a successful cas
  Time lo = kNever, hi = -1;                 // earliest response, latest invocation
  std::uint32_t lo_op = kNone, hi_op = kNone;
};

struct Block {
  std::vector<std::uint32_t> segments;  // in chain order
  Time lo = kNever, hi = -1;
  std::uint32_t lo_segment = 0, hi_segment = 0;  // positions in `segments`
};

}  // namespace

std::optional<SearchResult> decide_unique_register(const std::vector<RegisterOp>& ops, const std::vector<TimedOp>& timed,
                                                   std::uint32_t start) {
  const std::size_t n = ops.size();
  auto inv = [&](std::uint32_t i) { return Time{timed[i].invoke}; };
  auto resp = [&](std::uint32_t i) { return timed[i].response == TimedOp::kPending ? kNever : Time{timed[i].response}; };
  auto pending = [&](std::uint32_t i) { return timed[i].response == TimedOp::kPending; };

  // ---- who may write each value; every value at most once (the initial one never) ----
  std::unordered_map<std::uint32_t, std::uint32_t> writer_of;  // value -> op
  writer_of.reserve(n);
  auto writes = [&](std::uint32_t i) -> bool {  // may this operation change the register?
    const RegisterOp& op = ops[i];
    if (op.kind == RegisterOp::read) return false;
    if (op.kind == RegisterOp::write) return op.mode != Mode::fail;
    return op.mode == Mode::ok || op.mode == Mode::pending;
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const RegisterOp& op = ops[i];
    if (op.kind == RegisterOp::cas && op.mode == Mode::unknown_result) return std::nullopt;  // took effect or not: a search
    if (!writes(i)) continue;
    const std::uint32_t v = op.kind == RegisterOp::write ? op.a : op.b;
    if (v == start || !writer_of.emplace(v, i).second) return std::nullopt;  // written twice
  }

  // Which writers take part (below): completed ones, and pending ones whose value is observed.
  std::vector<char> kept(n, 0);
  std::vector<std::uint32_t> kept_for(n, kNone);  // a pending writer: the operation that observes its value

  SearchResult result;
  result.nodes = n;
  auto violation = [&](std::vector<std::uint32_t> witness) {
    result.verdict = SearchVerdict::violation;
    // (the initial value has no writer: kNone stands for "before everything")
    witness.erase(std::remove(witness.begin(), witness.end(), kNone), witness.end());
    // A pending writer took effect only because an operation observes its value: that one too.
    for (std::size_t k = 0; k < witness.size(); ++k)
      if (kept_for[witness[k]] != kNone && std::find(witness.begin(), witness.end(), kept_for[witness[k]]) == witness.end())
        witness.push_back(kept_for[witness[k]]);
    std::sort(witness.begin(), witness.end());
    witness.erase(std::unique(witness.begin(), witness.end()), witness.end());
    result.witness.assign(witness.begin(), witness.end());
    return result;
  };

  // ---- which writers take part: completed ones, and pending ones whose value is observed ----
  // A pending cas that is kept took effect, so it observes its expected value in turn.
  std::vector<std::uint32_t> work;
  auto require = [&](std::uint32_t value, std::uint32_t by) {
    auto it = writer_of.find(value);
    if (it != writer_of.end() && !kept[it->second]) {
      kept[it->second] = 1;
      kept_for[it->second] = by;
      work.push_back(it->second);
    }
  };
  for (std::uint32_t i = 0; i < n; ++i) {
    const RegisterOp& op = ops[i];
    if (op.kind == RegisterOp::read && op.mode == Mode::ok) require(op.a, i);
    if (writes(i) && !pending(i)) {
      kept[i] = 1;
      work.push_back(i);
    }
  }
  while (!work.empty()) {
    const std::uint32_t i = work.back();
    work.pop_back();
    if (ops[i].kind == RegisterOp::cas) require(ops[i].a, i);
  }

  // ---- segments ----
  std::unordered_map<std::uint32_t, std::uint32_t> segment_of;  // value -> segment
  std::vector<Segment> segments;
  segments.reserve(writer_of.size() + 1);
  auto make_segment = [](std::uint32_t value, std::uint32_t writer) {
    Segment s;
    s.value = value;
    s.writer = writer;
    return s;
  };
  segments.push_back(make_segment(start, kNone));
  segment_of.emplace(start, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    if (kept[i]) {
      const std::uint32_t v = ops[i].kind == RegisterOp::write ? ops[i].a : ops[i].b;
      segment_of.emplace(v, static_cast<std::uint32_t>(segments.size()));
      segments.push_back(make_segment(v, i));
    }
  auto add_to = [&](Segment& s, std::uint32_t i) {
    if (resp(i) < s.lo) s.lo = resp(i), s.lo_op = i;
    if (inv(i) > s.hi) s.hi = inv(i), s.hi_op = i;
  };
  segments[0].lo = -1;  // the initial value is "written" before everything
  for (Segment& s : segments)
    if (s.writer != kNone) add_to(s, s.writer);
  for (std::uint32_t i = 0; i < n; ++i) {
    const RegisterOp& op = ops[i];
    const bool observes = (op.kind == RegisterOp::read && op.mode == Mode::ok) || (kept[i] && op.kind == RegisterOp::cas);
    if (!observes) continue;
    auto it = segment_of.find(op.a);
    if (it == segment_of.end()) return violation({i});  // a value nobody wrote
    Segment& s = segments[it->second];
    if (op.kind == RegisterOp::read) {
      s.readers.push_back(i);
      add_to(s, i);
      if (s.writer != kNone && resp(i) < inv(s.writer)) return violation({s.writer, i});  // read before its write began
    } else {
      const std::uint32_t to = segment_of.at(op.b);
      if (s.next != kNone) return violation({segments[s.next].writer, i, s.writer == kNone ? i : s.writer});  // two cas from one value
      s.next = to;
      segments[to].prev = it->second;
    }
  }

  // ---- blocks: chains of segments; within one, real time must allow the chain's order ----
  std::vector<Block> blocks;
  std::vector<std::uint32_t> block_of(segments.size(), kNone);
  std::size_t chained = 0;
  for (std::uint32_t s = 0; s < segments.size(); ++s) {
    if (segments[s].prev != kNone) continue;
    Block b;
    Time prefix_hi = -1;
    std::uint32_t prefix_hi_segment = 0;
    for (std::uint32_t t = s; t != kNone; t = segments[t].next) {
      const Segment& seg = segments[t];
      if (seg.lo < prefix_hi) {
        // An operation of this segment returned before one of an earlier segment of the chain
        // began; the chain's cas operations put that one first.
        std::vector<std::uint32_t> w{seg.lo_op, segments[b.segments[prefix_hi_segment]].hi_op};
        for (std::size_t k = prefix_hi_segment; k < b.segments.size(); ++k)
          if (segments[b.segments[k]].writer != kNone) w.push_back(segments[b.segments[k]].writer);
        if (seg.writer != kNone) w.push_back(seg.writer);
        return violation(w);
      }
      if (seg.hi > prefix_hi) prefix_hi = seg.hi, prefix_hi_segment = static_cast<std::uint32_t>(b.segments.size());
      if (seg.lo < b.lo) b.lo = seg.lo, b.lo_segment = static_cast<std::uint32_t>(b.segments.size());
      if (seg.hi > b.hi) b.hi = seg.hi, b.hi_segment = static_cast<std::uint32_t>(b.segments.size());
      block_of[t] = static_cast<std::uint32_t>(blocks.size());
      b.segments.push_back(t);
      if (++chained > segments.size()) return std::nullopt;  // a cycle of cas (cannot happen with unique values)
    }
    blocks.push_back(std::move(b));
  }
  if (chained != segments.size()) return std::nullopt;

  // ---- blocks in order of lo + hi; two that must each come first are a violation ----
  std::vector<std::uint32_t> order_blocks(blocks.size());
  std::iota(order_blocks.begin(), order_blocks.end(), 0u);
  std::sort(order_blocks.begin(), order_blocks.end(), [&](std::uint32_t x, std::uint32_t y) {
    const Time kx = blocks[x].lo + blocks[x].hi, ky = blocks[y].lo + blocks[y].hi;
    return kx != ky ? kx < ky : x < y;
  });
  // The operations that make block `b` span from its segment at position p to that at q.
  auto block_witness = [&](const Block& b, std::uint32_t p, std::uint32_t q, std::vector<std::uint32_t>& w) {
    for (std::uint32_t k = std::min(p, q); k <= std::max(p, q); ++k)
      if (segments[b.segments[k]].writer != kNone) w.push_back(segments[b.segments[k]].writer);
  };
  {
    Time prefix_hi = -1;
    std::uint32_t prefix_block = 0;
    for (std::uint32_t k = 0; k < order_blocks.size(); ++k) {
      const Block& c = blocks[order_blocks[k]];
      if (c.lo < prefix_hi) {
        const Block& b = blocks[prefix_block];  // c before b (c.lo < b.hi) and b before c (b.lo < c.hi)
        std::vector<std::uint32_t> w{segments[c.segments[c.lo_segment]].lo_op, segments[b.segments[b.hi_segment]].hi_op,
                                     segments[b.segments[b.lo_segment]].lo_op, segments[c.segments[c.hi_segment]].hi_op};
        block_witness(c, c.lo_segment, c.hi_segment, w);
        block_witness(b, b.lo_segment, b.hi_segment, w);
        return violation(w);
      }
      if (c.hi > prefix_hi) prefix_hi = c.hi, prefix_block = order_blocks[k];
    }
  }

  // ---- the order: blocks, their chains, each segment's writer then its readers ----
  std::vector<std::uint32_t> order;
  std::vector<std::uint32_t> value_after;  // the register after order[k]
  order.reserve(n);
  for (std::uint32_t bi : order_blocks)
    for (std::uint32_t si : blocks[bi].segments) {
      Segment& seg = segments[si];
      if (seg.writer != kNone) {
        order.push_back(seg.writer);
        value_after.push_back(seg.value);
      }
      std::sort(seg.readers.begin(), seg.readers.end(), [&](std::uint32_t x, std::uint32_t y) { return resp(x) < resp(y); });
      for (std::uint32_t r : seg.readers) {
        order.push_back(r);
        value_after.push_back(seg.value);
      }
    }

  // ---- the operations left out go back in: failed cas where the register differs from what
  // they expected, other completed operations without effect anywhere real time allows ----
  {
    const std::size_t m = order.size();
    std::vector<Time> prefix_max_inv(m + 1, -1), suffix_min_resp(m + 1, kNever);
    for (std::size_t k = 0; k < m; ++k) prefix_max_inv[k + 1] = std::max(prefix_max_inv[k], inv(order[k]));
    for (std::size_t k = m; k-- > 0;) suffix_min_resp[k] = std::min(suffix_min_resp[k + 1], resp(order[k]));
    // gap g lies before order[g]; the register there holds value_at(g)
    auto value_at = [&](std::size_t g) { return g == 0 ? start : value_after[g - 1]; };
    std::vector<std::size_t> next_change(m + 2, m + 1);  // the first gap after g holding another value
    for (std::size_t g = m; g-- > 0;) next_change[g] = value_at(g + 1) != value_at(g) ? g + 1 : next_change[g + 1];
    std::vector<std::uint32_t> left_out;
    for (std::uint32_t i = 0; i < n; ++i) {
      const RegisterOp& op = ops[i];
      if (!pending(i) && !kept[i] && !(op.kind == RegisterOp::read && op.mode == Mode::ok)) left_out.push_back(i);
    }
    // Among themselves they keep real time too: one that returned before another began goes
    // to a gap no later than the other's. Taken in order of invocation, each goes to the first
    // gap at or after those of the ones that returned before it began (a running maximum over
    // their responses, in a Fenwick tree).
    std::sort(left_out.begin(), left_out.end(), [&](std::uint32_t x, std::uint32_t y) { return inv(x) < inv(y); });
    std::vector<Time> responses;
    for (std::uint32_t i : left_out) responses.push_back(resp(i));
    std::sort(responses.begin(), responses.end());
    std::vector<std::size_t> latest_gap(responses.size() + 1, 0);  // Fenwick tree of maxima, 1-based
    auto rank_below = [&](Time t) {  // how many responses are < t
      return static_cast<std::size_t>(std::lower_bound(responses.begin(), responses.end(), t) - responses.begin());
    };
    std::vector<std::pair<std::size_t, std::uint32_t>> inserts;  // (gap, op)
    for (std::uint32_t i : left_out) {
      const RegisterOp& op = ops[i];
      // The gaps real time allows: nothing after returned before i began, nothing before began after i returned.
      const std::size_t lo = static_cast<std::size_t>(
          std::partition_point(suffix_min_resp.begin(), suffix_min_resp.end(), [&](Time t) { return t < inv(i); }) - suffix_min_resp.begin());
      const std::size_t hi = static_cast<std::size_t>(
          std::partition_point(prefix_max_inv.begin(), prefix_max_inv.end(), [&](Time t) { return t <= resp(i); }) - prefix_max_inv.begin());
      std::size_t g = lo;
      for (std::size_t k = rank_below(inv(i)); k > 0; k -= k & (~k + 1)) g = std::max(g, latest_gap[k]);
      if (g < hi && op.kind == RegisterOp::cas && value_at(g) == op.a) g = next_change[g];
      if (g >= hi) return std::nullopt;  // no place found: leave it to the search
      inserts.emplace_back(g, i);
      for (std::size_t k = rank_below(resp(i)) + 1; k < latest_gap.size(); k += k & (~k + 1)) latest_gap[k] = std::max(latest_gap[k], g);
    }
    std::sort(inserts.begin(), inserts.end(), [&](const auto& x, const auto& y) {
      return x.first != y.first ? x.first < y.first : resp(x.second) < resp(y.second);
    });
    std::vector<std::uint32_t> merged;
    merged.reserve(m + inserts.size());
    std::size_t next_insert = 0;
    for (std::size_t g = 0; g <= m; ++g) {
      for (; next_insert < inserts.size() && inserts[next_insert].first == g; ++next_insert) merged.push_back(inserts[next_insert].second);
      if (g < m) merged.push_back(order[g]);
    }
    order.swap(merged);
  }

  // ---- check the order as the search would have: every step legal, and the history's orders ----
  {
    std::uint32_t state = start;
    for (std::uint32_t i : order)
      if (!register_apply(ops[i], state)) return std::nullopt;
  }
  result.order.assign(order.begin(), order.end());
  if (!order_fits_history(result.order, timed)) return std::nullopt;
  result.verdict = SearchVerdict::ok;
  result.memo_bytes = n * (sizeof(Segment) + 4 * sizeof(std::uint32_t));
  return result;
}

}  // namespace duet::history::detail
