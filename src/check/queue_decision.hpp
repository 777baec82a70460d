// The steps of the unique-value queue's decision (queue_decision.cpp), each over small structs
// and tested alone (tests/checker/queue_decision_steps_test.cpp): what each value did, one
// order of the values that extends both real-time orders, the operations merged in that
// order, and the patterns that show a violation when the construction does not go through.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "check/decided_order.hpp"
#include "check/model.hpp"

namespace duet::history::detail::queue_decision {

/// The history the steps read: the compiled operations and their times.
struct QueueHistory {
  const std::vector<QueueOp>& ops;
  const std::vector<TimedOp>& timed;

  std::uint32_t size() const { return static_cast<std::uint32_t>(ops.size()); }
  std::uint64_t invoke(std::uint32_t i) const { return timed[i].invoke; }
  std::uint64_t response(std::uint32_t i) const { return timed[i].response; }  // kPending: never
  bool pending(std::uint32_t i) const { return timed[i].response == TimedOp::kPending; }
};

/// What each value did: its enqueue, its dequeue; the dequeues that found the queue empty, the
/// failed operations.
struct QueueValues {
  std::unordered_map<std::uint32_t, std::uint32_t> enqueue_of, dequeue_of;  // value -> operation
  std::vector<std::uint32_t> empties, failed;
  /// Values whose enqueue certainly happened: dequeued, or completed and still in the queue at
  /// the end. (A pending enqueue of a value nobody dequeued may never have taken effect;
  /// leaving it out keeps a linearizable history linearizable.)
  std::vector<std::uint32_t> dequeued, stayed;

  std::uint32_t enqueue(std::uint32_t value) const { return enqueue_of.at(value); }
  std::uint32_t dequeue(std::uint32_t value) const { return dequeue_of.at(value); }
};

/// What each value did; stops, undecided, at a value enqueued twice or a dequeue whose result
/// is unknown, and at a violation for a value dequeued twice, never enqueued, or before its
/// enqueue began.
Step<QueueValues> gather_values(const QueueHistory& history);

/// The first pattern that cannot be linearized (x came in before y and y left first or x never
/// did; a dequeue found the queue empty while it certainly held x): its operations, or nothing.
std::optional<std::vector<std::uint32_t>> find_pattern(const QueueHistory& history, const QueueValues& values);

/// One order of the dequeued values extending both real-time orders, taken greedily (the
/// available value whose enqueue returned first); nothing at a cycle.
std::optional<std::vector<std::uint32_t>> dequeue_order(const QueueHistory& history, const QueueValues& values);

/// Readies the lists for the merge: the values that stayed by their enqueue's response, the
/// empty dequeues and the failed operations by invocation.
void sort_for_merge(const QueueHistory& history, QueueValues& values);

/// Enqueues and dequeues in the order of `value_order` (the dequeued values, then those that
/// stayed), merged with the empty dequeues and the failed operations as real time allows;
/// nothing where it gets stuck.
std::optional<std::vector<std::size_t>> merge_operations(const QueueHistory& history, const QueueValues& values,
                                                         const std::vector<std::uint32_t>& value_order);

}  // namespace duet::history::detail::queue_decision
