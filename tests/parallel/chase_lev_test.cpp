// A Chase–Lev work-stealing deque (models/duet/models/chase_lev.hpp) checked as its authors use
// it: one owner pushing and popping, two thieves stealing, steals that may abort. It passes on
// threads and on fibers under the C++ memory model (random, PCT, exhaustive); with the aborting
// steals taken away from the model, or with a second owner, it is found.
#include <duet/gtest.hpp>

#include <string>
#include <vector>

#include <duet/models/chase_lev.hpp>

namespace {

using duet::models::ChaseLevBinding;
using duet::models::FiberSync;
using duet::models::StdSync;
using duet::models::WorkStealingDeque;

const std::vector<duet::Role> kOwnerAndThieves = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}};

// 500 programs: three threads on two cores take 28 s for 2,000 programs on an idle machine and
// over 600 s (ctest's limit) beside a busy loop per core; the fiber test below runs 2,000.
TEST(ChaseLev, PassesWithOneOwnerAndTwoThievesOnThreads) {
  const duet::CheckResult r = duet::check_parallel<WorkStealingDeque<ChaseLevBinding<StdSync>>>({.roles = kOwnerAndThieves},
                                                                                                {.seed = 1, .count = 500});
  EXPECT_TRUE(r) << r.report;
}

TEST(ChaseLev, PassesWithOneOwnerAndTwoThievesOnFibers) {
  for (auto schedule : {duet::random(), duet::pct(3)}) {
    const duet::CheckResult r = duet::check_parallel<WorkStealingDeque<ChaseLevBinding<FiberSync>>>(
        {.roles = kOwnerAndThieves, .executor = duet::fibers(schedule)}, {.seed = 1, .count = 2000});
    EXPECT_TRUE(r) << r.report;
  }
  const duet::CheckResult exhaustive = duet::check_parallel<WorkStealingDeque<ChaseLevBinding<FiberSync>>>(
      {.roles = kOwnerAndThieves, .branch_length = 2, .prefix_length = 2, .executor = duet::fibers(duet::exhaustive(2, 1))},
      {.seed = 1, .count = 100});
  EXPECT_TRUE(exhaustive) << exhaustive.report;
}

// The same deque against a model whose steals never abort: two thieves racing for the top item
// show the abort.
template <class Binding>
struct NoAbortDeque : WorkStealingDeque<Binding> {
  using Base = WorkStealingDeque<Binding>;
  static std::vector<typename Base::State> next_states(const typename Base::Cmd& c, const typename Base::State& s,
                                                       const duet::Result& got) {
    if (std::holds_alternative<duet::models::DequeSteal>(c) && got == duet::Result(std::optional<int>()) && !s.empty())
      return {};
    return Base::next_states(c, s, got);
  }
};

TEST(ChaseLev, StealsAbortAModelWithoutAbortsSeesIt) {
  const duet::CheckResult r = duet::expect_unsafe<NoAbortDeque<ChaseLevBinding<FiberSync>>>(
      {.roles = kOwnerAndThieves, .executor = duet::fibers(duet::pct(3))}, {.seed = 1, .count = 20000});
  ASSERT_TRUE(r) << r.report;
  EXPECT_NE(r.report.find("d.steal() : std::nullopt"), std::string::npos) << r.report;
}

TEST(ChaseLev, TwoOwnersAreFound) {
  const duet::CheckResult r = duet::expect_unsafe<WorkStealingDeque<ChaseLevBinding<FiberSync>>>(
      {.roles = {{"owner", 2, {"push", "pop"}}, {"thief", 1, {"steal"}}}, .executor = duet::fibers(duet::pct(3))},
      {.seed = 1, .count = 20000});
  EXPECT_TRUE(r) << r.report;
}

}  // namespace
