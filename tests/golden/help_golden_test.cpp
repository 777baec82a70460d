// --duet_help's text is UI: pinned here (tests/CMakeLists.txt also runs a binary with
// --duet_help and DUET_HELP=1 and compares its output with the same file).
#include <duet/gtest.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace {

TEST(Golden, DuetHelp) {
  const std::string path = std::string(DUET_SOURCE_DIR) + "/tests/golden/expected/duet_help.txt";
  const std::string actual = duet::settings_help();
  if (std::getenv("DUET_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  std::ifstream f(path);
  std::stringstream expected;
  expected << f.rdbuf();
  EXPECT_EQ(expected.str(), actual) << "golden file " << path << " differs; rerun with DUET_UPDATE_GOLDEN=1 if intended";
}

}  // namespace
