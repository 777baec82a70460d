// Y diagrams for 2, 3 and 4 branches (and a suffix) are pinned to the byte.
#include <duet/gtest.hpp>

#include <fstream>
#include <sstream>

namespace {

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(DUET_SOURCE_DIR) + "/tests/golden/expected/" + name;
  if (std::getenv("DUET_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  EXPECT_EQ(read(path), actual) << "golden file " << path << " differs; rerun with DUET_UPDATE_GOLDEN=1 if intended";
}

std::string diagram(std::size_t branches, std::size_t suffix) {
  duet::detail::YShape shape;
  shape.prefix = 1;
  std::vector<std::string> calls{"q.push(1)"}, results{"()"};
  for (std::size_t b = 0; b < branches; ++b) {
    const std::size_t len = 1 + b % 3;
    shape.branches.push_back(len);
    for (std::size_t k = 0; k < len; ++k) {
      calls.push_back(k % 2 ? "q.try_pop()" : "q.push(" + std::to_string(10 * b + k) + ")");
      results.push_back(k % 2 ? "std::nullopt" : "()");
    }
  }
  shape.suffix = suffix;
  for (std::size_t k = 0; k < suffix; ++k) {
    calls.push_back("q.size()");
    results.push_back("3u");
  }
  return duet::detail::y_diagram(shape, calls, results);
}

TEST(GoldenY, TwoBranches) { expect_golden("y_2_branches.txt", diagram(2, 0)); }
TEST(GoldenY, ThreeBranches) { expect_golden("y_3_branches.txt", diagram(3, 0)); }
TEST(GoldenY, FourBranchesAndASuffix) { expect_golden("y_4_branches_suffix.txt", diagram(4, 1)); }
TEST(GoldenY, EightBranches) { expect_golden("y_8_branches.txt", diagram(8, 0)); }

}  // namespace
