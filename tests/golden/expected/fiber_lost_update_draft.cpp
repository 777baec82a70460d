// Draft reproducer written by duet for fiber_subjects::CounterSpec<true>.
// no linearizable order of the calls explains the results in this program:
//           -------------+--------------
//           c.incr() : 1 | c.incr() : 1
// It checks that program as a hand-written scenario, replaying the failing schedule on duet's
// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.
// The failing schedule, as duet::run_fibers replays it: "0.0.1"
// The search that found it: DUET_REPLAY=duet1.tN3swgYBAQ5kCgINZmliZXJzOnJhbmRvbQEBAAwAAQAAAQAAAAABAADAf1cv
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

TEST(fiber_subjects_CounterSpec_true, DuetRepro) {
  const duet::Scenario<fiber_subjects::CounterSpec<true>::Cmd> scenario{
      .branches = {{fiber_subjects::Incr{}}, {fiber_subjects::Incr{}}},
  };
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::CounterSpec<true>>(scenario,
      {.executor = duet::fibers(duet::random())},
      {.replay = "duet1.ndqwggYAAQBkCgINZmliZXJzOnJhbmRvbQEAAAUAAAEAAOm34yU"});
  EXPECT_TRUE(r) << r.report;
}
