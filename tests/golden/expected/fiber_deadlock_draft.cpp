// Draft reproducer written by duet for fiber_subjects::AccountsSpec.
// deadlock: no fiber can proceed
//   fiber 0 blocked in lock mutex#1 at fiber_subjects.hpp:70
//   fiber 1 blocked in lock mutex#0 at fiber_subjects.hpp:79 in this program:
//           ------------------------------------------+-------------------------------------------
//           accounts.transfer_ab() : (did not return) | accounts.transfer_ba() : (did not return)
// It checks that program as a hand-written scenario, replaying the failing schedule on duet's
// fiber scheduler: it fails as reported while the bug exists, and passes once it is gone.
// The failing schedule, as duet::run_fibers replays it: "0.0.1"
// The search that found it: DUET_REPLAY=duet1.-Jz3vQQDAQxkCgINZmliZXJzOnJhbmRvbQEBAAwAAQAAAQEAAAABAAAGnmig
// Add the #include lines for your types.
#include <duet/parallel.hpp>
#include <gtest/gtest.h>

TEST(fiber_subjects_AccountsSpec, DuetRepro) {
  const duet::Scenario<fiber_subjects::AccountsSpec::Cmd> scenario{
      .branches = {{fiber_subjects::Ab{}}, {fiber_subjects::Ba{}}},
  };
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::AccountsSpec>(scenario,
      {.executor = duet::fibers(duet::random())},
      {.replay = "duet1.k6nMig0AAQBkCgINZmliZXJzOnJhbmRvbQEAAAUAAAEAALVO72k"});
  EXPECT_TRUE(r) << r.report;
}
