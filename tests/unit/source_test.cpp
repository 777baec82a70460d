#include <duet/source.hpp>
#include <gtest/gtest.h>

#include <set>

namespace {

TEST(Source, SeededDrawsAreInRangeRecordedAndDeterministic) {
  auto a = duet::Source::from_seed(42), b = duet::Source::from_seed(42);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 1000; ++i) {
    const auto x = a.draw(6);
    EXPECT_LE(x, 6u);
    EXPECT_EQ(x, b.draw(6));
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 7u);  // every value reachable
  EXPECT_EQ(a.choices().size(), 1000u);
  EXPECT_EQ(a.choices(), b.choices());
}

TEST(Source, ReplayClampsAndFillsWithZero) {
  auto r = duet::Source::replay({5, 100, 7});
  EXPECT_EQ(r.draw(9), 5u);
  EXPECT_EQ(r.draw(9), 9u);  // clamped to the bound
  EXPECT_EQ(r.draw(9), 7u);
  EXPECT_EQ(r.draw(9), 0u);  // past the end: the simplest choice
  EXPECT_EQ(r.choices(), (std::vector<std::uint64_t>{5, 9, 7, 0}));
}

TEST(Source, BytesRunOutCleanly) {
  const std::uint8_t bytes[] = {1, 2, 3};
  auto s = duet::Source::from_bytes(bytes);
  EXPECT_EQ(s.draw(255), 1u);
  EXPECT_EQ(s.draw(0xffff), 0x0203u);
  EXPECT_THROW(s.draw(1), duet::Overrun);
}

TEST(Source, FullRangeDraws) {
  auto s = duet::Source::from_seed(1);
  std::set<std::uint64_t> top_bits;
  for (int i = 0; i < 64; ++i) top_bits.insert(s.draw(~std::uint64_t{0}) >> 62);
  EXPECT_EQ(top_bits.size(), 4u);
}

TEST(Source, SpansMarkCommands) {
  auto s = duet::Source::from_seed(1);
  const auto a = s.begin_span();
  s.draw(3);
  s.draw(3);
  s.end_span(a);
  const auto b = s.begin_span();
  s.end_span(b);  // empty spans are not recorded
  ASSERT_EQ(s.spans().size(), 1u);
  EXPECT_EQ(s.spans()[0].begin, 0u);
  EXPECT_EQ(s.spans()[0].end, 2u);
}

TEST(Source, RunawayGenerationIsAnOverrun) {
  auto s = duet::Source::replay({});
  EXPECT_THROW(
      for (;;) s.draw(1), duet::Overrun);
}

}  // namespace
