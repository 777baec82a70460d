#include "duet/detail/shrink.hpp"

#include <algorithm>

namespace duet::detail {

bool shortlex_less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return a < b;
}

namespace {

class Shrinker {
 public:
  Shrinker(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
           const ShrinkBudget& budget, std::size_t concurrent_start)
      : current_(std::move(choices)), spans_(std::move(spans)), mark_(concurrent_start), replay_(replay), budget_(budget),
        deadline_(std::chrono::steady_clock::now() + budget.max_time) {}

  ShrinkOutcome run() {
    bool improved = true;
    while (improved && !out_of_budget()) {
      improved = false;
      improved |= delete_spans();
      improved |= delete_span_pairs();
      improved |= delete_span_and_adjust();
      improved |= delete_chunks();
      improved |= move_into_sequential_part();
      improved |= swap_adjacent_spans();
      improved |= lower_values();
      improved |= lower_and_delete();
      improved |= redistribute_pairs();
      improved |= zero_chunks();
    }
    ShrinkOutcome out;
    out.choices = current_;
    out.accepted = accepted_;
    out.tried = tried_;
    out.stop = stop_;
    return out;
  }

 private:
  // Remembers which budget refused a replay: a pass cut short is not a fixed point.
  bool out_of_budget() const {
    if (stop_ != ShrinkStop::fixed_point) return true;
    if (tried_ >= budget_.max_tries) stop_ = ShrinkStop::step_budget;
    else if (std::chrono::steady_clock::now() >= deadline_) stop_ = ShrinkStop::time_budget;
    return stop_ != ShrinkStop::fixed_point;
  }

  // Replays the candidate; keeps it (as the choices it actually drew) if it still fails and
  // is smaller than what we have.
  bool attempt(const std::vector<std::uint64_t>& candidate, std::size_t candidate_mark = Source::kNoMark) {
    if (out_of_budget()) return false;
    if (!smaller(candidate, candidate_mark == Source::kNoMark ? mark_ : candidate_mark)) return false;
    ++tried_;
    Replayed r = replay_(candidate);
    if (!r.fails || !smaller(r.consumed, r.concurrent_start)) return false;
    current_ = std::move(r.consumed);
    spans_ = std::move(r.spans);
    mark_ = r.concurrent_start;
    ++accepted_;
    return true;
  }

  // The order every accepted step decreases: length, then choices in the concurrent part,
  // then lexicographic. Well founded, so shrinking ends.
  bool smaller(const std::vector<std::uint64_t>& c, std::size_t c_mark) const {
    if (c.size() != current_.size()) return c.size() < current_.size();
    const std::size_t ours = mark_ == Source::kNoMark ? 0 : current_.size() - std::min(mark_, current_.size());
    const std::size_t theirs = c_mark == Source::kNoMark ? 0 : c.size() - std::min(c_mark, c.size());
    if (ours != theirs) return theirs < ours;
    return c < current_;
  }

  // A call of a branch moved to the end of the sequential prefix: less concurrency to explain.
  bool move_into_sequential_part() {
    if (mark_ == Source::kNoMark) return false;
    bool any = false;
    for (std::size_t i = 0; i < spans_.size(); ++i) {
      const auto span = spans_[i];
      // Only a call past the prefix's end (the choice at mark_ that ended it) can move in.
      if (span.begin <= mark_ || span.end > current_.size() || out_of_budget()) continue;
      std::vector<std::uint64_t> c(current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(mark_));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(span.begin),
               current_.begin() + static_cast<std::ptrdiff_t>(span.end));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(mark_),
               current_.begin() + static_cast<std::ptrdiff_t>(span.begin));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(span.end), current_.end());
      if (attempt(c, mark_ + (span.end - span.begin))) any = true;
    }
    return any;
  }

  std::vector<std::uint64_t> without(std::size_t begin, std::size_t end) const {
    std::vector<std::uint64_t> c;
    c.reserve(current_.size() - (end - begin));
    c.insert(c.end(), current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(begin));
    c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(end), current_.end());
    return c;
  }

  // Whole commands first: the largest and most meaningful deletions.
  bool delete_spans() {
    bool any = false;
    for (std::size_t i = spans_.size(); i-- > 0;) {
      if (i >= spans_.size()) continue;
      const auto s = spans_[i];
      if (s.end <= current_.size() && attempt(without(s.begin, s.end))) any = true;
    }
    return any;
  }

  // Pairs (an enqueue and its dequeue) that only make sense removed together.
  bool delete_span_pairs() {
    bool any = false;
    for (std::size_t i = spans_.size(); i-- > 0;) {
      for (std::size_t j = spans_.size(); j-- > i + 1;) {
        if (i >= spans_.size() || j >= spans_.size() || out_of_budget()) break;
        const auto a = spans_[i], b = spans_[j];
        if (b.end > current_.size() || a.end > b.begin) continue;
        std::vector<std::uint64_t> c(current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(a.begin));
        c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(a.end),
                 current_.begin() + static_cast<std::ptrdiff_t>(b.begin));
        c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(b.end), current_.end());
        if (attempt(c)) any = true;
      }
    }
    return any;
  }

  // Deleting a command can shift what a later choice refers to (a choice among live values
  // counted by position): delete it and lower one later choice by one, to keep pointing at the
  // same value.
  bool delete_span_and_adjust() {
    bool any = false;
    for (std::size_t i = spans_.size(); i-- > 0;) {
      if (i >= spans_.size()) continue;
      const auto span = spans_[i];
      if (span.end > current_.size()) continue;
      const auto base = without(span.begin, span.end);
      for (std::size_t j = span.begin; j < base.size() && j < span.begin + 48; ++j) {
        if (base[j] == 0 || out_of_budget()) continue;
        auto c = base;
        c[j] -= 1;
        if (attempt(c)) {
          any = true;
          break;
        }
      }
    }
    return any;
  }

  bool delete_chunks() {
    bool any = false;
    for (std::size_t k : {8, 4, 3, 2, 1}) {
      for (std::size_t i = current_.size(); i-- > 0;) {
        if (i + k > current_.size()) continue;
        if (attempt(without(i, i + k))) any = true;
      }
    }
    return any;
  }

  // Puts commands in a canonical order (by their choices), so shrunk cases read alike.
  bool swap_adjacent_spans() {
    bool any = false;
    for (std::size_t i = 0; i + 1 < spans_.size(); ++i) {
      const auto a = spans_[i], b = spans_[i + 1];
      if (a.end != b.begin || b.end > current_.size()) continue;
      std::vector<std::uint64_t> c(current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(a.begin));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(b.begin),
               current_.begin() + static_cast<std::ptrdiff_t>(b.end));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(a.begin),
               current_.begin() + static_cast<std::ptrdiff_t>(a.end));
      c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(b.end), current_.end());
      if (attempt(c)) any = true;
    }
    return any;
  }

  // Each value: straight to 0, else binary search for the smallest value that still fails.
  bool lower_values() {
    bool any = false;
    for (std::size_t i = 0; i < current_.size(); ++i) {
      if (current_[i] == 0) continue;
      auto c = current_;
      c[i] = 0;
      if (attempt(c)) {
        any = true;
        continue;
      }
      std::uint64_t lo = 0, hi = current_[i];  // lo passes, hi fails
      while (lo + 1 < hi && i < current_.size() && !out_of_budget()) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        c = current_;
        c[i] = mid;
        if (attempt(c)) {
          any = true;
          hi = i < current_.size() ? current_[i] : mid;
        } else {
          lo = mid;
        }
      }
    }
    return any;
  }

  // A count drawn before the things it counts (a length, a number of elements) can only go
  // down together with the things: decrement one value and delete a few choices after it.
  bool lower_and_delete() {
    bool any = false;
    for (std::size_t i = 0; i < current_.size(); ++i) {
      for (std::size_t k : {1, 2, 3, 4, 8}) {
        if (i >= current_.size() || current_[i] == 0 || i + 1 + k > current_.size()) break;
        auto c = without(i + 1, i + 1 + k);
        c[i] -= 1;
        if (attempt(c)) any = true;
      }
    }
    return any;
  }

  // Moves value from an earlier choice to a later one (b=1, d=0 becomes b=0, d=1): cases
  // that need two values to differ end with the difference as late as possible.
  bool redistribute_pairs() {
    if (current_.size() > 256) return false;
    bool any = false;
    for (std::size_t i = 0; i < current_.size(); ++i) {
      for (std::size_t j = i + 1; j < current_.size() && current_[i] != 0; ++j) {
        if (out_of_budget()) return any;
        if (current_[j] > ~std::uint64_t{0} - current_[i]) continue;
        auto c = current_;
        c[j] += c[i];
        c[i] = 0;
        if (attempt(c)) any = true;
      }
    }
    return any;
  }

  bool zero_chunks() {
    bool any = false;
    for (std::size_t k : {8, 4, 2}) {
      for (std::size_t i = 0; i + k <= current_.size(); ++i) {
        auto c = current_;
        bool nonzero = false;
        for (std::size_t j = i; j < i + k; ++j) {
          nonzero |= c[j] != 0;
          c[j] = 0;
        }
        if (nonzero && attempt(c)) any = true;
      }
    }
    return any;
  }

  std::vector<std::uint64_t> current_;
  std::vector<Source::Span> spans_;
  std::size_t mark_;
  const Replay& replay_;
  ShrinkBudget budget_;
  std::chrono::steady_clock::time_point deadline_;
  mutable ShrinkStop stop_ = ShrinkStop::fixed_point;
  std::uint64_t accepted_ = 0, tried_ = 0;
};

}  // namespace

ShrinkOutcome shrink(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
                     const ShrinkBudget& budget, std::size_t concurrent_start) {
  return Shrinker(std::move(choices), std::move(spans), replay, budget, concurrent_start).run();
}

}  // namespace duet::detail
