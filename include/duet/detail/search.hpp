// The one search core: is there a sequential order of a history's operations, consistent with
// real-time order (or only with each process's program order), in which an oracle accepts every
// observed result? A depth-first search over linearizations with a memo of (set of operations
// placed, oracle state), as in Wing & Gong, improved by Lowe; an explicit stack, an
// incrementally hashed set, and budgets that end in "unknown" rather than in a wrong answer.
//
// Used for Y-shaped programs run on threads and for long recorded histories alike.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

#include "duet/detail/rng.hpp"

namespace duet::detail {

/// One operation of a history, for the search: who ran it and when. Times are in any
/// monotonic unit; a pending operation (timed out, crashed) has response == kPending: it may
/// take effect at any point after its invocation, or never.
struct TimedOp {
  static constexpr std::uint64_t kPending = std::numeric_limits<std::uint64_t>::max();
  std::uint32_t process = 0;
  std::uint64_t invoke = 0;
  std::uint64_t response = kPending;
  /// Operations of a later phase come after every operation of an earlier one, whatever the
  /// consistency (a Y-program's prefix, branches, suffix); long histories use one phase.
  std::uint32_t phase = 0;
};

enum class Consistency {
  linearizable,  // real-time order: an operation that returned before another was invoked comes first
  sequential     // only each process's own order (qcheck-stm's weaker check)
};

enum class SearchVerdict { ok, violation, unknown };

struct SearchBudget {
  std::uint64_t max_nodes = 50'000'000;  // oracle applications
  double max_seconds = 0;                 // 0: no limit
  const std::atomic<bool>* cancel = nullptr;
};

struct SearchResult {
  SearchVerdict verdict = SearchVerdict::unknown;
  std::vector<std::size_t> order;    // ok: a witness order; violation: the longest partial order found
  std::uint64_t nodes = 0;           // oracle applications tried
  std::uint64_t memo_hits = 0;
};

/// An Oracle provides:
///   using State = ...;                               // copyable
///   State initial() const;
///   bool apply(State& s, std::size_t op) const;      // false: op's observed result is not allowed here
///   std::uint64_t hash(const State&) const;          // with equal(), enables the memo
///   bool equal(const State&, const State&) const;
///   static constexpr bool memo = true;               // false: search without a memo
template <class Oracle>
SearchResult linearize(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency,
                       const SearchBudget& budget = {}) {
  using State = typename Oracle::State;
  const std::size_t n = ops.size();
  SearchResult result;
  const auto deadline = budget.max_seconds > 0
                            ? std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                     std::chrono::duration<double>(budget.max_seconds))
                            : std::chrono::steady_clock::time_point::max();

  // Completed operations must all be placed; pending ones may be placed or left out.
  std::size_t completed = 0;
  for (const TimedOp& op : ops) completed += op.response != TimedOp::kPending;

  // Program order per process (for sequential consistency, and as a tie-break).
  std::vector<std::size_t> rank_in_process(n);
  {
    std::unordered_map<std::uint32_t, std::vector<std::size_t>> by_process;
    for (std::size_t i = 0; i < n; ++i) by_process[ops[i].process].push_back(i);
    for (auto& [p, list] : by_process) {
      // Stable: operations of one process with equal invoke times keep their listed order.
      std::stable_sort(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return ops[a].invoke < ops[b].invoke; });
      for (std::size_t k = 0; k < list.size(); ++k) rank_in_process[list[k]] = k;
    }
  }
  std::unordered_map<std::uint32_t, std::size_t> next_rank;  // per process: how many placed

  // Zobrist keys: the set of placed operations hashes incrementally.
  std::vector<std::uint64_t> zobrist(n);
  for (std::size_t i = 0; i < n; ++i) zobrist[i] = mix64(0x5eedull + i);

  std::vector<std::uint64_t> placed_bits((n + 63) / 64, 0);
  auto is_placed = [&](std::size_t i) { return (placed_bits[i / 64] >> (i % 64)) & 1; };
  auto toggle = [&](std::size_t i) { placed_bits[i / 64] ^= std::uint64_t{1} << (i % 64); };

  // Memo of dead ends: (placed set, state) from which no completion exists.
  struct MemoEntry {
    std::vector<std::uint64_t> bits;
    State state;
  };
  std::unordered_multimap<std::uint64_t, MemoEntry> memo;

  // Candidates that may go next: not placed, and (real time) invoked before every unplaced
  // completed operation responded; (sequential) next in its process.
  auto candidates = [&](std::vector<std::size_t>& out) {
    out.clear();
    std::uint32_t phase = std::numeric_limits<std::uint32_t>::max();
    for (std::size_t i = 0; i < n; ++i)
      if (!is_placed(i) && ops[i].response != TimedOp::kPending) phase = std::min(phase, ops[i].phase);
    if (consistency == Consistency::linearizable) {
      // i may go next unless some other unplaced operation responded strictly before i was
      // invoked. Equal readings of the clock on two cores cannot be ordered: they overlap. A
      // process's own operations keep their order explicitly.
      std::uint64_t min_response = TimedOp::kPending;
      for (std::size_t i = 0; i < n; ++i)
        if (!is_placed(i) && ops[i].response < min_response) min_response = ops[i].response;
      for (std::size_t i = 0; i < n; ++i)
        if (!is_placed(i) && ops[i].phase <= phase && ops[i].invoke <= min_response &&
            rank_in_process[i] == next_rank[ops[i].process])
          out.push_back(i);
    } else {
      for (std::size_t i = 0; i < n; ++i)
        if (!is_placed(i) && ops[i].phase <= phase && rank_in_process[i] == next_rank[ops[i].process]) out.push_back(i);
    }
  };

  struct Frame {
    State state;
    std::uint64_t set_hash;
    std::vector<std::size_t> choices;
    std::size_t next = 0;
    std::size_t placed_completed;
  };
  std::vector<Frame> stack;
  std::vector<std::size_t> order;
  stack.push_back(Frame{oracle.initial(), 0, {}, 0, 0});
  candidates(stack.back().choices);

  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.placed_completed == completed) {
      result.verdict = SearchVerdict::ok;
      result.order = order;
      return result;
    }
    if (top.next == top.choices.size()) {
      // Dead end: remember it, undo the last placement.
      if constexpr (Oracle::memo)
        memo.emplace(top.set_hash ^ oracle.hash(top.state), MemoEntry{placed_bits, top.state});
      stack.pop_back();
      if (!order.empty()) {
        const std::size_t last = order.back();
        order.pop_back();
        toggle(last);
        --next_rank[ops[last].process];
      }
      continue;
    }
    const std::size_t op = top.choices[top.next++];
    if ((++result.nodes & 1023) == 0) {
      if (result.nodes >= budget.max_nodes || std::chrono::steady_clock::now() >= deadline ||
          (budget.cancel && budget.cancel->load(std::memory_order_relaxed))) {
        result.verdict = SearchVerdict::unknown;
        return result;
      }
    }
    State next_state = top.state;
    if (!oracle.apply(next_state, op)) continue;
    toggle(op);
    const std::uint64_t next_hash = top.set_hash ^ zobrist[op];
    if constexpr (Oracle::memo) {
      bool seen = false;
      auto [lo, hi] = memo.equal_range(next_hash ^ oracle.hash(next_state));
      for (auto it = lo; it != hi && !seen; ++it) seen = it->second.bits == placed_bits && oracle.equal(it->second.state, next_state);
      if (seen) {
        ++result.memo_hits;
        toggle(op);
        continue;
      }
    }
    order.push_back(op);
    ++next_rank[ops[op].process];
    if (order.size() > result.order.size()) result.order = order;  // the longest partial order
    const std::size_t done = top.placed_completed + (ops[op].response != TimedOp::kPending);
    stack.push_back(Frame{std::move(next_state), next_hash, {}, 0, done});
    candidates(stack.back().choices);
  }
  result.verdict = SearchVerdict::violation;
  return result;
}

}  // namespace duet::detail
