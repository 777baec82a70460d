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
//
// The parts (event list, placed set, candidate order and reduction, class partition, budgets)
// are in search_parts.hpp, compiled once in the library; the memo and the nogoods, which store
// the oracle's states, in search_memo.hpp. This file is the driver: the depth-first loop that
// places candidates and backtracks, over those parts.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "duet/detail/search_memo.hpp"
#include "duet/detail/search_parts.hpp"
#include "duet/detail/search_types.hpp"

namespace duet::detail {

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
                       const SearchBudget& budget = {}, EndStates<typename Oracle::State>* end_states = nullptr);

namespace search {

/// The oracle's footprints, asked once before the search. (Whether an operation is read-only is
/// asked as candidates come: a short search asks few.)
template <class Oracle>
OperationTraits traits_of(const Oracle& oracle, std::size_t n) {
  OperationTraits traits;
  if constexpr (requires { oracle.footprint(std::size_t{0}); }) {
    traits.footprint.resize(n);
    for (std::size_t i = 0; i < n; ++i) traits.footprint[i] = oracle.footprint(i);
  }
  return traits;
}

/// Whether the oracle's states are memoised: Oracle::memo, which a type-erased oracle (one
/// instantiation for many) refines at run time with memo_on().
template <class Oracle>
bool memo_on(const Oracle& oracle) {
  if constexpr (!Oracle::memo) return false;
  else if constexpr (requires { oracle.memo_on(); }) return oracle.memo_on();
  else return true;
}

/// One search: the depth-first loop over the parts. Each depth has its candidates (tried in
/// order, `cursor` the next), the class every candidate has (`node_class`, for blame) and the
/// memo entry of the configuration it stands for (`node_memo`).
template <class Oracle>
class Linearizer {
 public:
  using State = typename Oracle::State;
  Linearizer(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency, const SearchBudget& budget,
             EndStates<State>* end_states)
      : ops_(ops),
        oracle_(oracle),
        consistency_(consistency),
        end_states_(end_states),
        events_(ops, consistency),
        predecessors_(process_predecessors(ops)),
        placed_(ops),
        traits_(traits_of(oracle, ops.size())),
        urgency_(urgency_ranks(ops, consistency, events_)),
        work_(budget),
        memory_(budget),
        use_memo_(memo_on(oracle)),
        backjump_(use_memo_ && backjumping_applies(ops, predecessors_, traits_, placed_.pending_count(), consistency,
                                                   end_states != nullptr)),
        classes_(backjump_ && NogoodTable<Oracle>::kSupported ? ClassPartition(traits_) : ClassPartition()),
        nogoods_(classes_.on()),
        state_(oracle.initial()),
        next_(state_) {
    for (const TimedOp& op : ops) completed_ += op.response != TimedOp::kPending;
    memory_.memo_bytes = memo_.index_bytes();
  }

  SearchResult run() {
    gather();
    node_memo_[0] = kNone;
    for (;;) {
      if (placed_completed_ == completed_) {
        if (end_states_ == nullptr) return finish(SearchVerdict::ok, current_order());
        if (!just_collected_ && !collect_end_state()) return stop(SearchStop::nodes);
      }
      if (!exhausted_ && cursor_[depth_] < candidates_[depth_].size()) {
        if (const SearchStop why = try_next_candidate(); why != SearchStop::none) return stop(why);
        continue;
      }
      if (!backtrack()) break;
      just_collected_ = true;  // back at a node already seen (and collected, if it completes)
    }
    if (end_states_ != nullptr && !end_states_->states.empty()) return finish(SearchVerdict::ok, std::move(result_.order));
    return finish(SearchVerdict::violation, std::move(best_));
  }

 private:
  struct Frame {
    std::uint32_t op;               // the operation placed at this depth
    State before;                   // the state before it
    std::uint64_t set_hash;         // the hash of the completed operations placed, before it
    std::size_t high_word;          // one past the last word with a completed operation placed, before it
    std::size_t class_high_before;  // class nogoods: the same for the operation's class
  };

  std::vector<std::size_t> current_order() const {
    std::vector<std::size_t> order(depth_);
    for (std::size_t d = 0; d < depth_; ++d) order[d] = stack_[d].op;
    return order;
  }
  std::chrono::nanoseconds teardown() const {
    std::size_t blocks_per_entry = placed_.pending_words() > 0;
    if constexpr (requires(const State& st) { oracle_.heap_bytes(st); }) ++blocks_per_entry;
    return teardown_time(blocks_per_entry, memo_.size() + nogoods_.size(), oracle_extra_bytes(oracle_));
  }
  std::size_t held_bytes() const { return memory_.memo_bytes + memory_.stack_bytes + oracle_extra_bytes(oracle_); }
  SearchResult finish(SearchVerdict verdict, std::vector<std::size_t> order) {
    result_.verdict = verdict;
    result_.order = std::move(order);
    result_.memo_bytes = held_bytes();
    return std::move(result_);
  }
  SearchResult stop(SearchStop why) {
    result_.stop = why;
    return finish(SearchVerdict::unknown, depth_ > best_.size() ? current_order() : best_);
  }

  // Collecting end states: each node that completes is recorded once (the memo makes sure of
  // it for the node, and states are compared) and then explored further, as pending
  // operations placed after it may lead to other end states. False: past the cap.
  bool collect_end_state() {
    just_collected_ = true;
    for (const State& s : end_states_->states)
      if (oracle_.equal(s, state_)) return true;
    if (end_states_->states.size() >= end_states_->cap) {
      end_states_->overflow = true;
      return false;
    }
    end_states_->states.push_back(state_);
    if (result_.order.size() < depth_) result_.order = current_order();
    return true;
  }

  // The candidates at the current depth (search_parts' gather_window), then: a completed
  // operation that never changes the state (a read, a failed compare-and-set) and is legal
  // here can go now and need not be tried anywhere else: in any order that places it later,
  // moving it here changes no result (it was invoked before everything still unplaced
  // returned, and it changes nothing the operations in between see). The node then has one
  // child.
  void gather() {
    if (candidates_.size() <= depth_) {
      candidates_.resize(depth_ + 1);
      cursor_.resize(depth_ + 1);
      node_class_.resize(depth_ + 1);
      node_memo_.resize(depth_ + 1);
    }
    std::vector<std::uint32_t>& c = candidates_[depth_];
    const std::size_t capacity_before = c.capacity();
    gather_window(events_, placed_, predecessors_, ops_, traits_, urgency_, consistency_, c, node_class_[depth_]);
    if constexpr (requires { oracle_.read_only(std::size_t{0}); }) {
      for (std::size_t k = 0; k < c.size(); ++k) {
        const std::uint32_t op = c[k];
        if (ops_[op].response == TimedOp::kPending || !oracle_.read_only(op)) continue;
        ++result_.nodes;
        work_.add(1);
        next_ = state_;
        if (oracle_.apply(next_, op)) {
          c[0] = op;
          c.resize(1);
          break;
        }
      }
    }
    cursor_[depth_] = 0;
    memory_.stack_bytes += (c.capacity() - capacity_before) * sizeof(std::uint32_t);
    work_.add(c.size() / 16);  // gathering and sorting a wide window is work too
  }

  // Tries the node's next candidate: placed (one level deeper) unless the oracle refuses it,
  // the memo or a nogood prunes it. SearchStop::none unless a budget ran out.
  SearchStop try_next_candidate() {
    const std::uint32_t op = candidates_[depth_][cursor_[depth_]++];
    ++result_.nodes;
    if (work_.due())
      if (const SearchStop why = work_.check(result_.nodes, teardown()); why != SearchStop::none) return why;
    next_ = state_;
    // An operation that never returned and changes nothing here is no different from one
    // that never took effect, which it may still do later: skip it.
    const bool pending = placed_.is_pending(op);
    if (!oracle_.apply(next_, op) || (pending && oracle_.equal(next_, state_))) return SearchStop::none;
    toggle(op);
    const std::uint64_t next_hash = pending ? set_hash_ : set_hash_ ^ placed_.key(op);
    const std::size_t next_high = pending ? high_word_ : std::max(high_word_, std::size_t{op} / 64 + 1);
    if constexpr (Oracle::memo) {
      if (use_memo_) {
        const bool seen = memo_.seen_or_record(oracle_, next_hash, next_, next_high, placed_, memory_);
        if (memory_.over(oracle_extra_bytes(oracle_))) {
          toggle(op);
          return SearchStop::memory;
        }
        if (seen) {
          ++result_.memo_hits;
          toggle(op);
          learn_from_memo_hit(op);
          return SearchStop::none;
        }
        if (classes_.on() && known_to_fail(op)) {
          toggle(op);
          return SearchStop::none;
        }
      }
    }
    descend(op, pending, next_hash, next_high);
    return SearchStop::none;
  }

  // A memo hit for the configuration op leads to: the node learns why it failed there. Blamed
  // on another class than op's, the whole node fails (backjumping: placing op could not
  // help); a child failing for another reason than the node's class blames no class.
  void learn_from_memo_hit(std::uint32_t op) {
    const std::uint64_t blamed = memo_.fail_class(memo_.last());
    if (backjump_ && blamed != kFootprintAll && traits_.footprint_of(op) != blamed) {
      exhausted_ = true;  // that class fails from here too
      blame_ = blamed;
    } else if (blamed != node_class_[depth_]) {
      node_class_[depth_] = kFootprintAll;
    }
  }

  // A nogood for the configuration op leads to (op placed, just recorded in the memo:
  // memo_.last() is its entry): it fails, blamed on op's class.
  bool known_to_fail(std::uint32_t op) {
    const std::uint32_t c = classes_.class_of(op);
    if (!nogoods_.known(oracle_, classes_, c, next_, std::max(classes_.high(c), classes_.word_end(op)), false, memory_))
      return false;
    // This class cannot finish from here: the child fails, blamed on the node's class.
    ++result_.memo_hits;
    memo_.fail_class(memo_.last()) = classes_.footprint(c);
    if (classes_.footprint(c) != node_class_[depth_]) node_class_[depth_] = kFootprintAll;
    return true;
  }

  void toggle(std::uint32_t op) {
    placed_.toggle(op);
    classes_.toggle(op, placed_);
  }

  // Places op: one level deeper, with op's events lifted out and the new node's candidates.
  void descend(std::uint32_t op, bool pending, std::uint64_t next_hash, std::size_t next_high) {
    std::size_t class_high_before = 0;
    if (classes_.on()) {
      const std::uint32_t c = classes_.class_of(op);
      class_high_before = classes_.high(c);
      classes_.high(c) = std::max(classes_.high(c), classes_.word_end(op));
    }
    if (depth_ == stack_.size()) stack_.push_back(Frame{op, state_, set_hash_, high_word_, class_high_before});
    else {
      Frame& f = stack_[depth_];
      f.op = op;
      f.before = state_;
      f.set_hash = set_hash_;
      f.high_word = high_word_;
      f.class_high_before = class_high_before;
    }
    ++depth_;
    using std::swap;  // a State of the oracle's may have its own (found where it is declared)
    swap(state_, next_);
    set_hash_ = next_hash;
    high_word_ = next_high;
    placed_completed_ += !pending;
    events_.lift(op);
    gather();
    node_memo_[depth_] = Oracle::memo && use_memo_ ? memo_.last() : kNone;
    just_collected_ = false;
  }

  // Every candidate tried, or the node failed through a class it cannot change: undo
  // placements until one of the blamed class (or, without backjumping, the last one). False
  // when the root failed.
  bool backtrack() {
    if (!exhausted_) blame_ = node_class_[depth_];
    exhausted_ = false;
    for (;;) {
      if (node_memo_[depth_] != kNone) memo_.fail_class(node_memo_[depth_]) = blame_;
      if (classes_.on() && blame_ != kFootprintAll) {
        const std::uint32_t c = classes_.class_of_footprint(blame_);
        nogoods_.known(oracle_, classes_, c, state_, classes_.high(c), true, memory_);
      }
      if (depth_ == 0) return false;
      if (depth_ > best_.size()) best_ = current_order();
      const std::uint32_t op = ascend();
      if (!backjump_ || blame_ == kFootprintAll || traits_.footprint_of(op) == blame_) {
        if (blame_ != node_class_[depth_]) node_class_[depth_] = kFootprintAll;  // as in known_to_fail
        return true;
      }
    }
  }

  // Takes back the last placement; returns its operation.
  std::uint32_t ascend() {
    --depth_;
    Frame& f = stack_[depth_];
    const std::uint32_t op = f.op;
    events_.unlift(op);
    toggle(op);
    if (classes_.on()) classes_.high(classes_.class_of(op)) = f.class_high_before;
    placed_completed_ -= ops_[op].response != TimedOp::kPending;
    using std::swap;
    swap(state_, f.before);
    set_hash_ = f.set_hash;
    high_word_ = f.high_word;
    return op;
  }

  const std::vector<TimedOp>& ops_;
  const Oracle& oracle_;
  const Consistency consistency_;
  EndStates<State>* const end_states_;
  EventList events_;
  const std::vector<std::uint32_t> predecessors_;
  PlacedSet placed_;
  const OperationTraits traits_;
  const std::vector<std::uint64_t> urgency_;
  WorkBudget work_;
  MemoryMeter memory_;
  const bool use_memo_;
  const bool backjump_;  // conflict-directed backjumping (backjumping_applies)
  ClassPartition classes_;
  NogoodTable<Oracle> nogoods_;
  Memo<Oracle> memo_;
  std::size_t completed_ = 0;

  SearchResult result_;
  std::vector<Frame> stack_;  // frames beyond `depth_` keep their storage for reuse
  std::size_t depth_ = 0;
  std::vector<std::size_t> best_;  // the longest order placed
  std::size_t placed_completed_ = 0;
  State state_;
  State next_;
  std::uint64_t set_hash_ = 0;                          // of the completed operations placed
  std::size_t high_word_ = 0;                           // one past the last word with a completed operation placed
  std::vector<std::vector<std::uint32_t>> candidates_;  // per depth; storage reused
  std::vector<std::size_t> cursor_;
  std::vector<std::uint64_t> node_class_;  // per depth: the footprint every candidate has, or kFootprintAll
  std::vector<std::uint32_t> node_memo_;   // per depth: the node's memo entry (kNone at the root)
  bool exhausted_ = false;                 // the node at `depth_` fails...
  std::uint64_t blame_ = kFootprintAll;    // ... because of this class
  bool just_collected_ = false;
};

}  // namespace search

template <class Oracle>
SearchResult linearize(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency,
                       const SearchBudget& budget, EndStates<typename Oracle::State>* end_states) {
  if (ops.empty()) {
    SearchResult result;
    result.verdict = SearchVerdict::ok;
    if (end_states != nullptr) end_states->states.push_back(oracle.initial());
    return result;
  }
  return search::Linearizer<Oracle>(ops, oracle, consistency, budget, end_states).run();
}

}  // namespace duet::detail
