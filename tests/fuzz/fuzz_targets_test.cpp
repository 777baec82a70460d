// Fuzz targets, crash files and regression cases, exercised without a fuzzing engine: random
// byte strings play the fuzzer. A failing input must give duet's report, the same report again
// when its file is replayed through an ordinary check (DUET_REPLAY_FILE), and bad files must
// give clear errors. FuzzReplay.* replay a real fuzzer's crash file (make fuzz runs them).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "targets/targets.hpp"
#include "support/report_text.hpp"

namespace {

namespace fs = std::filesystem;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }


std::string temp_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("duet-fuzz-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string write_file(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

duet::Config quiet(const std::string& dir) {
  duet::Config c;
  c.output_dir = dir;
  c.verbose = -1;
  return c;
}

// Plays the fuzzer: random inputs until the target fails; the failing input (empty if none
// failed within `tries`).
std::string find_failing_input(const duet::FuzzTarget& target, const duet::Config& config, int tries, std::uint64_t seed,
                               duet::CheckResult* result) {
  std::mt19937_64 rng(seed);
  for (int i = 0; i < tries; ++i) {
    std::string input(8 + rng() % 120, '\0');
    for (char& c : input) c = static_cast<char>(rng());
    duet::CheckResult r = target(std::span(reinterpret_cast<const std::uint8_t*>(input.data()), input.size()), config);
    if (r.status != duet::CheckResult::Status::passed) {
      *result = std::move(r);
      return input;
    }
  }
  return {};
}

TEST(FuzzTargets, CrashFileReplaysThroughAnOrdinaryCheckWithTheSameReport) {
  const std::string dir = temp_dir("replay");
  duet::CheckResult found;
  const std::string input = find_failing_input(duet_fuzz::persistent_array(), quiet(dir), 100000, 1, &found);
  ASSERT_FALSE(input.empty()) << "no input among 100000 random ones made Ed's set fail";
  ASSERT_EQ(found.status, duet::CheckResult::Status::failed) << found.report;
  EXPECT_EQ(found.failing_length, 3u) << found.report;  // make, set, get on the old array
  EXPECT_TRUE(has(found.report, "candidate finds")) << found.report;

  duet::Config replay = quiet(dir);
  replay.replay_file = write_file(dir + "/crash-1", input);
  const duet::CheckResult again = duet_fuzz::persistent_array_api().check(replay);
  ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_EQ(duet_test::without_time(again.report), duet_test::without_time(found.report));
  EXPECT_EQ(again.replay_token, found.replay_token);

  // And through the environment, as a user would: DUET_REPLAY_FILE=crash-... ./tests
  ::setenv("DUET_REPLAY_FILE", replay.replay_file->c_str(), 1);
  const duet::CheckResult env = duet_fuzz::persistent_array_api().check(quiet(dir));
  ::unsetenv("DUET_REPLAY_FILE");
  EXPECT_EQ(duet_test::without_time(env.report), duet_test::without_time(found.report));
}

TEST(FuzzTargets, ATokenInACaseFileReplaysToo) {
  const std::string dir = temp_dir("token-file");
  duet::Config c = quiet(dir);
  c.seed = 3;
  const duet::CheckResult first = duet_fuzz::persistent_array_api().check(c);
  ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
  duet::Config replay = quiet(dir);
  replay.replay_file = write_file(dir + "/case.token", first.replay_token + "\n");
  const duet::CheckResult again = duet_fuzz::persistent_array_api().check(replay);
  ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_EQ(again.replay_token, first.replay_token);
}

TEST(FuzzTargets, ParallelOnFibersIsSteeredByTheBytes) {
  const std::string dir = temp_dir("fibers");
  duet::CheckResult found;
  const std::string input = find_failing_input(duet_fuzz::racy_counter(), quiet(dir), 100000, 2, &found);
  ASSERT_FALSE(input.empty()) << "no input among 100000 random ones made the racy counter fail";
  EXPECT_TRUE(has(found.report, "interleaving (fiber scheduler")) << found.report;
  // The bytes decide program and schedule: the same input fails the same way every time.
  duet::CheckResult again;
  EXPECT_EQ(find_failing_input(duet_fuzz::racy_counter(), quiet(dir), 100000, 2, &again), input);
  EXPECT_EQ(duet_test::without_time(again.report), duet_test::without_time(found.report));
}

TEST(FuzzTargets, ParallelBytesOnThreadsIsAnError) {
  const std::string bytes(64, '\x07');
  const duet::CheckResult r = duet::check_parallel_bytes<fiber_subjects::CounterSpec<true>>(
      std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), duet::ParallelConfig{});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "needs the fiber scheduler")) << r.report;
}

TEST(FuzzTargets, SeedCorporaPass) {
  const std::vector<std::pair<std::string, duet::FuzzTarget>> targets = {{"persistent-array", duet_fuzz::persistent_array()},
                                                                         {"ring-buffer", duet_fuzz::ring_buffer()},
                                                                         {"patricia", duet_fuzz::patricia()},
                                                                         {"patricia-uniform", duet_fuzz::patricia_uniform()},
                                                                         {"racy-counter", duet_fuzz::racy_counter()}};
  for (const auto& [name, target] : targets) {
    const fs::path dir = fs::path(DUET_SOURCE_DIR) / "tests/fuzz/targets/corpus" / name;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    int seeds = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
      std::ifstream in(entry.path(), std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      const duet::CheckResult r =
          target(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()), quiet(temp_dir("seeds")));
      // A seed starts the fuzzer from valid, passing cases (one that failed would be found at once).
      EXPECT_TRUE(r.passed()) << entry.path() << "\n" << r.report;
      ++seeds;
    }
    EXPECT_GE(seeds, 1) << name;
  }
}

TEST(FuzzTargetsDeathTest, AFailingInputPrintsTheReportAndAborts) {
  const std::string dir = temp_dir("abort");
  duet::CheckResult found;
  const std::string input = find_failing_input(duet_fuzz::persistent_array(), quiet(dir), 100000, 1, &found);
  ASSERT_FALSE(input.empty());
  ::setenv("DUET_OUTPUT_DIR", dir.c_str(), 1);
  EXPECT_DEATH(
      duet::detail::fuzz_one(duet_fuzz::persistent_array(), reinterpret_cast<const std::uint8_t*>(input.data()),
                             input.size()),
      "PersistentArray: failed on a fuzzer's input(.|\n)*replay: +DUET_REPLAY=duet1(.|\n)*aborting so that the fuzzer keeps it");
  ::unsetenv("DUET_OUTPUT_DIR");
  // A passing input returns 0.
  const std::string passing = "\x00";
  EXPECT_EQ(duet::detail::fuzz_one(duet_fuzz::persistent_array(), reinterpret_cast<const std::uint8_t*>(passing.data()), 1),
            0);
}

// ---- Bad case files -------------------------------------------------------------------------

duet::CheckResult replay_file(const std::string& path) {
  duet::Config c = quiet(temp_dir("bad"));
  c.replay_file = path;
  return duet_fuzz::persistent_array_api().check(c);
}

TEST(CaseFiles, BadFilesAreClearErrors) {
  const std::string dir = temp_dir("bad-files");
  struct Bad {
    std::string path, expected;
  };
  const std::vector<Bad> cases = {
      {dir + "/missing", "DUET_REPLAY_FILE: cannot read " + dir + "/missing"},
      {write_file(dir + "/empty", ""), "is empty: a case file holds a replay token or a fuzzer's input"},
      {dir, "is a directory, not a case file"},
      {write_file(dir + "/garbled.token", "duet1.this-is-not-a-token\n"), "from " + dir + "/garbled.token"},
      {write_file(dir + "/cut.token", "duet1.9MPw6gsBAQ9kCgALAQAAAQAAAAEB\n"), "from " + dir + "/cut.token"},
      {write_file(dir + "/other.token", "duet1.9MPw6gsBAQ9kCgALAQAAAQAAAAEBAQHV-QTI\n"), "was recorded by another test"}};
  for (const Bad& bad : cases) {
    const duet::CheckResult r = replay_file(bad.path);
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << bad.path << "\n" << r.report;
    EXPECT_TRUE(has(r.report, bad.expected)) << bad.path << "\n" << r.report;
    EXPECT_TRUE(has(r.report, "nothing was tested")) << r.report;
  }
  // Both DUET_REPLAY and DUET_REPLAY_FILE: which one is meant?
  duet::Config both = quiet(dir);
  both.replay = "duet1.x";
  both.replay_file = dir + "/x";
  const duet::CheckResult r = duet_fuzz::persistent_array_api().check(both);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error);
  EXPECT_TRUE(has(r.report, "DUET_REPLAY and DUET_REPLAY_FILE are both set")) << r.report;
}

// ---- Regression cases -----------------------------------------------------------------------

TEST(Regressions, AFailureIsSavedAndReplayedFirstNextTime) {
  const std::string dir = temp_dir("regressions");
  duet::Config c = quiet(dir + "/out");
  c.regressions = dir + "/cases";
  c.seed = 4;
  const duet::CheckResult first = duet_fuzz::persistent_array_api().check(c);
  ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
  ASSERT_TRUE(has(first.report, "  saved:      " + dir + "/cases/PersistentArray/sequential/")) << first.report;
  std::vector<fs::path> saved;
  for (const auto& e : fs::directory_iterator(dir + "/cases/PersistentArray/sequential")) saved.push_back(e.path());
  ASSERT_EQ(saved.size(), 1u);

  // Next run, another seed: the saved case comes first, before any random case.
  c.seed = 5;
  c.count = 0;  // no random case at all: only the regression case can fail
  const duet::CheckResult second = duet_fuzz::persistent_array_api().check(c);
  ASSERT_EQ(second.status, duet::CheckResult::Status::failed) << second.report;
  EXPECT_TRUE(has(second.report, "the regression case " + saved[0].string() + " fails again")) << second.report;
  EXPECT_EQ(second.replay_token, first.replay_token);

  // Fixed: the regression case passes silently and the random cases run.
  c.count = 200;
  const duet::CheckResult fixed =
      persistent::spec(persistent::fixed::make, persistent::fixed::get, persistent::fixed::set).check(c);
  EXPECT_TRUE(fixed.passed()) << fixed.report;
  EXPECT_EQ(fixed.cases, 200u);

  // A fuzzer's crash file among them works too, and a corrupt entry is an error naming it.
  duet::CheckResult found;
  const std::string input = find_failing_input(duet_fuzz::persistent_array(), quiet(dir), 100000, 1, &found);
  fs::remove(saved[0]);
  write_file(dir + "/cases/PersistentArray/sequential/crash-from-fuzzer", input);
  c.count = 0;
  const duet::CheckResult from_bytes = duet_fuzz::persistent_array_api().check(c);
  EXPECT_EQ(from_bytes.status, duet::CheckResult::Status::failed) << from_bytes.report;
  EXPECT_TRUE(has(from_bytes.report, "crash-from-fuzzer fails again")) << from_bytes.report;
  write_file(dir + "/cases/PersistentArray/sequential/broken.token", "duet1.broken");
  const duet::CheckResult broken = duet_fuzz::persistent_array_api().check(c);
  EXPECT_EQ(broken.status, duet::CheckResult::Status::error) << broken.report;
  EXPECT_TRUE(has(broken.report, "broken.token")) << broken.report;
}

// ---- A real fuzzer's crash file (make fuzz): run only with DUET_REPLAY_FILE ------------------

void replay_for_campaign(const duet::CheckResult& r) {
  // Printed between markers for tests/fuzz/targets/campaign.sh to compare with the fuzzer's.
  std::printf("=== duet report ===\n%s=== end ===\n", r.report.c_str());
  EXPECT_NE(r.status, duet::CheckResult::Status::passed);
}

#define DUET_FUZZ_REPLAY(Name, check)                                             \
  TEST(FuzzReplay, Name) {                                                        \
    if (!std::getenv("DUET_REPLAY_FILE")) GTEST_SKIP() << "set DUET_REPLAY_FILE"; \
    replay_for_campaign(check);                                                   \
  }
DUET_FUZZ_REPLAY(PersistentArray, duet_fuzz::persistent_array_api().check())
DUET_FUZZ_REPLAY(RingBuffer, duet::check_sequential<ring::BuggyRingBufferSpec>())
DUET_FUZZ_REPLAY(Patricia, duet_fuzz::patricia_api().check())
DUET_FUZZ_REPLAY(PatriciaUniform, duet_fuzz::patricia_uniform_api().check())
DUET_FUZZ_REPLAY(RacyCounter, duet::check_parallel<fiber_subjects::CounterSpec<true>>(duet_fuzz::racy_counter_config()))

}  // namespace
