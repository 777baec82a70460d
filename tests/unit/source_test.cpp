#include <duet/source.hpp>
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <vector>

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

// A case stops at kMaxChoices draws, in every mode and again after a restart (which keeps the
// room already made: the inline draw relies on that room never passing the limit, also when it
// grows from a copy's, 100 choices, not a power of two), and spans grow past their first reserve.
TEST(Source, ACaseOverrunsAtTheLimitOfChoices) {
  auto original = duet::Source::from_seed(7);
  for (int i = 0; i < 100; ++i) original.draw(3);
  auto s = original;
  for (int round = 0; round < 2; ++round) {
    for (std::size_t i = s.choices().size(); i < duet::Source::kMaxChoices; ++i) {
      const std::size_t span = s.begin_span();
      s.draw(3);
      if (i < 200) s.end_span(span);
    }
    EXPECT_THROW(s.draw(3), duet::Overrun);
    EXPECT_EQ(s.choices().size(), duet::Source::kMaxChoices);
    EXPECT_EQ(s.spans().size(), round == 0 ? 100u : 200u);
    EXPECT_EQ(s.spans().back().begin, 199u);
    s.restart(8);
  }
  auto r = duet::Source::replay({});
  for (std::size_t i = 0; i < duet::Source::kMaxChoices; ++i) r.draw(1);
  EXPECT_THROW(r.draw(1), duet::Overrun);
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

// A finished case's record moves out whole, and the Source records afresh after it.
// What a watcher (the engine's choice tap under isolation) is told: the record as it is when it
// starts watching, then every change, so that a copy it keeps is always the source's record.
class Mirror final : public duet::detail::RecordWatcher {
 public:
  void changed(const duet::Source& s) override {
    ++told;
    choices = s.choices();
    spans = s.spans().size();
    mark = s.concurrent_start();
  }
  int told = 0;
  std::vector<std::uint64_t> choices;
  std::size_t spans = 0, mark = 0;
};

TEST(Source, AWatcherIsToldOfEveryChangeToTheRecord) {
  auto s = duet::Source::replay({4, 5, 6, 7});
  s.draw(9);
  Mirror m;
  s.watch(&m);
  EXPECT_EQ(m.choices, (std::vector<std::uint64_t>{4}));  // what it held already
  const std::size_t begin = s.begin_span();
  s.draw(9);
  s.draw(9);
  s.end_span(begin);
  EXPECT_EQ(m.choices, (std::vector<std::uint64_t>{4, 5, 6}));
  EXPECT_EQ(m.spans, 1u);
  s.mark_concurrent_start();
  EXPECT_EQ(m.mark, 3u);
  const duet::Source::Drawn drawn = s.drawn_since(1);
  s.truncate(1);
  EXPECT_EQ(m.choices, (std::vector<std::uint64_t>{4}));
  EXPECT_EQ(m.spans, 0u);
  EXPECT_EQ(m.mark, duet::Source::kNoMark);
  s.continue_from(1, drawn);
  EXPECT_EQ(m.choices, (std::vector<std::uint64_t>{4, 5, 6}));
  s.restart(3);
  EXPECT_TRUE(m.choices.empty());
  s.draw(100);
  EXPECT_EQ(m.choices, s.choices());  // random mode too: never the inline draw
  const int told = m.told;
  s.watch(nullptr);
  s.draw(100);
  EXPECT_EQ(m.told, told);
}

TEST(Source, TakeRecordMovesTheChoicesAndSpansOut) {
  auto s = duet::Source::replay({4, 2, 1});
  const auto span = s.begin_span();
  s.draw(9);
  s.draw(9);
  s.end_span(span);
  s.draw(9);
  std::vector<std::uint64_t> choices{7};
  std::vector<duet::Source::Span> spans;
  s.take_record(choices, spans);
  EXPECT_EQ(choices, (std::vector<std::uint64_t>{4, 2, 1}));
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0].begin, 0u);
  EXPECT_EQ(spans[0].end, 2u);
  EXPECT_TRUE(s.choices().empty());
  EXPECT_TRUE(s.spans().empty());
  EXPECT_EQ(s.draw(9), 0u);  // past the replayed choices, recorded from nothing
  EXPECT_EQ(s.choices(), (std::vector<std::uint64_t>{0}));
}

// A strategy's decision, recorded: what replays is the decision, whatever the strategy.
TEST(Source, DecidedDrawsRecordTheDecisionAndReplayLikeDraws) {
  auto s = duet::Source::from_seed(7), fresh = duet::Source::from_seed(7);
  EXPECT_EQ(s.draw_decided(5, 3), 3u);
  EXPECT_EQ(s.draw_decided(5, 9), 5u);  // clamped to the bound
  EXPECT_EQ(s.draw_decided(0, 4), 0u);
  EXPECT_EQ(s.choices(), (std::vector<std::uint64_t>{3, 5, 0}));
  EXPECT_EQ(s.draw(1000), fresh.draw(1000));  // the generator did not move
  // Replay: the recorded values come back, whatever the strategy decides this time.
  auto r = duet::Source::replay({3, 5, 0, 1000});
  EXPECT_EQ(r.draw_decided(5, 0), 3u);
  EXPECT_EQ(r.draw(5), 5u);  // a plain draw reads a decided one
  EXPECT_EQ(r.draw_decided(5, 4), 0u);
  EXPECT_EQ(r.draw_decided(5, 4), 5u);  // clamped
  EXPECT_EQ(r.draw_decided(5, 4), 0u);  // past the end: 0
  EXPECT_EQ(r.choices(), (std::vector<std::uint64_t>{3, 5, 0, 5, 0}));
  // Bytes: read as draw(max) reads them.
  const std::uint8_t bytes[] = {9, 1};
  auto b = duet::Source::from_bytes(bytes);
  EXPECT_EQ(b.draw_decided(3, 0), 1u);  // 9 mod 4
  EXPECT_EQ(b.draw_decided(255, 0), 1u);
  EXPECT_THROW(b.draw_decided(1, 0), duet::Overrun);
}

TEST(Source, UnrecordedDrawsAreRandomOnlyInRandomMode) {
  auto s = duet::Source::from_seed(7), fresh = duet::Source::from_seed(7);
  std::set<std::uint64_t> seen;
  for (int i = 0; i < 200; ++i) {
    const auto v = s.draw_unrecorded(4);
    EXPECT_LE(v, 4u);
    seen.insert(v);
  }
  EXPECT_EQ(seen.size(), 5u);
  EXPECT_TRUE(s.choices().empty());
  EXPECT_NE(s.draw(~std::uint64_t{0}), fresh.draw(~std::uint64_t{0}));  // it does use the generator
  auto r = duet::Source::replay({2});
  EXPECT_EQ(r.draw_unrecorded(4), 0u);
  EXPECT_EQ(r.draw(4), 2u);  // nothing was consumed
  const std::uint8_t bytes[] = {3};
  auto b = duet::Source::from_bytes(bytes);
  EXPECT_EQ(b.draw_unrecorded(255), 0u);
  EXPECT_EQ(b.draw(255), 3u);
}

TEST(Source, RunawayGenerationIsAnOverrun) {
  auto s = duet::Source::replay({});
  EXPECT_THROW(for (;;) s.draw(1), duet::Overrun);
}

}  // namespace

// A program replayed from elsewhere (a failure on threads searched on fibers): its choices
// first, then the seed's draws once the case says the program is drawn; the choices left over
// are dropped, and the same seed gives the same schedule.
TEST(Source, ReplayProgramThenDrawsAtRandomFromTheSeed) {
  auto run = [](std::uint64_t seed) {
    duet::Source src = duet::Source::from_seed(seed);
    src.replay_program({3, 1, 7});
    EXPECT_EQ(src.draw(9), 3u);
    EXPECT_EQ(src.draw(9), 1u);
    src.program_drawn();  // the 7 was the threads run's noise: not read
    EXPECT_EQ(src.mode(), duet::Source::Mode::random);
    for (int i = 0; i < 20; ++i) (void)src.draw(1000);
    return src.choices();
  };
  const std::vector<std::uint64_t> a = run(5), b = run(5), c = run(6);
  ASSERT_EQ(a.size(), 22u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // Past the program's end without program_drawn, the draws are random too (never 0 forever).
  duet::Source short_program = duet::Source::from_seed(5);
  short_program.replay_program({2});
  EXPECT_EQ(short_program.draw(9), 2u);
  EXPECT_EQ(short_program.mode(), duet::Source::Mode::replay);
  (void)short_program.draw(9);
  EXPECT_EQ(short_program.mode(), duet::Source::Mode::random);
}

TEST(Source, ReplayProgramOnlyBeforeARandomCasesFirstDraw) {
  duet::Source drawn = duet::Source::from_seed(1);
  (void)drawn.draw(3);
  EXPECT_THROW(drawn.replay_program({1}), std::logic_error);
  duet::Source replaying = duet::Source::replay({1, 2});
  EXPECT_THROW(replaying.replay_program({1}), std::logic_error);
}
