// The window of a history the timeline page shows when the whole would not fit its size: what
// each operation's row, lane and strings cost, and which operations are chosen around the stuck
// one.
#include <unordered_set>
#include <utility>

#include "report/timeline_window.hpp"

namespace duet::history::timeline {
namespace {

// What the page's data block costs so far, operation by operation: each row, the lane of each
// process first seen, each string first used.
struct WindowCost {
  const History& history;
  const Prepared& prepared;
  std::vector<char> used;                      // per string: already paid for
  std::unordered_set<std::int64_t> processes;  // lanes already paid for
  std::vector<char> paid;                      // per op: paid for first (the witness)
  std::size_t lane_size;
  std::size_t spent = 0;

  WindowCost(const History& h, const Prepared& p)
      : history(h),
        prepared(p),
        used(p.strings.size(), 0),
        paid(h.ops.size(), 0),
        // A process's lane entry: id (or its quoted form), first row, row count, three commas.
        lane_size(22 + 2 * digits(h.ops.size()) + 3) {}

  std::size_t cost(std::size_t i) const {
    std::size_t c = prepared.row_size[i];
    if (!processes.count(history.ops[i].process)) c += lane_size;
    if (!used[prepared.label[i]]) c += prepared.string_json_size[prepared.label[i]] + 1;
    if (prepared.state[i] >= 0 && !used[static_cast<std::size_t>(prepared.state[i])] &&
        prepared.state[i] != static_cast<std::int64_t>(prepared.label[i]))
      c += prepared.string_json_size[static_cast<std::size_t>(prepared.state[i])] + 1;
    return c;
  }

  // Pays for operation i if the total stays within limit; false when it would not.
  bool take(std::size_t i, std::size_t limit) {
    if (paid[i]) return true;
    const std::size_t c = cost(i);
    if (spent + c > limit) return false;
    spent += c;
    processes.insert(history.ops[i].process);
    used[prepared.label[i]] = 1;
    if (prepared.state[i] >= 0) used[static_cast<std::size_t>(prepared.state[i])] = 1;
    return true;
  }

  // The whole history's data block: every lane, row and string once.
  std::size_t total() const {
    std::size_t sum = prepared.processes * lane_size;
    std::vector<char> seen(prepared.strings.size(), 0);
    for (std::size_t i = 0; i < history.ops.size(); ++i) {
      sum += prepared.row_size[i];
      for (std::int64_t s : {static_cast<std::int64_t>(prepared.label[i]), prepared.state[i]})
        if (s >= 0 && !seen[static_cast<std::size_t>(s)]) {
          seen[static_cast<std::size_t>(s)] = 1;
          sum += prepared.string_json_size[static_cast<std::size_t>(s)] + 1;
        }
    }
    return sum;
  }
};

// The contiguous part of the window, [lo, hi) in invocation order, within budget: around the
// stuck operation, two operations before it for each after it (what was linearized before it is
// the explanation); from the beginning when nothing is stuck.
std::pair<std::size_t, std::size_t> contiguous_window(const Prepared& p, std::size_t n, WindowCost& window,
                                                      std::size_t budget) {
  std::size_t lo = 0, hi = 0;
  if (p.stuck) {
    lo = *p.stuck;
    hi = lo;
    if (window.take(hi, budget)) ++hi;
  }
  bool left = lo > 0, right = hi < n && hi > lo;
  if (!p.stuck) right = n > 0;
  for (unsigned turn = 0; left || right; ++turn) {
    if (left && (turn % 3 != 2 || !right)) {
      if (window.take(lo - 1, budget)) {
        --lo;
        left = lo > 0;
      } else left = false;
    } else if (right) {
      if (window.take(hi, budget)) {
        ++hi;
        right = hi < n;
      } else right = false;
    }
  }
  return {lo, hi};
}

}  // namespace

// Everything fits, or a window: contiguous in invocation order around the stuck operation (the
// beginning otherwise), then earlier operations still running inside the window (long or
// indeterminate ones), nearest first, since they are concurrent with what is shown.
Selection choose(const History& h, const Prepared& p, std::size_t budget) {
  const std::size_t n = h.ops.size();
  Selection sel;
  WindowCost window(h, p);
  if (window.total() <= budget) {
    sel.ops.resize(n);
    for (std::size_t i = 0; i < n; ++i) sel.ops[i] = i;
    return sel;
  }
  // The witness is the explanation: shown whatever the window (it is a few operations).
  for (std::size_t i = 0; i < p.in_witness.size(); ++i)
    if (p.in_witness[i] && window.take(i, budget)) window.paid[i] = 1;
  // Contiguous part: 90% of the budget.
  const auto contiguous = contiguous_window(p, n, window, budget / 10 * 9);
  const std::size_t lo = contiguous.first, hi = contiguous.second;
  std::vector<std::size_t> extra;
  if (hi > lo) {
    const std::uint64_t start = h.ops[lo].invoke;
    for (std::size_t i = lo; i-- > 0;) {
      const Operation& op = h.ops[i];
      if (op.response != Operation::kPending && op.response < start) continue;
      if (!window.take(i, budget)) break;
      extra.push_back(i);
    }
  }
  sel.ops.assign(extra.rbegin(), extra.rend());
  for (std::size_t i = lo; i < hi; ++i) sel.ops.push_back(i);
  const std::size_t window_ops = sel.ops.size();
  for (std::size_t i = 0; i < n; ++i)
    if (window.paid[i] && (i < lo || i >= hi) && std::find(extra.begin(), extra.end(), i) == extra.end())
      sel.ops.push_back(i);
  if (sel.ops.size() > window_ops) std::sort(sel.ops.begin(), sel.ops.end());
  const auto shown_before =
      static_cast<std::size_t>(std::count_if(sel.ops.begin(), sel.ops.end(), [&](std::size_t i) { return i < lo; }));
  const auto shown_after =
      static_cast<std::size_t>(std::count_if(sel.ops.begin(), sel.ops.end(), [&](std::size_t i) { return i >= hi; }));
  sel.before = lo - shown_before;
  sel.after = n - hi - shown_after;
  return sel;
}

}  // namespace duet::history::timeline
