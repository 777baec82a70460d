// The walk over every program (src/generate/enumeration.cpp): each answer a draw may give in
// the enumeration is tried once, depth first; a program reached along several paths counts
// once; shards split the programs; and a seeded Source draws as it always did, so tokens and
// reports of random checks are unchanged.
#include <duet/gen.hpp>
#include <duet/source.hpp>
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "generate/enumeration.hpp"

namespace {

using duet::detail::ProgramEnumeration;

// A toy "program": a value of 0..9 (enumerated: the first `values`), a yes/no drawn from [0, 3]
// (1 to 3 say the same), and on yes a boolean.
std::string draw_toy(duet::Source& src) {
  std::string key = std::to_string(src.draw_value(9));
  if (src.draw(3, 1) != 0) key += src.draw_value(1) ? "+t" : "+f";
  return key;
}

std::vector<std::string> walk_all(ProgramEnumeration& walk) {
  std::vector<std::string> run;
  duet::Source src = duet::Source::from_seed(1);
  while (walk.next(src)) {
    const std::string key = draw_toy(src);
    src.program_drawn();
    if (walk.drawn(src, key)) run.push_back(key);
  }
  return run;
}

TEST(ProgramEnumeration, TriesEachAnswerOfEachDrawOnceDepthFirst) {
  ProgramEnumeration walk(3);
  const std::vector<std::string> run = walk_all(walk);
  const std::vector<std::string> expected = {"0", "0+f", "0+t", "1", "1+f", "1+t", "2", "2+f", "2+t"};
  EXPECT_EQ(run, expected);
  EXPECT_TRUE(walk.done());
  EXPECT_EQ(walk.programs(), 9u);
  EXPECT_EQ(walk.paths(), 9u);
}

TEST(ProgramEnumeration, AProgramReachedTwiceRunsOnce) {
  ProgramEnumeration walk(2);
  duet::Source src = duet::Source::from_seed(1);
  std::vector<std::string> run;
  while (walk.next(src)) {
    const std::uint64_t a = src.draw(2);  // 0, 1 and 2: 1 and 2 give the same program
    src.program_drawn();
    if (walk.drawn(src, a == 0 ? "zero" : "nonzero")) run.push_back(a == 0 ? "zero" : "nonzero");
  }
  EXPECT_EQ(run, (std::vector<std::string>{"zero", "nonzero"}));
  EXPECT_EQ(walk.paths(), 3u);
}

TEST(ProgramEnumeration, ShardsSplitTheProgramsDisjointlyAndCoverThem) {
  std::set<std::string> all;
  std::size_t total = 0;
  for (std::uint32_t shard = 0; shard < 4; ++shard) {
    ProgramEnumeration walk(3, 4, shard);
    for (const std::string& key : walk_all(walk)) {
      EXPECT_TRUE(all.insert(key).second) << key << " in two shards";
      ++total;
    }
    EXPECT_EQ(walk.programs(), 9u);  // every shard walks the whole tree
  }
  EXPECT_EQ(total, 9u);
}

// Three data values of 0..9, three tried each: 27 programs, or 5 up to renaming (the values in
// the order of their first use: 000, 001, 010, 011, 012), one per class of renamings.
std::vector<std::string> walk_data(ProgramEnumeration& walk) {
  std::vector<std::string> run;
  duet::Source src = duet::Source::from_seed(1);
  while (walk.next(src)) {
    std::string key;
    for (int i = 0; i < 3; ++i) key += std::to_string(src.draw_datum(9));
    src.program_drawn();
    if (walk.drawn(src, key)) run.push_back(key);
  }
  return run;
}

TEST(ProgramEnumeration, SymmetricValuesWalkOneProgramPerRenaming) {
  ProgramEnumeration plain(3);
  EXPECT_EQ(walk_data(plain).size(), 27u);
  ProgramEnumeration symmetric(3, 1, 0, true);
  EXPECT_EQ(walk_data(symmetric), (std::vector<std::string>{"000", "001", "010", "011", "012"}));
  ProgramEnumeration two(2, 1, 0, true);  // at most two values: 012 is not in the scope
  EXPECT_EQ(walk_data(two), (std::vector<std::string>{"000", "001", "010", "011"}));
  // Values that are not data (Source::draw_value: a boolean, an element_of) are never renamed.
  ProgramEnumeration toy(3, 1, 0, true);
  EXPECT_EQ(walk_all(toy).size(), 9u);
  // Random mode: draw_datum draws as draw_value, so seeds and tokens are unchanged.
  duet::Source a = duet::Source::from_seed(5), b = duet::Source::from_seed(5);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(a.draw_datum(9), b.draw_value(9));
}

TEST(ProgramEnumeration, DrawsAfterTheProgramAreRandomAgain) {
  ProgramEnumeration walk(2);
  duet::Source src = duet::Source::from_seed(7);
  ASSERT_TRUE(walk.next(src));
  EXPECT_EQ(src.draw(100), 0u);  // enumerated: past the path, 0
  src.program_drawn();
  bool nonzero = false;
  for (int i = 0; i < 20; ++i) nonzero = nonzero || src.draw(100) != 0;
  EXPECT_TRUE(nonzero);
  EXPECT_EQ(src.mode(), duet::Source::Mode::random);
}

// The generators' enumerated draws: integers take their values nearest the target, one way each.
TEST(ProgramEnumeration, IntegersTakeTheirFirstValuesOnce) {
  const auto gen = duet::integers(0, 9);
  ProgramEnumeration walk(3);
  duet::Source src = duet::Source::from_seed(1);
  std::vector<int> run;
  while (walk.next(src)) {
    const int x = gen(src);
    src.program_drawn();
    if (walk.drawn(src, std::to_string(x))) run.push_back(x);
  }
  EXPECT_EQ(run, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(walk.paths(), 3u);
}

TEST(ProgramEnumeration, VectorsStopAtTheValuesPastTheirMinimum) {
  const auto gen = duet::vectors(duet::integers(0, 1), 0, 64);
  ProgramEnumeration walk(2);
  duet::Source src = duet::Source::from_seed(1);
  std::size_t longest = 0, programs = 0;
  while (walk.next(src)) {
    const std::vector<int> v = gen(src);
    src.program_drawn();
    longest = std::max(longest, v.size());
    std::string key;
    for (int x : v) key += std::to_string(x);
    programs += walk.drawn(src, "[" + key + "]");
  }
  EXPECT_EQ(longest, 2u);
  EXPECT_EQ(programs, 1u + 2u + 4u);
}

// Random mode: the scoped draws are plain draws, so a seed gives the choices it always gave.
TEST(ProgramEnumeration, ASeededSourceDrawsAsBefore) {
  duet::Source a = duet::Source::from_seed(99), b = duet::Source::from_seed(99);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(a.draw(15, 0), b.draw(15));
    EXPECT_EQ(a.draw_value(31), b.draw(31));
    EXPECT_EQ(a.draw(3, 1), b.draw(3));
  }
  EXPECT_EQ(a.choices(), b.choices());
  EXPECT_EQ(a.enumerated_values(), 0u);
}

TEST(ProgramEnumeration, LikeBranchesThatOnlySwapAreOneProgram) {
  using duet::detail::canonical_program;
  const std::vector<std::string> prefix = {"push(0)"};
  const std::vector<std::vector<std::string>> ab = {{"pop()"}, {"push(1)", "pop()"}};
  const std::vector<std::vector<std::string>> ba = {{"push(1)", "pop()"}, {"pop()"}};
  EXPECT_EQ(canonical_program(prefix, ab, {}, {}), canonical_program(prefix, ba, {}, {}));
  // Branches of different roles are not alike.
  EXPECT_NE(canonical_program(prefix, ab, {0, 1}, {}), canonical_program(prefix, ba, {0, 1}, {}));
  // Nor is a call in the prefix one in the suffix.
  EXPECT_NE(canonical_program({"pop()"}, {{}, {}}, {}, {}), canonical_program({}, {{}, {}}, {}, {"pop()"}));
}

// What a walk's pass may claim: nothing while the walk is unfinished, nor where an exhaustive
// search of a program stopped before its end.
TEST(EveryProgramWalk, AGapInTheWalkOrInAProgramsSearchIsUnfinished) {
  duet::detail::EveryProgramWalk every;
  every.scope = "2 branches × up to 1 call";
  EXPECT_EQ(every.unfinished(), "");  // nothing walked here: nothing claimed either
  ProgramEnumeration& walk = every.start(1, 0);
  duet::Source src = duet::Source::from_seed(1);
  ASSERT_TRUE(walk.next(src));
  (void)src.draw_value(9);  // a program of two: 0 and 1
  src.program_drawn();
  ASSERT_TRUE(walk.drawn(src, "0"));
  every.ran = 1;
  every.total = 2;
  EXPECT_EQ(every.unfinished(),
            "the walk over every program of the scope stopped at its budget, after 1 programs of the scope's 2");
  ASSERT_TRUE(walk.next(src));
  (void)src.draw_value(9);
  src.program_drawn();
  ASSERT_TRUE(walk.drawn(src, "1"));
  ASSERT_TRUE(walk.done());
  every.ran = 2;
  every.exhausted = 2;
  every.searches_every_run = true;
  EXPECT_EQ(every.unfinished(), "");
  EXPECT_EQ(every.coverage(), "every program of the scope passed: 2 programs of 2 branches × up to 1 call (like branches "
                              "that only swap counted once), each searched to its end");
  every.exhausted = 1;
  EXPECT_EQ(every.unfinished(), "the search of every run stopped before its end in 1 of the 2 programs of the scope (its "
                                "budget of runs per program)");
}

}  // namespace
