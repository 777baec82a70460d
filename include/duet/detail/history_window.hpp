// The failing window of a violation the search found: the history shrunk, as Elle shrinks its
// witnesses, to operations that on their own still have no linearization. Only relaxations are
// tried (steps that cannot make a linearizable history fail), so that the window's violation
// is the history's own and not one made by the cutting:
//
//  - the end is cut at a time t: operations invoked after t go, and those still running at t
//    are taken as open (they may have taken effect, with the result they recorded, or not at
//    all). Any linearization of the history, cut at t, is one of that window. Failing is
//    monotone in t, so a binary search finds the earliest t;
//  - the front is cut at a time t0: operations that returned by t0 go, those still running at
//    t0 are open, and the window starts in any state the operations before it can leave (the
//    search collects those states, every end state of the history before t0, stretch by
//    stretch). Any linearization of the history passes t0 in one of them;
//  - operations that never change the state (reads, failed compare-and-sets: the oracle's
//    read_only hint) are dropped. Removing them from a linearization leaves a linearization.
//
// Dropping anything else (a write) could make the rest fail for a reason of the cutting's own
// (a read of the value nobody writes any more), so it is never tried. Each candidate window is
// searched anew, from each start state, within a step allowance: a search that runs out says
// nothing, and that cut is not taken.
//
// The window is first sought where the search got stuck, and grown outward from there: the
// stuck operation alone, then fronts and ends a doubling number of returns away from it. The
// states such a window starts in are every state the operations that may precede its front
// reach, applied in any order and any number of times (a superset of what any linearization
// passes; cheap where a model's states are few, as a register's). The stuck operation alone
// fails from every state the operations that may precede it can leave, when no state admits
// it: any linearization places it in one of them. Only where those states are too many (a
// counter, a queue) are they collected stretch by stretch from the start instead, and the end
// found by binary search, as described above.
//
// Every search, and every window built, counts against one allowance of steps (a window's
// operations count as steps too: building it is not free): a window costs a small multiple of
// the search it explains, or there is none (FailingWindow::out_of_budget).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

#include "duet/detail/search.hpp"

namespace duet::history::detail {

/// The part's oracle seen through a window: the window's operations by position, and a start
/// state of the window's own.
template <class Oracle>
struct WindowOracle {
  using State = typename Oracle::State;
  static constexpr bool memo = Oracle::memo;
  const Oracle* base = nullptr;
  std::vector<std::size_t> map;  // window operation -> the part's
  State start;

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const { return base->apply(s, map[i]); }
  std::uint64_t hash(const State& s) const { return base->hash(s); }
  bool equal(const State& a, const State& b) const { return base->equal(a, b); }
  std::size_t heap_bytes(const State& s) const requires requires(const Oracle& o, const State& st) { o.heap_bytes(st); }
  { return base->heap_bytes(s); }
  std::size_t extra_bytes() const requires requires(const Oracle& o) { o.extra_bytes(); }
  { return base->extra_bytes(); }
  std::uint64_t footprint(std::size_t i) const requires requires(const Oracle& o) { o.footprint(std::size_t{0}); }
  { return base->footprint(map[i]); }
  bool read_only(std::size_t i) const requires requires(const Oracle& o) { o.read_only(std::size_t{0}); }
  { return base->read_only(map[i]); }
  std::uint64_t part_hash(const State& s, std::uint64_t fp) const requires requires(const Oracle& o, const State& st) {
    o.part_hash(st, std::uint64_t{0});
  }
  { return base->part_hash(s, fp); }
  bool part_equal(const State& a, const State& b, std::uint64_t fp) const requires
      requires(const Oracle& o, const State& st) {
    o.part_equal(st, st, std::uint64_t{0});
  }
  { return base->part_equal(a, b, fp); }
};

/// A failing window, in the part's operation indices.
template <class State>
struct FailingWindow {
  std::vector<std::size_t> ops;   // the window's operations, in the part's order
  std::vector<std::size_t> open;  // those taken as open (still running where a cut falls)
  /// The window fails from each of these; empty: from the history's initial state (the front
  /// was not cut).
  std::vector<State> start;
  std::uint64_t nodes = 0;
  /// the allowance ran out before any window smaller than the history failed
  bool out_of_budget = false;
};

/// Every state the operations `ops` lead to from `from`, each applied in any order and any
/// number of times, where it applies: a superset of the states any linearization of a subset of
/// them can end in. False when there are more than `cap` of them, or `max_applies` is reached
/// (`applies` counts the applications).
template <class Oracle>
bool reachable_states(const Oracle& oracle, const std::vector<std::size_t>& ops, typename Oracle::State from,
                      std::size_t cap, std::uint64_t max_applies, std::uint64_t& applies,
                      std::vector<typename Oracle::State>& out) {
  using State = typename Oracle::State;
  out.clear();
  out.push_back(std::move(from));
  for (std::size_t next = 0; next < out.size(); ++next) {
    for (std::size_t k : ops) {
      if (applies >= max_applies) return false;
      ++applies;
      State s = out[next];
      if (!oracle.apply(s, k)) continue;
      bool known = false;
      for (const State& t : out) known = known || oracle.equal(s, t);
      if (known) continue;
      if (out.size() >= cap) return false;
      out.push_back(std::move(s));
    }
  }
  return true;
}

/// A candidate window: the operations invoked by `end_time` that had not returned by `front`
/// (when there is one). Open: completed ones that return after end_time, or were invoked by
/// `front`.
struct WindowCut {
  std::uint64_t end_time = duet::detail::TimedOp::kPending;
  bool has_front = false;
  std::uint64_t front = 0;

  bool contains(const duet::detail::TimedOp& op) const {
    if (op.invoke > end_time) return false;
    return !has_front || op.response == duet::detail::TimedOp::kPending || op.response > front;
  }
  bool open(const duet::detail::TimedOp& op) const {
    if (op.response == duet::detail::TimedOp::kPending) return false;  // pending anyway
    return op.response > end_time || (has_front && op.invoke <= front);
  }
};

/// The times a cut may fall at: the responses, in order, each once.
inline std::vector<std::uint64_t> cut_times(const std::vector<duet::detail::TimedOp>& timed) {
  std::vector<std::uint64_t> times;
  for (const duet::detail::TimedOp& t : timed)
    if (t.response != duet::detail::TimedOp::kPending) times.push_back(t.response);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  return times;
}

/// The first of the sorted `times` at or after `t`.
inline std::size_t first_at_or_after(const std::vector<std::uint64_t>& times, std::uint64_t t) {
  return static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
}

/// The work of failing_window (below): its allowance, the candidate windows it builds and
/// searches, and its steps, each a method: around the stuck operation (0), the earliest end
/// (1), read-only operations dropped (2), the latest front (3).
// One class: the four steps read and narrow one window (its cut, the reads dropped, the states
// collected) under one allowance; split, each part would take all of them by reference.
template <class Oracle>
class WindowShrinker {
 public:
  using State = typename Oracle::State;
  using TimedOp = duet::detail::TimedOp;

  WindowShrinker(const std::vector<TimedOp>& timed, const Oracle& oracle, const duet::detail::SearchBudget& budget,
                 std::optional<std::size_t> stuck, const std::vector<bool>& read_only, std::uint64_t allowance)
      : timed_(timed),
        oracle_(oracle),
        budget_(budget),
        stuck_(stuck),
        read_only_(read_only),
        allowance_(allowance),
        n_(timed.size()),
        window_{&oracle, {}, oracle.initial()},
        dropped_(timed.size(), false),
        from_start_{oracle.initial()},
        times_(cut_times(timed)) {}

  FailingWindow<State> run() {
    // 0. Where the search got stuck: that operation alone, then windows grown around it, each
    // starting in every state the operations that may precede it reach (when those are few). A
    // grown window is kept aside: the cuts below, with the states collected exactly, may find
    // a smaller one within what is left of the allowance.
    std::optional<FailingWindow<State>> grown;
    if (stuck_ && timed_[*stuck_].response != TimedOp::kPending) {
      std::vector<State> states;
      if (states_by(timed_[*stuck_].response, *stuck_, states)) {
        if (std::optional<FailingWindow<State>> alone = stuck_alone(states)) return std::move(*alone);
        grown = grow_around_stuck(states);
      }
    }
    WindowCut cut = earliest_end();
    // 2. Read-only operations dropped, from the start (cheap, and every later search is shorter).
    drop_read_only(cut, from_start_);
    std::vector<State> starts = from_start_;
    latest_front(cut, starts);
    // 4. From the front's states, more reads may go.
    if (cut.has_front) drop_read_only(cut, starts);
    FailingWindow<State> cuts = finish(cut, cut.has_front ? std::move(starts) : std::vector<State>{});
    if (grown && grown->ops.size() <= cuts.ops.size()) {
      grown->nodes = spent_;
      return std::move(*grown);
    }
    return cuts;
  }

 private:
  static constexpr std::size_t kMaxSearches = 4000;
  static constexpr std::size_t kMaxStartStates = 64;  // more: the states are collected stretch by stretch

  bool budget_left() const {
    // (The searches check the caller's cancel flag only now and then; a small one would finish.)
    if (budget_.cancel != nullptr && budget_.cancel->load(std::memory_order_relaxed)) return false;
    return spent_ < allowance_ && searches_ < kMaxSearches && std::chrono::steady_clock::now() < budget_.deadline;
  }
  duet::detail::SearchBudget search_budget() const {
    duet::detail::SearchBudget b = budget_;
    b.max_nodes = std::min(budget_.max_nodes, allowance_ - spent_);
    b.group_cancel = nullptr;  // set by this very violation (the siblings stop; this goes on)
    // (shared_memory stays: siblings winding down still count against the one budget)
    return b;
  }
  bool is_read_only(std::size_t k) const { return k < read_only_.size() && read_only_[k]; }

  // The window `cut` less `dropped`, into window_ and sub_.
  void build(const WindowCut& cut, const std::vector<bool>& dropped) {
    window_.map.clear();
    sub_.clear();
    for (std::size_t k = 0; k < n_; ++k) {
      if (!cut.contains(timed_[k]) || dropped[k]) continue;
      TimedOp t = timed_[k];
      if (cut.open(timed_[k])) t.response = TimedOp::kPending;
      window_.map.push_back(k);
      sub_.push_back(t);
    }
  }

  // Does the window have no linearization from any of `starts`?
  bool fails(const WindowCut& cut, const std::vector<bool>& dropped, const std::vector<State>& starts) {
    if (starts.empty() || !budget_left()) return false;
    build(cut, dropped);
    spent_ += n_;  // building it
    for (const State& s : starts) {
      if (!budget_left()) return false;
      ++searches_;
      window_.start = s;
      const duet::detail::SearchResult r =
          duet::detail::linearize(sub_, window_, duet::detail::Consistency::linearizable, search_budget());
      spent_ += std::max<std::uint64_t>(r.nodes, 1);
      if (r.verdict != duet::detail::SearchVerdict::violation) return false;
    }
    return true;
  }

  // The states a stretch of the history can end in, from any of `starts`: every end state of
  // its linearizations (operations still running at either end are open). False when they
  // could not all be collected within `limit` steps in all.
  bool states_after(const WindowCut& stretch, const std::vector<State>& starts, std::uint64_t limit,
                    std::vector<State>& out) {
    out.clear();
    build(stretch, std::vector<bool>(n_, false));
    spent_ += n_;
    duet::detail::EndStates<State> ends;
    for (const State& s : starts) {
      if (!budget_left() || spent_ >= limit) return false;
      ++searches_;
      window_.start = s;
      duet::detail::SearchBudget b = search_budget();
      b.max_nodes = std::min(b.max_nodes, limit - spent_);
      const duet::detail::SearchResult r =
          duet::detail::linearize(sub_, window_, duet::detail::Consistency::linearizable, b, &ends);
      spent_ += std::max<std::uint64_t>(r.nodes, 1);
      if (r.verdict == duet::detail::SearchVerdict::unknown) return false;
    }
    out = std::move(ends.states);
    return !out.empty();
  }

  // The read-only operations of `cut` that may still go.
  std::vector<std::size_t> read_only_candidates(const WindowCut& cut) const {
    std::vector<std::size_t> candidates;
    for (std::size_t k = 0; k < n_; ++k)
      if (is_read_only(k) && !dropped_[k] && cut.contains(timed_[k])) candidates.push_back(k);
    return candidates;
  }

  // Dropping read-only operations: first every one but the stuck operation (often the whole
  // answer, in one search per start state), then halves, quarters, ... (delta debugging).
  void drop_read_only(const WindowCut& cut, const std::vector<State>& from) {
    std::vector<std::size_t> candidates = read_only_candidates(cut);
    if (stuck_ && candidates.size() > 1 && std::find(candidates.begin(), candidates.end(), *stuck_) != candidates.end()) {
      for (std::size_t k : candidates) dropped_[k] = k != *stuck_;
      if (fails(cut, dropped_, from)) candidates = {*stuck_};
      else
        for (std::size_t k : candidates) dropped_[k] = false;
    }
    for (std::size_t chunk = candidates.size(); chunk >= 1 && !candidates.empty();) {
      for (std::size_t at = 0; at < candidates.size();) {
        const std::size_t to = std::min(candidates.size(), at + chunk);
        for (std::size_t x = at; x < to; ++x) dropped_[candidates[x]] = true;
        if (fails(cut, dropped_, from)) {
          candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(at),
                           candidates.begin() + static_cast<std::ptrdiff_t>(to));
        } else {
          for (std::size_t x = at; x < to; ++x) dropped_[candidates[x]] = false;
          at = to;
        }
      }
      if (chunk == 1) break;
      chunk = (chunk + 1) / 2;
    }
  }

  // The window `cut` less dropped_, starting in `start` (empty: the initial state).
  FailingWindow<State> finish(const WindowCut& cut, std::vector<State> start) const {
    FailingWindow<State> out;
    for (std::size_t k = 0; k < n_; ++k) {
      if (!cut.contains(timed_[k]) || dropped_[k]) continue;
      out.ops.push_back(k);
      if (cut.open(timed_[k])) out.open.push_back(k);
    }
    out.start = std::move(start);
    out.nodes = spent_;
    out.out_of_budget = !budget_left() && out.ops.size() == n_ && out.open.empty() && out.start.empty();
    return out;
  }

  // The operations invoked by `t` (but `except`), applied freely from the initial state, into
  // `states`: false when they are too many (or the allowance ran out).
  bool states_by(std::uint64_t t, std::size_t except, std::vector<State>& states) {
    std::vector<std::size_t> before;
    for (std::size_t k = 0; k < n_; ++k)
      if (k != except && timed_[k].invoke <= t && !is_read_only(k)) before.push_back(k);
    spent_ += n_;
    std::uint64_t applies = 0;
    const bool few = budget_left() && reachable_states(oracle_, before, oracle_.initial(), kMaxStartStates,
                                                       allowance_ - spent_, applies, states);
    spent_ += applies;
    return few;
  }

  // 0, alone: the stuck operation fails from every state those before it can leave.
  std::optional<FailingWindow<State>> stuck_alone(std::vector<State>& states) {
    const WindowCut cut{timed_[*stuck_].response};
    std::vector<bool> all_but_stuck(n_, true);
    all_but_stuck[*stuck_] = false;
    if (!fails(cut, all_but_stuck, states)) return std::nullopt;
    dropped_ = all_but_stuck;
    return finish(cut, std::move(states));
  }

  // 0, grown: fronts and ends a doubling number of returns away from the stuck operation.
  std::optional<FailingWindow<State>> grow_around_stuck(std::vector<State>& states) {
    const TimedOp& s = timed_[*stuck_];
    // Returns before the stuck operation began: [0, began); its own return: times_[returned].
    const std::size_t began = first_at_or_after(times_, s.invoke), returned = first_at_or_after(times_, s.response);
    for (std::size_t j = 1; budget_left(); j *= 2) {
      WindowCut cut{times_[std::min(times_.size() - 1, returned + j - 1)]};
      if (began >= j) {
        cut.has_front = true;
        cut.front = times_[began - j];
        if (!states_by(cut.front, n_, states)) break;
      }
      if (fails(cut, dropped_, cut.has_front ? states : from_start_)) {
        std::vector<State> start = cut.has_front ? states : std::vector<State>{};
        drop_read_only(cut, cut.has_front ? states : from_start_);
        FailingWindow<State> grown = finish(cut, std::move(start));
        std::fill(dropped_.begin(), dropped_.end(), false);
        return grown;
      }
      if (!cut.has_front && returned + j >= times_.size()) break;  // the whole history, and no failure
    }
    return std::nullopt;
  }

  // 1. The earliest end that still fails (times_.size(): no cut). The stuck operation's return
  // first: the other searches then run on windows no longer than that one.
  WindowCut earliest_end() {
    std::size_t lo = 0, hi = times_.size();
    if (stuck_ && timed_[*stuck_].response != TimedOp::kPending) {
      const std::size_t at = first_at_or_after(times_, timed_[*stuck_].response);
      if (fails(WindowCut{times_[at]}, dropped_, from_start_)) hi = at;
      else lo = at + 1;
    }
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (fails(WindowCut{times_[mid]}, dropped_, from_start_)) hi = mid;
      else lo = mid + 1;
    }
    WindowCut cut;
    if (hi < times_.size()) cut.end_time = times_[hi];
    return cut;
  }

  // The fronts to try before `cut`'s end, every few returns, with the states the history can
  // be in at each: at the first from the initial state, at each next one from the states at
  // the one before. Half of what is left of the allowance at most; fronts beyond it are not
  // tried.
  void collect_fronts(const WindowCut& cut, std::vector<std::uint64_t>& fronts, std::vector<std::vector<State>>& states_at) {
    // Short stretches on short histories (more fronts to try), at most 16 returns on long ones.
    const std::size_t stretch_returns = std::clamp<std::size_t>(times_.size() / 64, 2, 16);
    std::size_t since = 0;
    const std::uint64_t limit = spent_ + (allowance_ > spent_ ? (allowance_ - spent_) / 2 : 0);
    std::vector<State> found;
    for (std::uint64_t t : times_) {
      if (t >= cut.end_time) break;
      if (++since < stretch_returns) continue;
      since = 0;
      const WindowCut stretch{t, !fronts.empty(), fronts.empty() ? 0 : fronts.back()};
      if (!states_after(stretch, states_at.empty() ? from_start_ : states_at.back(), limit, found)) break;
      fronts.push_back(t);
      states_at.push_back(found);
    }
  }

  // 3. The latest front that still fails, from every state the operations before it can leave
  // (any linearization of the history passes each front in one of them: an operation running
  // across a front is open on both sides, so the collection may hold more states than the
  // history can reach, never fewer). A binary search over the fronts, the last one before the
  // stuck operation began first (the window then holds that operation whole). The reads
  // dropped stay dropped: a window less read-only operations is a relaxation of it.
  void latest_front(WindowCut& cut, std::vector<State>& starts) {
    std::vector<std::uint64_t> fronts;
    std::vector<std::vector<State>> states_at;
    collect_fronts(cut, fronts, states_at);
    auto try_front = [&](std::size_t i) {
      WindowCut c = cut;
      c.has_front = true;
      c.front = fronts[i];
      if (!fails(c, dropped_, states_at[i])) return false;
      cut = c;
      starts = states_at[i];
      return true;
    };
    // Fronts [0, lo) are known to fail (or below the best), [hi, size) not to.
    std::size_t lo = 0, hi = fronts.size();
    if (stuck_ && !fronts.empty()) {
      const std::size_t at = first_at_or_after(fronts, timed_[*stuck_].invoke);
      if (at > 0) {
        if (try_front(at - 1)) lo = at;
        else hi = at - 1;
      }
    }
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (try_front(mid)) lo = mid + 1;
      else hi = mid;
    }
  }

  const std::vector<TimedOp>& timed_;
  const Oracle& oracle_;
  const duet::detail::SearchBudget& budget_;
  const std::optional<std::size_t> stuck_;
  const std::vector<bool>& read_only_;  // per operation: completed and never changes the state
  const std::uint64_t allowance_;
  const std::size_t n_;
  std::uint64_t spent_ = 0;
  std::size_t searches_ = 0;
  WindowOracle<Oracle> window_;  // the candidate window being searched
  std::vector<TimedOp> sub_;     // ... and its operations' times
  std::vector<bool> dropped_;    // read-only operations dropped so far
  const std::vector<State> from_start_;
  const std::vector<std::uint64_t> times_;  // where cuts may fall
};

/// Shrinks a violation of `timed` under `oracle` to a failing window, spending at most
/// `allowance` search steps (and stopping at the budget's deadline), keeping the smallest
/// window that failed. `stuck`: the operation the search could not place (it usually belongs
/// to the window: cuts around it are tried first); `read_only`: per operation, completed and
/// never changes the state.
template <class Oracle>
FailingWindow<typename Oracle::State> failing_window(const std::vector<duet::detail::TimedOp>& timed, const Oracle& oracle,
                                                     const duet::detail::SearchBudget& budget,
                                                     std::optional<std::size_t> stuck, const std::vector<bool>& read_only,
                                                     std::uint64_t allowance) {
  return WindowShrinker<Oracle>(timed, oracle, budget, stuck, read_only, allowance).run();
}

}  // namespace duet::history::detail
