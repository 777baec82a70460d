// The search core's two tables of configurations (search.hpp): the memo of (completed
// operations placed, oracle state), with the minimal sets of pending operations placed, and
// the class nogoods of (class, its operations placed, its part of the state). Both store only
// the window of words between the first open word and the last placed operation's, in one
// deque of words, indexed by open addressing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "duet/detail/rng.hpp"
#include "duet/detail/search_parts.hpp"

namespace duet::detail::search {

/// Bytes a stored state costs the memory budget: its entry, and its heap when the oracle says.
template <class Oracle, class Entry>
std::size_t stored_state_bytes(const Oracle& oracle, const typename Oracle::State& s) {
  if constexpr (requires { oracle.heap_bytes(s); }) return sizeof(Entry) + oracle.heap_bytes(s);
  else return sizeof(Entry);
}

/// Memory the oracle allocated while searching (counted against the budget).
template <class Oracle>
std::size_t oracle_extra_bytes(const Oracle& oracle) {
  if constexpr (requires { oracle.extra_bytes(); }) return oracle.extra_bytes();
  else return 0;
}

/// One entry per (done, state) explored; a configuration with the same completed operations
/// and state but only a superset of an entry's pending sets placed is pruned, since the one
/// with fewer pending operations placed can do everything it can.
template <class Oracle>
class Memo {
 public:
  using State = typename Oracle::State;
  struct Entry {
    std::uint64_t hash;
    std::uint32_t low, count;  // window [low, low+count) of `done`'s words, stored in `bits_` at offset
    std::size_t offset;
    State state;
    std::vector<std::uint64_t> pending_sets;   // the minimal sets of pending operations placed, pending_words each
    std::uint64_t fail_class = kFootprintAll;  // once explored without success: the class to blame
  };
  std::size_t index_bytes() const { return slots_.bytes(); }
  std::size_t size() const { return entries_.size(); }
  /// The class to blame once an entry's configuration was explored without success.
  std::uint64_t& fail_class(std::uint32_t entry) { return entries_[entry].fail_class; }
  /// The entry seen_or_record last found or made.
  std::uint32_t last() const { return last_; }

  /// True if (placed's done set, state) was explored with a subset of the pending operations
  /// now placed; otherwise records the configuration. `set_hash`: the done set's hash;
  /// `high_word`: one past its last word with a completed operation placed.
  bool seen_or_record(const Oracle& oracle, std::uint64_t set_hash, const State& state, std::size_t high_word,
                      PlacedSet& placed, MemoryMeter& memory) {
    const std::uint64_t h = mix64(set_hash ^ oracle.hash(state));
    const std::size_t low = std::min(placed.window_low(), high_word);
    const std::size_t count = high_word - low;
    const auto window = placed.done().begin() + static_cast<std::ptrdiff_t>(low);
    std::size_t slot = 0;
    const std::uint32_t found = slots_.find(
        h,
        [&](std::uint32_t i) {
          const Entry& e = entries_[i];
          if (e.hash != h || e.low != low || e.count != count) return false;
          const auto stored = bits_.begin() + static_cast<std::ptrdiff_t>(e.offset);
          return std::equal(stored, stored + static_cast<std::ptrdiff_t>(count), window) && oracle.equal(e.state, state);
        },
        slot);
    if (found != SlotIndex::kEmpty) {
      last_ = found;
      if (placed.pending_words() == 0) return true;
      std::vector<std::uint64_t>& sets = entries_[found].pending_sets;
      if (includes_a_pending_set(sets, placed.pending_placed())) return true;
      memory.memo_bytes += add_pending_set(sets, placed.pending_placed());
      return false;
    }
    const std::size_t offset = bits_.size();
    bits_.insert(bits_.end(), window, window + static_cast<std::ptrdiff_t>(count));
    entries_.push_back(Entry{h, static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(count), offset, state,
                             placed.pending_placed()});
    last_ = static_cast<std::uint32_t>(entries_.size() - 1);
    memory.memo_bytes += stored_state_bytes<Oracle, Entry>(oracle, state) + (count + placed.pending_words()) * 8;
    memory.memo_bytes += slots_.put(slot, last_, entries_.size(), [&](std::uint32_t i) { return entries_[i].hash; });
    return false;
  }

 private:
  // Deques, not vectors: growing them never holds the old and the new copy at once (a vector's
  // reallocation would briefly need three times what the budget counts).
  std::deque<Entry> entries_;
  std::deque<std::uint64_t> bits_;
  SlotIndex slots_{1024};
  std::uint32_t last_ = kNone;
};

/// With backjumping, a failure blamed on a class says more than the memo records: that
/// class's remaining operations cannot be linearized from its part of the state, whatever the
/// other classes do (locality). Kept as (class, its operations placed, its part of the state),
/// it prunes every later configuration that agrees on that class however the others differ,
/// so the classes' failures add up instead of multiplying. Needs the oracle to hash and
/// compare one class's part of a state (part_hash, part_equal); without them it records
/// nothing.
template <class Oracle>
class NogoodTable {
 public:
  using State = typename Oracle::State;
  static constexpr bool kSupported = requires(const Oracle& o, const State& st) {
    o.part_hash(st, std::uint64_t{0});
    o.part_equal(st, st, std::uint64_t{0});
  };
  explicit NogoodTable(bool on) : slots_(on ? 1024 : 0) {}
  std::size_t size() const { return nogoods_.size(); }

  /// Is (class c, its placed set, c's part of st) a known failure? If not and `record`, it
  /// becomes one. `high`: one past the class's last word with an operation placed.
  bool known(const Oracle& oracle, ClassPartition& classes, std::uint32_t c, const State& st, std::size_t high, bool record,
             MemoryMeter& memory) {
    if constexpr (kSupported) {
      const std::uint64_t fp = classes.footprint(c);
      const std::size_t low = std::min(classes.window_low(c), high);
      const std::size_t count = high - low;
      const std::uint64_t h = mix64(classes.hash(c) ^ mix64(oracle.part_hash(st, fp) + 0x9e3779b97f4a7c15ULL * (c + 1)));
      const auto window = classes.bits(c).begin() + static_cast<std::ptrdiff_t>(low);
      std::size_t slot = 0;
      const std::uint32_t found = slots_.find(
          h,
          [&](std::uint32_t i) {
            const Nogood& g = nogoods_[i];
            if (g.hash != h || g.cls != c || g.low != low || g.count != count) return false;
            const auto stored = bits_.begin() + static_cast<std::ptrdiff_t>(g.offset);
            return std::equal(stored, stored + static_cast<std::ptrdiff_t>(count), window) &&
                   oracle.part_equal(g.state, st, fp);
          },
          slot);
      if (found != SlotIndex::kEmpty) return true;
      if (!record) return false;
      const std::size_t offset = bits_.size();
      bits_.insert(bits_.end(), window, window + static_cast<std::ptrdiff_t>(count));
      nogoods_.push_back(Nogood{h, c, static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(count), offset, st});
      memory.memo_bytes += stored_state_bytes<Oracle, typename Memo<Oracle>::Entry>(oracle, st) + count * 8;
      memory.memo_bytes += slots_.put(slot, static_cast<std::uint32_t>(nogoods_.size() - 1), nogoods_.size(),
                                      [&](std::uint32_t i) { return nogoods_[i].hash; });
      return false;
    } else {
      (void)oracle, (void)classes, (void)c, (void)st, (void)high, (void)record, (void)memory;
      return false;
    }
  }

 private:
  struct Nogood {
    std::uint64_t hash;
    std::uint32_t cls, low, count;
    std::size_t offset;  // in bits_
    State state;
  };
  std::deque<Nogood> nogoods_;
  std::deque<std::uint64_t> bits_;
  SlotIndex slots_;
};

}  // namespace duet::detail::search
