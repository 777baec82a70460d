#include "report/token.hpp"
#include <gtest/gtest.h>

namespace {

using duet::detail::decode_token;
using duet::detail::encode_token;
using duet::detail::ReplayRecord;

TEST(Token, RoundTrips) {
  ReplayRecord r{0xdeadbeef, 0x0123456789abcdefULL, 4242, 17, 55, 7, {0, 1, 127, 128, ~0ULL, 300}, {}};
  const std::string t = encode_token(r);
  EXPECT_EQ(t.rfind("duet1.", 0), 0u);
  for (char c : t) EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '_') << t;
  const ReplayRecord back = decode_token(t);
  EXPECT_EQ(back.spec_id, r.spec_id);
  EXPECT_EQ(back.seed, r.seed);
  EXPECT_EQ(back.cases, r.cases);
  EXPECT_EQ(back.shrink_steps, r.shrink_steps);
  EXPECT_EQ(back.max_length, 55u);
  EXPECT_EQ(back.continue_odds, 7u);
  EXPECT_EQ(back.choices, r.choices);
  EXPECT_FALSE(back.case_seed);
  EXPECT_EQ(decode_token("DUET_REPLAY=" + t + "\n").choices, r.choices);  // pasted whole line
}

TEST(Token, SeedTokensRoundTrip) {
  ReplayRecord r{1, 2, 3, 0, 100, 10, {}, 99};
  EXPECT_EQ(decode_token(encode_token(r)).case_seed, 99u);
  // The allocation-free writer used by the crash handler makes the same token.
  char buf[256];
  const std::size_t n = duet::detail::write_seed_token(buf, sizeof buf, r, 99);
  EXPECT_EQ(std::string(buf, n), encode_token(r));
  EXPECT_EQ(duet::detail::write_seed_token(buf, 8, r, 99), 0u);  // too small: says so
}

TEST(Token, EveryCorruptionIsCaught) {
  const std::string t = encode_token(ReplayRecord{7, 8, 9, 10, 100, 10, {1, 2, 3, 4, 5}, {}});
  for (std::size_t i = 6; i < t.size(); ++i) {
    std::string bad = t;
    bad[i] = bad[i] == 'A' ? 'B' : 'A';
    EXPECT_THROW(decode_token(bad), std::invalid_argument) << bad;
  }
  for (std::size_t n = 0; n < t.size(); ++n) EXPECT_THROW(decode_token(t.substr(0, n)), std::invalid_argument) << n;
}

TEST(Token, ErrorsSayWhatIsWrong) {
  try {
    decode_token("duet1.a$b");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("character '$'"), std::string::npos) << e.what();
  }
}

}  // namespace
