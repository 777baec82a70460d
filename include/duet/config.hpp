// Run settings. Every setting is a field here (set in code), an environment variable and a
// command-line flag; the flag wins over the variable, which wins over the code. An empty or
// malformed value, from any of the three, is an error that names it (nothing is tested), and so
// is a DUET_* variable or --duet* flag that is a near miss of a setting (DUET_SED, --duet-seed).
//
//   duet::check_sequential<QueueSpec>({.count = 10000});
//   DUET_SEED=42 ./tests                 // or ./tests --duet_seed=42
//
// `--duet_help` (or DUET_HELP=1) prints every setting with its default and meaning;
// docs/reference.md#settings has the same table (both are made from src/engine/settings_table.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duet {

struct Config {
  std::optional<std::uint64_t> seed = std::nullopt;
  std::optional<std::uint64_t> count = std::nullopt;
  std::optional<double> time = std::nullopt;
  std::optional<std::size_t> max_length = std::nullopt;
  std::optional<double> mean_length = std::nullopt;
  std::optional<std::string> replay = std::nullopt;
  /// A file to replay instead of searching: a replay token, or a fuzzer's input (raw bytes, as
  /// a crash file of a DUET_FUZZ_TARGET), which is run as the choice stream (not on threads,
  /// where the outcome follows the timing). Read with a cap (16 MiB) and a deadline (10 s).
  std::optional<std::string> replay_file = std::nullopt;
  /// A directory of regression cases (FuzzTest's testdata/): the files under
  /// <dir>/<check name>/<executor>/ (tokens or fuzzer inputs; "sequential", "threads",
  /// "fibers_random"...) are replayed before any random case, and a new failure's token is saved
  /// there. Commit the directory; see docs/fuzzing.md.
  std::optional<std::string> regressions = std::nullopt;
  std::optional<double> shrink_time = std::nullopt;
  std::optional<std::uint64_t> shrink_steps = std::nullopt;
  std::optional<std::string> output_dir = std::nullopt;
  std::optional<int> verbose = std::nullopt;
  std::optional<std::uint32_t> shards = std::nullopt;
  std::optional<std::uint32_t> shard_index = std::nullopt;
  /// Processes a walk over every program (ParallelConfig::every_program) on fibers runs its
  /// programs in, each a share of the walk; 0: one per CPU the process may use. The verdict,
  /// the counts and the first counterexample are the same for any number (docs/verifying.md).
  /// Other checks run in one process and their pass says so. Unset: 1 (DUET_JOBS).
  ///
  ///   duet::check_parallel<Spec>(pc, {.jobs = 0});  // every core
  std::optional<std::uint32_t> jobs = std::nullopt;
  std::optional<double> case_timeout = std::nullopt;
  /// Multiplies every wall-clock limit duet applies (case_timeout, shrink_time, the fiber stall
  /// limit), for emulators and sanitizers under which the code runs that many times slower; at
  /// least 1. The search's budget (time) is not scaled. Usually set outside the code
  /// (DUET_TIME_SCALE=10 under qemu-user); in code:
  ///
  ///   duet::check_sequential<Spec>({.case_timeout = 2, .time_scale = 10});  // a 20 s limit
  std::optional<double> time_scale = std::nullopt;
  /// Runs cases and shrink candidates in a child process (DUET_FORK=1), so that a candidate
  /// that crashes, hangs or calls exit() is reported as a failure and shrunk. Unset: off, except
  /// for parallel checks on threads, which are isolated unless this is false. See docs/isolation.md.
  std::optional<bool> isolate = std::nullopt;
  /// Names the check in reports and file names; defaults to the spec's type name.
  std::optional<std::string> name = std::nullopt;
  /// The most steps of a fiber interleaving a report shows: a longer run shows its first and
  /// last halves of that many and says how many it left out. 0 shows every step. Unset: 80.
  ///
  ///   duet::check_parallel<Spec>({.executor = duet::fibers()}, {.trace_steps = 0});
  std::optional<std::uint64_t> trace_steps = std::nullopt;
  /// Where a failure on the fiber scheduler writes its interleaving as an HTML page (a lane per
  /// fiber, its calls as bars, its steps as marks): a file ending in .html, or a directory that
  /// gets <name>_timeline.html. The report names the file. Unset: no page.
  ///
  ///   duet::check_parallel<Spec>({.executor = duet::fibers()}, {.timeline = "duet-output"});
  std::optional<std::string> timeline = std::nullopt;
  /// Seconds a parallel check that failed on threads spends searching the failing program's
  /// schedules on the fiber scheduler (random, then PCT, then exhaustive, a third each), to
  /// show it as a deterministic interleaving with a token; 0: not searched. Unset: 3.
  ///
  ///   EXPECT_TRUE(duet::check_parallel<Spec>({}, {.fiber_search = 10}));
  std::optional<double> fiber_search = std::nullopt;
};

/// Reads `--duet_*` flags, removing them from argv (call before or after
/// testing::InitGoogleTest; duet::gtest_main does it for you). An unknown `--duet_` flag or a
/// malformed value throws std::invalid_argument naming it. `--duet_help` (or DUET_HELP=1)
/// prints settings_help() to stdout and exits with status 0, as GoogleTest's --help does.
///
///   int main(int argc, char** argv) {
///     testing::InitGoogleTest(&argc, argv);
///     duet::parse_flags(&argc, argv);
///     return RUN_ALL_TESTS();
///   }
void parse_flags(int* argc, char** argv);

/// Every setting: its flag, its variable, its default, its duet::Config field and its meaning
/// (what `--duet_help` prints).
std::string settings_help();

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
  double shrink_time;  // seconds, time_scale applied
  std::uint64_t shrink_steps;
  std::string output_dir;
  int verbose;
  std::uint32_t shards;
  std::uint32_t shard_index;
  std::uint32_t jobs = 1;  // processes a walk over every program runs in (0 resolved to the CPUs)
  double case_timeout;     // seconds, time_scale applied
  double time_scale = 1;   // >= 1
  bool isolate;
  std::string name;
  std::uint64_t trace_steps;  // steps of a fiber interleaving a report shows; 0: all
  std::string timeline;       // where a fiber failure's HTML timeline goes; empty: none
  double fiber_search = 3;    // seconds a failure on threads is searched for on fibers; 0: not
};
/// Throws std::invalid_argument with a message naming the variable or flag at fault.
/// `default_time`: the time budget when neither a count nor a time is given; `default_isolate`:
/// whether cases run in a child process when nothing says (parallel checks on threads).
Settings resolve(const Config& code, const std::string& default_name, double default_time = 1.0,
                 bool default_isolate = false);
}  // namespace detail

}  // namespace duet
