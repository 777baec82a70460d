// The run settings, each a duet::Config field, a DUET_* variable and a --duet_* flag.
#include "engine/settings_table.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "duet/config.hpp"
#include "duet/version.hpp"
#include "show/text.hpp"

namespace duet {
namespace detail {
namespace {

constexpr SettingInfo
    kSettings
        [] =
            {
                {"seed", "seed", "N", "random, printed in every report",
                 "Seed of the choice stream: the same seed gives the same cases. Decimal, or hexadecimal with 0x as reports print it."},
                {"count", "count", "N", "no limit (the time decides)",
                 "Number of cases to run (parallel checks: programs). With a count and no time, the count alone decides."},
                {"time", "time", "SECONDS", "1 s; 60 s for expect_unsafe; none when a count is set",
                 "Time budget of the search: 250ms, 2.5, 2min (units ms, s, min). 0 means no limit and needs a count."},
                {"max_length", "max_length", "N", "100",
                 "Most commands in one case, at least 1. Sequential checks only: a parallel program's shape comes from its ParallelConfig."},
                {"mean_length", "mean_length", "N", "10",
                 "Mean number of commands in a case; at least 1. Sequential checks only, as max_length."},
                {"replay", "replay", "TOKEN", "none",
                 "Replay the failing case a report printed (duet1.…) instead of searching; the report comes out the same, with a line saying how the replay ended."},
                {"replay_file", "replay_file", "FILE", "none",
                 "Replay a file holding a token, or a fuzzer's input (raw bytes, a DUET_FUZZ_TARGET crash file; not on threads). At most 16 MiB, read within 10 s."},
                {"regressions", "regressions", "DIR", "none",
                 "Replay the cases under DIR/<check name>/<executor>/ (then those of this executor right under DIR/<check name>/, the older layout) before any random case, and save each new failure there as <hash>.token."},
                {"shrink_time", "shrink_time", "SECONDS", "30 s",
                 "Time budget of the shrinker; the report says when it ran out."},
                {"shrink_steps", "shrink_steps", "N", "100000",
                 "Most replays the shrinker tries; the report says when it ran out."},
                {"output_dir", "output_dir", "DIR", "duet-output (under the working directory)",
                 "Where draft tests (<name>_repro.cpp) and other files of a report are written."},
                {"verbose", "verbose", "LEVEL", "0",
                 "0: one line per check (a pass's on stdout; a failure's or an error's on stderr, with its replay token and draft test); -1: none (and no progress lines); 1: failure reports on stderr instead of their line. No other level."},
                {"trace_steps", "trace_steps", "N", "80 (the first 40 and the last 40)",
                 "Most steps of a fiber interleaving a failure report shows: a longer run shows its first and last N/2 and says how many steps it left out. 0: every step."},
                {"timeline", "timeline", "PATH", "none",
                 "Write a fiber failure's interleaving as a self-contained HTML page: a lane per fiber, each call a bar, each step a mark (the same steps as the report, see trace_steps). A path ending in .html is the file; any other is a directory, which gets <name>_timeline.html. The report names the file, or says why it was not written."},
                {"shards", "shards", "N", "1",
                 "Split the cases of a seed over N runs: with the same seed, the shards are disjoint and together cover the unsharded run."},
                {"shard_index", "shard_index", "I", "0", "Which shard this run is, below shards."},
                {"jobs", "jobs", "N", "1",
                 "Processes a walk over every program (ParallelConfig::every_program) on fibers runs its programs in, each a share of the walk; 0: one per CPU the process may use. The verdict, the counts and the first counterexample are the same for any number. Other checks run in one process, and their pass says so (docs/verifying.md)."},
                {"certificate", nullptr, "PATH", "none",
                 "Where a walk over every program of a scope (ParallelConfig::every_program) writes its certificate: what its shard ran and how it ended, for duet-merge-certificates to join the shards' into one verdict. An existing directory, or a path ending in /, gets <check>.shard-<I>-of-<N>.cert; any other path is the file. Other checks write none (docs/verifying.md)."},
                {"case_timeout", "case_timeout", "SECONDS", "60 s; 2 s isolated",
                 "A case running longer is a hang: reported, and shrunk when isolated; a parallel case's limit is per trial (an exhaustive search runs one program many times). Above 0: a case always has a limit. Time the case waited for a CPU (the machine busy with other work) does not count."},
                {"time_scale", "time_scale",
                 "N", "1", "Multiplies every wall-clock limit duet applies (DUET_CASE_TIMEOUT, DUET_SHRINK_TIME, the fiber stall limit, isolation's own) by N, a number >= 1: for emulators and sanitizers under which code runs N times slower. A report names the scale with the limit. The search's budget (DUET_TIME) is not scaled."},
                {"fork", "isolate", "BOOL", "0; 1 for parallel checks on threads",
                 "1 (or true, yes, on, in any case; 0, false, no or off for no): run the search and the shrinker in a child process, so that a candidate that crashes, hangs or calls exit() is a failure, shrunk (docs/isolation.md). 0: in process."},
                {"fiber_search", "fiber_search", "SECONDS", "3 s",
                 "When a parallel check fails on threads, search the failing program's schedules on the fiber scheduler for this long (random, PCT, then exhaustive schedules, a third each), and print the interleaving that reproduces it with its own replay line, or why the fibers could not show it (its calls met no instrumented operation, or no schedule in the budget gave the failure). 0: not searched (docs/parallel.md)."},
                {"executor", nullptr, "NAME", "each check's own (ParallelConfig::executor; threads when it sets none)",
                 "Run every parallel check on this executor instead of its own: threads, fibers (a check on fibers keeps its strategy; others get random), fibers:random, fibers:pct or fibers:exhaustive (the strategy with its default parameters). Reports say so, and replay lines carry it. A check that cannot run there (thread_hooks on fibers, FiberOptions hooks on threads, an executor object of its own) is an error saying why (docs/parallel.md)."},
                {"help", nullptr, "", "",
                 "Print this list and exit (in binaries that call duet::parse_flags, as duet::gtest_main does)."},
};

std::string variable(const SettingInfo& s) {
  std::string var = std::string("DUET_") + s.knob;
  for (char& c : var) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return var + "=" + (*s.value ? s.value : "1");
}

std::string flag(const SettingInfo& s) {
  return std::string("--duet_") + s.knob + (*s.value ? std::string("=") + s.value : std::string());
}

}  // namespace

std::span<const SettingInfo> settings_table() { return kSettings; }

std::string settings_markdown() {
  std::string out = "| variable | flag | `duet::Config` field | default | meaning |\n"
                    "|---|---|---|---|---|\n";
  for (const SettingInfo& s : kSettings)
    out += "| `" + variable(s) + "` | `" + flag(s) + "` | " +
           (s.field ? std::string("`") + s.field + "`" : std::string("—")) + " | " + (*s.fallback ? s.fallback : "—") +
           " | " + s.meaning + " |\n";
  out += "\n`duet::Config::name` (code only) names a check in reports and file names; default: the spec's type name.\n";
  return out;
}

}  // namespace detail

std::string settings_help() {
  std::string out =
      std::string("duet ") + version_string +
      " settings. Each is an environment variable and a flag of the test binary, and most are a field of\n"
      "duet::Config; the flag wins over the variable, which wins over the code. An empty, malformed or\n"
      "out-of-range value, in code too, is an error that names it, and so is a DUET_* variable or duet flag that\n"
      "is a near miss of one (DUET_SED, --duet-seed, -duet_seed). Numbers are decimal, with no sign or space\n"
      "(times and mean lengths: 2.5 or 1e3 too; the seed: 0x and hexadecimal too). Times over 1e8 s count as\n"
      "1e8 s. Reference: docs/reference.md#settings.\n\n";
  for (const detail::SettingInfo& s : detail::settings_table()) {
    std::string head = "  " + detail::flag(s);
    head.resize(std::max<std::size_t>(head.size() + 2, 30), ' ');
    out += head + detail::variable(s) + "\n";
    out += detail::wrapped(s.meaning, 6, 100);
    std::string facts;
    if (*s.fallback) facts = std::string("default: ") + s.fallback + ".";
    if (s.field) facts += std::string(facts.empty() ? "" : " ") + "In code: duet::Config::" + s.field + ".";
    if (!facts.empty()) out += detail::wrapped(facts, 6, 100);
  }
  out += "\n  duet::Config::name (code only) names a check in reports and file names; default: the spec's type name.\n";
  return out;
}

}  // namespace duet
