// The sequential engine end to end: disagreements, exceptions, assertions inside commands,
// replay, determinism, sharding, postconditions.
#include <duet/gtest.hpp>

#include <algorithm>
#include <cstdlib>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <thread>

#include <duet/parallel.hpp>

#include "ring_buffer.hpp"
#include "support/fiber_subjects.hpp"
#include "support/test_specs.hpp"
#include "support/report_text.hpp"

namespace {

using duet::CheckResult;
using duet_test::BadBoundsSpec;


TEST(Engine, ExceptionWhereModelExpectsValueIsReportedWithItsType) {
  const CheckResult r = duet::check_sequential<BadBoundsSpec>({.seed = 3});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  // Minimal: one element, then reading it.
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  EXPECT_NE(r.report.find("a.push_back(0);"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("a.at(0);"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("candidate threw std::out_of_range(\"BadBoundsArray::at\"); the model allows 0"),
            std::string::npos)
      << r.report;
}

TEST(Engine, ReplayTokenReproducesTheReportExactlyApartFromTimings) {
  const CheckResult first = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 11});
  ASSERT_EQ(first.status, CheckResult::Status::failed);
  const CheckResult again = duet::check_sequential<ring::BuggyRingBufferSpec>({.replay = first.replay_token});
  ASSERT_EQ(again.status, CheckResult::Status::failed);
  EXPECT_EQ(duet_test::without_time(first.report), duet_test::without_time(again.report));
  EXPECT_EQ(first.replay_token, again.replay_token);
}

TEST(Engine, ReplayTokenFromTheEnvironment) {
  const CheckResult first = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 12});
  ASSERT_FALSE(first);
  ::setenv("DUET_REPLAY", first.replay_token.c_str(), 1);
  const CheckResult again = duet::check_sequential<ring::BuggyRingBufferSpec>();
  ::unsetenv("DUET_REPLAY");
  EXPECT_EQ(duet_test::without_time(first.report), duet_test::without_time(again.report));
}

// Records every command a spec runs, to compare the case sequences of two runs.
struct Log {
  static inline std::vector<std::string> lines;
};
struct LoggedSpec : ring::CorrectRingBufferSpec {
  static duet::Result run(const Cmd& c, Sut& q) {
    Log::lines.push_back(duet::show(c));
    return ring::CorrectRingBufferSpec::run(c, q);
  }
};

std::vector<std::string> log_of(duet::Config c) {
  Log::lines.clear();
  EXPECT_TRUE(duet::check_sequential<LoggedSpec>(c));
  return Log::lines;
}

TEST(Engine, SameSeedSameCases) {
  const auto a = log_of({.seed = 99, .count = 200});
  const auto b = log_of({.seed = 99, .count = 200});
  const auto c = log_of({.seed = 100, .count = 200});
  EXPECT_GT(a.size(), 500u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Engine, ShardsDrawDisjointCaseStreams) {
  // Shard i of N runs the unsharded run's cases i, i+N, i+2N, ...: two shards of 100 cases
  // together run exactly the 200 cases of the unsharded run.
  auto whole = log_of({.seed = 5, .count = 200, .shards = 1});
  auto shard0 = log_of({.seed = 5, .count = 100, .shards = 2, .shard_index = 0});
  auto shard1 = log_of({.seed = 5, .count = 100, .shards = 2, .shard_index = 1});
  EXPECT_NE(shard0, shard1);
  auto both = shard0;
  both.insert(both.end(), shard1.begin(), shard1.end());
  std::sort(both.begin(), both.end());
  std::sort(whole.begin(), whole.end());
  EXPECT_EQ(both, whole);
}

// EXPECT_* inside a command: a disagreement, shrunk like any other.
struct AssertingSpec : ring::BuggyRingBufferSpec {
  static duet::Result run(const Cmd& c, Sut& q) {
    if (std::holds_alternative<ring::Push>(c)) EXPECT_LT(std::get<ring::Push>(c).x, 50) << "big value";
    return ring::BuggyRingBufferSpec::run(c, q);
  }
};

TEST(Engine, FailingExpectInsideACommandIsReportedAndShrunk) {
  const CheckResult r = duet::check_sequential<AssertingSpec>({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  EXPECT_NE(r.report.find("q.push(50);"), std::string::npos) << r.report;  // the smallest failing value
  EXPECT_NE(r.report.find("big value"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("assertion failed"), std::string::npos) << r.report;
}

// The postcondition form: the model judges the result instead of computing it.
struct PostconditionSpec {
  using Sut = ring::BuggyRingBuffer;
  using State = std::deque<int>;
  using Cmd = ring::BuggyRingBufferSpec::Cmd;
  static constexpr const char* sut_name = "q";
  static Sut init_sut() { return Sut(3); }
  static duet::Gen<Cmd> command(const State& s) { return ring::BuggyRingBufferSpec::command(s); }
  static duet::Result run(const Cmd& c, Sut& q) { return ring::BuggyRingBufferSpec::run(c, q); }
  static duet::Verdict postcondition(const Cmd& c, const State& s, const duet::Result& r) {
    if (!std::holds_alternative<ring::Pop>(c) || s.empty()) return true;
    if (r == duet::Result(std::optional<int>(s.front()))) return true;
    return duet::Verdict::fail("pop must return the oldest element, " + duet::show(s.front()));
  }
  static void next(const Cmd& c, State& s) { ring::BuggyRingBufferSpec::next(c, s); }
};

TEST(Engine, PostconditionExplainsTheDisagreement) {
  const CheckResult r = duet::check_sequential<PostconditionSpec>({.seed = 2});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 8u) << r.report;
  EXPECT_NE(r.report.find("the model does not allow it: pop must return the oldest element, 1"), std::string::npos)
      << r.report;
}

// A postcondition has no single right result: the draft asserts that the wrong one does not
// come back (it fails as reported, and passes on a fixed candidate), instead of failing always.
TEST(Engine, APostconditionDraftAssertsTheWrongResultDoesNotComeBack) {
  const CheckResult r = duet::check_sequential<PostconditionSpec>({.seed = 2, .output_dir = "duet-output/postcondition"});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  std::ifstream f(r.draft_path);
  const std::string draft((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(draft.find("  EXPECT_NE(q.pop(), "), std::string::npos) << draft;
  EXPECT_NE(draft.find("pop must return the oldest element, 1"), std::string::npos) << draft;
  EXPECT_EQ(draft.find("ADD_FAILURE"), std::string::npos) << draft;
}

TEST(Engine, DraftTestIsWritten) {
  const CheckResult r = duet::check_sequential<BadBoundsSpec>({.seed = 3, .output_dir = "duet-output/draft"});
  ASSERT_FALSE(r.draft_path.empty()) << r.report;
  std::FILE* f = std::fopen(r.draft_path.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text(4096, '\0');
  text.resize(std::fread(text.data(), 1, text.size(), f));
  std::fclose(f);
  EXPECT_NE(text.find("TEST(duet_test_BadBoundsSpec, DuetRepro)"), std::string::npos) << text;
  EXPECT_NE(text.find("EXPECT_EQ(a.at(0), 0);"), std::string::npos) << text;
}

// A failure's draft replaces the one before it whole (the first by a rename, the next by an
// exchange with it), and no file it was written through is left beside it.
TEST(Engine, ADraftReplacesTheOneBefore) {
  const std::string dir = "duet-output/replaced-draft";
  std::filesystem::remove_all(dir);
  const auto read = [](const std::string& path) {
    std::ifstream f(path);
    return std::string((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  };
  const CheckResult first = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 1, .output_dir = dir});
  const CheckResult second = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 2, .output_dir = dir});
  ASSERT_FALSE(second.draft_path.empty()) << second.report;
  EXPECT_EQ(first.draft_path, second.draft_path);
  const std::string draft = read(second.draft_path);
  EXPECT_NE(draft.find("DUET_REPLAY=" + second.replay_token + "\n"), std::string::npos) << draft;
  EXPECT_EQ(draft.find(first.replay_token), std::string::npos) << draft;
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) files.push_back(entry.path().string());
  EXPECT_EQ(files, std::vector<std::string>{second.draft_path});
}

// The budget is a number of programs, and the line says so: "679 of 1000000 programs, 13320
// trials" (it read "679 programs, 13320 trials of 1000000", a budget of trials).
TEST(Engine, ParallelProgressCountsProgramsAgainstTheBudget) {
  testing::internal::CaptureStderr();
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<false>>(pc, {.count = 1000000, .time = 2.6});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r) << r.report;
  EXPECT_TRUE(
      std::regex_search(err, std::regex(": searching: [0-9]+ of 1000000 programs, [0-9]+ trials, 2\\.[0-9] s of 2\\.6 s, ")))
      << err;
}

TEST(Engine, LongRunsPrintProgress) {
  testing::internal::CaptureStderr();
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.time = 2.6});
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(r);
  EXPECT_TRUE(std::regex_search(err, std::regex(": searching: [0-9]+ cases, 2\\.[0-9] s of 2\\.6 s, [0-9]+ cases/s\n")))
      << err;
}

// Shrinking that takes more than two seconds says what it is doing.
namespace slow {
bool slow = false;
struct SlowBuggyRingBufferSpec : ring::BuggyRingBufferSpec {
  static duet::Result run(const Cmd& c, Sut& q) {
    if (slow) std::this_thread::sleep_for(std::chrono::milliseconds(3));
    return ring::BuggyRingBufferSpec::run(c, q);
  }
};
}  // namespace slow

TEST(Engine, LongShrinksPrintProgress) {
  slow::slow = false;
  // Find the failing case at full speed, then slow every step down while it shrinks.
  testing::internal::CaptureStderr();
  using Spec = slow::SlowBuggyRingBufferSpec;
  duet::detail::Property p = duet::detail::state_machine_property(
      duet::type_name<Spec>(), &duet::detail::make_state_machine_steps<Spec>, duet::detail::spec_domain<Spec>());
  auto run_case = p.run_case;
  p.run_case = [run_case](duet::Source& src, const duet::detail::CaseParams& params, duet::detail::Trace* trace) {
    auto o = run_case(src, params, trace);
    if (o.kind == duet::detail::CaseOutcome::Kind::fail) slow::slow = true;
    return o;
  };
  // DUET_TIME_SCALE (make multiarch sets it) is left out: the line's figures are what it shows.
  const char* scale = std::getenv("DUET_TIME_SCALE");
  const std::string saved = scale ? scale : "";
  ::unsetenv("DUET_TIME_SCALE");
  const CheckResult r = duet::detail::run_property(p, {.seed = 1, .shrink_time = 2.5, .name = "Slow"});
  if (!saved.empty()) ::setenv("DUET_TIME_SCALE", saved.c_str(), 1);
  const std::string err = testing::internal::GetCapturedStderr();
  slow::slow = false;
  EXPECT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_TRUE(std::regex_search(err, std::regex("duet: Slow: shrinking: [0-9]+ replays \\([0-9]+ still failing\\), smallest "
                                                "failing case [0-9]+ choices \\(from [0-9]+\\), 2\\.[0-9] s of 2\\.5 s\n")))
      << err;
}

}  // namespace

namespace {

// The fuzzer entry point: bytes steer generation; short inputs end cleanly; a failing input
// is shrunk and gets a token that replays in the ordinary way.
TEST(Engine, BytesDriveOneCase) {
  const std::vector<std::uint8_t> none;
  EXPECT_TRUE(duet::check_sequential_bytes<ring::BuggyRingBufferSpec>(none));  // ran out: not a failure

  duet::detail::Rng rng(1);
  duet::CheckResult found;
  int inputs = 0;
  for (; inputs < 100000 && found.status != duet::CheckResult::Status::failed; ++inputs) {
    std::vector<std::uint8_t> bytes(64);
    for (auto& b : bytes) b = static_cast<std::uint8_t>(rng.next());
    found = duet::check_sequential_bytes<ring::BuggyRingBufferSpec>(bytes, {.verbose = -1});
  }
  ASSERT_EQ(found.status, duet::CheckResult::Status::failed) << "no input of " << inputs << " found the bug";
  EXPECT_EQ(found.failing_length, 8u) << found.report;
  const auto again = duet::check_sequential<ring::BuggyRingBufferSpec>({.replay = found.replay_token});
  EXPECT_EQ(duet_test::without_time(found.report), duet_test::without_time(again.report));
}

}  // namespace

namespace {

// An EXPECT failing in the postcondition of the last command of a case is still seen.
struct LateAssertionSpec : ring::CorrectRingBufferSpec {
  static duet::Verdict postcondition(const Cmd& c, const State& s, const duet::Result&) {
    EXPECT_FALSE(std::holds_alternative<ring::Size>(c) && s.size() == 2) << "size with two elements";
    return true;
  }
};

TEST(Engine, AssertionInAPostconditionIsNotLost) {
  // A count, not the default second: the 5th case fails, and under qemu on a busy machine the
  // first second ran 4.
  const CheckResult r = duet::check_sequential<LateAssertionSpec>({.seed = 1, .count = 1000});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 3u) << r.report;  // push, push, size
  EXPECT_NE(r.report.find("size with two elements"), std::string::npos) << r.report;
}

struct AssertingInitSpec : ring::CorrectRingBufferSpec {
  static ring::CorrectRingBuffer init_sut() {
    ADD_FAILURE() << "setup is broken";
    return ring::CorrectRingBuffer(3);
  }
};

TEST(Engine, AssertionWhileCreatingTheCandidateFails) {
  const CheckResult r = duet::check_sequential<AssertingInitSpec>({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_EQ(r.failing_length, 0u) << r.report;
  EXPECT_NE(r.report.find("setup is broken"), std::string::npos) << r.report;
}

TEST(Engine, TokenReplaysUnderTheSettingsItWasRecordedWith) {
  const CheckResult first = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 21});
  ASSERT_FALSE(first);
  const CheckResult again =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.max_length = 3, .mean_length = 2, .replay = first.replay_token});
  EXPECT_EQ(duet_test::without_time(first.report), duet_test::without_time(again.report));
}

// Values of different types that print alike are told apart by their types.
struct TypeMismatchSpec : ring::CorrectRingBufferSpec {
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<ring::Size>(c)) return static_cast<unsigned>(s.size());  // candidate: std::size_t
    return ring::CorrectRingBufferSpec::expected(c, s);
  }
};

TEST(Engine, DisagreementsBetweenTypesNameTheTypes) {
  const CheckResult r = duet::check_sequential<TypeMismatchSpec>({.seed = 1});
  ASSERT_EQ(r.status, CheckResult::Status::failed);
  EXPECT_NE(r.report.find("candidate returned 0u (unsigned long); the model allows 0u (unsigned)"), std::string::npos)
      << r.report;
}

TEST(Engine, NoBudgetIsAnError) {
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.time = 0.0});
  EXPECT_EQ(r.status, CheckResult::Status::error);
  EXPECT_NE(r.report.find("no budget"), std::string::npos) << r.report;
}

// Spec code that throws outside any command (here: the whole case) is an error that names the
// exception, never an exception escaping into the test body, and never a pass.
TEST(Engine, ExceptionEscapingTheCaseIsAnError) {
  duet::detail::Property p;
  p.name = "Throwing";
  p.run_case = [](duet::Source&, const duet::detail::CaseParams&, duet::detail::Trace*) -> duet::detail::CaseOutcome {
    throw std::runtime_error("spec bug");
  };
  const CheckResult r = duet::detail::run_property(p, {.seed = 1, .count = 5});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("an exception escaped the case outside any command: std::runtime_error(\"spec bug\")"),
            std::string::npos)
      << r.report;
}

// A counter whose candidates count themselves, to see that every case has its own.
struct Counted {
  static inline int live = 0;
  int value = 0;
  Counted() { ++live; }
  Counted(const Counted&) = delete;
  ~Counted() { --live; }
};
struct Inc {};
std::string duet_show(const Inc&) { return "inc()"; }
struct FreshCandidateSpec {
  using Sut = Counted;
  using State = int;
  using Cmd = Inc;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Inc{}); }
  // A candidate left over from an earlier case shows as a wrong count.
  static duet::Result run(const Cmd&, Sut& c) { return Counted::live == 1 ? ++c.value : -Counted::live; }
  static duet::Result expected(const Cmd&, const State& s) { return s + 1; }
  static void next(const Cmd&, State& s) { ++s; }
};

// The case loop's steps are reused case after case on a thread: each case still starts from a
// new candidate and model, and the last candidate is gone when the check ends.
TEST(Engine, EveryCaseHasItsOwnCandidateAndModel) {
  const CheckResult r = duet::check_sequential<FreshCandidateSpec>({.seed = 1, .count = 200, .verbose = -1});
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.commands, 200u);
  EXPECT_EQ(Counted::live, 0);
}

// A check run from inside a command (of the same spec) has steps of its own: the outer case's
// candidate, model and command are what they were.
struct NestingSpec {
  static inline bool inside = false;
  struct Sut {
    int value = 0;
  };
  using State = int;
  using Cmd = Inc;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Inc{}); }
  static duet::Result run(const Cmd&, Sut& c) {
    if (!inside) {
      inside = true;
      const CheckResult inner = duet::check_sequential<NestingSpec>({.seed = 2, .count = 5, .verbose = -1});
      inside = false;
      if (!inner) return -1;
    }
    return ++c.value;
  }
  static duet::Result expected(const Cmd&, const State& s) { return s + 1; }
  static void next(const Cmd&, State& s) { ++s; }
};

TEST(Engine, ACheckInsideACommandLeavesTheOuterCaseAlone) {
  const CheckResult r = duet::check_sequential<NestingSpec>({.seed = 1, .count = 20, .verbose = -1});
  EXPECT_TRUE(r) << r.report;
  EXPECT_GT(r.commands, 20u);
}

}  // namespace

namespace {

// A spec with one world, expected() and nothing optional runs its untraced cases (the search's,
// the shrinker's) in a loop of its own, with the draw and the step inline; the report replays
// them traced, through the library's case loop. The two must draw the same choices in the same
// spans and end the same way, or a token found untraced would not replay.
struct PopOnlyWhenFullSpec : ring::CorrectRingBufferSpec {  // rejected draws
  static bool precondition(const Cmd& c, const State& s) { return !std::holds_alternative<ring::Pop>(c) || s.size() == 3; }
};
struct ExpectedThrowsOnSizeSpec : ring::CorrectRingBufferSpec {  // a step's way out, at once or later
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<ring::Size>(c) && s.size() == 2) throw std::runtime_error("no size at two");
    return ring::CorrectRingBufferSpec::expected(c, s);
  }
};

template <class Spec>
void expect_untraced_cases_draw_as_traced_ones(std::size_t max_length = 100) {
  static_assert(duet::detail::plain_state_machine_spec<Spec>, "a spec whose untraced cases run inline");
  const duet::detail::Property p = duet::detail::state_machine_property(
      duet::type_name<Spec>(), &duet::detail::make_state_machine_steps<Spec>, duet::detail::spec_domain<Spec>());
  duet::detail::CaseParams params;
  params.max_length = max_length;
  std::size_t failed = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    duet::Source untraced = duet::Source::from_seed(seed), traced = duet::Source::from_seed(seed);
    duet::detail::Trace trace;
    const duet::detail::CaseOutcome a = p.run_case(untraced, params, nullptr);
    const duet::detail::CaseOutcome b = p.run_case(traced, params, &trace);
    ASSERT_EQ(untraced.choices(), traced.choices()) << "seed " << seed;
    ASSERT_EQ(untraced.spans().size(), traced.spans().size()) << "seed " << seed;
    for (std::size_t i = 0; i < traced.spans().size(); ++i) {
      EXPECT_EQ(untraced.spans()[i].begin, traced.spans()[i].begin) << "seed " << seed << ", span " << i;
      EXPECT_EQ(untraced.spans()[i].end, traced.spans()[i].end) << "seed " << seed << ", span " << i;
    }
    EXPECT_EQ(a.kind, b.kind) << "seed " << seed;
    EXPECT_EQ(a.message, b.message) << "seed " << seed;
    EXPECT_EQ(a.commands, b.commands) << "seed " << seed;
    EXPECT_EQ(a.attempts, b.attempts) << "seed " << seed;
    EXPECT_EQ(a.rejected, b.rejected) << "seed " << seed;
    EXPECT_EQ(b.commands, trace.steps.size()) << "seed " << seed;
    failed += a.kind != duet::detail::CaseOutcome::Kind::pass;
  }
  if constexpr (!std::is_same_v<Spec, ring::CorrectRingBufferSpec> && !std::is_same_v<Spec, PopOnlyWhenFullSpec>)
    EXPECT_GT(failed, 0U) << "no case failed: the way out was not exercised";
}

TEST(Engine, AnUntracedCaseDrawsAndEndsAsTheTracedCaseLoop) {
  expect_untraced_cases_draw_as_traced_ones<ring::CorrectRingBufferSpec>();
  expect_untraced_cases_draw_as_traced_ones<ring::CorrectRingBufferSpec>(3);  // ends at the length limit
  expect_untraced_cases_draw_as_traced_ones<PopOnlyWhenFullSpec>();
  expect_untraced_cases_draw_as_traced_ones<ring::BuggyRingBufferSpec>();
  expect_untraced_cases_draw_as_traced_ones<ExpectedThrowsOnSizeSpec>();
}

}  // namespace
