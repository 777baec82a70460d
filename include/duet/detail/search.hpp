// The one search core: is there a sequential order of a history's operations, consistent with
// real-time order (or only with each process's program order), in which an oracle accepts every
// observed result? Used for Y-shaped programs run on threads and for long recorded histories.
//
// Wing & Gong's depth-first search in Lowe's formulation: the history is a linked list of call
// and return events; the candidates to go next are the calls before the first return still in
// the list, so finding them costs nothing per step. Placing an operation lifts its two events
// out of the list; backtracking puts them back. A memo of (set of operations placed, oracle
// state) prunes configurations already explored, and those dominated by one explored with
// fewer pending operations placed. Candidates are tried most urgent first; read-only operations
// go at once; for oracles whose operations each touch one part of the state (footprints), a
// partial-order reduction, conflict-directed backjumping and per-part nogoods apply (each
// argued where it is implemented). The stack is explicit (no recursion limit), the placed set
// is hashed incrementally (Zobrist) and stored compactly (only the window of words between the
// first unplaced and the last placed operation), and budgets on steps, time, memo memory and
// a cancel flag end the search in "unknown", never in a wrong answer.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <limits>
#include <numeric>
#include <unordered_map>
#include <vector>

#include "duet/detail/rng.hpp"

namespace duet::detail {

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
    std::vector<std::uint32_t> grown(slots_.size() * 2, kEmpty);
    const std::size_t mask = grown.size() - 1;
    for (std::uint32_t i = 0; i < entries; ++i) {
      std::size_t t = hash_of(i) & mask;
      while (grown[t] != kEmpty) t = (t + 1) & mask;
      grown[t] = i;
    }
    const std::size_t added = (grown.size() - slots_.size()) * sizeof(std::uint32_t);
    slots_.swap(grown);
    return added;
  }
  std::size_t bytes() const { return slots_.size() * sizeof(std::uint32_t); }

 private:
  std::vector<std::uint32_t> slots_;
};

/// One operation of a history, for the search: who ran it and when. Times are in any
/// monotonic unit; a pending operation (timed out, crashed) has response == kPending: it may
/// take effect at any point after its invocation, or never.
struct TimedOp {
  static constexpr std::uint64_t kPending = std::numeric_limits<std::uint64_t>::max();
  std::uint32_t process = 0;
  std::uint64_t invoke = 0;
  std::uint64_t response = kPending;
  /// Operations of a later phase come after every operation of an earlier one, whatever the
  /// consistency (a Y-program's prefix, branches, suffix); long histories use one phase.
  std::uint32_t phase = 0;
};

enum class Consistency {
  linearizable,  // real-time order: an operation that returned before another was invoked comes first
  sequential     // only each process's own order (qcheck-stm's weaker check)
};

enum class SearchVerdict { ok, violation, unknown };

/// An oracle's footprint for an operation that commutes with nothing (see linearize).
inline constexpr std::uint64_t kFootprintAll = ~std::uint64_t{0};

/// Why a search ended in unknown.
enum class SearchStop { none, nodes, time, memory, cancelled };

struct SearchBudget {
  std::uint64_t max_nodes = 50'000'000;  // oracle applications
  double max_seconds = 0;                 // 0: no limit
  /// An absolute end as well (several searches sharing one budget, such as partitions).
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  std::size_t max_memo_bytes = std::size_t{1} << 31;  // memo and search stack; 0: no limit
  const std::atomic<bool>* cancel = nullptr;        // the caller's
  const std::atomic<bool>* group_cancel = nullptr;  // set when a sibling search found a violation
  /// Searches running side by side on parts of one history (partitions) share one memory
  /// budget: each adds what it holds here, and max_memo_bytes bounds the sum.
  std::atomic<std::size_t>* shared_memory = nullptr;
};

struct SearchResult {
  SearchVerdict verdict = SearchVerdict::unknown;
  SearchStop stop = SearchStop::none;
  std::vector<std::size_t> order;    // ok: a witness order; violation: the longest partial order found
  std::uint64_t nodes = 0;           // oracle applications tried
  std::uint64_t memo_hits = 0;
  std::size_t memo_bytes = 0;        // peak size of the memo and the search stack
  /// violation, when known: a few operations that on their own have no linearization either
  /// (the search itself does not find these; a decision procedure such as the unique-value
  /// register's does)
  std::vector<std::size_t> witness;
};

/// With end_states given, the search does not stop at the first linearization: it collects
/// every state some linearization of the history can end in (completed operations all placed,
/// pending ones placed or not), up to `cap` distinct states; the verdict is then ok when the
/// collection is complete and not empty, violation when there is none, unknown when it ran out
/// of budget or past the cap (`overflow`). What a failing window that starts late needs: the
/// states the operations before it can leave.
template <class State>
struct EndStates {
  std::size_t cap = 64;
  std::vector<State> states;
  bool overflow = false;
};

/// An Oracle provides:
///   using State = ...;                               // copyable
///   State initial() const;
///   bool apply(State& s, std::size_t op) const;      // false: op's observed result is not allowed here
///   std::uint64_t hash(const State&) const;          // with equal(), enables the memo
///   bool equal(const State&, const State&) const;
///   static constexpr bool memo = true;               // false: search without a memo
/// and may provide
///   std::size_t heap_bytes(const State&) const;      // counted against the memo budget
///   std::size_t extra_bytes() const;                 // memory the oracle allocated while searching
///   std::uint64_t footprint(std::size_t op) const;   // operations with different footprints
///       commute in every state (a key-value store's keys); kFootprintAll: commutes with none.
///       Enables a partial-order reduction under real-time order.
///   bool read_only(std::size_t op) const;            // true: op never changes any state; when
///       legal it is placed at once, without trying alternatives.
///   std::uint64_t part_hash(const State&, std::uint64_t footprint) const;   // with footprints
///   bool part_equal(const State&, const State&, std::uint64_t footprint) const;
///       // the part of a state a footprint's operations read and write: enables class nogoods.
/// Footprints promise more than commuting: an operation reads and writes only its footprint's
/// part of the state (so that, by locality, a failure belongs to one class).
template <class Oracle>
SearchResult linearize(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency,
                       const SearchBudget& budget = {}, EndStates<typename Oracle::State>* end_states = nullptr) {
  using State = typename Oracle::State;
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  const std::size_t n = ops.size();
  SearchResult result;
  if (n == 0) {
    result.verdict = SearchVerdict::ok;
    if (end_states != nullptr) end_states->states.push_back(oracle.initial());
    return result;
  }
  auto deadline = budget.deadline;
  // Beyond a few years, or not a number: no limit (and no overflow converting it).
  if (budget.max_seconds > 0 && budget.max_seconds < 1e8)
    deadline = std::min(deadline, std::chrono::steady_clock::now() +
                                      std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                          std::chrono::duration<double>(budget.max_seconds)));
  const std::size_t max_bytes = budget.max_memo_bytes == 0 ? ~std::size_t{0} : budget.max_memo_bytes;

  // ---- the event list ----
  // Events sort by (phase, time, calls before returns): equal clock readings on two cores
  // cannot be ordered, so they overlap. Under sequential consistency every call of a phase
  // precedes every return of it: only program order and phases constrain. Pending operations
  // return after everything.
  struct Event {
    std::uint32_t op;
    bool call;
    std::uint32_t prev, next;  // list links; index n*2 is the head sentinel
  };
  const std::uint32_t head = static_cast<std::uint32_t>(2 * n);
  std::vector<Event> events(2 * n + 1);
  {
    struct Key {
      std::uint32_t phase;
      std::uint64_t time;
      std::uint8_t kind;  // 0 call, 1 return
      std::uint32_t op;
    };
    std::vector<Key> keys;
    keys.reserve(2 * n);
    for (std::uint32_t i = 0; i < n; ++i) {
      const TimedOp& op = ops[i];
      const bool pending = op.response == TimedOp::kPending;
      const bool sc = consistency == Consistency::sequential;
      keys.push_back({op.phase, sc ? 0 : op.invoke, 0, i});
      keys.push_back({pending ? kNone : op.phase, pending || sc ? 0 : op.response, 1, i});
    }
    std::sort(keys.begin(), keys.end(), [&](const Key& a, const Key& b) {
      if (a.phase != b.phase) return a.phase < b.phase;
      if (consistency == Consistency::sequential && a.kind != b.kind) return a.kind < b.kind;
      if (a.time != b.time) return a.time < b.time;
      if (a.kind != b.kind) return a.kind < b.kind;
      if (a.kind == 0) return ops[a.op].invoke != ops[b.op].invoke ? ops[a.op].invoke < ops[b.op].invoke : a.op < b.op;
      return a.op < b.op;
    });
    std::uint32_t prev = head;
    for (std::uint32_t k = 0; k < keys.size(); ++k) {
      events[k] = {keys[k].op, keys[k].kind == 0, prev, kNone};
      events[prev].next = k;
      prev = k;
    }
    events[prev].next = kNone;
  }
  std::vector<std::uint32_t> call_of(n), return_of(n);
  for (std::uint32_t k = 0; k < 2 * n; ++k) (events[k].call ? call_of : return_of)[events[k].op] = k;
  auto lift = [&](std::uint32_t op) {
    for (std::uint32_t e : {call_of[op], return_of[op]}) {
      events[events[e].prev].next = events[e].next;
      if (events[e].next != kNone) events[events[e].next].prev = events[e].prev;
    }
  };
  auto unlift = [&](std::uint32_t op) {  // the reverse of lift, in reverse order
    for (std::uint32_t e : {return_of[op], call_of[op]}) {
      events[events[e].prev].next = e;
      if (events[e].next != kNone) events[events[e].next].prev = e;
    }
  };

  // A process's completed operations keep their order even when the clock cannot tell them
  // apart; an operation that never returned does not hold back its process's later ones.
  std::vector<std::uint32_t> before_in_process(n, kNone);
  {
    std::vector<std::uint32_t> by_invoke(n);
    std::iota(by_invoke.begin(), by_invoke.end(), 0u);
    std::stable_sort(by_invoke.begin(), by_invoke.end(), [&](std::uint32_t a, std::uint32_t b) { return ops[a].invoke < ops[b].invoke; });
    std::unordered_map<std::uint32_t, std::uint32_t> last;
    for (std::uint32_t i : by_invoke) {
      auto it = last.find(ops[i].process);
      if (it != last.end()) before_in_process[i] = it->second;
      if (ops[i].response != TimedOp::kPending) last[ops[i].process] = i;
    }
  }

  std::size_t completed = 0;
  for (const TimedOp& op : ops) completed += op.response != TimedOp::kPending;

  // ---- the placed set ----
  // `placed` holds every placed operation. The memo keys on `done`, the completed operations
  // placed (with every pending operation's bit set for good, so that words fill up and the
  // stored windows stay short), and records apart which pending operations were placed: a
  // configuration with the same completed operations and state but only a subset of those
  // pending ones placed can do everything this one can (a pending operation may still take
  // effect later), so once that one was explored this one is pruned.
  std::vector<std::uint64_t> zobrist(n);
  for (std::size_t i = 0; i < n; ++i) zobrist[i] = mix64(0x5eedull + i);
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint32_t> pending_index(n, kNone);
  std::size_t pending_count = 0;
  for (std::uint32_t i = 0; i < n; ++i)
    if (ops[i].response == TimedOp::kPending) pending_index[i] = static_cast<std::uint32_t>(pending_count++);
  const std::size_t pending_words = (pending_count + 63) / 64;
  std::vector<std::uint64_t> placed(words, 0), done(words, 0), pending_placed(pending_words, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    if (pending_index[i] != kNone) done[i / 64] |= std::uint64_t{1} << (i % 64);
  auto is_placed = [&](std::uint32_t i) { return (placed[i / 64] >> (i % 64)) & 1; };
  std::size_t first_open_word = 0;  // every word of `done` before it is full
  auto toggle = [&](std::uint32_t i) {
    placed[i / 64] ^= std::uint64_t{1} << (i % 64);
    const std::uint32_t p = pending_index[i];
    if (p == kNone) {
      done[i / 64] ^= std::uint64_t{1} << (i % 64);
      if (i / 64 < first_open_word) first_open_word = i / 64;  // that word is no longer full
    } else {
      pending_placed[p / 64] ^= std::uint64_t{1} << (p % 64);
    }
  };
  auto window_low = [&]() {
    while (first_open_word < words && done[first_open_word] == ~std::uint64_t{0}) ++first_open_word;
    return first_open_word;
  };

  // ---- the memo: open addressing over entries; one entry per (done, state) ----
  struct MemoEntry {
    std::uint64_t hash;
    std::uint32_t low, count;  // window [low, low+count) of `done`'s words, stored in `bits` at offset
    std::size_t offset;
    State state;
    std::vector<std::uint64_t> pending_sets;  // the minimal sets of pending operations placed, pending_words each
    std::uint64_t fail_class = kFootprintAll;  // once explored without success: the class to blame
  };
  // Deques, not vectors: growing them never holds the old and the new copy at once (a vector's
  // reallocation would briefly need three times what the budget counts).
  std::deque<MemoEntry> memo;
  std::deque<std::uint64_t> bits;
  SlotIndex slots(1024);
  std::size_t memo_bytes = slots.bytes();
  std::size_t stack_bytes = 0;  // the search's candidate lists, counted in the same budget
  auto oracle_bytes = [&]() -> std::size_t {  // what the oracle allocates as the search goes
    if constexpr (requires { oracle.extra_bytes(); }) return oracle.extra_bytes();
    else return 0;
  };
  std::uint64_t work = 0, next_check = 1024;
  auto state_bytes = [&](const State& s) -> std::size_t {
    if constexpr (requires { oracle.heap_bytes(s); })
      return sizeof(MemoEntry) + oracle.heap_bytes(s);
    else
      return sizeof(MemoEntry);
  };
  // What this search holds, published to the siblings' shared total in steps of 64 KiB (and
  // taken back when it returns), so that the budget bounds their sum without a shared write
  // per memo entry.
  struct SharedMemory {
    std::atomic<std::size_t>* total;
    std::size_t published = 0;
    ~SharedMemory() {
      if (total != nullptr) total->fetch_sub(published, std::memory_order_relaxed);
    }
  } shared{budget.shared_memory};
  auto over_budget = [&]() {
    const std::size_t mine = memo_bytes + stack_bytes + oracle_bytes();
    if (shared.total == nullptr) return mine > max_bytes;
    if (mine > shared.published + (std::size_t{64} << 10) || mine < shared.published) {
      shared.total->fetch_add(mine - shared.published, std::memory_order_relaxed);  // modular: a decrease too
      shared.published = mine;
    }
    return shared.total->load(std::memory_order_relaxed) + (mine - shared.published) > max_bytes;
  };
  auto is_subset = [&](const std::uint64_t* a, const std::uint64_t* b) {  // a ⊆ b
    for (std::size_t w = 0; w < pending_words; ++w)
      if ((a[w] & ~b[w]) != 0) return false;
    return true;
  };
  // True if (done, state) was explored with a subset of the pending operations now placed;
  // otherwise records the configuration.
  std::uint32_t memo_found = kNone;  // the entry seen_or_record last found or made
  auto seen_or_record = [&](std::uint64_t set_hash, const State& state, std::size_t high_word) {
    const std::uint64_t h = mix64(set_hash ^ oracle.hash(state));
    const std::size_t low = std::min(window_low(), high_word);
    const std::size_t count = high_word - low;
    const auto window = done.begin() + static_cast<std::ptrdiff_t>(low);
    std::size_t s = 0;
    const std::uint32_t found = slots.find(h, [&](std::uint32_t i) {
      const MemoEntry& e = memo[i];
      if (e.hash != h || e.low != low || e.count != count) return false;
      const auto stored = bits.begin() + static_cast<std::ptrdiff_t>(e.offset);
      return std::equal(stored, stored + static_cast<std::ptrdiff_t>(count), window) && oracle.equal(e.state, state);
    }, s);
    if (found != SlotIndex::kEmpty) {
      MemoEntry& e = memo[found];
      memo_found = found;
      if (pending_words == 0) return true;
      std::vector<std::uint64_t>& sets = e.pending_sets;
      for (std::size_t k = 0; k < sets.size(); k += pending_words)
        if (is_subset(&sets[k], pending_placed.data())) return true;
      // Keep the sets minimal: drop those this one is a subset of.
      std::size_t kept = 0;
      for (std::size_t k = 0; k < sets.size(); k += pending_words)
        if (!is_subset(pending_placed.data(), &sets[k])) {
          std::copy_n(sets.begin() + static_cast<std::ptrdiff_t>(k), pending_words, sets.begin() + static_cast<std::ptrdiff_t>(kept));
          kept += pending_words;
        }
      memo_bytes -= (sets.size() - kept) * 8;
      sets.resize(kept);
      sets.insert(sets.end(), pending_placed.begin(), pending_placed.end());
      memo_bytes += pending_words * 8;
      return false;
    }
    const std::size_t offset = bits.size();
    bits.insert(bits.end(), window, window + static_cast<std::ptrdiff_t>(count));
    memo.push_back(MemoEntry{h, static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(count), offset, state, pending_placed});
    memo_found = static_cast<std::uint32_t>(memo.size() - 1);
    memo_bytes += state_bytes(state) + (count + pending_words) * 8;
    memo_bytes += slots.put(s, memo_found, memo.size(), [&](std::uint32_t i) { return memo[i].hash; });
    return false;
  };

  // ---- the search ----
  struct Frame {
    std::uint32_t op;           // the operation placed at this depth
    State before;               // the state before it
    std::uint64_t set_hash;     // the hash of the completed operations placed, before it
    std::size_t high_word;      // one past the last word with a completed operation placed, before it
    std::size_t class_high_before;  // class nogoods: the same for the operation's class
  };
  std::vector<Frame> stack;     // frames beyond `depth` keep their storage for reuse
  std::size_t depth = 0;
  std::vector<std::size_t> best;
  std::size_t placed_completed = 0;
  State state = oracle.initial();
  State next = state;
  std::uint64_t set_hash = 0;
  std::size_t high_word = 0;
  auto current_order = [&]() {
    std::vector<std::size_t> order(depth);
    for (std::size_t d = 0; d < depth; ++d) order[d] = stack[d].op;
    return order;
  };
  auto stop = [&](SearchStop why) {
    result.verdict = SearchVerdict::unknown;
    result.stop = why;
    result.order = depth > best.size() ? current_order() : best;
    result.memo_bytes = memo_bytes + stack_bytes + oracle_bytes();
    return result;
  };

  // The candidates at each depth, most urgent first: the operation whose response comes
  // first must be placed before anything invoked after it, so trying it first defers every
  // other choice until something forces it (Lowe's just-in-time idea, within this search);
  // operations that never returned come last, as they never force anything.
  std::vector<std::uint64_t> urgency(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const TimedOp& op = ops[i];
    const std::uint64_t rank = consistency == Consistency::sequential || op.response == TimedOp::kPending
                                   ? (op.response == TimedOp::kPending ? 2u : 1u)
                                   : 0u;
    urgency[i] = rank;
  }
  {
    // Rank completed operations by response (real time) or leave them in list order (SC).
    std::vector<std::uint32_t> by_response;
    for (std::uint32_t i = 0; i < n; ++i)
      if (ops[i].response != TimedOp::kPending) by_response.push_back(i);
    if (consistency == Consistency::linearizable)
      std::stable_sort(by_response.begin(), by_response.end(),
                       [&](std::uint32_t a, std::uint32_t b) { return ops[a].response < ops[b].response; });
    else
      std::sort(by_response.begin(), by_response.end(), [&](std::uint32_t a, std::uint32_t b) { return call_of[a] < call_of[b]; });
    for (std::uint32_t k = 0; k < by_response.size(); ++k) urgency[by_response[k]] = k;
    for (std::uint32_t i = 0; i < n; ++i)
      if (ops[i].response == TimedOp::kPending) urgency[i] = n + std::uint64_t{call_of[i]};
  }
  std::vector<std::vector<std::uint32_t>> candidates;  // per depth; storage reused
  std::vector<std::size_t> cursor;
  std::vector<std::uint64_t> node_class;   // per depth: the footprint every candidate has, or kFootprintAll
  std::vector<std::uint32_t> node_memo;    // per depth: the node's memo entry (kNone at the root)
  auto gather = [&]() {
    if (candidates.size() <= depth) {
      candidates.resize(depth + 1);
      cursor.resize(depth + 1);
      node_class.resize(depth + 1);
      node_memo.resize(depth + 1);
    }
    node_class[depth] = kFootprintAll;
    std::vector<std::uint32_t>& c = candidates[depth];
    const std::size_t capacity_before = c.capacity();
    c.clear();
    bool blocked = false;  // some operation in the window waits for its process's previous one
    std::uint32_t e = events[head].next;
    for (; e != kNone && events[e].call; e = events[e].next) {
      const std::uint32_t op = events[e].op;
      const std::uint32_t pred = before_in_process[op];
      if (pred == kNone || is_placed(pred)) c.push_back(op);
      else blocked = true;
    }
    if constexpr (requires { oracle.footprint(std::size_t{0}); }) {
      // Partial-order reduction. Let u be the operation whose response is first. Whatever
      // precedes u in a linearization was invoked before u returned, so it is among these
      // candidates; those that commute with u and with everything u depends on can move,
      // in their own order, to just after u (they return after u, so real time allows it).
      // Hence only u's dependency class needs trying now. Footprints say what commutes:
      // operations with different footprints commute; kFootprintAll commutes with nothing.
      if (consistency == Consistency::linearizable && !blocked && e != kNone && ops[events[e].op].response != TimedOp::kPending) {
        const std::uint32_t u = events[e].op;
        const std::uint64_t key = oracle.footprint(u);
        bool reducible = key != kFootprintAll && std::find(c.begin(), c.end(), u) != c.end();
        for (std::size_t k = 0; k < c.size() && reducible; ++k) reducible = oracle.footprint(c[k]) != kFootprintAll;
        if (reducible) {
          c.erase(std::remove_if(c.begin(), c.end(), [&](std::uint32_t op) { return oracle.footprint(op) != key; }), c.end());
          node_class[depth] = key;
        }
      }
    }
    std::sort(c.begin(), c.end(), [&](std::uint32_t a, std::uint32_t b) { return urgency[a] < urgency[b]; });
    // A completed operation that never changes the state (a read, a failed compare-and-set)
    // and is legal here can go now and need not be tried anywhere else: in any order that
    // places it later, moving it here changes no result (it was invoked before everything
    // still unplaced returned, and it changes nothing the operations in between see). The
    // node then has one child.
    if constexpr (requires { oracle.read_only(std::size_t{0}); }) {
      for (std::size_t k = 0; k < c.size(); ++k) {
        const std::uint32_t op = c[k];
        if (ops[op].response == TimedOp::kPending || !oracle.read_only(op)) continue;
        ++result.nodes;
        ++work;
        next = state;
        if (oracle.apply(next, op)) {
          c[0] = op;
          c.resize(1);
          break;
        }
      }
    }
    cursor[depth] = 0;
    stack_bytes += (c.capacity() - capacity_before) * sizeof(std::uint32_t);
    work += c.size() / 16;  // gathering and sorting a wide window is work too
  };

  // Conflict-directed backjumping, when operations have footprints that split the state (each
  // operation reads and writes only its footprint's part) and no operation is pending. Then
  // (by locality) a configuration has no completion exactly when one class's remaining
  // operations have none from that class's part of the state; a failure is blamed on that
  // class, and every placement of another class between here and the last placement of the
  // blamed class leaves that part unchanged: those configurations fail too, without trying
  // their other candidates. Kept off with pending operations: a memo hit may then stand for
  // a configuration still being explored, which is not a failure.
  // Locality also needs real time alone to order each process's operations: a process whose
  // next operation is invoked at the very time its previous one returned links classes
  // through program order, and then no failure belongs to one class.
  bool backjump = false;
  if constexpr (Oracle::memo && requires { oracle.footprint(std::size_t{0}); }) {
    // (Not when collecting end states: a node whose every completion was collected "fails"
    // for no class's reason.)
    backjump = pending_count == 0 && consistency == Consistency::linearizable && end_states == nullptr;
    for (std::uint32_t i = 0; i < n && backjump; ++i)
      if (before_in_process[i] != kNone && ops[i].invoke <= ops[before_in_process[i]].response) backjump = false;
    // And every operation in one class: one that commutes with nothing (kFootprintAll) touches
    // every class's part, so undoing it can help any class, and no failure is one class's.
    for (std::uint32_t i = 0; i < n && backjump; ++i)
      if (oracle.footprint(i) == kFootprintAll) backjump = false;
  }
  auto footprint_of = [&](std::uint32_t op) -> std::uint64_t {
    if constexpr (requires { oracle.footprint(std::size_t{0}); }) return oracle.footprint(op);
    else return kFootprintAll;
  };

  // ---- class nogoods ----
  // With backjumping, a failure blamed on a class says more than the memo records: that
  // class's remaining operations cannot be linearized from its part of the state, whatever the
  // other classes do (locality). Kept as (class, its operations placed, its part of the state),
  // it prunes every later configuration that agrees on that class however the others differ,
  // so the classes' failures add up instead of multiplying. Needs the oracle to hash and
  // compare one class's part of a state.
  bool nogoods_on = false;
  std::vector<std::uint32_t> class_of, local_of;            // per operation
  std::vector<std::uint64_t> class_footprint;                // per class
  std::vector<std::vector<std::uint64_t>> class_bits;        // per class: its operations placed
  std::vector<std::size_t> class_open, class_high;           // per class: window bounds, in words
  std::vector<std::uint64_t> class_hash;
  std::unordered_map<std::uint64_t, std::uint32_t> class_index;
  if constexpr (requires(const State& st) {
                  oracle.part_hash(st, std::uint64_t{0});
                  oracle.part_equal(st, st, std::uint64_t{0});
                }) {
    nogoods_on = backjump;
    std::vector<std::uint32_t> counts;
    if (nogoods_on) {
      class_of.resize(n);
      local_of.resize(n);
      for (std::uint32_t i = 0; i < n && nogoods_on; ++i) {
        const std::uint64_t fp = oracle.footprint(i);
        if (fp == kFootprintAll) nogoods_on = false;
        auto [it, fresh] = class_index.try_emplace(fp, static_cast<std::uint32_t>(class_footprint.size()));
        if (fresh) {
          class_footprint.push_back(fp);
          counts.push_back(0);
        }
        class_of[i] = it->second;
        local_of[i] = counts[it->second]++;
      }
    }
    if (nogoods_on) {
      for (std::uint32_t c : counts) class_bits.emplace_back((c + 63) / 64, 0);
      class_open.assign(counts.size(), 0);
      class_high.assign(counts.size(), 0);
      class_hash.assign(counts.size(), 0);
    }
  }
  auto class_toggle = [&](std::uint32_t i) {
    if (!nogoods_on) return;
    const std::uint32_t c = class_of[i], l = local_of[i];
    std::uint64_t& word = class_bits[c][l / 64];
    word ^= std::uint64_t{1} << (l % 64);
    class_hash[c] ^= zobrist[i];
    if (((word >> (l % 64)) & 1) == 0 && l / 64 < class_open[c]) class_open[c] = l / 64;
  };
  struct Nogood {
    std::uint64_t hash;
    std::uint32_t cls, low, count;
    std::size_t offset;  // in nogood_bits
    State state;
  };
  std::deque<Nogood> nogoods;
  std::deque<std::uint64_t> nogood_bits;
  SlotIndex nogood_slots(nogoods_on ? 1024 : 0);
  // Is (class c, its placed set, c's part of s) a known failure? If not and `record`, it
  // becomes one. `high`: one past the class's last word with an operation placed.
  auto nogood = [&](std::uint32_t c, const State& st, std::size_t high, bool record) -> bool {
    if constexpr (requires { oracle.part_hash(st, std::uint64_t{0}); }) {
      const std::uint64_t fp = class_footprint[c];
      std::vector<std::uint64_t>& cb = class_bits[c];
      while (class_open[c] < cb.size() && cb[class_open[c]] == ~std::uint64_t{0}) ++class_open[c];
      const std::size_t low = std::min(class_open[c], high);
      const std::size_t count = high - low;
      const std::uint64_t h = mix64(class_hash[c] ^ mix64(oracle.part_hash(st, fp) + 0x9e3779b97f4a7c15ULL * (c + 1)));
      const auto window = cb.begin() + static_cast<std::ptrdiff_t>(low);
      std::size_t slot = 0;
      const std::uint32_t found = nogood_slots.find(h, [&](std::uint32_t i) {
        const Nogood& g = nogoods[i];
        if (g.hash != h || g.cls != c || g.low != low || g.count != count) return false;
        const auto stored = nogood_bits.begin() + static_cast<std::ptrdiff_t>(g.offset);
        return std::equal(stored, stored + static_cast<std::ptrdiff_t>(count), window) && oracle.part_equal(g.state, st, fp);
      }, slot);
      if (found != SlotIndex::kEmpty) return true;
      if (!record) return false;
      const std::size_t offset = nogood_bits.size();
      nogood_bits.insert(nogood_bits.end(), window, window + static_cast<std::ptrdiff_t>(count));
      nogoods.push_back(Nogood{h, c, static_cast<std::uint32_t>(low), static_cast<std::uint32_t>(count), offset, st});
      memo_bytes += state_bytes(st) + count * 8;
      memo_bytes += nogood_slots.put(slot, static_cast<std::uint32_t>(nogoods.size() - 1), nogoods.size(),
                                     [&](std::uint32_t i) { return nogoods[i].hash; });
      return false;
    } else {
      (void)c, (void)st, (void)high, (void)record;
      return false;
    }
  };
  // The time it takes to free the memo when the search returns: millions of entries, each with
  // a state on the heap (or a set of pending operations), take a second or more to free, which
  // a deadline has to cover, and so do the values the oracle built while searching (the kv
  // model's strings). Measured on kv histories: about 150 ns per block and 1.5 ns per byte of
  // the oracle's (a few hundred MB of each took 0.3 to 0.4 s to free); twice that is assumed,
  // as a loaded machine frees more slowly.
  const std::size_t blocks_per_entry = std::size_t{pending_words > 0} + [&] {
    if constexpr (requires(const State& st) { oracle.heap_bytes(st); }) return std::size_t{1};
    else return std::size_t{0};
  }();
  auto teardown = [&]() {
    return std::chrono::nanoseconds(
        static_cast<std::int64_t>(300 * blocks_per_entry * (memo.size() + nogoods.size()) + oracle_bytes() * 3));
  };
  bool exhausted = false;                   // the node at `depth` fails...
  std::uint64_t blame = kFootprintAll;      // ... because of this class

  gather();
  node_memo[0] = kNone;
  // Collecting end states: each node that completes is recorded once (the memo makes sure of
  // it for the node, and states are compared) and then explored further, as pending
  // operations placed after it may lead to other end states.
  bool just_collected = false;
  for (;;) {
    if (placed_completed == completed) {
      if (EndStates<State>* collect = end_states) {
        if (!just_collected) {
          just_collected = true;
          bool known = false;
          for (const State& s : collect->states) known = known || oracle.equal(s, state);
          if (!known) {
            if (collect->states.size() >= collect->cap) {
              collect->overflow = true;
              return stop(SearchStop::nodes);
            }
            collect->states.push_back(state);
            if (result.order.size() < depth) result.order = current_order();
          }
        }
      } else {
        result.verdict = SearchVerdict::ok;
        result.order = current_order();
        result.memo_bytes = memo_bytes + stack_bytes + oracle_bytes();
        return result;
      }
    }
    if (!exhausted && cursor[depth] < candidates[depth].size()) {
      const std::uint32_t op = candidates[depth][cursor[depth]++];
      ++result.nodes;
      if (++work >= next_check) {  // budgets, every 1024 units of work
        next_check = work + 1024;
        if (result.nodes >= budget.max_nodes) return stop(SearchStop::nodes);
        if (std::chrono::steady_clock::now() + teardown() >= deadline) return stop(SearchStop::time);
        if ((budget.cancel && budget.cancel->load(std::memory_order_relaxed)) ||
            (budget.group_cancel && budget.group_cancel->load(std::memory_order_relaxed)))
          return stop(SearchStop::cancelled);
      }
      next = state;
      // An operation that never returned and changes nothing here is no different from one
      // that never took effect, which it may still do later: skip it.
      if (!oracle.apply(next, op) || (ops[op].response == TimedOp::kPending && oracle.equal(next, state))) continue;
      toggle(op);
      class_toggle(op);
      const bool pending = pending_index[op] != kNone;
      const std::uint64_t next_hash = pending ? set_hash : set_hash ^ zobrist[op];
      const std::size_t next_high = pending ? high_word : std::max(high_word, std::size_t{op} / 64 + 1);
      if constexpr (Oracle::memo) {
        const bool seen = seen_or_record(next_hash, next, next_high);
        if (over_budget()) {
          toggle(op);
          class_toggle(op);
          return stop(SearchStop::memory);
        }
        if (seen) {
          ++result.memo_hits;
          toggle(op);
          class_toggle(op);
          const std::uint64_t x = memo[memo_found].fail_class;
          if (backjump && x != kFootprintAll && footprint_of(op) != x) {
            exhausted = true;  // that class fails from here too
            blame = x;
          } else if (x != node_class[depth]) {
            node_class[depth] = kFootprintAll;  // a child failed for another reason: blame no class
          }
          continue;
        }
        if (nogoods_on) {
          const std::uint32_t c = class_of[op];
          if (nogood(c, next, std::max(class_high[c], std::size_t{local_of[op]} / 64 + 1), false)) {
            // This class cannot finish from here: the child fails, blamed on the node's class.
            ++result.memo_hits;
            memo[memo_found].fail_class = class_footprint[c];
            toggle(op);
            class_toggle(op);
            if (class_footprint[c] != node_class[depth]) node_class[depth] = kFootprintAll;
            continue;
          }
        }
      }
      std::size_t class_high_before = 0;
      if (nogoods_on) {
        const std::uint32_t c = class_of[op];
        class_high_before = class_high[c];
        class_high[c] = std::max(class_high[c], std::size_t{local_of[op]} / 64 + 1);
      }
      if (depth == stack.size()) stack.push_back(Frame{op, state, set_hash, high_word, class_high_before});
      else {
        Frame& f = stack[depth];
        f.op = op;
        f.before = state;
        f.set_hash = set_hash;
        f.high_word = high_word;
        f.class_high_before = class_high_before;
      }
      ++depth;
      using std::swap;  // a State of the oracle's may have its own (found where it is declared)
      swap(state, next);
      set_hash = next_hash;
      high_word = next_high;
      placed_completed += !pending;
      lift(op);
      gather();
      node_memo[depth] = Oracle::memo ? memo_found : kNone;
      just_collected = false;
      continue;
    }
    // Every candidate tried, or the node failed through a class it cannot change: undo
    // placements until one of the blamed class (or, without backjumping, the last one).
    if (!exhausted) blame = node_class[depth];
    exhausted = false;
    bool root_failed = false;
    for (;;) {
      if (node_memo[depth] != kNone) memo[node_memo[depth]].fail_class = blame;
      if (nogoods_on && blame != kFootprintAll) {
        const std::uint32_t c = class_index.at(blame);
        nogood(c, state, class_high[c], true);
      }
      if (depth == 0) {
        root_failed = true;
        break;
      }
      if (depth > best.size()) best = current_order();
      --depth;
      Frame& f = stack[depth];
      const std::uint32_t op = f.op;
      unlift(op);
      toggle(op);
      class_toggle(op);
      if (nogoods_on) class_high[class_of[op]] = f.class_high_before;
      placed_completed -= ops[op].response != TimedOp::kPending;
      using std::swap;
      swap(state, f.before);
      set_hash = f.set_hash;
      high_word = f.high_word;
      if (!backjump || blame == kFootprintAll || footprint_of(op) == blame) {
        if (blame != node_class[depth]) node_class[depth] = kFootprintAll;  // as above
        break;
      }
    }
    if (root_failed) break;
    just_collected = true;  // back at a node already seen (and collected, if it completes)
  }
  if (end_states != nullptr) {
    result.verdict = end_states->states.empty() ? SearchVerdict::violation : SearchVerdict::ok;
    result.memo_bytes = memo_bytes + stack_bytes + oracle_bytes();
    if (result.verdict == SearchVerdict::ok) return result;
  }
  result.verdict = SearchVerdict::violation;
  result.order = std::move(best);
  result.memo_bytes = memo_bytes + stack_bytes + oracle_bytes();
  return result;
}

}  // namespace duet::detail
