// The shrink passes that take commands out or move them: whole commands, pairs and runs of
// them, chunks of choices, a command deleted with a later choice re-aimed, a branch's call moved
// into the sequential prefix, commands put in a canonical order.
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "shrink/shrink_state.hpp"

namespace duet::detail {
namespace {

constexpr std::size_t kMaxRun = 8;       // delete_span_runs: 3 to 8 commands
constexpr std::size_t kRaiseWindow = 8;  // delete_span_and_raise: the next 8 choices, raised by 1 to 3

// Deletes each command and moves one of the next `window` choices by one of `deltas`; the
// first change that still fails is kept.
bool delete_span_and_shift(ShrinkState& s, std::size_t window, std::initializer_list<std::int64_t> deltas) {
  bool any = false;
  for (std::size_t i = s.spans().size(); i-- > 0;) {
    if (i >= s.spans().size()) continue;
    const auto span = s.spans()[i];
    if (span.end > s.current().size()) continue;
    const auto base = s.without(span.begin, span.end);
    bool done = false;
    for (std::size_t j = span.begin; j < base.size() && j < span.begin + window && !done; ++j)
      for (const std::int64_t d : deltas) {
        if (s.out_of_budget()) return any;
        const std::uint64_t by = static_cast<std::uint64_t>(d < 0 ? -d : d);
        if (d < 0 ? base[j] < by : base[j] > ~std::uint64_t{0} - by) continue;
        auto c = base;
        c[j] = d < 0 ? c[j] - by : c[j] + by;
        if (s.attempt(c)) {
          done = true;
          break;
        }
      }
    any |= done;
  }
  return any;
}

}  // namespace

// Whole commands first: the largest and most meaningful deletions.
bool delete_spans(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = s.spans().size(); i-- > 0;) {
    if (i >= s.spans().size()) continue;
    const auto span = s.spans()[i];
    if (span.end <= s.current().size() && s.attempt(s.without(span.begin, span.end))) any = true;
  }
  return any;
}

// Pairs (an enqueue and its dequeue) that only make sense removed together.
bool delete_span_pairs(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = s.spans().size(); i-- > 0;) {
    for (std::size_t j = s.spans().size(); j-- > i + 1;) {
      if (i >= s.spans().size() || j >= s.spans().size() || s.out_of_budget()) break;
      const auto a = s.spans()[i], b = s.spans()[j];
      if (b.end > s.current().size() || a.end > b.begin) continue;
      std::vector<std::uint64_t> c(s.current().begin(), s.current().begin() + static_cast<std::ptrdiff_t>(a.begin));
      c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(a.end),
               s.current().begin() + static_cast<std::ptrdiff_t>(b.begin));
      c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(b.end), s.current().end());
      if (s.attempt(c)) any = true;
    }
  }
  return any;
}

// Deleting a command can shift what a later choice refers to (a choice among live values
// counted by position): delete it and lower one later choice by one, to keep pointing at the
// same value.
bool delete_span_and_adjust(ShrinkState& s) { return delete_span_and_shift(s, 48, {-1}); }

bool delete_chunks(ShrinkState& s) {
  bool any = false;
  for (std::size_t k : {8, 4, 3, 2, 1}) {
    for (std::size_t i = s.current().size(); i-- > 0;) {
      if (i + k > s.current().size()) continue;
      if (s.attempt(s.without(i, i + k))) any = true;
    }
  }
  return any;
}

// A call of a branch moved to the end of the sequential prefix: less concurrency to explain.
bool move_into_sequential_part(ShrinkState& s) {
  if (s.mark() == Source::kNoMark) return false;
  bool any = false;
  for (std::size_t i = 0; i < s.spans().size(); ++i) {
    const auto span = s.spans()[i];
    // Only a call past the prefix's end (the choice at s.mark() that ended it) can move in.
    if (span.begin <= s.mark() || span.end > s.current().size() || s.out_of_budget()) continue;
    std::vector<std::uint64_t> c(s.current().begin(), s.current().begin() + static_cast<std::ptrdiff_t>(s.mark()));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(span.begin),
             s.current().begin() + static_cast<std::ptrdiff_t>(span.end));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(s.mark()),
             s.current().begin() + static_cast<std::ptrdiff_t>(span.begin));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(span.end), s.current().end());
    if (s.attempt(c, s.mark() + (span.end - span.begin))) any = true;
  }
  return any;
}

// Puts commands in a canonical order (by their choices), so shrunk cases read alike.
bool swap_adjacent_spans(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = 0; i + 1 < s.spans().size(); ++i) {
    const auto a = s.spans()[i], b = s.spans()[i + 1];
    if (a.end != b.begin || b.end > s.current().size()) continue;
    std::vector<std::uint64_t> c(s.current().begin(), s.current().begin() + static_cast<std::ptrdiff_t>(a.begin));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(b.begin),
             s.current().begin() + static_cast<std::ptrdiff_t>(b.end));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(a.begin),
             s.current().begin() + static_cast<std::ptrdiff_t>(a.end));
    c.insert(c.end(), s.current().begin() + static_cast<std::ptrdiff_t>(b.end), s.current().end());
    if (s.attempt(c)) any = true;
  }
  return any;
}

// ---- The costlier passes: shrink() tries them only where the passes above are stuck. ----

// Runs of three to eight consecutive commands (delete_spans and delete_span_pairs take one
// or two): a detour that, taken out whole, leaves the rest of the case meaning the same.
bool delete_span_runs(ShrinkState& s) {
  bool any = false;
  for (std::size_t k = 3; k <= kMaxRun; ++k) {
    for (std::size_t i = s.spans().size(); i-- > 0;) {
      if (i + k > s.spans().size() || s.out_of_budget()) continue;
      const auto first = s.spans()[i], last = s.spans()[i + k - 1];
      if (last.end > s.current().size() || first.begin >= last.end) continue;
      if (s.attempt(s.without(first.begin, last.end))) any = true;
    }
  }
  return any;
}

// Deleting a command can re-aim a later choice upward: a choice among the commands the state
// offers (deleting a pop leaves the deque non-empty, and the menu the next command is chosen
// from changes), or a position counted from the front. Deletes each command with one of the
// next few choices raised a little.
bool delete_span_and_raise(ShrinkState& s) { return delete_span_and_shift(s, kRaiseWindow, {1, 2, 3}); }

}  // namespace duet::detail
