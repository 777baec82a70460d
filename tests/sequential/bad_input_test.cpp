// Bad input gets a clear error, never a crash and never a "passed".
#include <duet/gtest.hpp>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/stat.h>
#include <unistd.h>

#include "ring_buffer.hpp"
#include "support/test_specs.hpp"
#include "support/emulation.hpp"
#include "support/fiber_subjects.hpp"
#include "support/report_text.hpp"

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
  // A count, not the default second, which a slow machine ends after 64 of the 1024 attempts.
  const CheckResult r = duet::check_sequential<FilteredAwaySpec>({.count = 100});
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
  EXPECT_TRUE(has(r.report, "the spec's `init_sut` threw std::runtime_error(\"no memory for the queue\")")) << r.report;
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

// ---- Replays say what they replayed and how it ended (issue 26) -----------------------------

// The same spec (the same token binds to it), buggy or fixed at the flip of a switch.
bool toggle_buggy = true;
struct ToggleQueue {
  explicit ToggleQueue(std::size_t capacity) : buggy(capacity), correct(capacity) {}
  bool push(int x) {
    buggy.push(x);
    return correct.push(x);
  }
  std::optional<int> pop() {
    const std::optional<int> b = buggy.pop(), c = correct.pop();
    return toggle_buggy ? b : c;
  }
  std::size_t size() const { return correct.size(); }
  ring::RingBuffer<true> buggy;
  ring::RingBuffer<false> correct;
};
struct ToggleSpec : ring::RingBufferSpec<ToggleQueue> {};

std::string temp_path(const std::string& name) {
  const auto dir = std::filesystem::path(::testing::TempDir()) / ("duet-replays-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return (dir / name).string();
}

std::string write_bytes(const std::string& name, const std::string& bytes) {
  const std::string path = temp_path(name);
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

TEST(Replays, ATokenThatPassesSaysSoInOneLine) {
  toggle_buggy = true;
  const CheckResult found = duet::check_sequential<ToggleSpec>({.seed = 4, .output_dir = temp_path("out")});
  ASSERT_EQ(found.status, CheckResult::Status::failed) << found.report;
  toggle_buggy = false;
  testing::internal::CaptureStdout();
  const CheckResult r = duet::check_sequential<ToggleSpec>({.replay = found.replay_token});
  const std::string out = testing::internal::GetCapturedStdout();
  toggle_buggy = true;
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_EQ(r.cases, 1u);
  EXPECT_TRUE(has(out, ": replayed DUET_REPLAY: passed, the failure did not come back in 1 replay (fixed, or the test is "
                       "nondeterministic)\n"))
      << out;
}

TEST(Replays, AFailingReplaySaysItFailedAsRecorded) {
  const CheckResult found = duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 4, .output_dir = temp_path("out")});
  ASSERT_FALSE(found);
  const CheckResult r =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.replay = found.replay_token, .output_dir = temp_path("out")});
  ASSERT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "\n  replayed:   DUET_REPLAY: failed as recorded\n")) << r.report;
  EXPECT_EQ(r.cases, 1u);  // the replay's own count, not the recorded search's
  EXPECT_EQ(duet_test::without_time(r.report), duet_test::without_time(found.report));
}

// A byte file replayed on a sequential check prints its one line, whatever its outcome.
TEST(Replays, AFileOfBytesSaysWhatItReplayed) {
  const std::string newlines = write_bytes("newlines", "\n\n");
  CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>({.replay_file = newlines});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(
      r.report, "replayed DUET_REPLAY_FILE=" + newlines + " (2 bytes, a fuzzer's input): not a valid input for this check"))
      << r.report;
  // Bytes that make a passing case.
  const std::string zeros = write_bytes("ones", std::string(4096, '\x01'));
  testing::internal::CaptureStdout();
  r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay_file = zeros});
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(out, "replayed DUET_REPLAY_FILE=" + zeros + " (4096 bytes, a fuzzer's input): passed, ")) << out;
  // Bytes that give no command check nothing: no pass.
  const std::string none = write_bytes("zeros", std::string(4096, '\0'));
  r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay_file = none});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "not a valid input for this check: it gives no command")) << r.report;
}

TEST(Replays, BytesOnThreadsAreAnError) {
  const std::string bytes = write_bytes("bytes", std::string(64, '\x07'));
  const CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<false>>({}, {.replay_file = bytes});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "runs on threads, where the outcome follows the timing, not the bytes")) << r.report;
}

TEST(Replays, FifosAndDevicesNeitherBlockNorGrow) {
  const std::string fifo = temp_path("fifo");
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay_file = fifo});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "(a pipe with no writer?)")) << r.report;
  ::unlink(fifo.c_str());
  r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay_file = "/dev/zero"});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "/dev/zero (a character device) holds more than 16 MiB")) << r.report;
}

TEST(Replays, ATokenFromAnotherExecutorNamesIt) {
  const CheckResult found = duet::check_parallel<fiber_subjects::CounterSpec<true>>(
      {.executor = duet::fibers()}, {.seed = 1, .output_dir = temp_path("out")});
  ASSERT_EQ(found.status, CheckResult::Status::failed) << found.report;
  const CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<true>>({}, {.replay = found.replay_token});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "was recorded by a check on fibers:random, not by fiber_subjects::CounterSpec<true> on threads"))
      << r.report;
}

// A counter whose increment races when the switch is on (the same spec either way).
bool toggle_racy = true;
class ToggleCounter {
 public:
  int incr() {
    if (!toggle_racy) return value_.fetch_add(1) + 1;
    const int x = value_.load();
    value_.store(x + 1);
    return x + 1;
  }
  int get() const { return value_.load(); }

 private:
  duet::atomic<int> value_{0};
};
struct ToggleCounterSpec : fiber_subjects::CounterSpec<true> {
  using Sut = ToggleCounter;
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<fiber_subjects::Incr>(c)) return s.incr();
    return s.get();
  }
};

TEST(Replays, ANegativeTestsReplayCountsTheReplay) {
  toggle_racy = true;
  const duet::ParallelConfig fibers{.executor = duet::fibers()};
  const CheckResult found =
      duet::expect_unsafe<ToggleCounterSpec>(fibers, {.seed = 1, .output_dir = temp_path("out"), .verbose = -1});
  ASSERT_TRUE(found.passed()) << found.report;
  CheckResult r = duet::expect_unsafe<ToggleCounterSpec>(fibers, {.replay = found.replay_token, .verbose = -1});
  EXPECT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, ": unsafe, as expected: replayed DUET_REPLAY: failed as recorded, on its ")) << r.report;
  EXPECT_EQ(r.cases, 1u);
  EXPECT_GT(r.trials, 0u);
  toggle_racy = false;
  r = duet::expect_unsafe<ToggleCounterSpec>(fibers, {.replay = found.replay_token, .verbose = -1});
  toggle_racy = true;
  EXPECT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "replayed DUET_REPLAY: passed, the failure did not come back in 1 replay, ")) << r.report;
  EXPECT_FALSE(has(r.report, "give it more time")) << r.report;
}

// A fibers check's saved case must not turn the same spec's threads check into an error.
TEST(Replays, RegressionCasesAreKeptPerCheckAndExecutor) {
  const std::string dir = temp_path("regressions");
  std::filesystem::remove_all(dir);
  const duet::ParallelConfig fibers{.executor = duet::fibers()};
  duet::Config c{.seed = 1, .regressions = dir, .output_dir = temp_path("out"), .name = "Counter"};
  const CheckResult found = duet::check_parallel<fiber_subjects::CounterSpec<true>>(fibers, c);
  ASSERT_EQ(found.status, CheckResult::Status::failed) << found.report;
  EXPECT_TRUE(has(found.report, "saved:      " + dir + "/Counter/fibers_random/")) << found.report;
  duet::Config threads = duet_test::in_process_if_forks_cannot_start_threads(c);
  threads.count = 3;
  const CheckResult other = duet::check_parallel<fiber_subjects::CounterSpec<false>>({}, threads);
  EXPECT_FALSE(has(other.report, "regression case")) << other.report;
  // The older layout, one directory per check: its cases still replay on the executor that
  // recorded them, and the others skip them.
  const auto saved = std::filesystem::directory_iterator(dir + "/Counter/fibers_random")->path();
  std::filesystem::rename(saved, dir + "/Counter/" + saved.filename().string());
  c.count = 0;
  const CheckResult again = duet::check_parallel<fiber_subjects::CounterSpec<true>>(fibers, c);
  EXPECT_EQ(again.status, CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(has(again.report, "fails again")) << again.report;
  testing::internal::CaptureStdout();
  const CheckResult skipped = duet::check_parallel<fiber_subjects::CounterSpec<false>>({}, threads);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_FALSE(has(skipped.report, "regression case")) << skipped.report;
  EXPECT_TRUE(has(out, "duet: Counter: 0 regression cases passed, 1 of the shared directory skipped (another executor's)"))
      << out;
}

// A draft or a regression case whose path holds something other than a regular file (a FIFO
// with no reader, a link to a device, a directory) is refused by name: not blocked on, not
// written into the device, not swapped with the directory, and never reported as saved.
TEST(Replays, OutputPathsThatAreNotRegularFilesAreRefusedByName) {
  const std::string out = temp_path("refused-out"), regressions = temp_path("refused-regressions");
  std::filesystem::remove_all(out);
  std::filesystem::remove_all(regressions);
  const duet::Config c{.seed = 1, .regressions = regressions, .output_dir = out};
  const CheckResult first = duet::check_sequential<ring::BuggyRingBufferSpec>(c);
  ASSERT_FALSE(first.draft_path.empty()) << first.report;
  const std::string saved_prefix = "saved:      " + regressions + "/";
  const std::size_t saved_at = first.report.find(saved_prefix);
  ASSERT_NE(saved_at, std::string::npos) << first.report;
  const std::string token = first.report.substr(saved_at + 12, first.report.find(' ', saved_at + 12) - saved_at - 12);
  // Refused when written, or, for the saved token, already when the regression cases are read
  // (a FIFO or a device among them is an error there), never blocking and never passing.
  const auto refused = [&](const std::string& path, const std::string& why) {
    const CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(c);
    const bool as_written = has(r.report, "cannot write " + path + ": " + why + ", not a regular file");
    const bool as_read = path != first.draft_path && r.status == CheckResult::Status::error &&
                         has(r.report, path + " is ") && has(r.report, ", not a regression case");
    return as_written || as_read ? std::string() : r.report;
  };
  for (const std::string& path : {first.draft_path, token}) {
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0) << path;
    EXPECT_EQ(refused(path, "it is a pipe"), "");
    EXPECT_TRUE(std::filesystem::is_fifo(path)) << path;
    std::filesystem::remove(path);
    std::filesystem::create_symlink("/dev/zero", path);
    EXPECT_EQ(refused(path, "it leads to /dev/zero, a character device"), "");
    EXPECT_TRUE(std::filesystem::is_symlink(path)) << path;
    std::filesystem::remove(path);
    std::filesystem::create_directories(path + "/kept");
    EXPECT_EQ(refused(path, "it is a directory"), "");
    EXPECT_TRUE(std::filesystem::is_directory(path + "/kept")) << path;
    std::filesystem::remove_all(path);
  }
}

// ---- Settings (issue 26) --------------------------------------------------------------------

TEST(Settings, AMisspelledVariableIsAnErrorNotARandomSeed) {
  ::setenv("DUET_SED", "3", 1);
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>();
  ::unsetenv("DUET_SED");
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "DUET_SED is not a duet setting: did you mean DUET_SEED?")) << r.report;
  EXPECT_TRUE(has(r.report, "nothing was tested")) << r.report;
}

TEST(Settings, AHugeShrinkTimeStillShrinks) {
  const CheckResult r =
      duet::check_sequential<ring::BuggyRingBufferSpec>({.seed = 4, .shrink_time = 1e10, .output_dir = temp_path("out")});
  ASSERT_EQ(r.status, CheckResult::Status::failed) << r.report;
  EXPECT_GT(r.shrink_steps, 0u) << r.report;
}

TEST(Settings, NonAsciiInAnErrorKeepsTheReportValidText) {
  const CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay = "duet1.\xc3\xa9"});
  EXPECT_EQ(r.status, CheckResult::Status::error) << r.report;
  for (char c : r.report) EXPECT_LT(static_cast<unsigned char>(c), 0x80u) << r.report;
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
  EXPECT_EXIT(
      duet::check_sequential<HangingSpec>({.seed = 1, .case_timeout = 0.3}), testing::ExitedWithCode(3),
      // [^:]*: " × 10 (DUET_TIME_SCALE)" under make multiarch
      "a case has run for more than 0.3 s[^:]*: the candidate \\(or the spec\\) hangs.\n  replay:     DUET_REPLAY=duet1\\.");
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
