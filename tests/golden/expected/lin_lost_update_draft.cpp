// Draft reproducer written by duet for counter.
// no linearizable order of the calls explains the results (the oracle: the candidate run sequentially) in this program:
//           -------------+--------------
//           c.incr() : 1 | c.incr() : 1
// It checks that program as a hand-written scenario, replaying the failing schedule on duet's
// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.
// The failing schedule, as duet::run_fibers replays it: "0.0.1"
// The search that found it: DUET_REPLAY=duet1.1JrckAcBARBkCgINZmliZXJzOnBjdCgzKQMCAAwAAQAAAQAAAAABAAAt_iLz
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

// The duet::Lin description of the test that found this: define duet_lin() to return it.
duet::Lin<fiber_subjects::Counter<true>> duet_lin();

TEST(counter, DuetRepro) {
  const duet::Scenario<> scenario{
      .branches = {{duet::call("incr")}, {duet::call("incr")}},
  };
  const duet::CheckResult r = duet::check_scenario(duet_lin(), scenario,
      {.executor = duet::fibers(duet::pct(3))},
      {.replay = "duet1.jdrMwwUAAQBkCgINZmliZXJzOnBjdCgzKQEAAAUAAAEAALtIxWw"});
  EXPECT_TRUE(r) << r.report;
}
