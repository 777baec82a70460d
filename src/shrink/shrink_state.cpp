#include "shrink/shrink_state.hpp"

#include <utility>

#include "engine/clock.hpp"

namespace duet::detail {
ShrinkState::ShrinkState(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
                         const ShrinkBudget& budget, std::size_t concurrent_start, OnAccept on_accept)
    : current_(std::move(choices)),
      spans_(std::move(spans)),
      mark_(concurrent_start),
      replay_(replay),
      on_accept_(std::move(on_accept)),
      budget_(budget),
      deadline_(coarse_now() + budget.max_time) {}

// Remembers which budget refused a replay: a pass cut short is not a fixed point. The clock
// is read once per replay run (the time goes there), not at every candidate a pass looks at
// or judges from memory.
bool ShrinkState::out_of_budget() const {
  if (stop_ != ShrinkStop::fixed_point) return true;
  if (tried_ >= budget_.max_tries) stop_ = ShrinkStop::step_budget;
  else if (replayed_ != clock_read_at_) {
    clock_read_at_ = replayed_;
    if (coarse_now() >= deadline_) stop_ = ShrinkStop::time_budget;
  }
  return stop_ != ShrinkStop::fixed_point;
}

// Replays the candidate; keeps it (as the choices it actually drew) if it still fails and
// is smaller than what we have.
bool ShrinkState::attempt(const std::vector<std::uint64_t>& candidate, std::size_t candidate_mark) {
  if (out_of_budget()) return false;
  if (!smaller(candidate, candidate_mark == Source::kNoMark ? mark_ : candidate_mark)) return false;
  ++tried_;
  // A candidate replayed before cannot be kept now (two in five of the ring buffer's were
  // such): it passed then, or what it drew was kept or refused then, and what is kept only
  // gets smaller. Counted as tried all the same, so that a step budget stops where it did.
  // Not for programs run in trials (on threads a replay may fail where it passed before).
  if (!replays_run_trials_ && !tried_before_.remember(candidate)) return false;
  ++replayed_;
  Replayed r = replay_(candidate);
  if (r.trials > 0) replays_run_trials_ = true;
  if (!r.fails || !smaller(r.consumed, r.concurrent_start)) return false;
  current_ = std::move(r.consumed);
  spans_ = std::move(r.spans);
  mark_ = r.concurrent_start;
  ++accepted_;
  if (on_accept_) on_accept_(current_, spans_, mark_);
  return true;
}

std::vector<std::uint64_t> ShrinkState::without(std::size_t begin, std::size_t end) const {
  std::vector<std::uint64_t> c;
  c.reserve(current_.size() - (end - begin));
  c.insert(c.end(), current_.begin(), current_.begin() + static_cast<std::ptrdiff_t>(begin));
  c.insert(c.end(), current_.begin() + static_cast<std::ptrdiff_t>(end), current_.end());
  return c;
}

ShrinkOutcome ShrinkState::outcome() const {
  ShrinkOutcome out;
  out.choices = current_;
  out.accepted = accepted_;
  out.tried = tried_;
  out.stop = stop_;
  return out;
}

}  // namespace duet::detail
