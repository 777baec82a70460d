// Run settings. Every setting is a field here (set in code), an environment variable and a
// command-line flag; the flag wins over the variable, which wins over the code. An empty or
// malformed value, from any of the three, is an error that names it (nothing is tested).
//
//   duet::check_sequential<QueueSpec>({.count = 10000});
//   DUET_SEED=42 ./tests                 // or ./tests --duet_seed=42
//
// | field         | variable          | flag                 | default                       |
// |---------------|-------------------|----------------------|-------------------------------|
// | seed          | DUET_SEED         | --duet_seed          | random, always printed        |
// | count         | DUET_COUNT        | --duet_count         | no limit (the time decides)   |
// | time          | DUET_TIME         | --duet_time          | 1 s, or none if count is set  |
// | max_length    | DUET_MAX_LENGTH   | --duet_max_length    | 100 commands                  |
// | mean_length   | DUET_MEAN_LENGTH  | --duet_mean_length   | 10 commands                   |
// | replay        | DUET_REPLAY       | --duet_replay        | none                          |
// | replay_file   | DUET_REPLAY_FILE  | --duet_replay_file   | none: a file holding a token, |
// |               |                   |                      | or a fuzzer's input (bytes)   |
// | regressions   | DUET_REGRESSIONS  | --duet_regressions   | none: a directory of failing  |
// |               |                   |                      | cases, replayed first, added  |
// |               |                   |                      | to (docs/fuzzing.md)          |
// | shrink_time   | DUET_SHRINK_TIME  | --duet_shrink_time   | 30 s                          |
// | shrink_steps  | DUET_SHRINK_STEPS | --duet_shrink_steps  | 100000 replays                |
// | output_dir    | DUET_OUTPUT_DIR   | --duet_output_dir    | duet-output (under the cwd)   |
// | verbose       | DUET_VERBOSE      | --duet_verbose       | 0: a line per passing check;  |
// |               |                   |                      | -1: none; 1: reports on stderr|
// | shards        | DUET_SHARDS       | --duet_shards        | 1                             |
// | shard_index   | DUET_SHARD_INDEX  | --duet_shard_index   | 0                             |
// | case_timeout  | DUET_CASE_TIMEOUT | --duet_case_timeout  | 60 s (then the case is a hang)|
// |               |                   |                      | isolated: 2 s, and shrunk     |
// | isolate       | DUET_FORK         | --duet_fork          | 0; 1: cases run in a child    |
// |               |                   |                      | process (crashes, hangs and   |
// |               |                   |                      | exit() are shrunk and shown)  |
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duet {

struct Config {
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> count;
  std::optional<double> time;
  std::optional<std::size_t> max_length;
  std::optional<double> mean_length;
  std::optional<std::string> replay;
  /// A file to replay instead of searching: a replay token, or a fuzzer's input (raw bytes, as
  /// a crash file of a DUET_FUZZ_TARGET), which is run as the choice stream.
  std::optional<std::string> replay_file;
  /// A directory of regression cases (FuzzTest's testdata/): the files under <dir>/<check name>/
  /// (tokens or fuzzer inputs) are replayed before any random case, and a new failure's token
  /// is saved there. Commit the directory; see docs/fuzzing.md.
  std::optional<std::string> regressions;
  std::optional<double> shrink_time;
  std::optional<std::uint64_t> shrink_steps;
  std::optional<std::string> output_dir;
  std::optional<int> verbose;
  std::optional<std::uint32_t> shards;
  std::optional<std::uint32_t> shard_index;
  std::optional<double> case_timeout;
  /// Runs cases and shrink candidates in a child process (DUET_FORK=1), so that a candidate
  /// that crashes, hangs or calls exit() is reported as a failure and shrunk. See docs/isolation.md.
  std::optional<bool> isolate;
  /// Names the check in reports and file names; defaults to the spec's type name.
  std::optional<std::string> name;
};

/// Reads `--duet_*` flags, removing them from argv (call before or after
/// testing::InitGoogleTest; duet::gtest_main does it for you). An unknown `--duet_` flag or a
/// malformed value throws std::invalid_argument naming it.
void parse_flags(int* argc, char** argv);

namespace detail {
/// Settings after applying the environment and flags over the code's; every field is set.
struct Settings {
  std::uint64_t seed;
  bool seed_given;
  std::uint64_t count;  // cases; UINT64_MAX: no limit
  double time;          // seconds, 0: no limit
  bool budget_given;    // a count or a time came from the code, the environment or a flag
  std::size_t max_length;
  double mean_length;
  std::string replay;
  std::string replay_file;
  std::string regressions;
  double shrink_time;
  std::uint64_t shrink_steps;
  std::string output_dir;
  int verbose;
  std::uint32_t shards;
  std::uint32_t shard_index;
  double case_timeout;
  bool isolate;
  std::string name;
};
/// Throws std::invalid_argument with a message naming the variable or flag at fault.
/// `default_time`: the time budget when neither a count nor a time is given.
Settings resolve(const Config& code, const std::string& default_name, double default_time = 1.0);
}  // namespace detail

}  // namespace duet
