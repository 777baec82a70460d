// The candidates a shrink has replayed, remembered so that one met again is judged without a
// replay (two in five of the ring buffer's were such).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "duet/detail/rng.hpp"

namespace duet::detail {

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

}  // namespace duet::detail
