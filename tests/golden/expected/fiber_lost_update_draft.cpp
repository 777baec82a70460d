// Draft reproducer written by duet for fiber_subjects::CounterSpec<true>.
// no linearizable order of the calls explains the results in this program:
//           -------------+--------------
//           c.incr() : 1 | c.incr() : 1
// It replays the failing interleaving on duet's fiber scheduler, so it fails as reported,
// and passes once the candidate no longer gives these results in that schedule.
// duet's replay re-checks every order of the calls: DUET_REPLAY=duet1.tN3swgYBAQ5kCgINZmliZXJzOnJhbmRvbQEBAAwAAQAAAQAAAAABAADAf1cv
// Add the #include lines for your types.
#include <duet/executor.hpp>
#include <duet/result.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

TEST(fiber_subjects_CounterSpec_true, DuetRepro) {
  fiber_subjects::Counter<true> c;
  duet::Result r1, r2;
  const duet::FiberRun run = duet::run_fibers(
      {
          [&] {
            r1 = duet::capture([&] { return c.incr(); });
          },
          [&] {
            r2 = duet::capture([&] { return c.incr(); });
          },
      },
      "0.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
  const std::vector<std::string> results = {r1.show(), r2.show()};
  // No order of the calls gives these results:
  EXPECT_NE(results, (std::vector<std::string>{"1", "1"}));
}
