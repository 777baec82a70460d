// The settings table is the one source of --duet_help and of docs/reference.md's settings
// section: the document must hold exactly the generated table.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "duet/config.hpp"
#include "engine/settings_table.hpp"

namespace {

const std::string kReference = std::string(DUET_SOURCE_DIR) + "/docs/reference.md";

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(Reference, SettingsSectionIsTheTable) {
  std::string doc = read(kReference);
  ASSERT_FALSE(doc.empty()) << kReference;
  const std::size_t begin_marker = doc.find("<!-- settings:begin");
  ASSERT_NE(begin_marker, std::string::npos) << "docs/reference.md lost its <!-- settings:begin ... --> line";
  const std::size_t begin = doc.find("-->\n", begin_marker);
  ASSERT_NE(begin, std::string::npos);
  const std::size_t end = doc.find("<!-- settings:end -->", begin);
  ASSERT_NE(end, std::string::npos) << "docs/reference.md lost its <!-- settings:end --> line";
  const std::string generated = duet::detail::settings_markdown();
  if (std::getenv("DUET_UPDATE_GOLDEN")) {
    doc.replace(begin + 4, end - (begin + 4), generated);
    std::ofstream(kReference) << doc;
    return;
  }
  EXPECT_EQ(doc.substr(begin + 4, end - (begin + 4)), generated)
      << "docs/reference.md's settings table differs from src/engine/settings_table.cpp; rerun with DUET_UPDATE_GOLDEN=1";
}

// Every setting is a flag parse_flags accepts, listed in --duet_help with its variable.
TEST(Reference, EverySettingIsAFlagAndInTheHelp) {
  const std::string help = duet::settings_help();
  for (const duet::detail::SettingInfo& s : duet::detail::settings_table()) {
    std::string var = std::string("DUET_") + s.knob;
    for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    EXPECT_NE(help.find("--duet_" + std::string(s.knob)), std::string::npos) << s.knob;
    EXPECT_NE(help.find(var), std::string::npos) << var;
    EXPECT_NE(help.find(s.meaning, 0, 20), std::string::npos) << s.knob;
  }
  // A knob the parser does not know is refused, naming --duet_help.
  std::string flag = "--duet_no_such_setting=1";
  char* argv[] = {const_cast<char*>("t"), flag.data(), nullptr};
  int argc = 2;
  try {
    duet::parse_flags(&argc, argv);
    ADD_FAILURE() << "an unknown flag was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--duet_help"), std::string::npos) << e.what();
  }
}

}  // namespace
