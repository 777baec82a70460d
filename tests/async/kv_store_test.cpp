// The seed study's subject, finished: a key-value store over a mock block device, async I/O,
// crashes injected at every device call, judged against a std::map that allows an interrupted
// operation to have taken effect or not.
#include <cstdio>
#include <string>

#include <duet/gtest.hpp>

#include "kv_store_spec.hpp"

namespace {

constexpr const char* kOut = "duet-output/async";

// The scenario as the report prints it: from the setup line to the replay line (the header
// and the timings vary between runs).
std::string scenario(const std::string& report) {
  const auto from = report.find("        duet::BlockDevice");
  const auto to = report.find("  replay:");
  if (from == std::string::npos || to == std::string::npos) return "(no scenario in the report)";
  return report.substr(from, to - from);
}

// Found on every seed within the default budget, shrunk to `steps` steps, and the token
// replays the same scenario with the same async traces.
template <class Spec>
void found_on_every_seed(std::size_t steps, const std::string& must_show, const char* name) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::check_sequential<Spec>({.seed = seed, .output_dir = std::string(kOut), .name = name});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_EQ(r.failing_length, steps) << r.report;
    EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
    EXPECT_NE(r.report.find("// crash at disk."), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("after the crash the model allows"), std::string::npos) << r.report;
    EXPECT_NE(r.report.find(must_show), std::string::npos) << r.report;
    EXPECT_NE(r.report.find("| duet::run at kv_store_spec.hpp"), std::string::npos) << "no async trace\n" << r.report;
    const duet::CheckResult again =
        duet::check_sequential<Spec>({.replay = r.replay_token, .output_dir = std::string(kOut), .name = name});
    ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
    EXPECT_EQ(scenario(again.report), scenario(r.report));
    if (seed == 1) std::printf("%s\n", r.report.c_str());
    std::printf("%s seed %llu: found after %llu cases in %.3f s, shrunk to %zu steps\n", name,
                static_cast<unsigned long long>(seed), static_cast<unsigned long long>(r.cases), r.seconds,
                r.failing_length);
  }
}

// Minimum: a key removed, an update crashed before its directory write, the key back.
//   kv.set("b", ""); kv.remove("b"); kv.set("a", "") /* crash */; kv.get("b") -> "" (allowed: nullopt)
TEST(KvStoreSeeds, StaleDirectoryFoundOnEverySeedShrunkToFourSteps) {
  found_on_every_seed<kv::Spec<kv::Bug::stale_directory>>(4, ".remove(\"", "kv_stale_directory");
}

// Minimum: a value of one byte more than a sector, crashed after its directory write.
//   kv.set("a", <65 bytes>) /* crash */; kv.get("a") -> 65 zero bytes (allowed: nullopt or the value)
TEST(KvStoreSeeds, DirectoryBeforeDataFoundOnEverySeedShrunkToTwoSteps) {
  found_on_every_seed<kv::Spec<kv::Bug::directory_before_data>>(
      2, "kv.set(\"a\", \"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyzabcdefghijklm\");",
      "kv_directory_before_data");
}

TEST(KvStoreSeeds, CorrectStorePassesTenThousandScenariosWithCrashes) {
  for (bool write_back : {false, true}) {
    const std::uint64_t before = kv::recoveries;
    const duet::CheckResult r = write_back ? duet::check_sequential<kv::Spec<kv::Bug::none, true>>({.count = 10000})
                                           : duet::check_sequential<kv::Spec<kv::Bug::none, false>>({.count = 10000});
    EXPECT_TRUE(r) << r.report;
    EXPECT_EQ(r.cases, 10000u);
    const std::uint64_t crashes = kv::recoveries - before;
    std::printf("write-%s: 10000 scenarios, %llu commands, %llu crashes recovered, %.2f s\n",
                write_back ? "back" : "through", static_cast<unsigned long long>(r.commands),
                static_cast<unsigned long long>(crashes), r.seconds);
    EXPECT_GT(crashes, 3000u) << "crash injection hardly happened";
  }
}

// No false alarm: 10 seeds, ten times the default budget each, on both kinds of device.
TEST(KvStoreSeeds, CorrectStoreNoFalseAlarmWriteThrough) {
  for (std::uint64_t seed = 101; seed <= 105; ++seed) {
    const duet::CheckResult r = duet::check_sequential<kv::Spec<kv::Bug::none, false>>({.seed = seed, .time = 10});
    EXPECT_TRUE(r) << r.report;
  }
}
TEST(KvStoreSeeds, CorrectStoreNoFalseAlarmWriteBack) {
  for (std::uint64_t seed = 106; seed <= 110; ++seed) {
    const duet::CheckResult r = duet::check_sequential<kv::Spec<kv::Bug::none, true>>({.seed = seed, .time = 10});
    EXPECT_TRUE(r) << r.report;
  }
}

// Write-back caching: a crash loses any subset of the unflushed sectors. A store that forgets
// to flush its data before the directory is found there and only there.
}  // namespace
