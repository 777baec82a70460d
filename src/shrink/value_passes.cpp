// The shrink passes that lower values: each alone (straight to 0, else a binary search), counts
// with the things they count, chunks to zero, and the costlier ones for values that must move
// together (the copies of a key, two keys that must collide, a mode choice and the value it aims).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "shrink/shrink_state.hpp"

namespace duet::detail {
namespace {

constexpr std::size_t kMaxPairedCopies = 6;    // pairs among a value's first 6 copies
constexpr std::uint64_t kSmallValues = 16;     // tried one by one; re-aimers
constexpr std::size_t kReaimTargets = 3;       // the case's 3 largest values, and the top
constexpr std::size_t kMaxShiftedValues = 24;  // shift_value_pairs: the 24 least values
constexpr std::size_t kNoRole = ~std::size_t{0};

// Nonzero values that occur more than once, in increasing order.
std::vector<std::uint64_t> duplicated_values(const ShrinkState& s) {
  std::vector<std::uint64_t> sorted = s.current(), values;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i + 1 < sorted.size(); ++i)
    if (sorted[i] != 0 && sorted[i] == sorted[i + 1] && (values.empty() || values.back() != sorted[i]))
      values.push_back(sorted[i]);
  return values;
}

std::vector<std::size_t> copies_of(const ShrinkState& s, std::uint64_t v) {
  std::vector<std::size_t> at;
  for (std::size_t i = 0; i < s.current().size(); ++i)
    if (s.current()[i] == v) at.push_back(i);
  return at;
}

// Each choice's place in its command: its offset in the innermost span holding it (kNoRole
// outside every span).
std::vector<std::size_t> roles_of_current(const ShrinkState& s) {
  std::vector<std::size_t> role(s.current().size(), kNoRole), from(s.current().size(), 0);
  for (const auto& sp : s.spans())
    for (std::size_t i = sp.begin; i < sp.end && i < s.current().size(); ++i)
      if (role[i] == kNoRole || sp.begin >= from[i]) {
        role[i] = i - sp.begin;
        from[i] = sp.begin;
      }
  return role;
}

// Lowers the equal choices at `at` together. Failing need not be monotone in them (a key
// must collide with another: 8 fails where 7 and 9 pass), so: each small value in turn, then
// a binary search above them, then the value less each power of two (24 - 16 = 8).
bool lower_together(ShrinkState& s, const std::vector<std::size_t>& at) {
  const std::uint64_t v = s.current()[at.front()];
  auto with = [&](std::uint64_t w) {
    auto c = s.current();
    for (std::size_t i : at) c[i] = w;
    return c;
  };
  for (std::uint64_t w = 0; w < v && w <= kSmallValues; ++w)
    if (s.attempt(with(w))) return true;
  if (v <= kSmallValues + 1) return false;
  std::uint64_t lo = kSmallValues, hi = v;  // lo passes, hi fails
  while (lo + 1 < hi && !s.out_of_budget()) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (s.attempt(with(mid))) return true;
    lo = mid;
  }
  for (std::uint64_t bit = std::uint64_t{1} << 63; bit != 0 && !s.out_of_budget(); bit >>= 1)
    if (bit < v && v - bit > kSmallValues && s.attempt(with(v - bit))) return true;
  return false;
}

// A small choice often says how the next one is read (an integer's mode: a small value, any
// value in the range, or an edge value), so lowering it alone re-aims the next choice.
// Lowers the (small) choices at `at` together while re-aiming the choice after each: at the
// top of its range (the replay clamps it there) or at one of the case's largest values (the
// value another copy holds). A later pass lowers the re-aimed choice.
bool reaim_together(ShrinkState& s, const std::vector<std::size_t>& at) {
  const std::uint64_t v = s.current()[at.front()];
  if (v == 0 || v > kSmallValues) return false;
  std::vector<std::size_t> next;
  std::uint64_t least_next = ~std::uint64_t{0};
  for (std::size_t i : at)
    if (i + 1 < s.current().size() && std::find(at.begin(), at.end(), i + 1) == at.end()) {
      next.push_back(i + 1);
      least_next = std::min(least_next, s.current()[i + 1]);
    }
  if (next.empty()) return false;
  std::vector<std::uint64_t> targets;
  for (std::uint64_t x : s.current())
    if (x > least_next) targets.push_back(x);
  std::sort(targets.rbegin(), targets.rend());
  targets.erase(std::unique(targets.begin(), targets.end()), targets.end());
  if (targets.size() > kReaimTargets) targets.resize(kReaimTargets);
  targets.insert(targets.begin(), ~std::uint64_t{0});
  for (const std::uint64_t t : targets) {
    auto with = [&](std::uint64_t w) {
      auto c = s.current();
      for (std::size_t i : at) c[i] = w;
      for (std::size_t j : next) c[j] = t;
      return c;
    };
    if (s.attempt(with(0))) return true;
    std::uint64_t lo = 0, hi = v;  // lo passes, hi fails
    while (lo + 1 < hi && !s.out_of_budget()) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      if (s.attempt(with(mid))) return true;
      lo = mid;
    }
    if (s.out_of_budget()) return false;
  }
  return false;
}

}  // namespace

// Each value: straight to 0, else binary search for the smallest value that still fails.
bool lower_values(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = 0; i < s.current().size(); ++i) {
    if (s.current()[i] == 0) continue;
    auto c = s.current();
    c[i] = 0;
    if (s.attempt(c)) {
      any = true;
      continue;
    }
    std::uint64_t lo = 0, hi = s.current()[i];  // lo passes, hi fails
    while (lo + 1 < hi && i < s.current().size() && !s.out_of_budget()) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      c = s.current();
      c[i] = mid;
      if (s.attempt(c)) {
        any = true;
        hi = i < s.current().size() ? s.current()[i] : mid;
      } else {
        lo = mid;
      }
    }
  }
  return any;
}

// A count drawn before the things it counts (a length, a number of elements) can only go
// down together with the things: decrement one value and delete a few choices after it.
bool lower_and_delete(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = 0; i < s.current().size(); ++i) {
    for (std::size_t k : {1, 2, 3, 4, 8}) {
      if (i >= s.current().size() || s.current()[i] == 0 || i + 1 + k > s.current().size()) break;
      auto c = s.without(i + 1, i + 1 + k);
      c[i] -= 1;
      if (s.attempt(c)) any = true;
    }
  }
  return any;
}

// Moves value from an earlier choice to a later one (b=1, d=0 becomes b=0, d=1): cases
// that need two values to differ end with the difference as late as possible.
bool redistribute_pairs(ShrinkState& s) {
  if (s.current().size() > 256) return false;
  bool any = false;
  for (std::size_t i = 0; i < s.current().size(); ++i) {
    for (std::size_t j = i + 1; j < s.current().size() && s.current()[i] != 0; ++j) {
      if (s.out_of_budget()) return any;
      if (s.current()[j] > ~std::uint64_t{0} - s.current()[i]) continue;
      auto c = s.current();
      c[j] += c[i];
      c[i] = 0;
      if (s.attempt(c)) any = true;
    }
  }
  return any;
}

bool zero_chunks(ShrinkState& s) {
  bool any = false;
  for (std::size_t k : {8, 4, 2}) {
    for (std::size_t i = 0; i + k <= s.current().size(); ++i) {
      auto c = s.current();
      bool nonzero = false;
      for (std::size_t j = i; j < i + k; ++j) {
        nonzero |= c[j] != 0;
        c[j] = 0;
      }
      if (nonzero && s.attempt(c)) any = true;
    }
  }
  return any;
}

// ---- The costlier passes: shrink() tries them only where the passes above are stuck. ----

// Values that must stay equal (a key inserted, then erased or looked up): lowering one copy
// alone changes what the case does, so the copies of a value go down together. First all of
// them; then those in one role (the same place in their commands: the key of an insert and
// of an erase, not a command count that happens to be equal); then pairs.
bool lower_duplicates(ShrinkState& s) {
  bool any = false;
  for (const std::uint64_t v : duplicated_values(s)) {
    if (s.out_of_budget()) return any;
    const auto at = copies_of(s, v);
    if (at.size() < 2) continue;
    if (lower_together(s, at) || reaim_together(s, at)) {
      any = true;
      continue;
    }
    if (at.size() == 2) continue;
    bool lowered = false;
    const auto roles = roles_of_current(s);
    for (std::size_t k = 0; k < at.size() && !lowered; ++k) {
      if (roles[at[k]] == kNoRole) continue;
      std::vector<std::size_t> same;
      for (std::size_t i : at)
        if (roles[i] == roles[at[k]]) same.push_back(i);
      // Each role once (from its first copy), and only a part of the copies.
      if (same.front() == at[k] && same.size() >= 2 && same.size() < at.size()) lowered = lower_together(s, same);
    }
    const std::size_t n = std::min<std::size_t>(at.size(), kMaxPairedCopies);
    for (std::size_t a = 0; a < n && !lowered; ++a)
      for (std::size_t b = a + 1; b < n && !lowered; ++b) lowered = lower_together(s, {at[a], at[b]});
    any |= lowered;
  }
  return any;
}

// Each value above the small ones, alone, through lower_together's steps: lower_values'
// binary search assumes that failing is monotone, and a key that must collide is not.
bool lower_large_values(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = 0; i < s.current().size() && !s.out_of_budget(); ++i)
    if (s.current()[i] > kSmallValues + 1 && lower_together(s, {i})) any = true;
  return any;
}

// Two values whose difference matters (colliding keys: a % 8 == b % 8): every copy of the
// smaller goes to 0 and every copy of the larger comes down by as much. Then the same on the
// copies in the roles the larger value plays only, and the two values trading places there
// (kept when that puts the smaller one first). Among the case's 24 least values.
bool shift_value_pairs(ShrinkState& s) {
  std::vector<std::uint64_t> values = s.current();
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() > kMaxShiftedValues) values.resize(kMaxShiftedValues);
  const auto roles = roles_of_current(s);
  for (std::size_t a = 0; a < values.size(); ++a) {
    for (std::size_t b = a + 1; b < values.size(); ++b) {
      if (s.out_of_budget()) return false;
      const std::uint64_t lo = values[a], hi = values[b];
      std::vector<std::size_t> hi_roles;
      for (std::size_t i = 0; i < s.current().size(); ++i)
        if (s.current()[i] == hi && roles[i] != kNoRole) hi_roles.push_back(roles[i]);
      std::sort(hi_roles.begin(), hi_roles.end());
      bool all_in_role = true;
      auto shifted = s.current(), shifted_in_role = s.current(), swapped_in_role = s.current();
      for (std::size_t i = 0; i < s.current().size(); ++i) {
        if (s.current()[i] != lo && s.current()[i] != hi) continue;
        const bool in_role = std::binary_search(hi_roles.begin(), hi_roles.end(), roles[i]);
        all_in_role = all_in_role && in_role;
        shifted[i] = s.current()[i] == lo ? 0 : hi - lo;
        if (!in_role) continue;
        shifted_in_role[i] = shifted[i];
        swapped_in_role[i] = s.current()[i] == lo ? hi : lo;
      }
      if (lo != 0 && s.attempt(shifted)) return true;
      if (lo != 0 && !all_in_role && s.attempt(shifted_in_role)) return true;
      if (s.attempt(swapped_in_role)) return true;
    }
  }
  return false;
}

// Each small value alone, lowered while re-aiming the next choice (see reaim_together):
// makes equal values drawn in different ways read alike, so that lower_duplicates sees them.
bool reaim_values(ShrinkState& s) {
  bool any = false;
  for (std::size_t i = 0; i + 1 < s.current().size() && !s.out_of_budget(); ++i)
    if (reaim_together(s, {i})) any = true;
  return any;
}

}  // namespace duet::detail
