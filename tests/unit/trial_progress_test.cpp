// What a running case's trial loop tells the threads that watch it: its trials (the hang limit
// is per trial, TrialBeats) and how far a long case got (TrialProgressScope), and how an
// estimate prints.
#include <gtest/gtest.h>

#include <vector>

#include "execute/hang_clock.hpp"
#include "execute/trial_progress.hpp"
#include "show/text.hpp"

namespace {

using namespace duet::detail;

TEST(TrialBeats, CountTheTrialsOfTheirThreadTheInnermostFirst) {
  trial_starts_here();  // none registered: nothing happens
  TrialBeats outer;
  trial_starts_here();
  {
    TrialBeats inner;
    trial_starts_here();
    trial_starts_here();
    EXPECT_EQ(inner.count(), 2u);
  }
  trial_starts_here();
  EXPECT_EQ(outer.count(), 2u);
}

TEST(TrialProgress, ACaseReportsItsTrialsAndItsSearchsEstimate) {
  std::vector<TrialProgress> seen;
  const TrialProgressScope scope([&](const TrialProgress& p) { seen.push_back(p); });
  trial_progress(1);
  search_progress(1, 40);
  trial_progress(2);
  trial_progress(1);  // the next case: its search has reported nothing yet
  ASSERT_EQ(seen.size(), 3u);
  EXPECT_EQ(seen[0].runs, 0u);
  EXPECT_EQ(seen[1].trials, 2u);
  EXPECT_EQ(seen[1].runs, 1u);
  EXPECT_DOUBLE_EQ(seen[1].runs_in_all, 40.0);
  EXPECT_EQ(seen[2].runs, 0u);
  EXPECT_DOUBLE_EQ(seen[2].runs_in_all, 0.0);
}

TEST(TrialProgress, ANestedScopeHasItsOwnReportsUntilItEnds) {
  int outer = 0, inner = 0;
  const TrialProgressScope a([&](const TrialProgress&) { ++outer; });
  {
    const TrialProgressScope b([&](const TrialProgress&) { ++inner; });
    trial_progress(1);
  }
  trial_progress(1);
  EXPECT_EQ(inner, 1);
  EXPECT_EQ(outer, 1);
}

TEST(EstimatedCount, WholeBelowABillionElsePowersOfTen) {
  EXPECT_EQ(estimated_count(3400000.4), "3400000");
  EXPECT_EQ(estimated_count(1.9e25), "1.9e+25");
}

}  // namespace
