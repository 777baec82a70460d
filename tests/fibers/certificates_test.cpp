// Walks over every program split across shards (DUET_SHARDS, DUET_SHARD_INDEX), each leaving a
// certificate (DUET_CERTIFICATE), merged by duet-merge-certificates into one verdict: the union
// of the shards is the unsharded walk, counts included; a counterexample in one shard fails it.
#include <duet/gtest.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

#include "../hostile/child_process.hpp"
#include "certify/certificate.hpp"
#include "engine/case_files.hpp"
#include "support/fiber_subjects.hpp"
#include "walks.hpp"

namespace {

using RacySpec = fiber_subjects::CounterSpec<true>;
using FixedSpec = fiber_subjects::CounterSpec<false>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

using walks::CertificateDir;
using walks::counter_scope;

duet_test::ChildRun merge(const std::string& args) {
  return duet_test::run_child(std::string(DUET_MERGE_CERTIFICATES_BIN) + " " + args);
}

TEST(Certificates, FourShardsMergedAreTheUnshardedWalk) {
  const duet::CheckResult whole = duet::check_parallel<FixedSpec>(counter_scope(), {.verbose = -1});
  ASSERT_TRUE(whole) << whole.report;
  const CertificateDir dir;
  ASSERT_FALSE(dir.path.empty());
  std::uint64_t programs = 0, trials = 0;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const duet::CheckResult r =
        duet::check_parallel<FixedSpec>(counter_scope(), {.verbose = -1, .shards = 4, .shard_index = i, .name = "Counter"});
    ASSERT_TRUE(r) << r.report;
    const std::string file = "Counter.shard-" + std::to_string(i) + "-of-4.cert";
    EXPECT_TRUE(has(r.report, "certificate: " + dir.path + file)) << r.report;
    const duet::detail::Certificate c = dir.read(file);
    EXPECT_EQ(c.verdict, "passed");
    EXPECT_TRUE(c.walk_done);
    EXPECT_EQ(c.scope_programs, 27u);
    EXPECT_EQ(c.programs, r.cases);
    EXPECT_EQ(c.searched, r.cases);
    EXPECT_EQ(c.trials, r.trials);
    programs += c.programs;
    trials += c.trials;
  }
  EXPECT_EQ(programs, whole.cases);
  EXPECT_EQ(trials, whole.trials);
  const duet_test::ChildRun merged = merge(dir.path);
  EXPECT_EQ(merged.status, 0) << merged.output;
  EXPECT_TRUE(has(merged.output, "Counter\tcomplete\tevery program of the scope passed over 4 shards: 27 programs of 2 "
                                 "branches × up to 2 calls (the first 2 values of each argument), each searched to "
                                 "its end; " +
                                     std::to_string(whole.trials) + " trials (fibers:exhaustive(unbounded)"))
      << merged.output;
  EXPECT_TRUE(has(merged.output, "summary: 1 checks from 4 certificates: 1 complete")) << merged.output;
  // Three shards of four: incomplete, never complete.
  std::filesystem::remove(dir.path + "Counter.shard-3-of-4.cert");
  const duet_test::ChildRun partial = merge(dir.path);
  EXPECT_EQ(partial.status, 2) << partial.output;
  EXPECT_TRUE(has(partial.output, "Counter\tincomplete\t1 of the 4 shards have no certificate here (shard 3)"))
      << partial.output;
}

TEST(Certificates, AShardThatFindsABugFailsTheMergeWithItsToken) {
  const CertificateDir dir;
  const duet::CheckResult r = duet::check_parallel<RacySpec>(counter_scope(), {.verbose = -1, .name = "Racy"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const duet::detail::Certificate c = dir.read("Racy.shard-0-of-1.cert");
  EXPECT_EQ(c.verdict, "failed");
  EXPECT_EQ(c.replay, r.replay_token);
  const duet_test::ChildRun merged = merge(dir.path + "Racy.shard-0-of-1.cert");
  EXPECT_EQ(merged.status, 1) << merged.output;
  EXPECT_TRUE(has(merged.output, "Racy\tfailed\tshard 0 of 1 (")) << merged.output;
  EXPECT_TRUE(has(merged.output, "replay: DUET_REPLAY=" + r.replay_token)) << merged.output;
}

// Every shard of the racy counter's walk finds a counterexample; the merge names the one the
// unsharded walk stops at: its program first in the walk's order, whatever the number of shards.
TEST(Certificates, TheMergedCounterexampleIsTheUnshardedWalks) {
  const CertificateDir dir;
  const duet::CheckResult whole = duet::check_parallel<RacySpec>(counter_scope(), {.verbose = -1, .name = "Racy"});
  ASSERT_EQ(whole.status, duet::CheckResult::Status::failed) << whole.report;
  const std::uint64_t first = dir.read("Racy.shard-0-of-1.cert").last_program;
  ASSERT_GT(first, 0u);
  for (std::uint32_t shards : {2u, 3u}) {
    for (std::uint32_t i = 0; i < shards; ++i)
      (void)duet::check_parallel<RacySpec>(counter_scope(),
                                           {.verbose = -1, .shards = shards, .shard_index = i, .name = "Racy"});
    const std::uint32_t owner = static_cast<std::uint32_t>((first - 1) % shards);  // program first - 1, from 0
    const std::string file = "Racy.shard-" + std::to_string(owner) + "-of-" + std::to_string(shards) + ".cert";
    EXPECT_EQ(dir.read(file).last_program, first) << file;
    const duet_test::ChildRun merged = merge(dir.path + "Racy.shard-*-of-" + std::to_string(shards) + ".cert");
    EXPECT_EQ(merged.status, 1) << merged.output;
    EXPECT_TRUE(has(merged.output, "Racy\tfailed\tshard " + std::to_string(owner) + " of " + std::to_string(shards)))
        << merged.output;
  }
}

TEST(Certificates, AWalkItsBudgetEndedLeavesAnIncompleteCertificate) {
  const CertificateDir dir;
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.count = 5, .verbose = -1, .name = "Short"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  const duet_test::ChildRun merged = merge(dir.path);
  EXPECT_EQ(merged.status, 2) << merged.output;
  EXPECT_TRUE(has(merged.output, "Short\tincomplete\tshard 0 of 1 (")) << merged.output;
  EXPECT_TRUE(has(merged.output, "did not end its part of the walk: duet: Short: inconclusive: the walk over every "
                                 "program of the scope stopped at its budget"))
      << merged.output;
}

TEST(Certificates, ACertificateThatCannotBeWrittenMakesTheCheckAnError) {
  ::setenv("DUET_CERTIFICATE", "/proc/duet-no-such-dir/x.cert", 1);
  const duet::CheckResult r = duet::check_parallel<FixedSpec>(counter_scope(), {.verbose = -1, .name = "Nowhere"});
  ::unsetenv("DUET_CERTIFICATE");
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "error: the certificate DUET_CERTIFICATE asks for was not written (cannot write "
                            "/proc/duet-no-such-dir/x.cert"))
      << r.report;
}

TEST(Certificates, TheToolRefusesWhatIsNoCertificate) {
  const CertificateDir dir;
  const duet_test::ChildRun none = merge(dir.path);
  EXPECT_EQ(none.status, 2) << none.output;
  EXPECT_TRUE(has(none.output, "no certificate found")) << none.output;
  const duet_test::ChildRun foreign = merge("/proc/self/status");
  EXPECT_EQ(foreign.status, 2) << foreign.output;
  EXPECT_TRUE(has(foreign.output, "/proc/self/status\tunreadable\tnot a duet certificate")) << foreign.output;
}

}  // namespace
