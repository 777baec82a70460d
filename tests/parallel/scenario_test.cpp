// Hand-written scenarios (duet/scenario.hpp): a Y-program written in the test, checked by every
// executor and strategy through the state-machine and signature-only front ends. A racy counter
// fails its two-increment scenario on fibers (random, PCT, exhaustive) and an off-by-one counter
// on threads; the fixed counter passes everywhere, and an exhaustive search of the fixed program
// ends after one case, saying it is complete. The token of a failure replays that scenario and
// no other; a scenario naming an unknown operation, or giving arguments that do not fit, is an
// error, never a pass. The same through duet::Api, whose scenarios name live values as
// reports do ("c0").
#include <duet/gtest.hpp>

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "support/fiber_subjects.hpp"
#include "support/scenario_subjects.hpp"
#include "support/verdicts.hpp"

namespace {

using fiber_subjects::Get;
using fiber_subjects::Incr;
using RacySpec = fiber_subjects::CounterSpec<true>;
using FixedSpec = fiber_subjects::CounterSpec<false>;
using Cmd = RacySpec::Cmd;

const duet::Scenario<Cmd> kTwoIncrs{.branches = {{Incr{}}, {Incr{}}}};
const duet::Scenario<Cmd> kIncrsThenGet{.prefix = {Incr{}}, .branches = {{Incr{}, Get{}}, {Incr{}}}, .suffix = {Get{}}};

std::vector<duet::Schedule> all_strategies() { return {duet::random(), duet::pct(3), duet::exhaustive(2)}; }

using test_verdicts::passed_or_inconclusive;  // on threads, a loaded machine may not overlap the branches

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Scenario, SpecFailsOnEveryFiberStrategy) {
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        duet::check_scenario<RacySpec>(kTwoIncrs, {.executor = duet::fibers(s)}, {.seed = 1, .verbose = -1});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_TRUE(has(r.report, "c.incr() : 1 | c.incr() : 1")) << r.report;
    EXPECT_TRUE(has(r.report, "hand-written")) << r.report;
  }
}

TEST(Scenario, SpecFailsOnThreads) {
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::OffByOneSpec>(kTwoIncrs, {}, {.seed = 1, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "c.incr() : 2")) << r.report;
}

TEST(Scenario, SpecPassesOnEveryExecutor) {
  const duet::CheckResult on_threads = duet::check_scenario<FixedSpec>(kIncrsThenGet, {}, {.seed = 1, .count = 50});
  EXPECT_TRUE(passed_or_inconclusive(on_threads)) << on_threads.report;
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        duet::check_scenario<FixedSpec>(kIncrsThenGet, {.executor = duet::fibers(s)}, {.seed = 1, .count = 50});
    EXPECT_TRUE(r) << r.report;
  }
}

// A program whose branches are empty (a draft of a failure that needs no concurrency) runs on
// threads without calling the check inconclusive for want of overlapping branches.
TEST(Scenario, ProgramWithEmptyBranchesRunsOnThreads) {
  const duet::Scenario<Cmd> alone{.prefix = {Incr{}, Get{}}, .branches = {{}, {}}};
  const duet::CheckResult r = duet::check_scenario<FixedSpec>(alone, {}, {.seed = 1, .count = 20});
  EXPECT_TRUE(r) << r.report;
}

// An exhaustive search of one program ends when it has explored every schedule, and says so.
TEST(Scenario, ExhaustiveEndsOnceTheProgramIsExplored) {
  const duet::CheckResult r =
      duet::check_scenario<FixedSpec>(kIncrsThenGet, {.executor = duet::fibers(duet::exhaustive(2))}, {.seed = 1});
  ASSERT_TRUE(r) << r.report;
  EXPECT_EQ(r.cases, 1u);
  EXPECT_TRUE(has(r.coverage, "complete")) << r.coverage;
}

TEST(Scenario, TokenReplaysTheScenarioAndNoOther) {
  const duet::ParallelConfig pc{.executor = duet::fibers(duet::pct(3))};
  const duet::CheckResult r = duet::check_scenario<RacySpec>(kTwoIncrs, pc, {.seed = 2, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const duet::CheckResult again = duet::check_scenario<RacySpec>(kTwoIncrs, pc, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(has(again.report, "c.incr() : 1 | c.incr() : 1")) << again.report;
  const duet::Scenario<Cmd> other{.branches = {{Incr{}}, {Get{}}}};
  const duet::CheckResult refused = duet::check_scenario<RacySpec>(other, pc, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(refused.status, duet::CheckResult::Status::error) << refused.report;
  const duet::CheckResult generated = duet::check_parallel<RacySpec>(pc, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(generated.status, duet::CheckResult::Status::error) << generated.report;
}

// ---- duet::Lin ----

auto racy_lin() { return scenario_subjects::counter_lin<true>(); }
auto fixed_lin() { return scenario_subjects::counter_lin<false>(); }

const duet::Scenario<> kLinIncrs{.branches = {{duet::call("incr")}, {duet::call("incr"), duet::call("get_plus", 2)}}};

TEST(Scenario, LinFailsOnEveryFiberStrategy) {
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        duet::check_scenario(racy_lin(), kLinIncrs, {.executor = duet::fibers(s)}, {.seed = 1, .verbose = -1});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_TRUE(has(r.report, "c.get_plus(2)")) << r.report;
  }
}

TEST(Scenario, LinPassesOnEveryExecutor) {
  const duet::CheckResult on_threads = duet::check_scenario(fixed_lin(), kLinIncrs, {}, {.seed = 1, .count = 50});
  EXPECT_TRUE(passed_or_inconclusive(on_threads)) << on_threads.report;
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        duet::check_scenario(fixed_lin(), kLinIncrs, {.executor = duet::fibers(s)}, {.seed = 1, .count = 50});
    EXPECT_TRUE(r) << r.report;
  }
}

TEST(Scenario, LinCallsThatDoNotFitAreErrors) {
  auto error_of = [](const duet::Call& bad) {
    const duet::Scenario<> s{.branches = {{duet::call("incr")}, {bad}}};
    const duet::CheckResult r = duet::check_scenario(fixed_lin(), s, {}, {.verbose = -1});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    return r.report;
  };
  EXPECT_TRUE(has(error_of(duet::call("decr")), "`decr`, which counter does not declare (its operations: incr, get_plus)"));
  EXPECT_TRUE(has(error_of(duet::call("get_plus")), "calls get_plus with 0 arguments, and it takes 1 argument"));
  EXPECT_TRUE(
      has(error_of(duet::call("get_plus", "two")), "argument 1 of the scenario's call of get_plus is a char const*"));
  EXPECT_TRUE(has(error_of(duet::call("get_plus", 2.5)), "is a double"));
  // An integer of another type converts when it fits.
  const duet::Scenario<> converted{.branches = {{duet::call("incr")}, {duet::call("get_plus", 2u)}}};
  const duet::CheckResult r = duet::check_scenario(fixed_lin(), converted, {}, {.count = 5});
  EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;
}

// A char parameter takes a char (it once did not compile: the binding read every integral
// parameter as a number), and a number does not fit it.
struct LockedText {
  std::mutex m;
  std::string s;
  void append(char c) {
    const std::lock_guard lock(m);
    s += c;
  }
  std::size_t size() {
    const std::lock_guard lock(m);
    return s.size();
  }
};

TEST(Scenario, LinCharArgumentBinds) {
  auto lin = duet::Lin<LockedText>("text", "t")
                 .op(
                     "append", [](LockedText& t, char c) { t.append(c); }, duet::element_of(std::vector<char>{'a', 'b'}))
                 .op("size", [](LockedText& t) { return t.size(); });
  const duet::Scenario<> s{.branches = {{duet::call("append", 'x')}, {duet::call("size")}}};
  const duet::CheckResult r = duet::check_scenario(lin, s, {}, {.count = 5});
  EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;
  const duet::Scenario<> number{.branches = {{duet::call("append", 120)}, {duet::call("size")}}};
  const duet::CheckResult wrong = duet::check_scenario(lin, number, {}, {.verbose = -1});
  EXPECT_EQ(wrong.status, duet::CheckResult::Status::error) << wrong.report;
}

// ---- duet::Api ----

using scenario_subjects::counter_api;

const duet::Scenario<> kApiIncrs{
    .prefix = {duet::call("make")},
    .branches = {{duet::call("incr", "c0")}, {duet::call("incr", "c0"), duet::call("get_plus", "c0", 1)}}};

TEST(Scenario, ApiFailsOnEveryFiberStrategy) {
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        counter_api<true>().check_scenario(kApiIncrs, {.executor = duet::fibers(s)}, {.seed = 1, .verbose = -1});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    EXPECT_TRUE(has(r.report, "get_plus(c0, 1)")) << r.report;
  }
}

TEST(Scenario, ApiPassesOnEveryExecutor) {
  const duet::CheckResult on_threads = counter_api<false>().check_scenario(kApiIncrs, {}, {.seed = 1, .count = 50});
  EXPECT_TRUE(passed_or_inconclusive(on_threads)) << on_threads.report;
  for (const duet::Schedule& s : all_strategies()) {
    const duet::CheckResult r =
        counter_api<false>().check_scenario(kApiIncrs, {.executor = duet::fibers(s)}, {.seed = 1, .count = 50});
    EXPECT_TRUE(r) << r.report;
  }
}

TEST(Scenario, ApiTokenReplaysTheScenario) {
  const duet::ParallelConfig pc{.executor = duet::fibers(duet::pct(3))};
  const duet::CheckResult r = counter_api<true>().check_scenario(kApiIncrs, pc, {.seed = 2, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const duet::CheckResult again =
      counter_api<true>().check_scenario(kApiIncrs, pc, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  const duet::CheckResult generated = counter_api<true>().check_parallel(pc, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(generated.status, duet::CheckResult::Status::error) << generated.report;
}

TEST(Scenario, ApiCallsThatDoNotFitAreErrors) {
  auto error_of = [](const duet::Call& bad, const std::vector<duet::Call>& suffix = {}) {
    const duet::Scenario<> s{
        .prefix = {duet::call("make")}, .branches = {{duet::call("incr", "c0")}, {bad}}, .suffix = suffix};
    const duet::CheckResult r = counter_api<false>().check_scenario(s, {}, {.verbose = -1});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    return r.report;
  };
  EXPECT_TRUE(has(error_of(duet::call("decr", "c0")),
                  "`decr`, which the API does not declare (its operations: make, incr, get_plus)"));
  EXPECT_TRUE(has(error_of(duet::call("incr")), "calls incr with 0 arguments, and it takes 1 argument"));
  EXPECT_TRUE(has(error_of(duet::call("incr", "c7")), "no live value of its type is named c7"));
  EXPECT_TRUE(has(error_of(duet::call("incr", 0)), "argument 1 of the scenario's call of incr is a int"));
  EXPECT_TRUE(
      has(error_of(duet::call("get_plus", "c0", "one")), "argument 2 of the scenario's call of get_plus is a char const*"));
  EXPECT_TRUE(has(error_of(duet::call("incr", "c0"), {duet::call("incr", "c0")}), "a duet::Api program has none"));
}

// ---- scenarios that cannot run ----

struct Dec {};
[[maybe_unused]] std::string duet_show(const Dec&) { return "dec()"; }
// A counter that must not go below zero: dec needs a positive count.
struct NonNegativeSpec {
  using Sut = fiber_subjects::Counter<false>;
  using State = int;
  using Cmd = std::variant<Incr, Dec>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Incr{})); }
  static bool precondition(const Cmd& c, const State& n) { return std::holds_alternative<Incr>(c) || n > 0; }
  static duet::Result run(const Cmd& c, Sut& s) { return std::holds_alternative<Incr>(c) ? s.incr() : s.get(); }
  static duet::Result expected(const Cmd& c, const State& n) { return std::holds_alternative<Incr>(c) ? n + 1 : n; }
  static void next(const Cmd& c, State& n) { n += std::holds_alternative<Incr>(c) ? 1 : -1; }
};

TEST(Scenario, ScenariosThatCannotRunAreErrors) {
  using S = duet::Scenario<NonNegativeSpec::Cmd>;
  auto error_of = [](const S& s, const duet::ParallelConfig& pc = {}) {
    const duet::CheckResult r = duet::check_scenario<NonNegativeSpec>(s, pc, {.verbose = -1});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
    return r.report;
  };
  EXPECT_TRUE(has(error_of(S{.prefix = {Dec{}}, .branches = {{Incr{}}, {Incr{}}}}),
                  "the scenario's prefix calls c.dec() where the spec's precondition does not allow it"));
  EXPECT_TRUE(has(error_of(S{.prefix = {Incr{}}, .branches = {{Dec{}}, {Dec{}}}}), "preconditions in some order"));
  EXPECT_TRUE(has(error_of(S{.branches = {{Incr{}}}}), "the scenario has 1 branches (2 to 8)"));
  EXPECT_TRUE(has(error_of(S{.prefix = {Incr{}}, .branches = {{Incr{}}, {Dec{}}}}, {.roles = {{"writer", 2, {"incr"}}}}),
                  "branch 2 of the scenario calls c.dec(), which its role writer does not allow"));
}

}  // namespace
