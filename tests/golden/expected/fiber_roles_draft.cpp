// Draft reproducer written by duet for duet::models::BoundedQueue<duet::models::SpscRingBinding<duet::models::FiberSync, 2ul> >.
// no linearizable order of the calls explains the results in this program:
//           q.push(0) : true
//           -----------+--------------+--------------
//           [producer] | [consumer 1] | [consumer 2]
//                      | q.pop() : 0  | q.pop() : 0
// It checks that program as a hand-written scenario, replaying the failing schedule on duet's
// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.
// The failing schedule, as duet::run_fibers replays it: "0.0.0.0.0.1.0.1"
// The search that found it: DUET_REPLAY=duet1.wo-1qAMBBBJkCgINZmliZXJzOnJhbmRvbUUvABQBAAAAAAABAQABAQAAAAAAAAEAAdOxcSk
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

TEST(duet_models_BoundedQueue_duet_models_SpscRingBinding_duet_models_FiberSync_2ul, DuetRepro) {
  const duet::Scenario<duet::models::BoundedQueue<duet::models::SpscRingBinding<duet::models::FiberSync, 2ul> >::Cmd> scenario{
      .prefix = {duet::models::BoundedPush{0}},
      .branches = {{}, {duet::models::BoundedPop{}}, {duet::models::BoundedPop{}}},
  };
  const duet::CheckResult r = duet::check_scenario<duet::models::BoundedQueue<duet::models::SpscRingBinding<duet::models::FiberSync, 2ul> >>(scenario,
      {.roles = {{"producer", 1, {"push"}}, {"consumer", 2, {"pop"}}}, .executor = duet::fibers(duet::random())},
      {.replay = "duet1.kerV5wIAAQBkCgINZmliZXJzOnJhbmRvbQEAAAgAAAAAAAEAAXvzNXI"});
  EXPECT_TRUE(r) << r.report;
}
