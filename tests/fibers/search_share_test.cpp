// The share of a depth-first search's tree behind its path (execute/fibers/search_share.hpp).
#include <gtest/gtest.h>

#include <cstdint>

#include "execute/fibers/search_share.hpp"

namespace {

using duet::detail::fiber::SearchShare;

// A tree of 3 × 2 leaves, walked leaf by leaf: the estimate is exact at every leaf (the subtrees
// of a level are alike), and at least one more run than made until the last.
TEST(SearchShare, AUniformTreeIsEstimatedExactly) {
  std::uint64_t runs = 0;
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 2; ++b) {
      ++runs;
      if (runs == 6) break;
      // The path the next run takes: at the top a, below it the next leaf.
      const std::size_t next_a = b == 1 ? a + 1 : a, next_b = b == 1 ? 0 : 1;
      SearchShare share;
      share.level(next_a, 3);
      share.level(next_b, 2);
      EXPECT_DOUBLE_EQ(share.runs_in_all(runs), 6.0) << "after run " << runs;
    }
}

// Levels of one branch change nothing; an unbalanced tree is estimated as if balanced, and
// never below the runs made plus one.
TEST(SearchShare, OneBranchLevelsAreSkippedAndTheEstimateExceedsTheRuns) {
  SearchShare share;
  share.level(0, 1);
  share.level(1, 2);
  share.level(0, 1);
  EXPECT_DOUBLE_EQ(share.behind(), 0.5);
  EXPECT_DOUBLE_EQ(share.runs_in_all(7), 14.0);
  SearchShare nothing;
  EXPECT_DOUBLE_EQ(nothing.runs_in_all(3), 0.0);  // nothing behind: no estimate
  SearchShare almost;
  almost.level(999, 1000);
  EXPECT_DOUBLE_EQ(almost.runs_in_all(3), 4.0);  // 3.003 runs in all, but one is still to run
}

}  // namespace
