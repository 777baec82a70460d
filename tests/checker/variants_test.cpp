// The crafted variants of every format (tests/data/histories/variants/README.md) read as
// expected, and the etcd logs rewritten with spaces instead of tabs read and check as their
// originals.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <duet/history.hpp>

namespace {

using namespace duet::history;

const std::string kHistories = DUET_HISTORIES_DIR;

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FormatVariants, EveryVariantReadsAsItsGroupExpects) {
  const std::string dir = kHistories + "/variants";
  std::size_t checked = 0;
  for (const auto& [group, prefix, ext] :
       {std::tuple{"register-log", "register.", ".log"}, std::tuple{"register-edn", "register.", ".edn"},
        std::tuple{"kv", "kv.", ".txt"}}) {
    const std::string expected = slurp(dir + "/" + group + ".expected.duet");
    ASSERT_FALSE(expected.empty()) << group;
    std::size_t files = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) != 0 || e.path().extension() != ext) continue;
      SCOPED_TRACE(name);
      const History h = read_history(e.path().string());
      EXPECT_EQ(write_duet_history(h), expected);
      ++files;
    }
    EXPECT_GE(files, 2u) << group;
    checked += files;
  }
  EXPECT_EQ(checked, 10u);
}

TEST(FormatVariants, EtcdLogsWithSpacesCheckAsTheirOriginals) {
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(kHistories + "/etcd-spaces")) {
    const std::string name = e.path().filename().string();
    SCOPED_TRACE(name);
    const std::string original = kHistories + "/etcd/" + name;
    ASSERT_NE(slurp(e.path().string()), slurp(original));  // really rewritten
    const History spaced = read_history(e.path().string());
    const History tabs = read_history(original);
    History renamed = spaced;
    renamed.source = tabs.source;
    EXPECT_EQ(write_duet_history(renamed), write_duet_history(tabs));
    EXPECT_EQ(check_history(spaced).verdict, check_history(tabs).verdict);
    ++files;
  }
  EXPECT_EQ(files, 3u);
}

}  // namespace
