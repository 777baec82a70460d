// The parts of the search core (search.hpp) that do not depend on the oracle's type: the event
// list, the placed set, the order candidates are tried in, the partial-order reduction, the
// class partition for nogoods and the memory budget. Their construction is compiled once, in
// the library (src/search/search_parts.cpp); what the search's inner loop calls is inline here.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

#include "duet/detail/search_types.hpp"

// What the search's inner loop calls at every step: GCC otherwise keeps some of it out of line
// in the large driver (measured: 3 to 5% of a history check).
#if defined(__GNUC__)
#define DUET_SEARCH_INLINE [[gnu::always_inline]] inline
#else
#define DUET_SEARCH_INLINE inline
#endif

namespace duet::detail::search {

inline constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

/// An open-addressing index over entries kept in a vector (the search's memo and its class
/// nogoods): a slot holds an entry's number, probing is linear from the entry's hash, and the
/// table doubles at half full so that probe runs stay short.
class SlotIndex {
 public:
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();
  explicit SlotIndex(std::size_t slots) : slots_(slots, kEmpty) {}
  /// The first entry in h's probe run that `match(entry)` accepts, or kEmpty; `free_slot`
  /// then holds where an entry with hash h goes.
  template <class Match>
  std::uint32_t find(std::uint64_t h, Match match, std::size_t& free_slot) const {
    const std::size_t mask = slots_.size() - 1;
    std::size_t s = h & mask;
    for (; slots_[s] != kEmpty; s = (s + 1) & mask)
      if (match(slots_[s])) return slots_[s];
    free_slot = s;
    return kEmpty;
  }
  /// Puts entry number `entry` (now `entries` entries in all) in the slot find() gave.
  /// `hash_of(i)` is entry i's hash, for growing. Returns the bytes the index grew by.
  template <class HashOf>
  std::size_t put(std::size_t free_slot, std::uint32_t entry, std::size_t entries, HashOf hash_of) {
    slots_[free_slot] = entry;
    if (entries * 2 <= slots_.size()) return 0;
    std::vector<std::uint64_t> hashes(entries);
    for (std::uint32_t i = 0; i < entries; ++i) hashes[i] = hash_of(i);
    return grow(hashes);
  }
  std::size_t bytes() const { return slots_.size() * sizeof(std::uint32_t); }

 private:
  std::size_t grow(const std::vector<std::uint64_t>& hashes);
  std::vector<std::uint32_t> slots_;
};

/// The history as Lowe's linked list of call and return events. Events sort by (phase, time,
/// calls before returns): equal clock readings on two cores cannot be ordered, so they overlap.
/// Under sequential consistency every call of a phase precedes every return of it: only
/// program order and phases constrain. Pending operations return after everything. The
/// candidates to go next are the calls before the first return still in the list; placing an
/// operation lifts its two events out, backtracking puts them back.
class EventList {
 public:
  EventList(const std::vector<TimedOp>& ops, Consistency consistency);
  /// The first event still in the list, or kNone; then next(e) until kNone.
  std::uint32_t first() const { return events_[head_].next; }
  std::uint32_t next(std::uint32_t e) const { return events_[e].next; }
  bool is_call(std::uint32_t e) const { return events_[e].call; }
  std::uint32_t op(std::uint32_t e) const { return events_[e].op; }
  /// The position of op's call in the sorted list (the order sequential consistency tries).
  std::uint32_t call_position(std::uint32_t op) const { return call_of_[op]; }
  DUET_SEARCH_INLINE void lift(std::uint32_t op) {
    for (std::uint32_t e : {call_of_[op], return_of_[op]}) {
      events_[events_[e].prev].next = events_[e].next;
      if (events_[e].next != kNone) events_[events_[e].next].prev = events_[e].prev;
    }
  }
  DUET_SEARCH_INLINE void unlift(std::uint32_t op) {  // the reverse of lift, in reverse order
    for (std::uint32_t e : {return_of_[op], call_of_[op]}) {
      events_[events_[e].prev].next = e;
      if (events_[e].next != kNone) events_[events_[e].next].prev = e;
    }
  }

 private:
  struct Event {
    std::uint32_t op;
    bool call;
    std::uint32_t prev, next;  // list links; index n*2 is the head sentinel
  };
  std::uint32_t head_;
  std::vector<Event> events_;
  std::vector<std::uint32_t> call_of_, return_of_;
};

/// Each operation's predecessor in its process (kNone if none): a process's completed
/// operations keep their order even when the clock cannot tell them apart; an operation that
/// never returned does not hold back its process's later ones.
std::vector<std::uint32_t> process_predecessors(const std::vector<TimedOp>& ops);

/// The order candidates are tried in, most urgent first: the operation whose response comes
/// first must be placed before anything invoked after it, so trying it first defers every
/// other choice until something forces it (Lowe's just-in-time idea, within this search);
/// operations that never returned come last, as they never force anything. Under sequential
/// consistency completed operations keep their list order.
std::vector<std::uint64_t> urgency_ranks(const std::vector<TimedOp>& ops, Consistency consistency, const EventList& events);

/// Which operations are placed. `placed` holds every placed operation. The memo keys on `done`,
/// the completed operations placed (with every pending operation's bit set for good, so that
/// words fill up and the stored windows stay short), and records apart which pending
/// operations were placed (`pending_placed`): a configuration with the same completed
/// operations and state but only a subset of those pending ones placed can do everything this
/// one can (a pending operation may still take effect later).
class PlacedSet {
 public:
  explicit PlacedSet(const std::vector<TimedOp>& ops);
  DUET_SEARCH_INLINE bool is_placed(std::uint32_t i) const { return (placed_[i / 64] >> (i % 64)) & 1; }
  bool is_pending(std::uint32_t i) const { return pending_index_[i] != kNone; }
  /// Places op i, or takes it back.
  DUET_SEARCH_INLINE void toggle(std::uint32_t i) {
    placed_[i / 64] ^= std::uint64_t{1} << (i % 64);
    const std::uint32_t p = pending_index_[i];
    if (p == kNone) {
      done_[i / 64] ^= std::uint64_t{1} << (i % 64);
      if (i / 64 < first_open_word_) first_open_word_ = i / 64;  // that word is no longer full
    } else {
      pending_placed_[p / 64] ^= std::uint64_t{1} << (p % 64);
    }
  }
  /// The first word of `done` that is not full: the memo stores the words from there on.
  DUET_SEARCH_INLINE std::size_t window_low() {
    while (first_open_word_ < done_.size() && done_[first_open_word_] == ~std::uint64_t{0}) ++first_open_word_;
    return first_open_word_;
  }
  const std::vector<std::uint64_t>& done() const { return done_; }
  const std::vector<std::uint64_t>& pending_placed() const { return pending_placed_; }
  std::size_t pending_count() const { return pending_count_; }
  std::size_t pending_words() const { return pending_placed_.size(); }
  /// The Zobrist key of op i, for the hash of a set of operations.
  std::uint64_t key(std::uint32_t i) const { return zobrist_[i]; }

 private:
  std::vector<std::uint64_t> zobrist_;
  std::vector<std::uint32_t> pending_index_;
  std::size_t pending_count_ = 0;
  std::vector<std::uint64_t> placed_, done_, pending_placed_;
  std::size_t first_open_word_ = 0;  // every word of `done_` before it is full
};

/// A memo entry's minimal sets of pending operations placed (pending_words words each):
/// whether `placed` includes one of them (then the configuration was explored with fewer
/// pending operations placed, and is pruned) ...
bool includes_a_pending_set(const std::vector<std::uint64_t>& sets, const std::vector<std::uint64_t>& placed);
/// ... and, when not, adding `placed`, dropping the sets it is a subset of (they stay
/// minimal). Returns the change in bytes.
std::ptrdiff_t add_pending_set(std::vector<std::uint64_t>& sets, const std::vector<std::uint64_t>& placed);

/// What the oracle says of each operation once, before the search: its footprint (empty: the
/// oracle declares none).
struct OperationTraits {
  std::vector<std::uint64_t> footprint;
  bool has_footprints() const { return !footprint.empty(); }
  std::uint64_t footprint_of(std::uint32_t op) const { return footprint.empty() ? kFootprintAll : footprint[op]; }
};

/// The candidates at the current depth, from the list's window: the calls before the first
/// return whose process's previous operation is placed, reduced to one dependency class when
/// footprints allow, most urgent first. `node_class` becomes that class,
/// or kFootprintAll. Inline: it runs at every node of the search.
inline void gather_window(const EventList& events, const PlacedSet& placed, const std::vector<std::uint32_t>& predecessors,
                          const std::vector<TimedOp>& ops, const OperationTraits& traits,
                          const std::vector<std::uint64_t>& urgency, Consistency consistency,
                          std::vector<std::uint32_t>& candidates, std::uint64_t& node_class) {
  std::vector<std::uint32_t>& c = candidates;
  node_class = kFootprintAll;
  c.clear();
  bool blocked = false;  // some operation in the window waits for its process's previous one
  std::uint32_t e = events.first();
  for (; e != kNone && events.is_call(e); e = events.next(e)) {
    const std::uint32_t op = events.op(e);
    const std::uint32_t pred = predecessors[op];
    if (pred == kNone || placed.is_placed(pred)) c.push_back(op);
    else blocked = true;
  }
  // Partial-order reduction. Let u be the operation whose response is first. Whatever precedes
  // u in a linearization was invoked before u returned, so it is among these candidates; those
  // that commute with u and with everything u depends on can move, in their own order, to
  // just after u (they return after u, so real time allows it). Hence only u's dependency
  // class needs trying now. Footprints say what commutes: operations with different
  // footprints commute; kFootprintAll commutes with nothing.
  if (traits.has_footprints() && consistency == Consistency::linearizable && !blocked && e != kNone &&
      ops[events.op(e)].response != TimedOp::kPending) {
    const std::uint32_t u = events.op(e);
    const std::uint64_t key = traits.footprint[u];
    bool reducible = key != kFootprintAll && std::find(c.begin(), c.end(), u) != c.end();
    for (std::size_t k = 0; k < c.size() && reducible; ++k) reducible = traits.footprint[c[k]] != kFootprintAll;
    if (reducible) {
      c.erase(std::remove_if(c.begin(), c.end(), [&](std::uint32_t op) { return traits.footprint[op] != key; }), c.end());
      node_class = key;
    }
  }
  std::sort(c.begin(), c.end(), [&](std::uint32_t a, std::uint32_t b) { return urgency[a] < urgency[b]; });
}

/// Whether conflict-directed backjumping (and with it class nogoods) applies: footprints that
/// split the state, no pending operation, real-time order, no end states collected (see the
/// definition for why each is needed).
bool backjumping_applies(const std::vector<TimedOp>& ops, const std::vector<std::uint32_t>& predecessors,
                         const OperationTraits& traits, std::size_t pending_count, Consistency consistency,
                         bool collecting_end_states);

/// The classes of operations by footprint, for class nogoods: each class's operations placed
/// (as a bit set of its own, with a Zobrist hash) and the window of words a nogood stores.
class ClassPartition {
 public:
  ClassPartition() = default;
  /// Classes of `traits`' footprints; empty (off) when some operation commutes with nothing.
  explicit ClassPartition(const OperationTraits& traits);
  bool on() const { return !class_footprint_.empty(); }
  std::uint32_t class_of(std::uint32_t op) const { return class_of_[op]; }
  std::uint32_t class_of_footprint(std::uint64_t footprint) const { return class_index_.at(footprint); }
  std::uint64_t footprint(std::uint32_t c) const { return class_footprint_[c]; }
  /// One past the word of op's bit in its class's set.
  std::size_t word_end(std::uint32_t op) const { return std::size_t{local_of_[op]} / 64 + 1; }
  std::size_t& high(std::uint32_t c) { return class_high_[c]; }
  std::uint64_t hash(std::uint32_t c) const { return class_hash_[c]; }
  DUET_SEARCH_INLINE void toggle(std::uint32_t op, const PlacedSet& placed) {
    if (!on()) return;
    const std::uint32_t c = class_of_[op], l = local_of_[op];
    std::uint64_t& word = class_bits_[c][l / 64];
    word ^= std::uint64_t{1} << (l % 64);
    class_hash_[c] ^= placed.key(op);
    if (((word >> (l % 64)) & 1) == 0 && l / 64 < class_open_[c]) class_open_[c] = l / 64;
  }
  /// Class c's placed set and the first word of it that is not full.
  const std::vector<std::uint64_t>& bits(std::uint32_t c) const { return class_bits_[c]; }
  std::size_t window_low(std::uint32_t c) {
    const std::vector<std::uint64_t>& cb = class_bits_[c];
    while (class_open_[c] < cb.size() && cb[class_open_[c]] == ~std::uint64_t{0}) ++class_open_[c];
    return class_open_[c];
  }

 private:
  std::vector<std::uint32_t> class_of_, local_of_;      // per operation
  std::vector<std::uint64_t> class_footprint_;          // per class
  std::vector<std::vector<std::uint64_t>> class_bits_;  // per class: its operations placed
  std::vector<std::size_t> class_open_, class_high_;    // per class: window bounds, in words
  std::vector<std::uint64_t> class_hash_;
  std::unordered_map<std::uint64_t, std::uint32_t> class_index_;
};

/// The search's budgets other than memory: oracle applications, time (with what freeing the
/// memo will take), the caller's and the siblings' cancel flags. Checked every 1024 units of
/// work.
class WorkBudget {
 public:
  explicit WorkBudget(const SearchBudget& budget);
  /// Counts a unit of work; true at each 1024th, when the budgets are to be checked.
  bool due() {
    if (++work_ < next_check_) return false;
    next_check_ = work_ + 1024;
    return true;
  }
  /// Work that does not trigger a check (gathering a wide window, read-only tries).
  void add(std::uint64_t units) { work_ += units; }
  /// Why the search must stop (SearchStop::none: go on). `teardown`: the time freeing what
  /// the search holds will take. With SearchBudget::turns, it may first wait for its turn.
  SearchStop check(std::uint64_t nodes, std::chrono::nanoseconds teardown);

 private:
  const SearchBudget& budget_;
  std::chrono::steady_clock::time_point deadline_;
  std::uint64_t work_ = 0, next_check_ = 1024;
  std::uint32_t turn_checks_ = 0;  // checks since the search last passed its turn
};

/// The memory the search holds (memo, nogoods, candidate lists, the oracle's own), against
/// max_memo_bytes. Searches side by side (partitions) publish what they hold to a shared total
/// in steps of 64 KiB (taken back at the end), so that the budget bounds their sum without a
/// shared write per memo entry.
class MemoryMeter {
 public:
  explicit MemoryMeter(const SearchBudget& budget)
      : total_(budget.shared_memory), max_bytes_(budget.max_memo_bytes == 0 ? ~std::size_t{0} : budget.max_memo_bytes) {}
  MemoryMeter(const MemoryMeter&) = delete;
  MemoryMeter& operator=(const MemoryMeter&) = delete;
  ~MemoryMeter() {
    if (total_ != nullptr) total_->fetch_sub(published_, std::memory_order_relaxed);
  }
  std::size_t memo_bytes = 0;   // memo and nogoods
  std::size_t stack_bytes = 0;  // the search's candidate lists
  bool over(std::size_t oracle_bytes) {
    const std::size_t mine = memo_bytes + stack_bytes + oracle_bytes;
    if (total_ == nullptr) return mine > max_bytes_;
    if (mine > published_ + (std::size_t{64} << 10) || mine < published_) {
      total_->fetch_add(mine - published_, std::memory_order_relaxed);  // modular: a decrease too
      published_ = mine;
    }
    return total_->load(std::memory_order_relaxed) + (mine - published_) > max_bytes_;
  }

 private:
  std::atomic<std::size_t>* total_;
  std::size_t max_bytes_;
  std::size_t published_ = 0;
};

/// The time it takes to free the memo when the search returns: millions of entries, each with
/// a state on the heap (or a set of pending operations), take a second or more to free, which
/// a deadline has to cover, and so do the values the oracle built while searching (the kv
/// model's strings). Measured on kv histories: about 150 ns per block and 1.5 ns per byte of
/// the oracle's (a few hundred MB of each took 0.3 to 0.4 s to free); twice that is assumed,
/// as a loaded machine frees more slowly.
inline std::chrono::nanoseconds teardown_time(std::size_t blocks_per_entry, std::size_t entries, std::size_t oracle_bytes) {
  return std::chrono::nanoseconds(static_cast<std::int64_t>(300 * blocks_per_entry * entries + oracle_bytes * 3));
}

}  // namespace duet::detail::search
