// The case a shrink holds (its choices, command spans and concurrent mark) and the one way the
// passes change it: attempt a smaller candidate, replayed under the shrink's budgets. The passes
// (delete_passes.cpp, value_passes.cpp) propose candidates; this keeps those that still fail.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shrink/shrink.hpp"
#include "shrink/tried_candidates.hpp"

namespace duet::detail {

class ShrinkState {
 public:
  ShrinkState(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
              const ShrinkBudget& budget, std::size_t concurrent_start, OnAccept on_accept);

  const std::vector<std::uint64_t>& current() const { return current_; }
  const std::vector<Source::Span>& spans() const { return spans_; }
  std::size_t mark() const { return mark_; }

  /// Replays the candidate; keeps it (as the choices it actually drew) if it still fails and
  /// is smaller than what we have. `candidate_mark`: its concurrent mark, if not the current one.
  bool attempt(const std::vector<std::uint64_t>& candidate, std::size_t candidate_mark = Source::kNoMark);
  /// A budget has refused a replay: a pass cut short is not a fixed point.
  bool out_of_budget() const;
  /// The current choices without [begin, end).
  std::vector<std::uint64_t> without(std::size_t begin, std::size_t end) const;
  /// Where the shrink ended.
  ShrinkOutcome outcome() const;

 private:
  // The order every accepted step decreases: length, then choices in the concurrent part,
  // then lexicographic. Well founded, so shrinking ends.
  bool smaller(const std::vector<std::uint64_t>& c, std::size_t c_mark) const {
    return shrink_smaller(c, c_mark, current_, mark_);
  }

  std::vector<std::uint64_t> current_;
  std::vector<Source::Span> spans_;
  std::size_t mark_;
  const Replay& replay_;
  OnAccept on_accept_;
  ShrinkBudget budget_;
  std::chrono::steady_clock::time_point deadline_;
  mutable ShrinkStop stop_ = ShrinkStop::fixed_point;
  mutable std::uint64_t clock_read_at_ = ~std::uint64_t{0};  // replayed_ when out_of_budget() last read the clock
  std::uint64_t accepted_ = 0, tried_ = 0;
  std::uint64_t replayed_ = 0;  // tried_ less the candidates met again (judged without a replay)
  TriedCandidates tried_before_;
  bool replays_run_trials_ = false;  // a replay ran trials: candidates are tried again when met again
};

// ---- The passes: each proposes smaller candidates; true when one was kept. ----

// Deletions and moves of commands (delete_passes.cpp).
bool delete_spans(ShrinkState& s);
bool delete_span_pairs(ShrinkState& s);
bool delete_span_and_adjust(ShrinkState& s);
bool delete_chunks(ShrinkState& s);
bool move_into_sequential_part(ShrinkState& s);
bool swap_adjacent_spans(ShrinkState& s);
bool delete_span_runs(ShrinkState& s);
bool delete_span_and_raise(ShrinkState& s);

// Lower values (value_passes.cpp).
bool lower_values(ShrinkState& s);
bool lower_and_delete(ShrinkState& s);
bool redistribute_pairs(ShrinkState& s);
bool zero_chunks(ShrinkState& s);
bool lower_duplicates(ShrinkState& s);
bool lower_large_values(ShrinkState& s);
bool shift_value_pairs(ShrinkState& s);
bool reaim_values(ShrinkState& s);

}  // namespace duet::detail
