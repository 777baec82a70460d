// Shrinking a failing case: the passes' schedule (cheap passes to a fixed point, the costlier
// ones only where those are stuck) over the case a ShrinkState holds, and the order it decreases.
#include "shrink/shrink.hpp"

#include <algorithm>

#include "shrink/shrink_state.hpp"

namespace duet::detail {

bool shortlex_less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return lex_less(a, b);
}

bool shrink_smaller(const std::vector<std::uint64_t>& a, std::size_t a_mark, const std::vector<std::uint64_t>& b,
                    std::size_t b_mark) {
  if (a.size() != b.size()) return a.size() < b.size();
  const std::size_t ours = b_mark == Source::kNoMark ? 0 : b.size() - std::min(b_mark, b.size());
  const std::size_t theirs = a_mark == Source::kNoMark ? 0 : a.size() - std::min(a_mark, a.size());
  if (ours != theirs) return theirs < ours;
  return lex_less(a, b);
}

ShrinkOutcome shrink(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
                     const ShrinkBudget& budget, std::size_t concurrent_start, const OnAccept& on_accept) {
  ShrinkState s(std::move(choices), std::move(spans), replay, budget, concurrent_start, on_accept);
  bool improved = true;
  while (improved && !s.out_of_budget()) {
    improved = false;
    improved |= delete_spans(s);
    improved |= delete_span_pairs(s);
    improved |= delete_span_and_adjust(s);
    improved |= delete_chunks(s);
    improved |= move_into_sequential_part(s);
    improved |= swap_adjacent_spans(s);
    improved |= lower_values(s);
    improved |= lower_and_delete(s);
    improved |= redistribute_pairs(s);
    improved |= zero_chunks(s);
    // The costlier passes, for the local minima of those above: they run only when those
    // make no progress, one at a time, and hand back to them at the first step taken.
    if (!improved && !s.out_of_budget())
      improved = delete_span_runs(s) || lower_duplicates(s) || lower_large_values(s) || shift_value_pairs(s) ||
                 reaim_values(s) || delete_span_and_raise(s);
  }
  return s.outcome();
}

}  // namespace duet::detail
