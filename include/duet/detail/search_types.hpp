// The search core's vocabulary: a history's operations as the search sees them, the
// consistency it checks, its budgets and its result. See search.hpp for the search itself.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <vector>

#include "duet/detail/consistency.hpp"

namespace duet::detail {

class SearchTurns;  // search_turns.hpp

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

enum class SearchVerdict { ok, violation, unknown };

/// An oracle's footprint for an operation that commutes with nothing (see linearize).
inline constexpr std::uint64_t kFootprintAll = ~std::uint64_t{0};

/// Why a search ended in unknown.
enum class SearchStop { none, nodes, time, memory, cancelled };

struct SearchBudget {
  std::uint64_t max_nodes = 50'000'000;  // oracle applications
  double max_seconds = 0;                // 0: no limit
  /// An absolute end as well (several searches sharing one budget, such as partitions).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::size_t max_memo_bytes = std::size_t{1} << 31;  // memo and search stack; 0: no limit
  const std::atomic<bool>* cancel = nullptr;          // the caller's
  const std::atomic<bool>* group_cancel = nullptr;    // set when a sibling search found a violation
  /// Searches running side by side on parts of one history (partitions) share one memory
  /// budget: each adds what it holds here, and max_memo_bytes bounds the sum.
  std::atomic<std::size_t>* shared_memory = nullptr;
  /// Searches side by side, more than cores, take turns on them (search_turns.hpp): the
  /// search holds a slot of these, and passes it on at its budget checks.
  SearchTurns* turns = nullptr;
};

struct SearchResult {
  SearchVerdict verdict = SearchVerdict::unknown;
  SearchStop stop = SearchStop::none;
  std::vector<std::size_t> order;  // ok: a witness order; violation: the longest partial order found
  std::uint64_t nodes = 0;         // oracle applications tried
  std::uint64_t memo_hits = 0;
  std::size_t memo_bytes = 0;  // peak size of the memo and the search stack
  /// violation, when known: a few operations that on their own have no linearization either
  /// (the search itself does not find these; a decision procedure such as the unique-value
  /// register's does)
  std::vector<std::size_t> witness;
};

/// With end_states given, the search does not stop at the first linearization: it collects
/// every state some linearization of the history can end in (completed operations all placed,
/// pending ones placed or not), up to `cap` distinct states; the verdict is then ok when the
/// collection is complete and not empty, violation when there is none, unknown when it ran out
/// of budget or past the cap (`overflow`). What a failing window that starts late needs: the
/// states the operations before it can leave.
template <class State>
struct EndStates {
  std::size_t cap = 64;
  std::vector<State> states;
  bool overflow = false;
};

}  // namespace duet::detail
