#include "shrink/shrink.hpp"

#include <algorithm>
#include <ctime>
#include <initializer_list>

#include "duet/detail/rng.hpp"

namespace duet::detail {

bool shortlex_less(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  if (a.size() != b.size()) return a.size() < b.size();
  return lex_less(a, b);
}

namespace {

// The candidates a shrink has replayed, kept whole (a hash alone could take a new candidate for
// one tried before) in one arena of at most kMaxChoices choices; past that, new candidates are
// not remembered and replay as any would.
class TriedCandidates {
 public:
  /// False when `candidate` was remembered before; else remembers it if there is room.
  bool remember(const std::vector<std::uint64_t>& candidate) {
    const std::uint64_t hash = hash_of(candidate);
    if (slots_.empty()) slots_.assign(kInitialSlots, 0);
    std::size_t slot = hash & (slots_.size() - 1);
    for (; slots_[slot] != 0; slot = (slot + 1) & (slots_.size() - 1))
      if (same(entries_[slots_[slot] - 1], hash, candidate)) return false;
    if (arena_.size() + candidate.size() > kMaxChoices || entries_.size() >= kMaxChoices) return true;
    entries_.push_back({hash, arena_.size(), candidate.size()});
    arena_.insert(arena_.end(), candidate.begin(), candidate.end());
    slots_[slot] = static_cast<std::uint32_t>(entries_.size());
    if (2 * entries_.size() > slots_.size()) rehash();
    return true;
  }

 private:
  struct Entry {
    std::uint64_t hash;
    std::size_t begin, size;  // in arena_
  };
  static constexpr std::size_t kMaxChoices = std::size_t{1} << 20;  // 8 MB
  static constexpr std::size_t kInitialSlots = 1024;

  // FNV-1a's step a word at a time, in four chains over every fourth word, joined at the end:
  // one chain waits for each multiply in turn, four keep the multiplier busy (the hash of every
  // candidate, about 1,700 per ring-buffer shrink, was most of this memo's time). Only where a
  // candidate lands depends on it: candidates are compared whole.
  static std::uint64_t hash_of(const std::vector<std::uint64_t>& c) {
    constexpr std::uint64_t kPrime = 0x100000001b3ULL;
    std::uint64_t h0 = c.size(), h1 = 1, h2 = 2, h3 = 3;
    const std::uint64_t* v = c.data();
    const std::size_t n = c.size(), whole = n - n % 4;
    for (std::size_t i = 0; i < whole; i += 4) {
      h0 = (h0 ^ v[i]) * kPrime;
      h1 = (h1 ^ v[i + 1]) * kPrime;
      h2 = (h2 ^ v[i + 2]) * kPrime;
      h3 = (h3 ^ v[i + 3]) * kPrime;
    }
    for (std::size_t i = whole; i < n; ++i) h0 = (h0 ^ v[i]) * kPrime;
    return mix64(((h0 * kPrime ^ h1) * kPrime ^ h2) * kPrime ^ h3);
  }
  bool same(const Entry& e, std::uint64_t hash, const std::vector<std::uint64_t>& c) const {
    return e.hash == hash && e.size == c.size() &&
           std::equal(c.begin(), c.end(), arena_.begin() + static_cast<std::ptrdiff_t>(e.begin));
  }
  // Twice the slots, each entry placed again: the table stays at most half full.
  void rehash() {
    slots_.assign(2 * slots_.size(), 0);
    for (std::size_t i = 0; i < entries_.size(); ++i) {
      std::size_t slot = entries_[i].hash & (slots_.size() - 1);
      while (slots_[slot] != 0) slot = (slot + 1) & (slots_.size() - 1);
      slots_[slot] = static_cast<std::uint32_t>(i + 1);
    }
  }

  std::vector<std::uint64_t> arena_;  // the remembered candidates, one after another
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // open addressing over entries_: 1 + an index, 0 when empty
};

// The time budget's clock, read once per replay: CLOCK_MONOTONIC_COARSE where there is one (a
// few nanoseconds, where the precise clock took about 60 on a virtual machine: a tenth of a
// ring-buffer replay), at most a scheduler tick (1 to 10 ms) behind: the budget ends within a
// tick of its length. Compared only with its own readings.
std::chrono::steady_clock::time_point budget_clock_now() {
#ifdef CLOCK_MONOTONIC_COARSE
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return std::chrono::steady_clock::time_point(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec)));
#else
  return std::chrono::steady_clock::now();
#endif
}

class Shrinker {
 public:
  Shrinker(std::vector<std::uint64_t> choices, std::vector<Source::Span> spans, const Replay& replay,
           const ShrinkBudget& budget, std::size_t concurrent_start)
      : current_(std::move(choices)),
        spans_(std::move(spans)),
        mark_(concurrent_start),
        replay_(replay),
        budget_(budget),
        deadline_(budget_clock_now() + budget.max_time) {}

  void set_on_accept(OnAccept f) { on_accept_ = std::move(f); }

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
      // The costlier passes, for the local minima of those above: they run only when those
      // make no progress, one at a time, and hand back to them at the first step taken.
      if (!improved && !out_of_budget())
        improved = delete_span_runs() || lower_duplicates() || lower_large_values() || shift_value_pairs() ||
                   reaim_values() || delete_span_and_raise();
    }
    ShrinkOutcome out;
    out.choices = current_;
    out.accepted = accepted_;
    out.tried = tried_;
    out.stop = stop_;
    return out;
  }

 private:
  // Remembers which budget refused a replay: a pass cut short is not a fixed point. The clock
  // is read once per replay run (the time goes there), not at every candidate a pass looks at
  // or judges from memory.
  bool out_of_budget() const {
    if (stop_ != ShrinkStop::fixed_point) return true;
    if (tried_ >= budget_.max_tries) stop_ = ShrinkStop::step_budget;
    else if (replayed_ != clock_read_at_) {
      clock_read_at_ = replayed_;
      if (budget_clock_now() >= deadline_) stop_ = ShrinkStop::time_budget;
    }
    return stop_ != ShrinkStop::fixed_point;
  }

  // Replays the candidate; keeps it (as the choices it actually drew) if it still fails and
  // is smaller than what we have.
  bool attempt(const std::vector<std::uint64_t>& candidate, std::size_t candidate_mark = Source::kNoMark) {
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

  // The order every accepted step decreases: length, then choices in the concurrent part,
  // then lexicographic. Well founded, so shrinking ends.
  bool smaller(const std::vector<std::uint64_t>& c, std::size_t c_mark) const {
    return shrink_smaller(c, c_mark, current_, mark_);
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
  bool delete_span_and_adjust() { return delete_span_and_shift(48, {-1}); }

  // Deletes each command and moves one of the next `window` choices by one of `deltas`; the
  // first change that still fails is kept.
  bool delete_span_and_shift(std::size_t window, std::initializer_list<std::int64_t> deltas) {
    bool any = false;
    for (std::size_t i = spans_.size(); i-- > 0;) {
      if (i >= spans_.size()) continue;
      const auto span = spans_[i];
      if (span.end > current_.size()) continue;
      const auto base = without(span.begin, span.end);
      bool done = false;
      for (std::size_t j = span.begin; j < base.size() && j < span.begin + window && !done; ++j)
        for (const std::int64_t d : deltas) {
          if (out_of_budget()) return any;
          const std::uint64_t by = static_cast<std::uint64_t>(d < 0 ? -d : d);
          if (d < 0 ? base[j] < by : base[j] > ~std::uint64_t{0} - by) continue;
          auto c = base;
          c[j] = d < 0 ? c[j] - by : c[j] + by;
          if (attempt(c)) {
            done = true;
            break;
          }
        }
      any |= done;
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

  // ---- The costlier passes: run() tries them only where the passes above are stuck. ----

  // Runs of three to eight consecutive commands (delete_spans and delete_span_pairs take one
  // or two): a detour that, taken out whole, leaves the rest of the case meaning the same.
  bool delete_span_runs() {
    bool any = false;
    for (std::size_t k = 3; k <= kMaxRun; ++k) {
      for (std::size_t i = spans_.size(); i-- > 0;) {
        if (i + k > spans_.size() || out_of_budget()) continue;
        const auto first = spans_[i], last = spans_[i + k - 1];
        if (last.end > current_.size() || first.begin >= last.end) continue;
        if (attempt(without(first.begin, last.end))) any = true;
      }
    }
    return any;
  }

  // Values that must stay equal (a key inserted, then erased or looked up): lowering one copy
  // alone changes what the case does, so the copies of a value go down together. First all of
  // them; then those in one role (the same place in their commands: the key of an insert and
  // of an erase, not a command count that happens to be equal); then pairs.
  bool lower_duplicates() {
    bool any = false;
    for (const std::uint64_t v : duplicated_values()) {
      if (out_of_budget()) return any;
      const auto at = copies_of(v);
      if (at.size() < 2) continue;
      if (lower_together(at) || reaim_together(at)) {
        any = true;
        continue;
      }
      if (at.size() == 2) continue;
      bool lowered = false;
      const auto roles = roles_of_current();
      for (std::size_t k = 0; k < at.size() && !lowered; ++k) {
        if (roles[at[k]] == kNoRole) continue;
        std::vector<std::size_t> same;
        for (std::size_t i : at)
          if (roles[i] == roles[at[k]]) same.push_back(i);
        // Each role once (from its first copy), and only a part of the copies.
        if (same.front() == at[k] && same.size() >= 2 && same.size() < at.size()) lowered = lower_together(same);
      }
      const std::size_t n = std::min<std::size_t>(at.size(), kMaxPairedCopies);
      for (std::size_t a = 0; a < n && !lowered; ++a)
        for (std::size_t b = a + 1; b < n && !lowered; ++b) lowered = lower_together({at[a], at[b]});
      any |= lowered;
    }
    return any;
  }

  // Nonzero values that occur more than once, in increasing order.
  std::vector<std::uint64_t> duplicated_values() const {
    std::vector<std::uint64_t> sorted = current_, values;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 0; i + 1 < sorted.size(); ++i)
      if (sorted[i] != 0 && sorted[i] == sorted[i + 1] && (values.empty() || values.back() != sorted[i]))
        values.push_back(sorted[i]);
    return values;
  }

  std::vector<std::size_t> copies_of(std::uint64_t v) const {
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < current_.size(); ++i)
      if (current_[i] == v) at.push_back(i);
    return at;
  }

  // Each choice's place in its command: its offset in the innermost span holding it (kNoRole
  // outside every span).
  std::vector<std::size_t> roles_of_current() const {
    std::vector<std::size_t> role(current_.size(), kNoRole), from(current_.size(), 0);
    for (const auto& sp : spans_)
      for (std::size_t i = sp.begin; i < sp.end && i < current_.size(); ++i)
        if (role[i] == kNoRole || sp.begin >= from[i]) {
          role[i] = i - sp.begin;
          from[i] = sp.begin;
        }
    return role;
  }

  // Lowers the equal choices at `at` together. Failing need not be monotone in them (a key
  // must collide with another: 8 fails where 7 and 9 pass), so: each small value in turn, then
  // a binary search above them, then the value less each power of two (24 - 16 = 8).
  bool lower_together(const std::vector<std::size_t>& at) {
    const std::uint64_t v = current_[at.front()];
    auto with = [&](std::uint64_t w) {
      auto c = current_;
      for (std::size_t i : at) c[i] = w;
      return c;
    };
    for (std::uint64_t w = 0; w < v && w <= kSmallValues; ++w)
      if (attempt(with(w))) return true;
    if (v <= kSmallValues + 1) return false;
    std::uint64_t lo = kSmallValues, hi = v;  // lo passes, hi fails
    while (lo + 1 < hi && !out_of_budget()) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (attempt(with(mid))) return true;
      lo = mid;
    }
    for (std::uint64_t bit = std::uint64_t{1} << 63; bit != 0 && !out_of_budget(); bit >>= 1)
      if (bit < v && v - bit > kSmallValues && attempt(with(v - bit))) return true;
    return false;
  }

  // A small choice often says how the next one is read (an integer's mode: a small value, any
  // value in the range, or an edge value), so lowering it alone re-aims the next choice.
  // Lowers the (small) choices at `at` together while re-aiming the choice after each: at the
  // top of its range (the replay clamps it there) or at one of the case's largest values (the
  // value another copy holds). A later pass lowers the re-aimed choice.
  bool reaim_together(const std::vector<std::size_t>& at) {
    const std::uint64_t v = current_[at.front()];
    if (v == 0 || v > kSmallValues) return false;
    std::vector<std::size_t> next;
    std::uint64_t least_next = ~std::uint64_t{0};
    for (std::size_t i : at)
      if (i + 1 < current_.size() && std::find(at.begin(), at.end(), i + 1) == at.end()) {
        next.push_back(i + 1);
        least_next = std::min(least_next, current_[i + 1]);
      }
    if (next.empty()) return false;
    std::vector<std::uint64_t> targets;
    for (std::uint64_t x : current_)
      if (x > least_next) targets.push_back(x);
    std::sort(targets.rbegin(), targets.rend());
    targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
    if (targets.size() > kReaimTargets) targets.resize(kReaimTargets);
    targets.insert(targets.begin(), ~std::uint64_t{0});
    for (const std::uint64_t t : targets) {
      auto with = [&](std::uint64_t w) {
        auto c = current_;
        for (std::size_t i : at) c[i] = w;
        for (std::size_t j : next) c[j] = t;
        return c;
      };
      if (attempt(with(0))) return true;
      std::uint64_t lo = 0, hi = v;  // lo passes, hi fails
      while (lo + 1 < hi && !out_of_budget()) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (attempt(with(mid))) return true;
        lo = mid;
      }
      if (out_of_budget()) return false;
    }
    return false;
  }

  // Each value above the small ones, alone, through lower_together's steps: lower_values'
  // binary search assumes that failing is monotone, and a key that must collide is not.
  bool lower_large_values() {
    bool any = false;
    for (std::size_t i = 0; i < current_.size() && !out_of_budget(); ++i)
      if (current_[i] > kSmallValues + 1 && lower_together({i})) any = true;
    return any;
  }

  // Two values whose difference matters (colliding keys: a % 8 == b % 8): every copy of the
  // smaller goes to 0 and every copy of the larger comes down by as much. Then the same on the
  // copies in the roles the larger value plays only, and the two values trading places there
  // (kept when that puts the smaller one first). Among the case's 24 least values.
  bool shift_value_pairs() {
    std::vector<std::uint64_t> values = current_;
    std::sort(values.begin(), values.end());
    values.erase(std::unique(values.begin(), values.end()), values.end());
    if (values.size() > kMaxShiftedValues) values.resize(kMaxShiftedValues);
    const auto roles = roles_of_current();
    for (std::size_t a = 0; a < values.size(); ++a) {
      for (std::size_t b = a + 1; b < values.size(); ++b) {
        if (out_of_budget()) return false;
        const std::uint64_t lo = values[a], hi = values[b];
        std::vector<std::size_t> hi_roles;
        for (std::size_t i = 0; i < current_.size(); ++i)
          if (current_[i] == hi && roles[i] != kNoRole) hi_roles.push_back(roles[i]);
        std::sort(hi_roles.begin(), hi_roles.end());
        bool all_in_role = true;
        auto shifted = current_, shifted_in_role = current_, swapped_in_role = current_;
        for (std::size_t i = 0; i < current_.size(); ++i) {
          if (current_[i] != lo && current_[i] != hi) continue;
          const bool in_role = std::binary_search(hi_roles.begin(), hi_roles.end(), roles[i]);
          all_in_role = all_in_role && in_role;
          shifted[i] = current_[i] == lo ? 0 : hi - lo;
          if (!in_role) continue;
          shifted_in_role[i] = shifted[i];
          swapped_in_role[i] = current_[i] == lo ? hi : lo;
        }
        if (lo != 0 && attempt(shifted)) return true;
        if (lo != 0 && !all_in_role && attempt(shifted_in_role)) return true;
        if (attempt(swapped_in_role)) return true;
      }
    }
    return false;
  }

  // Each small value alone, lowered while re-aiming the next choice (see reaim_together):
  // makes equal values drawn in different ways read alike, so that lower_duplicates sees them.
  bool reaim_values() {
    bool any = false;
    for (std::size_t i = 0; i + 1 < current_.size() && !out_of_budget(); ++i)
      if (reaim_together({i})) any = true;
    return any;
  }

  // Deleting a command can re-aim a later choice upward: a choice among the commands the state
  // offers (deleting a pop leaves the deque non-empty, and the menu the next command is chosen
  // from changes), or a position counted from the front. Deletes each command with one of the
  // next few choices raised a little.
  bool delete_span_and_raise() { return delete_span_and_shift(kRaiseWindow, {1, 2, 3}); }

  static constexpr std::size_t kMaxRun = 8;             // delete_span_runs: 3 to 8 commands
  static constexpr std::size_t kMaxPairedCopies = 6;    // pairs among a value's first 6 copies
  static constexpr std::uint64_t kSmallValues = 16;     // tried one by one; re-aimers
  static constexpr std::size_t kReaimTargets = 3;       // the case's 3 largest values, and the top
  static constexpr std::size_t kMaxShiftedValues = 24;  // shift_value_pairs: the 24 least values
  static constexpr std::size_t kRaiseWindow = 8;        // delete_span_and_raise: the next 8 choices, raised by 1 to 3
  static constexpr std::size_t kNoRole = ~std::size_t{0};

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

}  // namespace

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
  Shrinker s(std::move(choices), std::move(spans), replay, budget, concurrent_start);
  s.set_on_accept(on_accept);
  return s.run();
}

}  // namespace duet::detail
