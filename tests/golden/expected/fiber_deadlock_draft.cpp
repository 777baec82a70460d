// Draft reproducer written by duet for fiber_subjects::AccountsSpec.
// deadlock: no fiber can proceed
//   fiber 0 blocked in lock mutex#1 at fiber_subjects.hpp:70
//   fiber 1 blocked in lock mutex#0 at fiber_subjects.hpp:79 in this program:
//           ------------------------------------------+-------------------------------------------
//           accounts.transfer_ab() : (did not return) | accounts.transfer_ba() : (did not return)
// It replays the failing interleaving on duet's fiber scheduler, so it fails as reported,
// and passes once the candidate no longer fails that way in that schedule.
// duet's replay re-checks every order of the calls: DUET_REPLAY=duet1.-Jz3vQQDAQxkCgINZmliZXJzOnJhbmRvbQEBAAwAAQAAAQEAAAABAAAGnmig
// Add the #include lines for your types.
#include <duet/executor.hpp>
#include <duet/result.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

TEST(fiber_subjects_AccountsSpec, DuetRepro) {
  fiber_subjects::Accounts accounts;
  duet::Result r1, r2;
  const duet::FiberRun run = duet::run_fibers(
      {
          [&] {
            r1 = duet::capture([&] { return accounts.transfer_ab(); });
          },
          [&] {
            r2 = duet::capture([&] { return accounts.transfer_ba(); });
          },
      },
      "0.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
}
