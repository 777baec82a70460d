// The memory isolation shares with its child: mapped shared and anonymous before the first fork,
// so that what the child leaves there outlives it. Untouched pages cost nothing.
//
// Who writes what, and how the other side reads it:
//   - The child writes everything here, the parent only resets fields before a request (while the
//     child waits for it) and reads.
//   - Counts and lengths are atomics; an array's entries are plain and published by their count:
//     written first, then the count stored with release (the parent loads it with acquire). An
//     array rewritten in place has its count set to 0 first, so a count the parent sees never
//     covers entries half rewritten; the parent copies arrays only once the child is reaped, or
//     for a progress line, where a stale entry is harmless.
//   - The crash handler writes the crash stack (async-signal-safe: lock-free atomic stores).
// The atomics are lock-free (static_assert below), which is what makes them work across processes.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "duet/source.hpp"
#include "engine/crash_stack.hpp"
#include "engine/search_counts.hpp"

namespace duet::detail {

using SharedCount = std::atomic<std::uint64_t>;
static_assert(SharedCount::is_always_lock_free && std::atomic<std::int64_t>::is_always_lock_free &&
              std::atomic<std::int32_t>::is_always_lock_free);

/// A search's counters as the child last counted them (after each case): the parent's progress
/// line, and what it still has when the child dies.
class SharedSearchCounts {
 public:
  void store(const SearchCounts& c) {
    std::size_t i = 0;
    wire_fields(c, [&](const auto&... value) { (values_[i++].store(value, std::memory_order_relaxed), ...); });
  }
  SearchCounts load() const {
    SearchCounts c;
    std::size_t i = 0;
    wire_fields(c, [&](auto&... value) { ((value = values_[i++].load(std::memory_order_relaxed)), ...); });
    return c;
  }

 private:
  static constexpr std::size_t kFields = sizeof(SearchCounts) / sizeof(std::uint64_t);
  std::array<SharedCount, kFields> values_;  // in the order of SearchCounts's field list
};

struct SharedBlock {
  static constexpr std::size_t kChoices = Source::kMaxChoices;
  static constexpr std::size_t kSpans = std::size_t{1} << 16;
  static constexpr std::size_t kTrace = std::size_t{1} << 20;
  static constexpr std::size_t kCalling = 4096;

  // ---- The running case ----
  /// When it started (steady clock), stored last when it begins; 0 while no case runs. A trial
  /// that starts moves it (a case is a hang when one trial outlives the limit).
  std::atomic<std::int64_t> case_started_ns;
  std::atomic<std::int32_t> exit_status;  // exit(status) during a case
  std::atomic<std::int32_t> exit_called;  // 1: exit(), 2: quick_exit(), 0: neither
  /// Its choices, spans and concurrent mark as they are drawn (the choice tap: engine/isolation/
  /// child.cpp). Counts may pass the capacities: then only the first entries are kept.
  SharedCount choice_count, span_count, concurrent_start;
  std::uint64_t choices[kChoices];
  Source::Span spans[kSpans];
  /// A traced case: its steps so far (a Trace on the wire), and the call running, if any.
  SharedCount trace_len, calling_len;
  char trace[kTrace];
  char calling[kCalling];
  /// A parallel case: the trials begun, of which those that overlapped, and the most CPUs.
  SharedCount case_trials, case_overlapped, case_cpus;
  /// A crash on a fiber: its return addresses (written by the crash handler).
  SharedCount stack_count;
  std::uintptr_t stack[kCrashFrames];

  // ---- The search ----
  SharedSearchCounts counts;

  // ---- A shrink ----
  /// Candidates tried and cases kept; the last case kept (its choices, spans and mark; count + 1,
  /// 0: none yet) and the candidate being replayed (count + 1, 0: none).
  SharedCount shrink_tried, shrink_kept, best_count, best_span_count, best_mark, candidate_count;
  std::uint64_t best[kChoices];
  Source::Span best_spans[kSpans];
  std::uint64_t candidate[kChoices];
};

}  // namespace duet::detail
