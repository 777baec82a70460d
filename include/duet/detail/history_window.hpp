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
  std::size_t heap_bytes(const State& s) const
    requires requires(const Oracle& o, const State& st) { o.heap_bytes(st); }
  {
    return base->heap_bytes(s);
  }
  std::size_t extra_bytes() const
    requires requires(const Oracle& o) { o.extra_bytes(); }
  {
    return base->extra_bytes();
  }
  std::uint64_t footprint(std::size_t i) const
    requires requires(const Oracle& o) { o.footprint(std::size_t{0}); }
  {
    return base->footprint(map[i]);
  }
  bool read_only(std::size_t i) const
    requires requires(const Oracle& o) { o.read_only(std::size_t{0}); }
  {
    return base->read_only(map[i]);
  }
  std::uint64_t part_hash(const State& s, std::uint64_t fp) const
    requires requires(const Oracle& o, const State& st) { o.part_hash(st, std::uint64_t{0}); }
  {
    return base->part_hash(s, fp);
  }
  bool part_equal(const State& a, const State& b, std::uint64_t fp) const
    requires requires(const Oracle& o, const State& st) { o.part_equal(st, st, std::uint64_t{0}); }
  {
    return base->part_equal(a, b, fp);
  }
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
bool reachable_states(const Oracle& oracle, const std::vector<std::size_t>& ops, typename Oracle::State from, std::size_t cap,
                      std::uint64_t max_applies, std::uint64_t& applies, std::vector<typename Oracle::State>& out) {
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

/// Shrinks a violation of `timed` under `oracle` to a failing window, spending at most
/// `allowance` search steps (and stopping at the budget's deadline), keeping the smallest
/// window that failed. `stuck`: the operation the search could not place (it usually belongs
/// to the window: cuts around it are tried first); `read_only`: per operation, completed and
/// never changes the state.
template <class Oracle>
FailingWindow<typename Oracle::State> failing_window(const std::vector<duet::detail::TimedOp>& timed, const Oracle& oracle,
                                                     const duet::detail::SearchBudget& budget, std::optional<std::size_t> stuck,
                                                     const std::vector<bool>& read_only, std::uint64_t allowance) {
  using duet::detail::SearchVerdict;
  using duet::detail::TimedOp;
  using State = typename Oracle::State;
  constexpr std::size_t kMaxSearches = 4000;
  constexpr std::size_t kMaxStartStates = 64;  // more: the states are collected stretch by stretch
  const std::size_t n = timed.size();
  std::uint64_t spent = 0;
  std::size_t searches = 0;

  auto budget_left = [&] {
    // (The searches check the caller's cancel flag only now and then; a small one would finish.)
    if (budget.cancel != nullptr && budget.cancel->load(std::memory_order_relaxed)) return false;
    return spent < allowance && searches < kMaxSearches && std::chrono::steady_clock::now() < budget.deadline;
  };
  auto search_budget = [&] {
    duet::detail::SearchBudget b = budget;
    b.max_nodes = std::min(budget.max_nodes, allowance - spent);
    b.group_cancel = nullptr;  // set by this very violation (the siblings stop; this goes on)
    // (shared_memory stays: siblings winding down still count against the one budget)
    return b;
  };

  // A window: the operations invoked by `end_time` that had not returned by `front` (when
  // there is one), less `dropped`. Open: completed ones that return after end_time, or were
  // invoked by `front`.
  struct Cut {
    std::uint64_t end_time = TimedOp::kPending;
    bool has_front = false;
    std::uint64_t front = 0;
  };
  auto in_window = [&](std::size_t k, const Cut& c) {
    if (timed[k].invoke > c.end_time) return false;
    return !c.has_front || timed[k].response == TimedOp::kPending || timed[k].response > c.front;
  };
  auto is_open = [&](std::size_t k, const Cut& c) {
    if (timed[k].response == TimedOp::kPending) return false;  // pending anyway
    return timed[k].response > c.end_time || (c.has_front && timed[k].invoke <= c.front);
  };
  WindowOracle<Oracle> window{&oracle, {}, oracle.initial()};
  std::vector<TimedOp> sub;
  auto build = [&](const Cut& c, const std::vector<bool>& dropped) {
    window.map.clear();
    sub.clear();
    for (std::size_t k = 0; k < n; ++k) {
      if (!in_window(k, c) || dropped[k]) continue;
      TimedOp t = timed[k];
      if (is_open(k, c)) t.response = TimedOp::kPending;
      window.map.push_back(k);
      sub.push_back(t);
    }
  };
  // Does the window have no linearization from any of `starts`?
  auto fails = [&](const Cut& c, const std::vector<bool>& dropped, const std::vector<State>& starts) {
    if (starts.empty() || !budget_left()) return false;
    build(c, dropped);
    spent += n;  // building it
    for (const State& s : starts) {
      if (!budget_left()) return false;
      ++searches;
      window.start = s;
      const duet::detail::SearchResult r = duet::detail::linearize(sub, window, duet::detail::Consistency::linearizable, search_budget());
      spent += std::max<std::uint64_t>(r.nodes, 1);
      if (r.verdict != SearchVerdict::violation) return false;
    }
    return true;
  };
  // The states a stretch of the history can end in, from any of `starts`: every end state of
  // its linearizations (operations still running at either end are open). False when they
  // could not all be collected within `limit` steps in all.
  auto states_after = [&](const Cut& stretch, const std::vector<State>& starts, std::uint64_t limit, std::vector<State>& out) {
    out.clear();
    build(stretch, std::vector<bool>(n, false));
    spent += n;
    duet::detail::EndStates<State> ends;
    for (const State& s : starts) {
      if (!budget_left() || spent >= limit) return false;
      ++searches;
      window.start = s;
      duet::detail::SearchBudget b = search_budget();
      b.max_nodes = std::min(b.max_nodes, limit - spent);
      const duet::detail::SearchResult r = duet::detail::linearize(sub, window, duet::detail::Consistency::linearizable, b, &ends);
      spent += std::max<std::uint64_t>(r.nodes, 1);
      if (r.verdict == SearchVerdict::unknown) return false;
    }
    out = std::move(ends.states);
    return !out.empty();
  };

  std::vector<bool> dropped(n, false);
  const std::vector<State> from_start{oracle.initial()};
  // Dropping read-only operations: first every one but the stuck operation (often the whole
  // answer, in one search per start state), then halves, quarters, ... (delta debugging).
  auto drop_read_only = [&](const Cut& c, const std::vector<State>& from) {
    std::vector<std::size_t> candidates;
    for (std::size_t k = 0; k < n; ++k)
      if (k < read_only.size() && read_only[k] && !dropped[k] && in_window(k, c)) candidates.push_back(k);
    if (stuck && candidates.size() > 1 && std::find(candidates.begin(), candidates.end(), *stuck) != candidates.end()) {
      for (std::size_t k : candidates) dropped[k] = k != *stuck;
      if (fails(c, dropped, from)) candidates = {*stuck};
      else
        for (std::size_t k : candidates) dropped[k] = false;
    }
    for (std::size_t chunk = candidates.size(); chunk >= 1 && !candidates.empty();) {
      for (std::size_t at = 0; at < candidates.size();) {
        const std::size_t to = std::min(candidates.size(), at + chunk);
        for (std::size_t x = at; x < to; ++x) dropped[candidates[x]] = true;
        if (fails(c, dropped, from)) {
          candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(at), candidates.begin() + static_cast<std::ptrdiff_t>(to));
        } else {
          for (std::size_t x = at; x < to; ++x) dropped[candidates[x]] = false;
          at = to;
        }
      }
      if (chunk == 1) break;
      chunk = (chunk + 1) / 2;
    }
  };
  // Cut times: the responses, in order.
  std::vector<std::uint64_t> times;
  for (const TimedOp& t : timed)
    if (t.response != TimedOp::kPending) times.push_back(t.response);
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());

  // The window `c` less `dropped`, starting in `start` (empty: the initial state).
  auto finish = [&](const Cut& c, std::vector<State> start) {
    FailingWindow<State> out;
    for (std::size_t k = 0; k < n; ++k) {
      if (!in_window(k, c) || dropped[k]) continue;
      out.ops.push_back(k);
      if (is_open(k, c)) out.open.push_back(k);
    }
    out.start = std::move(start);
    out.nodes = spent;
    out.out_of_budget = !budget_left() && out.ops.size() == n && out.open.empty() && out.start.empty();
    return out;
  };

  // 0. Where the search got stuck: that operation alone, then windows grown around it, each
  // starting in every state the operations that may precede it reach (when those are few). A
  // grown window is kept aside: the cuts below, with the states collected exactly, may find a
  // smaller one within what is left of the allowance.
  std::optional<FailingWindow<State>> grown;
  if (stuck && timed[*stuck].response != TimedOp::kPending) {
    const TimedOp& s = timed[*stuck];
    std::vector<State> states;
    // The operations invoked by `t` (but `except`), applied freely from the initial state.
    auto states_by = [&](std::uint64_t t, std::size_t except) {
      std::vector<std::size_t> before;
      for (std::size_t k = 0; k < n; ++k)
        if (k != except && timed[k].invoke <= t && !(k < read_only.size() && read_only[k])) before.push_back(k);
      spent += n;
      std::uint64_t applies = 0;
      const bool few = budget_left() && reachable_states(oracle, before, oracle.initial(), kMaxStartStates, allowance - spent, applies, states);
      spent += applies;
      return few;
    };
    std::vector<bool> all_but_stuck(n, true);
    all_but_stuck[*stuck] = false;
    bool few = states_by(s.response, *stuck);
    if (few && fails(Cut{s.response}, all_but_stuck, states)) {
      dropped = all_but_stuck;
      return finish(Cut{s.response}, std::move(states));
    }
    // Returns before the stuck operation began: [0, began); its own return: times[returned].
    const auto began = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), s.invoke) - times.begin());
    const auto returned = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), s.response) - times.begin());
    for (std::size_t j = 1; few && budget_left(); j *= 2) {
      Cut c{times[std::min(times.size() - 1, returned + j - 1)]};
      if (began >= j) {
        c.has_front = true;
        c.front = times[began - j];
        if (!states_by(c.front, n)) break;
      }
      if (fails(c, dropped, c.has_front ? states : from_start)) {
        std::vector<State> start = c.has_front ? states : std::vector<State>{};
        drop_read_only(c, c.has_front ? states : from_start);
        grown = finish(c, std::move(start));
        std::fill(dropped.begin(), dropped.end(), false);
        break;
      }
      if (!c.has_front && returned + j >= times.size()) break;  // the whole history, and no failure
    }
  }

  // 1. The earliest end that still fails (times.size(): no cut). The stuck operation's return
  // first: the other searches then run on windows no longer than that one.
  Cut cut;
  {
    std::size_t lo = 0, hi = times.size();
    if (stuck && timed[*stuck].response != TimedOp::kPending) {
      const auto at = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), timed[*stuck].response) - times.begin());
      if (fails(Cut{times[at]}, dropped, from_start)) hi = at;
      else lo = at + 1;
    }
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      if (fails(Cut{times[mid]}, dropped, from_start)) hi = mid;
      else lo = mid + 1;
    }
    if (hi < times.size()) cut.end_time = times[hi];
  }

  // 2. Read-only operations dropped, from the start (cheap, and every later search is shorter).
  drop_read_only(cut, from_start);

  // 3. The latest front that still fails, from every state the operations before it can
  // leave. Those states are collected stretch by stretch (fronts every few returns): the
  // states at the first front from the initial state, at each next one from the states at the
  // one before. Any linearization of the history passes each front in one of them (an
  // operation running across a front is open on both sides, so the collection may hold more
  // states than the history can reach, never fewer). Half of what is left is spent on this at
  // most; fronts beyond it are not tried. Then a binary search over the fronts, the last one
  // before the stuck operation began first (the window then holds that operation whole). The
  // reads dropped stay dropped: a window less read-only operations is a relaxation of it.
  std::vector<State> starts = from_start;
  {
    // Short stretches on short histories (more fronts to try), at most 16 returns on long ones.
    const std::size_t stretch_returns = std::clamp<std::size_t>(times.size() / 64, 2, 16);
    std::vector<std::uint64_t> fronts;
    std::vector<std::vector<State>> states_at;
    std::size_t since = 0;
    const std::uint64_t limit = spent + (allowance > spent ? (allowance - spent) / 2 : 0);
    std::vector<State> found;
    for (std::uint64_t t : times) {
      if (t >= cut.end_time) break;
      if (++since < stretch_returns) continue;
      since = 0;
      const Cut stretch{t, !fronts.empty(), fronts.empty() ? 0 : fronts.back()};
      if (!states_after(stretch, states_at.empty() ? from_start : states_at.back(), limit, found)) break;
      fronts.push_back(t);
      states_at.push_back(found);
    }
    auto try_front = [&](std::size_t i) {
      Cut c = cut;
      c.has_front = true;
      c.front = fronts[i];
      if (!fails(c, dropped, states_at[i])) return false;
      cut = c;
      starts = states_at[i];
      return true;
    };
    // Fronts [0, lo) are known to fail (or below the best), [hi, size) not to.
    std::size_t lo = 0, hi = fronts.size();
    if (stuck && !fronts.empty()) {
      const auto at = static_cast<std::size_t>(std::lower_bound(fronts.begin(), fronts.end(), timed[*stuck].invoke) - fronts.begin());
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

  // 4. From the front's states, more reads may go.
  if (cut.has_front) drop_read_only(cut, starts);
  FailingWindow<State> cuts = finish(cut, cut.has_front ? std::move(starts) : std::vector<State>{});
  if (grown && grown->ops.size() <= cuts.ops.size()) {
    grown->nodes = spent;
    return std::move(*grown);
  }
  return cuts;
}

}  // namespace duet::history::detail
