// Draft reproducer written by duet for fiber_subjects::OffByOneSpec.
// no linearizable order of the calls explains the results in this program:
//           c.incr() : 2
//           ---------+----------
// It checks that program as a hand-written scenario on threads, for a second of trials: whether
// the failing interleaving recurs is a matter of chance, so a pass proves little: run it under
// ThreadSanitizer too, or move the subject to duet/sync.hpp's types and duet::fibers().
// The search that found it: DUET_REPLAY=duet1.(masked)
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

TEST(fiber_subjects_OffByOneSpec, DuetRepro) {
  const duet::Scenario<fiber_subjects::OffByOneSpec::Cmd> scenario{
      .prefix = {fiber_subjects::Incr{}},
      .branches = {{}, {}},
  };
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::OffByOneSpec>(scenario);
  EXPECT_TRUE(r) << r.report;
}
