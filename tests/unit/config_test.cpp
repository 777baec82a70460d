#include <duet/config.hpp>
#include <duet/detail/engine.hpp>
#include <gtest/gtest.h>

#include <cstdlib>

namespace {

using duet::detail::resolve;

TEST(Config, CodeEnvironmentFlagPrecedence) {
  EXPECT_EQ(resolve({.seed = 5}, "n").seed, 5u);
  ::setenv("DUET_SEED", "6", 1);
  EXPECT_EQ(resolve({.seed = 5}, "n").seed, 6u);
  char prog[] = "t", flag[] = "--duet_seed=0x7", other[] = "--gtest_color=no";
  char* argv[] = {prog, flag, other, nullptr};
  int argc = 3;
  duet::parse_flags(&argc, argv);
  EXPECT_EQ(argc, 2);
  EXPECT_STREQ(argv[1], "--gtest_color=no");
  EXPECT_EQ(resolve({.seed = 5}, "n").seed, 7u);
  ::unsetenv("DUET_SEED");
  char reset[] = "--duet_seed=5";
  char* argv2[] = {prog, reset, nullptr};
  argc = 2;
  duet::parse_flags(&argc, argv2);
}

TEST(Config, Defaults) {
  const auto s = resolve({}, "name");
  EXPECT_EQ(s.time, 1.0);
  EXPECT_EQ(s.count, ~std::uint64_t{0});
  EXPECT_EQ(s.mean_length, 10.0);
  EXPECT_EQ(s.name, "name");
  // Setting a count alone drops the time limit: DUET_COUNT=N runs N cases.
  const auto c = resolve({.count = 10}, "n");
  EXPECT_EQ(c.count, 10u);
  EXPECT_EQ(c.time, 0.0);
}

TEST(Config, TimeUnits) {
  ::setenv("DUET_TIME", "250ms", 1);
  EXPECT_DOUBLE_EQ(resolve({}, "n").time, 0.25);
  ::setenv("DUET_TIME", "2min", 1);
  EXPECT_DOUBLE_EQ(resolve({}, "n").time, 120);
  ::setenv("DUET_TIME", "soon", 1);
  EXPECT_THROW(resolve({}, "n"), std::invalid_argument);
  ::unsetenv("DUET_TIME");
}

TEST(Config, EveryVariableIsRead) {
  const char* vars[][2] = {{"DUET_COUNT", "3"},        {"DUET_MAX_LENGTH", "4"}, {"DUET_SHRINK_TIME", "5"},
                           {"DUET_OUTPUT_DIR", "out"}, {"DUET_VERBOSE", "1"},    {"DUET_SHARDS", "4"},
                           {"DUET_SHARD_INDEX", "3"},  {"DUET_REPLAY", "tok"},  {"DUET_MEAN_LENGTH", "6"}};
  for (auto& v : vars) ::setenv(v[0], v[1], 1);
  const auto s = resolve({}, "n");
  for (auto& v : vars) ::unsetenv(v[0]);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.max_length, 4u);
  EXPECT_EQ(s.shrink_time, 5.0);
  EXPECT_EQ(s.output_dir, "out");
  EXPECT_EQ(s.verbose, 1);
  EXPECT_EQ(s.shards, 4u);
  EXPECT_EQ(s.shard_index, 3u);
  EXPECT_EQ(s.replay, "tok");
  EXPECT_EQ(s.mean_length, 6.0);
}

// An empty value is never "use the default": an empty DUET_REPLAY would otherwise run a random
// check and pass.
TEST(Config, EmptyValuesAreErrors) {
  // (DUET_SEED is left out: the first test sets --duet_seed, and a flag wins over the variable.)
  for (const char* var : {"DUET_COUNT", "DUET_TIME", "DUET_MAX_LENGTH", "DUET_MEAN_LENGTH", "DUET_REPLAY",
                          "DUET_SHRINK_TIME", "DUET_SHRINK_STEPS", "DUET_OUTPUT_DIR", "DUET_VERBOSE", "DUET_SHARDS",
                          "DUET_SHARD_INDEX", "DUET_CASE_TIMEOUT"}) {
    ::setenv(var, "", 1);
    try {
      resolve({}, "n");
      ADD_FAILURE() << var << " empty was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string(var) + " is set but empty: give it a value, or unset it");
    }
    ::unsetenv(var);
  }
  char prog[] = "t", replay[] = "--duet_replay=", seed[] = "--duet_seed=";
  for (char* flag : {replay, seed}) {
    char* argv[] = {prog, flag, nullptr};
    int argc = 2;
    EXPECT_THROW(duet::parse_flags(&argc, argv), std::invalid_argument) << flag;
  }
  EXPECT_THROW(resolve({.replay = ""}, "n"), std::invalid_argument);
  EXPECT_THROW(resolve({.output_dir = ""}, "n"), std::invalid_argument);
  EXPECT_THROW(resolve({.name = ""}, "n"), std::invalid_argument);
}

TEST(Config, EmptyReplayIsAnErrorNotAPass) {
  ::setenv("DUET_REPLAY", "", 1);
  duet::detail::Property p;
  p.name = "P";
  p.run_case = [](duet::Source&, const duet::detail::CaseParams&, duet::detail::Trace*) {
    return duet::detail::CaseOutcome{};
  };
  const duet::CheckResult r = duet::detail::run_property(p, {});
  ::unsetenv("DUET_REPLAY");
  EXPECT_EQ(r.status, duet::CheckResult::Status::error);
  EXPECT_NE(r.report.find("DUET_REPLAY is set but empty"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("nothing was tested"), std::string::npos) << r.report;
}

TEST(Config, VerboseMinusOneAsDocumented) {
  ::setenv("DUET_VERBOSE", "-1", 1);
  EXPECT_EQ(resolve({}, "n").verbose, -1);
  ::setenv("DUET_VERBOSE", "-2", 1);
  EXPECT_THROW(resolve({}, "n"), std::invalid_argument);
  ::unsetenv("DUET_VERBOSE");
  EXPECT_EQ(resolve({.verbose = -1}, "n").verbose, -1);
}

TEST(Config, NonFiniteTimesAreErrors) {
  for (const char* text : {"inf", "nan", "1e999"}) {
    ::setenv("DUET_TIME", text, 1);
    EXPECT_THROW(resolve({}, "n"), std::invalid_argument) << text;
  }
  ::unsetenv("DUET_TIME");
}

// A quoted value is cut: a megabyte of garbage in a variable gives a line, not a megabyte.
TEST(Config, QuotesAreBounded) {
  const std::string huge(1 << 20, '7');
  ::setenv("DUET_SHRINK_STEPS", (huge + "x").c_str(), 1);
  try {
    resolve({}, "n");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_LT(m.size(), 300u) << m.substr(0, 400);
    EXPECT_NE(m.find("... (1048577 bytes): expected a non-negative integer"), std::string::npos) << m.substr(0, 400);
  }
  ::unsetenv("DUET_SHRINK_STEPS");
}

}  // namespace
