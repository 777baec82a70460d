// The steps of the unique-value register's decision (register_decision.cpp), each over small
// structs and tested alone (tests/checker/register_decision_steps_test.cpp): who writes each
// value, which writers take part, the segments and their chains (blocks), the blocks' order,
// the order of operations it makes, the operations left out put back in.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include "check/decided_order.hpp"
#include "check/model.hpp"

namespace duet::history::detail::register_decision {

__extension__ typedef __int128 Time;  // room for "before everything" (the initial value's writer) and "never"
constexpr Time kNever = Time{1} << 100;

/// The history the steps read: the compiled operations, their times, the initial value.
struct RegisterHistory {
  const std::vector<RegisterOp>& ops;
  const std::vector<TimedOp>& timed;
  std::uint32_t start;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ops.size()); }
  Time invoke(std::uint32_t i) const { return Time{timed[i].invoke}; }
  Time response(std::uint32_t i) const { return pending(i) ? kNever : Time{timed[i].response}; }
  bool pending(std::uint32_t i) const { return timed[i].response == TimedOp::kPending; }
  /// May this operation change the register?
  bool writes(std::uint32_t i) const {
    const RegisterOp& op = ops[i];
    if (op.kind == RegisterOp::read) return false;
    if (op.kind == RegisterOp::write) return op.mode != Mode::fail;
    return op.mode == Mode::ok || op.mode == Mode::pending;
  }
  /// The value a writing operation leaves.
  std::uint32_t written(std::uint32_t i) const { return ops[i].kind == RegisterOp::write ? ops[i].a : ops[i].b; }
  /// A read that returned a value.
  bool reads(std::uint32_t i) const { return ops[i].kind == RegisterOp::read && ops[i].mode == Mode::ok; }
};

/// Value -> the one operation that may write it.
using Writers = std::unordered_map<std::uint32_t, std::uint32_t>;

/// Who may write each value: nothing when a value is written twice or the initial one at all,
/// or a compare-and-set's effect is unknown (it took effect or not: a search).
std::optional<Writers> unique_writers(const RegisterHistory& history);

/// Which writers take part: completed ones, and pending ones whose value is observed (by a read
/// or a kept compare-and-set, which took effect and so observed its expected value in turn).
struct KeptWriters {
  std::vector<char> kept;               // per operation
  std::vector<std::uint32_t> kept_for;  // a writer kept for an observer: that observer (else kNoOp)
};
KeptWriters kept_writers(const RegisterHistory& history, const Writers& writers);

/// One value's run in any linearization: its writer, then the operations that observe it.
struct Segment {
  std::uint32_t value = 0;
  std::uint32_t writer = kNoOp;  // kNoOp: the initial value
  std::vector<std::uint32_t> readers;
  std::uint32_t next = kNoOp, prev = kNoOp;  // chained by a successful cas
  Time lo = kNever, hi = -1;                 // earliest response, latest invocation
  std::uint32_t lo_op = kNoOp, hi_op = kNoOp;
};
struct Segments {
  std::vector<Segment> list;  // the initial value's first, then the kept writers' in index order
  std::unordered_map<std::uint32_t, std::uint32_t> of_value;
};
/// The segments with their readers and cas links; stops at a read of a value nobody wrote, a
/// read that returned before its write began, or two cas from one value.
Step<Segments> build_segments(const RegisterHistory& history, const KeptWriters& kept);

/// Segments chained by successful cas, which stay contiguous.
struct Block {
  std::vector<std::uint32_t> segments;  // in chain order
  Time lo = kNever, hi = -1;
  std::uint32_t lo_segment = 0, hi_segment = 0;  // positions in `segments`
};
/// The blocks; stops at a chain that runs against real time (a violation) or one that does not
/// end (undecided).
Step<std::vector<Block>> chain_blocks(const std::vector<Segment>& segments);

/// The blocks in order of lo + hi (indices into `blocks`); stops at two blocks that must each
/// come first.
Step<std::vector<std::uint32_t>> order_blocks(const std::vector<Block>& blocks, const std::vector<Segment>& segments);

/// The operations of the blocks in order (each segment's writer, then its readers by response)
/// and the register's value after each.
struct ValueOrder {
  std::vector<std::uint32_t> ops;
  std::vector<std::uint32_t> value_after;
};
ValueOrder block_order(const RegisterHistory& history, const std::vector<Block>& blocks,
                       const std::vector<std::uint32_t>& block_order, const std::vector<Segment>& segments);

/// The places ("gaps": gap g lies before the order's g-th operation) of an order, as the
/// operations left out of it see them.
struct Gaps {
  std::vector<Time> prefix_max_invoke;    // per gap: the latest invocation before it
  std::vector<Time> suffix_min_response;  // per gap: the earliest response after it
  std::vector<std::size_t> next_change;   // per gap: the first later gap holding another value
  std::uint32_t start = 0;
  const std::vector<std::uint32_t>* value_after = nullptr;

  std::size_t size() const { return prefix_max_invoke.size(); }  // gaps: the order's length + 1
  std::uint32_t value_at(std::size_t gap) const { return gap == 0 ? start : (*value_after)[gap - 1]; }
  /// The gaps real time allows operation i: [first, second).
  std::pair<std::size_t, std::size_t> allowed(const RegisterHistory& history, std::uint32_t i) const;
};
Gaps gaps_of(const RegisterHistory& history, const ValueOrder& order);

/// The completed operations without effect left out of the order (not kept, not reads that
/// returned a value), by invocation.
std::vector<std::uint32_t> left_out(const RegisterHistory& history, const KeptWriters& kept);

/// A gap for each operation left out (gap, operation), keeping real time among them too, each
/// failed cas where the register differs from what it expected; nothing when one finds no
/// place.
std::optional<std::vector<std::pair<std::size_t, std::uint32_t>>> place_left_out(const RegisterHistory& history,
                                                                                 const Gaps& gaps,
                                                                                 const std::vector<std::uint32_t>& left_out);

/// The order with the operations placed in their gaps (in a gap, by response).
std::vector<std::size_t> merge_placed(const RegisterHistory& history, const std::vector<std::uint32_t>& order,
                                      std::vector<std::pair<std::size_t, std::uint32_t>> placed);

/// The decision's result for a violation: `witness`, with the operation that observes each
/// pending writer in it (that writer took effect only because of it).
SearchResult explain_violation(std::vector<std::uint32_t> witness, const KeptWriters& kept, std::size_t nodes);

}  // namespace duet::history::detail::register_decision
