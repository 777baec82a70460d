#include <duet/config.hpp>
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

}  // namespace
