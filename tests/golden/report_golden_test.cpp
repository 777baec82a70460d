// Failure output is UI: these pin the report and the draft test. Regenerate the expected
// files after a deliberate change with DUET_UPDATE_GOLDEN=1.
#include <duet/gtest.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>

#include "ring_buffer.hpp"
#include "support/test_specs.hpp"

namespace {

std::string golden_path(const std::string& name) { return std::string(DUET_SOURCE_DIR) + "/tests/golden/expected/" + name; }

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Timings vary between runs, and the replay count with every change to the shrinker's passes;
// everything else must match to the byte.
std::string mask(std::string text) {
  text = std::regex_replace(text, std::regex("[0-9]+\\.[0-9]+ s"), "#.## s");
  return std::regex_replace(text, std::regex("\\([0-9]+ replays\\)"), "(# replays)");
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  if (std::getenv("DUET_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  EXPECT_EQ(read(path), actual) << "golden file " << path << " differs; rerun with DUET_UPDATE_GOLDEN=1 if intended";
}

TEST(Golden, RingBufferReport) {
  const duet::CheckResult r =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 1, .output_dir = "duet-output/golden", .name = "BuggyRingBuffer"});
  ASSERT_FALSE(r);
  expect_golden("ring_buffer_report.txt", mask(r.report));
  expect_golden("ring_buffer_draft.cpp", read(r.draft_path));
}

TEST(Golden, ExceptionReport) {
  const duet::CheckResult r =
      duet::check_sequential<duet_test::BadBoundsSpec>({.seed = 3, .output_dir = "duet-output/golden", .name = "BadBounds"});
  ASSERT_FALSE(r);
  expect_golden("exception_report.txt", mask(r.report));
  expect_golden("exception_draft.cpp", read(r.draft_path));
}

TEST(Golden, ErrorReport) {
  const duet::CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay = "duet1.AAAA", .name = "Q"});
  expect_golden("bad_token_report.txt", mask(r.report));
}

}  // namespace
