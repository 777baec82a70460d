// The models' interned strings: one id per distinct text, also for the concatenations the kv
// model's appends make while the search runs, whose texts are written out only on demand.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "check/interner.hpp"

namespace {

using duet::history::detail::Interner;

TEST(Interner, IdZeroIsReservedAndEmptyTextIsAnotherId) {
  Interner values;
  EXPECT_EQ(values.text(0), "");
  const std::uint32_t empty = values.id("");
  EXPECT_NE(empty, 0u);
  EXPECT_EQ(values.id(""), empty);
  EXPECT_EQ(values.concat(empty, values.id("ab")), values.id("ab"));
}

TEST(Interner, AConcatenationIsTheIdOfItsText) {
  Interner values;
  const std::uint32_t x = values.id("x 1 0 y"), y = values.id("x 2 0 y");
  const std::uint32_t xy = values.concat(x, y);
  EXPECT_EQ(values.text(xy), "x 1 0 yx 2 0 y");
  EXPECT_EQ(values.id("x 1 0 yx 2 0 y"), xy);  // the history's text meets the search's
  EXPECT_NE(values.concat(y, x), xy);
  EXPECT_EQ(values.concat(x, y), xy);
}

// Random appends over a few pieces, some texts reached along several ways ("ab" + "c" and
// "a" + "bc"): ids agree with texts, both ways, over thousands of values.
TEST(Interner, IdsAndTextsAgreeOverRandomAppends) {
  Interner values;
  const std::vector<std::string> pieces{"a", "b", "ab", "bc", "c", "x 12 3 y", ""};
  std::vector<std::uint32_t> piece_ids;
  for (const std::string& p : pieces) piece_ids.push_back(values.id(p));
  std::unordered_map<std::string, std::uint32_t> seen;
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> states{values.id("")};
  for (int i = 0; i < 20'000; ++i) {
    const std::uint32_t from = states[rng() % states.size()];
    if (values.text(from).size() > 40) continue;
    const std::size_t p = rng() % pieces.size();
    const std::uint32_t made = values.concat(from, piece_ids[p]);
    const std::string expected = values.text(from) + pieces[p];
    ASSERT_EQ(values.text(made), expected);
    const auto [it, fresh] = seen.try_emplace(expected, made);
    ASSERT_EQ(it->second, made) << expected;  // one id per text
    if (fresh) states.push_back(made);
  }
  for (const auto& [text, id] : seen) EXPECT_EQ(values.id(text), id) << text;
  EXPECT_GT(seen.size(), 1'000u);
}

}  // namespace
