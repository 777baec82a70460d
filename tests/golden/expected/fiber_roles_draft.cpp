// Draft reproducer written by duet for duet::models::BoundedQueue<duet::models::SpscRingBinding<duet::models::FiberSync, 2ul> >.
// no linearizable order of the calls explains the results in this program:
//           q.push(0) : true
//           -----------+--------------+--------------
//           [producer] | [consumer 1] | [consumer 2]
//                      | q.pop() : 0  | q.pop() : 0
// It replays the failing interleaving on duet's fiber scheduler, so it fails as reported,
// and passes once the candidate no longer gives these results in that schedule.
// duet's replay re-checks every order of the calls: DUET_REPLAY=duet1.wo-1qAMBBBJkCgINZmliZXJzOnJhbmRvbUUvABQBAAAAAAABAQABAQAAAAAAAAEAAdOxcSk
// Add the #include lines for your types.
#include <duet/executor.hpp>
#include <duet/result.hpp>
#include <gtest/gtest.h>

#include <string>
#include <vector>

TEST(duet_models_BoundedQueue_duet_models_SpscRingBinding_duet_models_FiberSync_2ul, DuetRepro) {
  struct Bound {  // the subject, called through duet::models::SpscRingBinding<duet::models::FiberSync, 2ul> as duet called it
    using B = duet::models::SpscRingBinding<duet::models::FiberSync, 2ul>;
    B::Sut& s;
    bool push(int x) { return static_cast<bool>(B::push(s, x)); }
    std::optional<int> pop() { return B::pop(s); }
  };
  auto q_made = duet::models::SpscRingBinding<duet::models::FiberSync, 2ul>::make();  // #include <memory>
  Bound q{*q_made};
  duet::Result r1, r2, r3;
  r1 = duet::capture([&] { return q.push(0); });
  const duet::FiberRun run = duet::run_fibers(
      {
          [&] {  // producer
          },
          [&] {  // consumer 1
            r2 = duet::capture([&] { return q.pop(); });
          },
          [&] {  // consumer 2
            r3 = duet::capture([&] { return q.pop(); });
          },
      },
      "0.0.0.0.0.1.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
  const std::vector<std::string> results = {r1.show(), r2.show(), r3.show()};
  // No order of the calls gives these results:
  EXPECT_NE(results, (std::vector<std::string>{"true", "0", "0"}));
}
