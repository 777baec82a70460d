// Bad input gets a clear error, never a crash and never a "passed".
#include <duet/gtest.hpp>

#include <csignal>
#include <cstdlib>

#include "ring_buffer.hpp"
#include "support/test_specs.hpp"
#include "support/emulation.hpp"

namespace {

using duet::CheckResult;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct NeverSpec : ring::CorrectRingBufferSpec {
  static bool precondition(const Cmd&, const State&) { return false; }
};

TEST(BadInput, SpecWhosePreconditionRejectsEverything) {
  const CheckResult r = duet::check_sequential<NeverSpec>();
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "cannot generate any command")) << r.report;
  EXPECT_TRUE(has(r.report, "nothing was tested")) << r.report;
}

struct FilteredAwaySpec : ring::CorrectRingBufferSpec {
  static duet::Gen<Cmd> command(const State& s) {
    return ring::CorrectRingBufferSpec::command(s).filter([](const Cmd&) { return false; });
  }
};

TEST(BadInput, SpecWhoseGeneratorFiltersEverything) {
  const CheckResult r = duet::check_sequential<FilteredAwaySpec>();
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "cannot generate any command")) << r.report;
}

TEST(BadInput, InvalidReplayTokens) {
  for (const char* token : {"garbage", "duet1.", "duet1.AAAA", "duet1.!!!!", "duet1.zzzzzzzzzzzzzzzz"}) {
    const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay = token});
    EXPECT_EQ(r.status, CheckResult::Status::error) << token;
    EXPECT_TRUE(has(r.report, "invalid replay token")) << r.report;
  }
}

TEST(BadInput, TruncatedOrAlteredTokenIsRejected) {
  const CheckResult found = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 4});
  ASSERT_FALSE(found);
  std::string cut = found.replay_token.substr(0, found.replay_token.size() - 3);
  std::string altered = found.replay_token;
  altered[10] = altered[10] == 'A' ? 'B' : 'A';
  for (const std::string& t : {cut, altered}) {
    const CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>({.replay = t});
    EXPECT_EQ(r.status, CheckResult::Status::error) << t;
    EXPECT_TRUE(has(r.report, "invalid replay token")) << r.report;
  }
}

TEST(BadInput, TokenFromAnotherTest) {
  const CheckResult found = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 4});
  ASSERT_FALSE(found);
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay = found.replay_token});
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "recorded by another test")) << r.report;
}

struct ThrowingQueue {
  ThrowingQueue() { throw std::runtime_error("no memory for the queue"); }
  bool push(int) { return true; }
  std::optional<int> pop() { return std::nullopt; }
  std::size_t size() const { return 0; }
};
struct ThrowingConstructorSpec : ring::RingBufferSpec<ThrowingQueue> {
  static std::unique_ptr<ThrowingQueue> init_sut() { return std::make_unique<ThrowingQueue>(); }
};

TEST(BadInput, CandidateConstructorThrows) {
  const CheckResult r = duet::check_sequential<ThrowingConstructorSpec>();
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "the spec's `init_sut` threw std::runtime_error(\"no memory for the queue\")"))
      << r.report;
  EXPECT_TRUE(has(r.report, "DUET_REPLAY=")) << r.report;
}

struct ThrowingModelSpec : ring::CorrectRingBufferSpec {
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<ring::Size>(c)) throw std::logic_error("model bug");
    return ring::CorrectRingBufferSpec::expected(c, s);
  }
};

TEST(BadInput, ModelThatThrowsIsAFailureNotAPass) {
  const CheckResult r = duet::check_sequential<ThrowingModelSpec>({.seed = 1});
  EXPECT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  EXPECT_TRUE(has(r.report, "the model's expected() threw std::logic_error(\"model bug\")")) << r.report;
}

TEST(BadInput, MalformedSettings) {
  ::setenv("DUET_COUNT", "lots", 1);
  CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>();
  ::unsetenv("DUET_COUNT");
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "DUET_COUNT=lots: expected a non-negative integer")) << r.report;

  r = duet::check_sequential<ring::CorrectRingBufferSpec>({.shards = 2, .shard_index = 2});
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "must be below DUET_SHARDS")) << r.report;
}

TEST(BadInput, ZeroCasesIsNotAPass) {
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.count = 0, .time = 0.0});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
}

TEST(BadInput, UnknownFlag) {
  char prog[] = "t", flag[] = "--duet_sed=3";
  char* argv[] = {prog, flag, nullptr};
  int argc = 2;
  EXPECT_THROW(duet::parse_flags(&argc, argv), std::invalid_argument);
}

}  // namespace

namespace {

// A candidate whose pop() never returns once the queue has wrapped: the watchdog ends the
// process with a replay token instead of letting the test hang until CI's limit.
struct HangingQueue : ring::CorrectRingBuffer {
  using ring::CorrectRingBuffer::CorrectRingBuffer;
  std::optional<int> pop() {
    if (size() == 3)
      for (volatile bool forever = true; forever;) {
      }
    return ring::CorrectRingBuffer::pop();
  }
};
struct HangingSpec : ring::RingBufferSpec<HangingQueue> {};

TEST(BadInputDeathTest, HangingCandidateIsReportedWithAReplayToken) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(duet::check_sequential<HangingSpec>({.seed = 1, .case_timeout = 0.3}), testing::ExitedWithCode(3),
              "a case has run for more than 0.3 s: the candidate \\(or the spec\\) hangs.\n  replay:     DUET_REPLAY=duet1\\.");
}

}  // namespace

namespace {

// A candidate that crashes once the queue holds 2 elements. (It raises the signal itself: a
// real null store would be caught first by UBSan in the sanitizer builds, which then reports
// it its own way.)
struct CrashingQueue : ring::CorrectRingBuffer {
  using ring::CorrectRingBuffer::CorrectRingBuffer;
  bool push(int x) {
    if (size() == 2) std::raise(SIGSEGV);
    return ring::CorrectRingBuffer::push(x);
  }
};
struct CrashingSpec : ring::RingBufferSpec<CrashingQueue> {};

TEST(BadInputDeathTest, CrashingCandidateIsReportedWithAReplayToken) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_DEATH(duet::check_sequential<CrashingSpec>({.seed = 1}),
               "crashed with a segmentation fault \\(SIGSEGV\\) while running a case.\n  replay:     DUET_REPLAY=duet1\\.");
}

struct AbortingQueue : ring::CorrectRingBuffer {
  using ring::CorrectRingBuffer::CorrectRingBuffer;
  std::size_t size() const { std::abort(); }
};
struct AbortingSpec : ring::RingBufferSpec<AbortingQueue> {};

TEST(BadInputDeathTest, AbortIsReportedToo) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_DEATH(duet::check_sequential<AbortingSpec>({.seed = 1}), "crashed with an abort \\(SIGABRT\\)");
}

}  // namespace
