// Little-endian Patricia trees against std::map: the correct union passes 10,000 scenarios, and
// the union that compares branching masks as signed integers is found on every one of ten
// seeds, quickly (median time to find at most 2 s), by an observation: find or bindings.
#include <algorithm>
#include <cstdio>
#include <vector>

#include <duet/gtest.hpp>

#include "patricia.hpp"
#include "support/emulation.hpp"

namespace {

TEST(PatriciaSeeds, CorrectUnionPassesTenThousandScenarios) {
  const duet::Api api = patricia::spec(patricia::union_);
  const duet::CheckResult r = api.check({.count = 10000});
  EXPECT_TRUE(r);
  EXPECT_EQ(r.cases, 10000u);
}

TEST(PatriciaSeeds, SignedMaskUnionFoundOnTenSeeds) {
  const duet::Api api = patricia::spec(patricia::union_signed_masks);
  std::vector<double> times;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    // A count, not a time: the same cases on every machine (seed 4 needs 103,130; a 60 s budget
    // ran out under qemu on a loaded machine).
    const duet::CheckResult r = api.check({.seed = seed, .count = 250000, .output_dir = "duet-output/seeds"});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    // The scenario needs a union of a map branching on bit 63 (two keys differing only in the
    // sign bit) with another map.
    EXPECT_NE(r.report.find("union("), std::string::npos) << r.report;
    // seconds: searching and shrinking, i.e. until the report is ready.
    times.push_back(r.seconds);
    std::printf("patricia seed %2llu: found in %.3f s (%llu cases), shrunk to %zu steps\n",
                static_cast<unsigned long long>(seed), r.seconds, static_cast<unsigned long long>(r.cases),
                r.failing_length);
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = (sorted[4] + sorted[5]) / 2;
  std::printf("patricia: median time to find %.3f s\n", median);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(NDEBUG)
  // Sanitizer and debug builds run several times slower: the speed target is for release builds.
  std::printf("patricia: timing target not checked in this build\n");
#else
  EXPECT_LE(median, 2.0 * duet_test::time_scale());  // under qemu-user (make multiarch): scaled
#endif
}

}  // namespace
