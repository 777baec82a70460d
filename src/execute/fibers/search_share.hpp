// How much of a depth-first search's tree lies behind it, read off the path it is on: at each
// level from the root, the branches explored and those known; the subtrees of one level taken
// as alike (Knuth's estimate of a backtrack tree's size, here along the search's own path: the
// weighted-backtrack estimate of Kilby, Slaney, Thiébaux and Walsh, "Estimating search tree
// size", AAAI 2006). Runs so far divided by the share gives the whole search's runs, roughly:
// exact for a tree whose subtrees of one level are alike, and growing more accurate as the
// search goes on; an optimal search also learns of branches late (a race seen in a later run),
// so its early estimates run low.
//
//   SearchShare share;
//   for (each choice point on the path, root first) share.level(explored, 1 + explored + left);
//   const double runs_in_all = runs / share.behind();
//
// Internal to the exhaustive searches.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace duet::detail::fiber {

class SearchShare {
 public:
  /// The next level down the path: `explored` of its `branches` branches are behind the search
  /// (the one it is in is not). A level of one branch changes nothing.
  void level(std::size_t explored, std::size_t branches) {
    if (branches <= 1) return;
    behind_ += weight_ * static_cast<double>(explored) / static_cast<double>(branches);
    weight_ /= static_cast<double>(branches);
  }
  /// The share of the tree's leaves behind the path, in [0, 1).
  double behind() const { return behind_; }
  /// The search's runs in all, estimated from `runs` so far (at least one more: the path has a
  /// run to make); 0 when nothing is behind the path. A double: a deep tree's estimate can pass
  /// any integer's range.
  double runs_in_all(std::uint64_t runs) const {
    if (behind_ <= 0) return 0;
    return std::max(static_cast<double>(runs + 1), std::round(static_cast<double>(runs) / behind_));
  }

 private:
  double weight_ = 1;
  double behind_ = 0;
};

}  // namespace duet::detail::fiber
