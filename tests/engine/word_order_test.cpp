// Sequences of words ordered element by element (src/engine/word_order.hpp), whatever the
// standard library's vector comparison does on the target (GCC 12's is wrong on s390x).
#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <vector>

#include "engine/word_order.hpp"

namespace {

using duet::detail::lex_less;
using Words = std::vector<std::uint64_t>;

TEST(WordOrder, ComparesElementByElementThenByLength) {
  EXPECT_TRUE(lex_less({0, 0, 3}, {0, 0, 5}));  // the case libstdc++ gets wrong on s390x
  EXPECT_FALSE(lex_less({0, 0, 5}, {0, 0, 3}));
  EXPECT_TRUE(lex_less({1ull << 40}, {1ull << 41}));
  EXPECT_TRUE(lex_less({7}, {7, 0}));
  EXPECT_FALSE(lex_less({7, 0}, {7, 0}));
}

// Precedences as the calls' orders check keeps them: sets of bits over several words, each
// distinct one kept.
TEST(WordOrder, ASetKeepsEveryDistinctSequence) {
  std::set<Words, duet::detail::WordsLess> seen;
  for (std::uint64_t a = 0; a < 8; ++a)
    for (std::uint64_t b = 0; b < 8; ++b) seen.insert(Words{0, a, b << 33});
  EXPECT_EQ(seen.size(), 64u);
  EXPECT_TRUE(seen.contains(Words{0, 2, 3ull << 33}));
  EXPECT_FALSE(seen.contains(Words{0, 2, 3}));
}

}  // namespace
