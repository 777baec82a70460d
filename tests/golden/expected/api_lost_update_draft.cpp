// Draft reproducer written by duet for counter api.
// no linearizable order of the calls explains the results (the oracle: the reference implementation) in this program:
//           auto c0 = make()
//           -------------+--------------
//           incr(c0) : 1 | incr(c0) : 1
// It checks that program as a hand-written scenario, replaying the failing schedule on duet's
// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.
// The failing schedule, as duet::run_fibers replays it: "0.0.1"
// The search that found it: DUET_REPLAY=duet1.6siDkwMBBw5kCgINZmliZXJzOnBjdCgzKXkdABABAAABAQAAAQEAAAAAAQAAD-6gKg
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

#include <duet/api.hpp>

// The duet::Api of the test that found this: define duet_api() to return it.
duet::Api duet_api();

TEST(counter_api, DuetRepro) {
  const duet::Scenario<> scenario{
      .prefix = {duet::call("make")},
      .branches = {{duet::call("incr", "c0")}, {duet::call("incr", "c0")}},
  };
  const duet::CheckResult r = duet_api().check_scenario(scenario,
      {.executor = duet::fibers(duet::pct(3))},
      {.replay = "duet1.9Mqrvw8AAQBkCgINZmliZXJzOnBjdCgzKQEAAAUAAAEAAFvJztY"});
  EXPECT_TRUE(r) << r.report;
}
