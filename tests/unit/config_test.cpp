#include <duet/config.hpp>
#include <duet/check_result.hpp>
#include <duet/source.hpp>
#include <duet/detail/property.hpp>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <utility>
#include <vector>

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
                           {"DUET_SHARD_INDEX", "3"},  {"DUET_REPLAY", "tok"},   {"DUET_MEAN_LENGTH", "6"}};
  for (auto& v : vars) ::setenv(v[0], v[1], 1);
  const auto s = resolve({}, "n");
  for (auto& v : vars) ::unsetenv(v[0]);
  EXPECT_EQ(s.count, 3u);
  EXPECT_EQ(s.max_length, 4u);
  EXPECT_EQ(s.shrink_time, 5.0 * s.time_scale);  // DUET_TIME_SCALE, under make multiarch, scales it
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
                          "DUET_SHARD_INDEX", "DUET_CASE_TIMEOUT", "DUET_TIME_SCALE"}) {
    const char* before = std::getenv(var);
    const std::string saved = before ? before : "";
    ::setenv(var, "", 1);
    try {
      resolve({}, "n");
      ADD_FAILURE() << var << " empty was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()), std::string(var) + " is set but empty: give it a value, or unset it");
    }
    if (before) ::setenv(var, saved.c_str(), 1);  // DUET_TIME_SCALE, under make multiarch
    else ::unsetenv(var);
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

std::string resolve_error(const duet::Config& code = {}) {
  try {
    resolve(code, "n");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(accepted)";
}

// The levels are the three the documentation lists: -1, 0 and 1.
TEST(Config, VerboseMinusOneAsDocumented) {
  ::setenv("DUET_VERBOSE", "-1", 1);
  EXPECT_EQ(resolve({}, "n").verbose, -1);
  for (const char* level : {"-2", "2", "9", "-0x1", " 1"}) {
    ::setenv("DUET_VERBOSE", level, 1);
    EXPECT_EQ(resolve_error(), "DUET_VERBOSE=" + std::string(level) + ": expected -1, 0 or 1");
  }
  ::unsetenv("DUET_VERBOSE");
  EXPECT_EQ(resolve({.verbose = -1}, "n").verbose, -1);
  EXPECT_EQ(resolve({.verbose = 1}, "n").verbose, 1);
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

// A misspelled setting silently ignored runs a random seed, say, while the user believes it set.
TEST(Config, NearMissVariablesAreErrorsNamingTheSetting) {
  const std::pair<const char*, const char*> near[] = {{"DUET_SED", "DUET_SEED"},
                                                      {"duet_seed", "DUET_SEED"},
                                                      {"DUET_SHRINKTIME", "DUET_SHRINK_TIME"},
                                                      {"DUET_REPLAYFILE", "DUET_REPLAY_FILE"},
                                                      {"DUET_TIMEOUT", "DUET_CASE_TIMEOUT"},
                                                      {"DUET_FROK", "DUET_FORK"}};
  for (const auto& [var, meant] : near) {
    ::setenv(var, "3", 1);
    const std::string m = resolve_error();
    ::unsetenv(var);
    EXPECT_EQ(m, std::string("the environment variable ") + var + " is not a duet setting: did you mean " + meant +
                     "? (--duet_help lists them)");
  }
  // duet's own test variables, and names far from every setting, are left alone.
  for (const char* var : {"DUET_SOAK", "DUET_HISTORIES_DIR", "DUET_FUZZ_SECONDS", "DUET_SHRINK_QUALITY_SEEDS",
                          "DUET_UPDATE_GOLDEN", "DUET_TEST_TIME_SCALE", "DUET_INSTALL_PREFIX"}) {
    ::setenv(var, "1", 1);
    EXPECT_EQ(resolve_error(), "(accepted)") << var;
    ::unsetenv(var);
  }
}

TEST(Config, NearMissFlagsAreErrorsNamingTheFlag) {
  char prog[] = "t", dash[] = "--duet-seed=3", caps[] = "--DUET_SEED=3", joined[] = "--duetseed=3", typo[] = "--duet_sed=3";
  for (char* flag : {dash, caps, joined, typo}) {
    char* argv[] = {prog, flag, nullptr};
    int argc = 2;
    try {
      duet::parse_flags(&argc, argv);
      ADD_FAILURE() << flag << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string flag_name = std::string(flag).substr(0, std::string(flag).find('='));
      EXPECT_EQ(std::string(e.what()),
                "unknown flag " + flag_name + ": did you mean --duet_seed? (--duet_help lists duet's flags)");
    }
  }
  char far[] = "--duet_frobnicate=1";
  char* argv[] = {prog, far, nullptr};
  int argc = 2;
  EXPECT_THROW(duet::parse_flags(&argc, argv), std::invalid_argument);
}

// --duet_help lists 1, true, yes, on (and 0, false, no, off): in any case.
TEST(Config, BooleansAcceptWhatHelpLists) {
  for (const char* yes : {"1", "true", "yes", "on", "On", "TRUE", "Yes"}) {
    ::setenv("DUET_FORK", yes, 1);
    EXPECT_TRUE(resolve({}, "n").isolate) << yes;
  }
  for (const char* no : {"0", "false", "no", "off", "OFF", "False"}) {
    ::setenv("DUET_FORK", no, 1);
    EXPECT_FALSE(resolve({}, "n").isolate) << no;
  }
  ::setenv("DUET_FORK", "maybe", 1);
  EXPECT_EQ(resolve_error(), "DUET_FORK=maybe: expected 1, true, yes or on (or 0, false, no, off)");
  ::unsetenv("DUET_FORK");
}

// 1e10 s in the clock's nanoseconds overflows: a shrink budget that ended before it began.
TEST(Config, LargeTimesSaturate) {
  ::setenv("DUET_SHRINK_TIME", "1e10", 1);
  ::setenv("DUET_CASE_TIMEOUT", "1e300", 1);
  const auto s = resolve({.time = 1e12}, "n");
  ::unsetenv("DUET_SHRINK_TIME");
  ::unsetenv("DUET_CASE_TIMEOUT");
  EXPECT_EQ(s.shrink_time, 1e8);
  EXPECT_EQ(s.case_timeout, 1e8);
  EXPECT_EQ(s.time, 1e8);
  EXPECT_GT(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s.shrink_time)).count(),
      0);
}

TEST(Config, TheLargestCountIsABudget) {
  ::setenv("DUET_COUNT", "18446744073709551615", 1);
  EXPECT_EQ(resolve_error(), "(accepted)");
  ::unsetenv("DUET_COUNT");
  EXPECT_EQ(resolve({.count = ~std::uint64_t{0}}, "n").count, ~std::uint64_t{0});
  // No count and no time is still no budget.
  EXPECT_THROW(resolve({.time = 0}, "n"), std::invalid_argument);
}

}  // namespace

namespace {

// A value set in code is held to what the same value from a variable or a flag must be: the
// check is an error naming the field and the value, never a run without a limit.
TEST(Config, CodeValuesAreCheckedAsVariablesAre) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  const std::pair<duet::Config, const char*> wrong[] = {
      {{.time = -1}, "Config::time=-1: expected a non-negative number of seconds"},
      {{.time = nan}, "Config::time=nan: expected a non-negative number of seconds"},
      {{.time = inf}, "Config::time=inf: expected a non-negative number of seconds"},
      {{.count = 5, .case_timeout = nan}, "Config::case_timeout=nan: expected a positive number of seconds"},
      {{.count = 5, .case_timeout = -1}, "Config::case_timeout=-1: expected a positive number of seconds"},
      {{.count = 5, .case_timeout = 0}, "Config::case_timeout=0: expected a positive number of seconds"},
      {{.shrink_time = nan}, "Config::shrink_time=nan: expected a non-negative number of seconds"},
      {{.shrink_time = -5}, "Config::shrink_time=-5: expected a non-negative number of seconds"},
      {{.verbose = 5}, "Config::verbose=5: expected -1, 0 or 1"},
      {{.verbose = -5}, "Config::verbose=-5: expected -1, 0 or 1"},
      {{.mean_length = 0.5}, "Config::mean_length=0.5: expected a number of commands >= 1"},
      {{.mean_length = nan}, "Config::mean_length=nan: expected a number of commands >= 1"},
      {{.mean_length = inf}, "Config::mean_length=inf: expected a number of commands >= 1"},
      {{.max_length = 0}, "Config::max_length=0: expected a number of commands >= 1"},
      {{.shards = 0}, "Config::shards=0: expected a number of shards >= 1"},
  };
  for (const auto& [config, message] : wrong) EXPECT_EQ(resolve_error(config), message);
  // The edges themselves are settings.
  const auto edges =
      resolve({.count = 1, .time = 0, .max_length = 1, .mean_length = 1, .shrink_time = 0, .case_timeout = 1e-3}, "n");
  EXPECT_EQ(edges.max_length, 1u);
  EXPECT_DOUBLE_EQ(edges.case_timeout, 1e-3 * edges.time_scale);  // DUET_TIME_SCALE under make multiarch
}

TEST(Config, CodeValueOutOfRangeIsAnErrorNotAPass) {
  duet::detail::Property p;
  p.name = "P";
  p.run_case = [](duet::Source&, const duet::detail::CaseParams&, duet::detail::Trace*) {
    return duet::detail::CaseOutcome{};
  };
  const duet::CheckResult r = duet::detail::run_property(p, {.count = 10, .case_timeout = 0});
  EXPECT_EQ(r.status, duet::CheckResult::Status::error);
  EXPECT_NE(r.report.find("Config::case_timeout=0: expected a positive number of seconds"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("nothing was tested"), std::string::npos) << r.report;
}

// strtoull and strtod alone take a sign, spaces, hexadecimal floats, inf and nan (" -3" wraps to
// 2^64-3): a number takes only the forms the settings table documents.
TEST(Config, NumbersTakeOnlyTheDocumentedForms) {
  const std::pair<const char*, std::vector<const char*>> refused[] = {
      {"DUET_COUNT", {" -3", "-3", "+5", " 5", "5 ", "0x10", "0x-1", "5e2", "18446744073709551616"}},
      {"DUET_SHRINK_STEPS", {"0x+5", "0x 5", "1.0"}},
      {"DUET_MAX_LENGTH", {"0", "0x5"}},
      {"DUET_TIME", {"0x1p-3", " 1", "+1", "-1", "1 s", "1e999", "inf", "nan", ".", "1e", "2m", "1s "}},
      {"DUET_SHRINK_TIME", {"0x10", "-0.5"}},
      {"DUET_MEAN_LENGTH", {" 5", "0x10", "inf", "nan", "0.5", "5ms"}},
  };
  for (const auto& [var, texts] : refused) {
    for (const char* text : texts) {
      ::setenv(var, text, 1);
      const std::string m = resolve_error();
      EXPECT_EQ(m.rfind(std::string(var) + "=" + text + ": expected ", 0), 0u) << var << "=" << text << ": " << m;
    }
    ::unsetenv(var);
  }
  const std::pair<const char*, double> times[] = {{"2.5", 2.5}, {".5", 0.5}, {"1e1", 10}, {"3s", 3}, {"1.5E+1", 15}};
  for (const auto& [text, seconds] : times) {
    ::setenv("DUET_TIME", text, 1);
    EXPECT_DOUBLE_EQ(resolve({}, "n").time, seconds) << text;
  }
  ::setenv("DUET_TIME", "0x1p-3", 1);
  EXPECT_EQ(resolve_error(), "DUET_TIME=0x1p-3: expected a non-negative number of seconds");
  ::setenv("DUET_TIME", "2m", 1);
  EXPECT_EQ(resolve_error(), "DUET_TIME=2m: expected a number of seconds (units: ms, s, min)");
  ::unsetenv("DUET_TIME");
  ::setenv("DUET_MEAN_LENGTH", "2.5", 1);
  EXPECT_DOUBLE_EQ(resolve({}, "n").mean_length, 2.5);
  ::unsetenv("DUET_MEAN_LENGTH");
}

// The seed alone is also hexadecimal, as reports print it (a flag wins over DUET_SEED, which an
// earlier test set as a flag: the flag is what is tried here).
TEST(Config, SeedIsDecimalOrHexadecimalWithDigitsOnly) {
  auto seed_error = [](std::string flag) {
    char prog[] = "t";
    char* argv[] = {prog, flag.data(), nullptr};
    int argc = 2;
    duet::parse_flags(&argc, argv);
    return resolve_error();
  };
  for (const char* text : {"0x-1", "0x+5", "0x 5", " 5", "0x", "0xg", "-1", "0x1p3"})
    EXPECT_EQ(seed_error(std::string("--duet_seed=") + text),
              "--duet_seed=" + std::string(text) + ": expected a non-negative integer");
  EXPECT_EQ(seed_error("--duet_seed=0xfF"), "(accepted)");
  EXPECT_EQ(resolve({}, "n").seed, 255u);
  seed_error("--duet_seed=5");
}

// There is no "no limit" for a case: with DUET_FORK=1, a hang would then hang the test.
TEST(Config, CaseTimeoutOfZeroIsAnError) {
  for (const char* text : {"0", "0ms", "0.0"}) {
    ::setenv("DUET_CASE_TIMEOUT", text, 1);
    EXPECT_EQ(resolve_error(), "DUET_CASE_TIMEOUT=" + std::string(text) + ": expected a positive number of seconds");
  }
  ::unsetenv("DUET_CASE_TIMEOUT");
}

// DUET_TIME_SCALE multiplies the case's time limit and the shrinker's, whichever source they and
// the scale come from, and not the search's budget; it is a number >= 1.
TEST(Config, TimeScaleMultipliesTheTimeLimitsNotTheSearchBudget) {
  const char* before = std::getenv("DUET_TIME_SCALE");
  const std::string saved = before ? before : "";
  ::unsetenv("DUET_TIME_SCALE");
  EXPECT_EQ(resolve({}, "n").time_scale, 1.0);
  EXPECT_EQ(resolve({}, "n", 1.0, true).case_timeout, 2.0);
  const auto in_code = resolve({.time = 3, .shrink_time = 4, .case_timeout = 0.5, .time_scale = 10}, "n");
  EXPECT_EQ(in_code.time_scale, 10.0);
  EXPECT_DOUBLE_EQ(in_code.case_timeout, 5.0);
  EXPECT_EQ(in_code.time, 3.0);
  EXPECT_DOUBLE_EQ(in_code.shrink_time, 40.0);
  ::setenv("DUET_TIME_SCALE", "2.5", 1);
  EXPECT_DOUBLE_EQ(resolve({.time_scale = 10}, "n", 1.0, true).case_timeout, 5.0);
  EXPECT_DOUBLE_EQ(resolve({}, "n").case_timeout, 150.0);
  for (const char* text : {"0.5", "0", "-1", "x", "2x", "1e999", "nan", " 2", "0x2"}) {
    ::setenv("DUET_TIME_SCALE", text, 1);
    EXPECT_EQ(resolve_error(), "DUET_TIME_SCALE=" + std::string(text) + ": expected a number >= 1");
  }
  ::unsetenv("DUET_TIME_SCALE");
  EXPECT_THROW(resolve({.time_scale = 0.9}, "n"), std::invalid_argument);
  // (The flag, --duet_time_scale, is read as every setting's is; set here, it would stay set for
  // the tests after this one.)
  if (before) ::setenv("DUET_TIME_SCALE", saved.c_str(), 1);
}

// GoogleTest takes -gtest_ and /gtest_ as its own; a duet flag typed with one dash, three, or
// a slash would otherwise be passed on and ignored.
TEST(Config, FlagsWithOtherPrefixesAreErrorsNamingTheFlag) {
  struct Wrong {
    const char* arg;
    const char* shown;  // the argument up to its '='
    const char* meant;
  };
  const Wrong wrong[] = {
      {"-duet_seed=5", "-duet_seed", "--duet_seed"},        {"-duet_count=0", "-duet_count", "--duet_count"},
      {"---duet_count=0", "---duet_count", "--duet_count"}, {"/duet_count=0", "/duet_count", "--duet_count"},
      {"-DUET_COUNT=0", "-DUET_COUNT", "--duet_count"},     {"-duet_help", "-duet_help", "--duet_help"}};
  for (const Wrong& w : wrong) {
    std::string text = w.arg;
    char prog[] = "t";
    char* argv[] = {prog, text.data(), nullptr};
    int argc = 2;
    try {
      duet::parse_flags(&argc, argv);
      ADD_FAILURE() << w.arg << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()),
                "unknown flag " + std::string(w.shown) + ": did you mean " + w.meant + "? (--duet_help lists duet's flags)");
    }
  }
  // Not flags of duet: passed on untouched.
  std::string path = "/duet-output/a.txt", other = "-gtest_filter=x", word = "-d";
  char prog[] = "t";
  char* argv[] = {prog, path.data(), other.data(), word.data(), nullptr};
  int argc = 4;
  duet::parse_flags(&argc, argv);
  EXPECT_EQ(argc, 4);
}

// How much of a fiber interleaving a report shows: a number of steps, 0 for all; never a word
// (DUET_TRACE=full is a near miss, an error naming the setting, not an ignored variable).
TEST(Config, TraceStepsIsANumberOfStepsWithZeroForAll) {
  EXPECT_EQ(resolve({}, "n").trace_steps, 80u);
  EXPECT_EQ(resolve({.trace_steps = 0}, "n").trace_steps, 0u);
  EXPECT_EQ(resolve({.trace_steps = 2000}, "n").trace_steps, 2000u);
  for (const auto& [text, steps] : {std::pair{"0", 0u}, std::pair{"1", 1u}, std::pair{"500", 500u}}) {
    ::setenv("DUET_TRACE_STEPS", text, 1);
    EXPECT_EQ(resolve({.trace_steps = 7}, "n").trace_steps, steps) << text;
  }
  for (const char* text : {"all", "full", "-1", "+5", "1.5", "0x10", " 3", "18446744073709551616"}) {
    ::setenv("DUET_TRACE_STEPS", text, 1);
    EXPECT_EQ(resolve_error(), "DUET_TRACE_STEPS=" + std::string(text) + ": expected a non-negative integer") << text;
  }
  ::setenv("DUET_TRACE_STEPS", "", 1);
  EXPECT_EQ(resolve_error(), "DUET_TRACE_STEPS is set but empty: give it a value, or unset it");
  ::unsetenv("DUET_TRACE_STEPS");
  ::setenv("DUET_TRACE", "full", 1);
  EXPECT_EQ(resolve_error(),
            "the environment variable DUET_TRACE is not a duet setting: did you mean DUET_TRACE_STEPS? (--duet_help "
            "lists them)");
  ::unsetenv("DUET_TRACE");
  // The flag wins over the variable; it is left at the default for the tests after this one.
  ::setenv("DUET_TRACE_STEPS", "3", 1);
  for (const auto& [flag, steps] : {std::pair{"--duet_trace_steps=0", 0u}, std::pair{"--duet_trace_steps=80", 80u}}) {
    std::string text = flag;
    char prog[] = "t";
    char* argv[] = {prog, text.data(), nullptr};
    int argc = 2;
    duet::parse_flags(&argc, argv);
    EXPECT_EQ(argc, 1);
    EXPECT_EQ(resolve({}, "n").trace_steps, steps) << flag;
  }
  ::unsetenv("DUET_TRACE_STEPS");
  std::string typo = "--duet_trace=full";
  char prog[] = "t";
  char* argv[] = {prog, typo.data(), nullptr};
  int argc = 2;
  try {
    duet::parse_flags(&argc, argv);
    ADD_FAILURE() << typo << " accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "unknown flag --duet_trace: did you mean --duet_trace_steps? (--duet_help lists duet's flags)");
  }
}

}  // namespace
