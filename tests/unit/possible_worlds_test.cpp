// The possible worlds a sequential check follows after crashes (duet/detail/possible_worlds.hpp):
// the type alone, and its limit reached through a state-machine spec.
#include "duet/detail/possible_worlds.hpp"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "duet/faults.hpp"
#include "duet/state_machine.hpp"

namespace {

using duet::detail::PossibleWorlds;

std::vector<int> values(const PossibleWorlds<int>& w) { return {w.begin(), w.end()}; }

TEST(PossibleWorlds, RestartLeavesOneWorldAndClearNone) {
  duet::detail::PossibleWorlds<int> worlds(1);
  worlds.fork([](int& w) { w += 10; });
  ASSERT_EQ(worlds.size(), 2u);
  worlds.restart(5);
  ASSERT_EQ(worlds.size(), 1u);
  EXPECT_EQ(worlds.front(), 5);
  worlds.clear();
  EXPECT_TRUE(worlds.empty());
}

TEST(PossibleWorlds, ACrashForksEveryWorldWithoutTheCommandFirst) {
  PossibleWorlds<int> w(1);
  w.fork([](int& x) { x += 10; });
  EXPECT_EQ(values(w), (std::vector<int>{1, 11}));
  w.fork([](int& x) { x *= 2; });
  EXPECT_EQ(values(w), (std::vector<int>{1, 2, 11, 22}));
}

TEST(PossibleWorlds, AForkThatThrowsLeavesTheWorldsAsBefore) {
  PossibleWorlds<int> w(1);
  w.fork([](int& x) { ++x; });
  EXPECT_THROW(w.fork([](int& x) {
    if (x == 2) throw std::runtime_error("next");
  }),
               std::runtime_error);
  EXPECT_EQ(values(w), (std::vector<int>{1, 2}));
}

TEST(PossibleWorlds, KeepsTheWorldsThatExplainAResultAndNoneLeavesThemAsBefore) {
  PossibleWorlds<int> w(1);
  w.fork([](int& x) { x = 2; });
  w.fork([](int& x) { x = 3; });  // 1 3 2 3
  std::vector<int> asked;
  EXPECT_EQ(w.keep_if([&](int x) {
    asked.push_back(x);
    return false;
  }),
            0u);
  EXPECT_EQ(asked, (std::vector<int>{1, 3, 2, 3}));  // every world asked, in order
  EXPECT_EQ(values(w), (std::vector<int>{1, 3, 2, 3}));
  EXPECT_EQ(w.keep_if([](int x) { return x == 3; }), 2u);
  EXPECT_EQ(values(w), (std::vector<int>{3, 3}));
  EXPECT_EQ(w.keep_at({false, true}), 1u);
  EXPECT_EQ(values(w), (std::vector<int>{3}));
}

TEST(PossibleWorlds, EqualWorldsMergeKeepingTheFirst) {
  struct World {
    int value;
    int tag;  // which copy: the merge keeps the first
  };
  PossibleWorlds<World> w(World{1, 0});
  w.add(World{2, 1}, [](const World& a, const World& b) { return a.value == b.value; });
  w.add(World{1, 2}, [](const World& a, const World& b) { return a.value == b.value; });
  EXPECT_EQ(w.size(), 2u);
  w.add_first(World{2, 3});
  w.merge([](const World& a, const World& b) { return a.value == b.value; });
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0].tag, 3);
  EXPECT_EQ(w[1].tag, 0);
}

TEST(PossibleWorlds, OneLimitAndOneWording) {
  PossibleWorlds<int> w(0);
  for (int i = 0; i < 12; ++i) w.fork([](int&) {});
  EXPECT_EQ(w.size(), 4096u);
  EXPECT_FALSE(w.over_limit());
  w.fork([](int&) {});
  EXPECT_TRUE(w.over_limit());
  EXPECT_EQ(PossibleWorlds<int>::limit_message("give State an operator=="),
            "more than 4096 possible worlds explain the crashes so far (give State an operator== so that equal ones merge)");
  EXPECT_EQ(PossibleWorlds<int>::interrupted(1, "call"), " (the interrupted call taken effect or not)");
  EXPECT_EQ(PossibleWorlds<int>::interrupted(2, "command"), " (the interrupted commands taken effect or not)");
}

// Every command crashes and the model states cannot merge (no operator==): the worlds double at
// each crash, and past the limit the check is an error saying how to merge them.
struct Tick {};
std::string duet_show(const Tick&) { return "tick()"; }

struct UnmergeableSpec {
  struct Sut {
    int ticks = 0;
  };
  struct State {
    int ticks = 0;  // no operator==: equal states cannot be told apart
  };
  using Cmd = std::variant<Tick>;
  static constexpr std::uint64_t crash_one_in = 1;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Tick{})); }
  static duet::Result run(const Cmd&, Sut& s) {
    duet::fault_point("tick");
    ++s.ticks;
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State& s) { ++s.ticks; }
  static void recover(Sut&) {}
};

TEST(PossibleWorlds, AStateMachinePastTheLimitIsAnErrorSayingHowToMerge) {
  const duet::CheckResult r =
      duet::check_sequential<UnmergeableSpec>({.seed = 1, .count = 20, .max_length = 40, .mean_length = 40});
  ASSERT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("more than 4096 possible worlds explain the crashes so far (give State an operator== so that "
                          "equal ones merge)"),
            std::string::npos)
      << r.report;
}

}  // namespace
