// The state-machine engine compiled in the library (src/frontends/state_machine.cpp): each
// thread's steps objects, one per spec, reused case after case, and a fresh one for a case run
// inside a case; the inline step and the engine's step judge alike; each case's candidate.
#include <duet/gtest.hpp>

#include <cstdint>
#include <memory>
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

// A candidate that can be neither copied nor moved, over-aligned, counting its lives: each case
// makes its own in place (from init_sut's prvalue) and destroys it when the case ends.
struct alignas(64) Pinned {
  static inline int live = 0;
  static inline int made = 0;
  explicit Pinned(int first) : value(first) {
    ++live;
    ++made;
  }
  Pinned(const Pinned&) = delete;
  Pinned& operator=(const Pinned&) = delete;
  ~Pinned() { --live; }
  int value;
};
struct Read {};
inline std::string duet_show(const Read&) { return "read()"; }

struct PinnedSpec {
  using Sut = Pinned;
  using State = int;
  using Cmd = std::variant<Add, Read>;
  static Sut init_sut() { return Pinned(7); }
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Add{})), duet::just(Cmd(Read{}))); }
  // Every command also says whether this is the only candidate alive and where it lies.
  static duet::Result run(const Cmd& c, Sut& p) {
    const bool alone = Pinned::live == 1 && reinterpret_cast<std::uintptr_t>(&p) % 64 == 0;
    if (std::holds_alternative<Add>(c)) ++p.value;
    return std::to_string(p.value) + (alone ? "" : " (not alone, or misaligned)");
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    return std::to_string(std::holds_alternative<Add>(c) ? s + 1 : s);
  }
  static State init_state() { return 7; }
  static void next(const Cmd& c, State& s) {
    if (std::holds_alternative<Add>(c)) ++s;
  }
};

TEST(StateMachineEngine, EachCaseMakesItsCandidateInPlaceAndDestroysItWhenItEnds) {
  Pinned::made = 0;
  const CheckResult r = duet::check_sequential<PinnedSpec>({.seed = 4, .count = 40, .verbose = -1});
  EXPECT_EQ(r.status, CheckResult::Status::passed) << r.report;
  EXPECT_EQ(Pinned::made, static_cast<int>(r.cases));
  EXPECT_EQ(Pinned::live, 0);
}

// A candidate made behind the spec's pointer, of a type derived from an abstract Sut.
struct Shape {
  virtual ~Shape() = default;
  virtual int sides() const = 0;
};
struct Square final : Shape {
  int sides() const override { return 4; }
};
struct AbstractSutSpec {
  using Sut = Shape;
  using State = int;
  using Cmd = std::variant<Read>;
  static std::unique_ptr<Sut> init_sut() { return std::make_unique<Square>(); }
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Read{})); }
  static duet::Result run(const Cmd&, Sut& shape) { return shape.sides(); }
  static duet::Result expected(const Cmd&, const State&) { return 4; }
  static void next(const Cmd&, State&) {}
};

TEST(StateMachineEngine, ACandidateMadeBehindTheSpecsPointerMayBeOfADerivedType) {
  const CheckResult r = duet::check_sequential<AbstractSutSpec>({.seed = 6, .count = 20, .verbose = -1});
  EXPECT_EQ(r.status, CheckResult::Status::passed) << r.report;
  EXPECT_GT(r.commands, 0u);
}

}  // namespace
