// The demo's bug, as an acceptance test: found on every seed within the default budget and
// shrunk to its true minimum.
//
// The minimum for capacity 3 is 8 steps: the read index must wrap (3 pops, so 3 pushes first),
// and a fourth pop must then read the slot the index wrongly wrapped to (slot 1, not 0) while
// the model's front is a value pushed after the wrap (so one more push, 4 pushes in all).
// The stale value in slot 1 and the new one must differ, so exactly one value is nonzero.
// Several orders reach 8 steps; the shrinker's canonical (shortlex-least) one is:
//   push(0) push(0) push(0) pop() push(1) pop() pop() pop()  -> candidate 0, model 1
#include <duet/gtest.hpp>

#include "ring_buffer.hpp"

namespace {

const char* const kMinimal[] = {"q.push(0)", "q.push(0)", "q.push(0)", "q.pop()",
                                "q.push(1)", "q.pop()",   "q.pop()",   "q.pop()"};

TEST(RingBufferSeeds, BugFoundAndShrunkOnTwentySeeds) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r =
        duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = seed, .output_dir = "duet-output/seeds"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, 8u) << r.report;
    // The report lists the minimal scenario in order, failing at the last pop.
    std::size_t at = 0;
    for (const char* step : kMinimal) {
      at = r.report.find(std::string(step) + ";", at);
      ASSERT_NE(at, std::string::npos) << "missing " << step << " in\n" << r.report;
      at += 1;
    }
    EXPECT_NE(r.report.find("candidate returned 0; the model allows 1"), std::string::npos) << r.report;
  }
}

TEST(RingBufferSeeds, CorrectQueuePasses) {
  const duet::CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
  EXPECT_GT(r.commands, 50000u);  // mean length about 10 commands
}

}  // namespace
