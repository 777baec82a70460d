// Wakeup trees (Abdulla, Aronis, Jonsson, Sagonas, "Source Sets: A Foundation for Optimal
// Dynamic Partial Order Reduction", JACM 2017): at a state of the search, the ordered sequences
// of steps still to explore from it, so that each is taken once and, through its first steps,
// no equivalent schedule is run twice.
//
//   WakeupTree t;
//   t.insert(v, next_at_state);          // v: a race's reversal (RunOrder::reversal)
//   if (!t.empty()) { WakeupTree::Node first = t.take_first(); ... }  // the next branch
//
// Internal to the exhaustive search.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "execute/fibers/dpor/run_order.hpp"

namespace duet::detail::fiber::dpor {

class WakeupTree {
 public:
  struct Node {
    Step step;
    std::vector<Node> children;
  };
  /// The next step of a fiber at the tree's state (null: not known).
  using NextStep = std::function<const Step*(std::uint32_t fiber)>;

  bool empty() const { return children_.empty(); }
  std::size_t size() const { return children_.size(); }
  const Node& first() const { return children_.front(); }
  /// Removes and returns the leftmost branch: the next one to explore.
  Node take_first();
  /// Replaces the tree by `children` (a branch's subtree, when its first step is taken).
  void assign(std::vector<Node> children) { children_ = std::move(children); }
  void clear() { children_.clear(); }

  enum class Inserted : std::uint8_t { added, covered };
  /// Adds the sequence `w` unless a branch already starts like it: walking down from the root,
  /// a branch whose step's fiber is a weak initial of what is left of w is followed (w loses
  /// that fiber's first step); a leaf reached, or w used up, means w is covered. Otherwise w is
  /// appended as the last branch where the walk stopped.
  Inserted insert(std::span<const Step> w, const NextStep& next);

 private:
  std::vector<Node> children_;
};

}  // namespace duet::detail::fiber::dpor
