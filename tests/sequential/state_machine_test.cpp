// The state-machine engine compiled in the library (src/frontends/state_machine.cpp): each
// thread's steps objects, one per spec, reused case after case, and a fresh one for a case run
// inside a case; the inline step and the engine's step judge alike.
#include <duet/gtest.hpp>

#include <string>
#include <variant>

#include "ring_buffer.hpp"

namespace {

using duet::CheckResult;

// A counter whose command may run a whole check of another spec (or of its own) inside it: the
// outer case's candidate and model must come through untouched.
struct Counter {
  int value = 0;
};
struct Add {};
struct Nest {};
inline std::string duet_show(const Add&) { return "add()"; }
inline std::string duet_show(const Nest&) { return "nest()"; }

template <class Inner>
struct NestingSpec {
  using Sut = Counter;
  using State = int;
  using Cmd = std::variant<Add, Nest>;
  static inline int depth = 0;
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Add{})), duet::just(Cmd(Nest{}))); }
  static duet::Result run(const Cmd& c, Sut& counter) {
    if (std::holds_alternative<Nest>(c)) return nested();
    return ++counter.value;
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Nest>(c)) return true;
    return s + 1;
  }
  static void next(const Cmd& c, State& s) {
    if (std::holds_alternative<Add>(c)) ++s;
  }

 private:
  // The inner check passes (at most one level deep, so that nesting ends).
  static bool nested() {
    if (depth > 0) return true;
    ++depth;
    const CheckResult inner = duet::check_sequential<Inner>({.seed = 5, .count = 3, .verbose = -1});
    --depth;
    return inner.status == CheckResult::Status::passed;
  }
};

struct SelfNestingSpec : NestingSpec<SelfNestingSpec> {};
struct OtherNestingSpec : NestingSpec<ring::CorrectRingBufferSpec> {};

TEST(StateMachineEngine, ACaseInsideACaseOfTheSameSpecLeavesTheOuterCaseIntact) {
  const CheckResult r = duet::check_sequential<SelfNestingSpec>({.seed = 1, .count = 30, .verbose = -1});
  EXPECT_EQ(r.status, CheckResult::Status::passed) << r.report;
  EXPECT_GT(r.commands, 30u);
}

TEST(StateMachineEngine, ACaseInsideACaseOfAnotherSpecLeavesTheOuterCaseIntact) {
  const CheckResult r = duet::check_sequential<OtherNestingSpec>({.seed = 2, .count = 30, .verbose = -1});
  EXPECT_EQ(r.status, CheckResult::Status::passed) << r.report;
}

TEST(StateMachineEngine, ChecksOfDifferentSpecsOnOneThreadEachFindTheirOwn) {
  // Each spec has its own steps object on the thread; taking another's would judge one spec's
  // commands with the other's model.
  for (int round = 0; round < 2; ++round) {
    const CheckResult correct = duet::check_sequential<ring::CorrectRingBufferSpec>({.seed = 3, .count = 50, .verbose = -1});
    EXPECT_EQ(correct.status, CheckResult::Status::passed) << correct.report;
    const CheckResult buggy = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 3, .verbose = -1});
    EXPECT_EQ(buggy.status, CheckResult::Status::failed) << buggy.report;
  }
}

TEST(StateMachineEngine, TheDefaultSettingsOverloadRunsAsAnEmptyConfig) {
  // check_sequential<Spec>() builds no Config in the test file; it must behave as {}.
  const CheckResult without = duet::check_sequential<ring::BuggyRingBufferSpec>();
  const CheckResult with = duet::check_sequential<ring::BuggyRingBufferSpec>({});
  EXPECT_EQ(without.status, CheckResult::Status::failed) << without.report;
  EXPECT_EQ(with.status, CheckResult::Status::failed) << with.report;
  // The replay token of one reproduces under the other: the same spec id and execution.
  const CheckResult replayed = duet::check_sequential<ring::BuggyRingBufferSpec>({.replay = without.replay_token});
  EXPECT_EQ(replayed.failing_length, without.failing_length) << replayed.report;
}

}  // namespace
