// The failing window of a violation the search found: the history shrunk, as Elle shrinks its
// witnesses, to operations that on their own still have no linearization. Only relaxations are
// tried, so that the window's violation is the history's and not one made by the cutting:
//
//  - cut the end at a time t: drop every operation invoked after t, and take the ones still
//    running at t as never returned (they may or may not have taken effect). Any linearization
//    of the history, cut at t, is one of that window, so a window that has none proves the
//    history has none. Failing is monotone in t, so a binary search finds the earliest cut;
//  - drop operations that never change the state (reads, failed compare-and-sets: the model's
//    read-only hint). Removing them from a linearization leaves a linearization.
//
// Dropping anything else (a write) could make the rest fail for a reason of the cutting's own
// (a read of the value nobody writes any more), so it is never tried. Every candidate window
// is re-checked by the model itself, decisions included, within a step allowance: a re-check
// that runs out says nothing, and that cut is not taken.
#include <algorithm>

#include "model.hpp"

namespace duet::history::detail {

namespace {

class WindowSearch {
 public:
  WindowSearch(const History& h, const Model& model, const std::vector<std::size_t>& part, const std::optional<Value>& init,
               const SearchBudget& budget, std::uint64_t allowance)
      : h_(h), model_(model), part_(part), init_(init), budget_(budget), allowance_(allowance) {
    window_.source = h.source;
    window_.format = h.format;
    window_.default_model = h.default_model;
    window_.default_init = h.default_init;
    window_.model_line = h.model_line;
  }

  // Does the window of part_ ops [0, end), less `dropped`, cut at `cut`, have no linearization?
  bool fails(std::size_t end, std::uint64_t cut, const std::vector<bool>& dropped) {
    if (spent_ >= allowance_ || rechecks_ >= kMaxRechecks || std::chrono::steady_clock::now() >= budget_.deadline) return false;
    ++rechecks_;
    window_.ops.clear();
    for (std::size_t k = 0; k < end; ++k) {
      if (dropped[k]) continue;
      Operation op = h_.ops[part_[k]];
      if (op.outcome != Outcome::info && op.response > cut) open(op);
      window_.ops.push_back(std::move(op));
    }
    std::vector<std::size_t> all(window_.ops.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    SearchBudget b = budget_;
    b.max_nodes = std::min(budget_.max_nodes, allowance_ - spent_);
    b.group_cancel = nullptr;
    b.shared_memory = nullptr;
    try {
      const PartOutcome o = model_.check(window_, all, PartCheck{b, false, init_});
      spent_ += std::max<std::uint64_t>(o.search.nodes, 1);
      return o.search.verdict == SearchVerdict::violation;
    } catch (const std::exception&) {
      return false;  // a window the model cannot read (it read the whole part): not a window
    }
  }

  static void open(Operation& op) {
    op.outcome = Outcome::info;
    op.output = Value::nil();
    op.result_unknown = false;
    op.response = Operation::kPending;
    op.response_line = 0;
  }

  std::uint64_t spent() const { return spent_; }

 private:
  static constexpr std::size_t kMaxRechecks = 4000;
  const History& h_;
  const Model& model_;
  const std::vector<std::size_t>& part_;
  const std::optional<Value>& init_;
  const SearchBudget& budget_;
  std::uint64_t allowance_;
  std::uint64_t spent_ = 0;
  std::size_t rechecks_ = 0;
  History window_;
};

}  // namespace

FailingWindow failing_window(const History& h, const Model& model, const std::vector<std::size_t>& part,
                             const std::vector<bool>& read_only, std::optional<std::size_t> stuck, const std::optional<Value>& init,
                             const SearchBudget& budget, std::uint64_t allowance) {
  FailingWindow out;
  WindowSearch search(h, model, part, init, budget, allowance);
  const std::size_t n = part.size();
  std::vector<bool> dropped(n, false);

  // The earliest cut: candidate times are the responses, in order. part_ is in invocation
  // order, so a cut keeps a prefix of it.
  std::vector<std::uint64_t> cuts;
  for (std::size_t i : part)
    if (h.ops[i].outcome != Outcome::info) cuts.push_back(h.ops[i].response);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  auto end_of = [&](std::uint64_t cut) {
    std::size_t end = 0;
    while (end < n && h.ops[part[end]].invoke <= cut) ++end;
    return end;
  };
  // cuts.size(): no cut (the whole part, which the search found failing). The stuck operation
  // (the first to return of those the search could not place) is where the violation most
  // likely shows: its return is the first cut tried, so that the other re-checks run on
  // windows no longer than that one.
  std::size_t lo = 0, hi = cuts.size();
  std::optional<std::size_t> stuck_local;
  for (std::size_t k = 0; stuck && k < n; ++k)
    if (part[k] == *stuck) stuck_local = k;
  if (stuck_local && h.ops[*stuck].outcome != Outcome::info) {
    const std::size_t at = static_cast<std::size_t>(std::lower_bound(cuts.begin(), cuts.end(), h.ops[*stuck].response) - cuts.begin());
    if (search.fails(end_of(cuts[at]), cuts[at], dropped)) hi = at;
    else lo = at + 1;
  }
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (search.fails(end_of(cuts[mid]), cuts[mid], dropped)) hi = mid;
    else lo = mid + 1;
  }
  const std::uint64_t cut = hi < cuts.size() ? cuts[hi] : Operation::kPending;
  const std::size_t end = hi < cuts.size() ? end_of(cut) : n;

  // Drop read-only operations, halves first, then quarters, ... (delta debugging): a read that
  // matters stays, and a window of a few reads costs a few re-checks per read kept.
  std::vector<std::size_t> candidates;
  for (std::size_t k = 0; k < end; ++k)
    if (k < read_only.size() && read_only[k]) candidates.push_back(k);
  // First, every one but the stuck operation: often the whole answer, in one re-check.
  if (stuck_local && *stuck_local < end && candidates.size() > 1 &&
      std::find(candidates.begin(), candidates.end(), *stuck_local) != candidates.end()) {
    for (std::size_t k : candidates) dropped[k] = k != *stuck_local;
    if (search.fails(end, cut, dropped)) candidates = {*stuck_local};
    else std::fill(dropped.begin(), dropped.end(), false);
  }
  for (std::size_t chunk = candidates.size(); chunk >= 1 && !candidates.empty();) {
    for (std::size_t from = 0; from < candidates.size();) {
      const std::size_t to = std::min(candidates.size(), from + chunk);
      for (std::size_t c = from; c < to; ++c) dropped[candidates[c]] = true;
      if (search.fails(end, cut, dropped)) {
        candidates.erase(candidates.begin() + static_cast<std::ptrdiff_t>(from), candidates.begin() + static_cast<std::ptrdiff_t>(to));
      } else {
        for (std::size_t c = from; c < to; ++c) dropped[candidates[c]] = false;
        from = to;
      }
    }
    if (chunk == 1) break;
    chunk = (chunk + 1) / 2;
  }

  for (std::size_t k = 0; k < end; ++k) {
    if (dropped[k]) continue;
    out.ops.push_back(part[k]);
    const Operation& op = h.ops[part[k]];
    if (op.outcome != Outcome::info && op.response > cut) out.open.push_back(part[k]);
  }
  out.nodes = search.spent();
  return out;
}

}  // namespace duet::history::detail
