// duet-check, the command-line tool: its output lines, summary, exit status, diagnostics,
// witness and timeline, run as a user would.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr together
};

CliRun duet_check(const std::string& args) {
  CliRun r;
  const std::string command = std::string(DUET_CHECK_BIN) + " " + args + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

const std::string kHistories = DUET_HISTORIES_DIR;

TEST(CheckerCli, OneLinePerFileAndExitStatus) {
  const CliRun ok = duet_check("--quiet " + kHistories + "/etcd/etcd_002.log " + kHistories + "/kv/c01-ok.txt");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find(kHistories + "/etcd/etcd_002.log\tlinearizable\t"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(kHistories + "/kv/c01-ok.txt\tlinearizable\t"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("2 files: 2 linearizable, 0 not linearizable, 0 unknown, 0 unreadable"), std::string::npos) << ok.out;

  const CliRun bad = duet_check("--quiet " + kHistories + "/etcd/etcd_002.log " + kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(bad.status, 1) << bad.out;
  EXPECT_NE(bad.out.find("etcd_000.log\tnot-linearizable\t"), std::string::npos) << bad.out;

  const CliRun missing = duet_check("--quiet " + kHistories + "/etcd/etcd_000.log /nonexistent/history.log");
  EXPECT_EQ(missing.status, 2) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/history.log\tunreadable\t"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("/nonexistent/history.log:0: cannot read file"), std::string::npos) << missing.out;
}

TEST(CheckerCli, ViolationIsExplained) {
  const CliRun r = duet_check(kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.out.find("The operation that cannot be placed: #43 process 11: read -> 2 (line 85)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("longest partial linearization (state after each):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot place: #43 process 11: read -> 2"), std::string::npos) << r.out;
  // The state there is the one after the last operation of the partial order.
  const std::size_t at = r.out.find("where the state is ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string state = r.out.substr(at + 19, r.out.find('.', at) - at - 19);
  EXPECT_NE(r.out.find("   => " + state + "\n  cannot place:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in state: " + state + "\n"), std::string::npos) << r.out;
}

TEST(CheckerCli, WitnessAndPartitionFlags) {
  const CliRun r = duet_check("--witness " + kHistories + "/kv/c01-ok.txt");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("witness (a linearization, merged from the partitions'):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("    1. #"), std::string::npos) << r.out;
  const CliRun whole = duet_check("--no-partition " + kHistories + "/kv/c01-ok.txt");
  EXPECT_NE(whole.out.find(", 1 partition,"), std::string::npos) << whole.out;
  const CliRun parts = duet_check(kHistories + "/kv/c01-ok.txt");
  EXPECT_EQ(parts.out.find(", 1 partition,"), std::string::npos) << parts.out;
}

TEST(CheckerCli, TimeoutGivesUnknownAndStatus2) {
  // 26 concurrent writes and reads no order explains: far more than 50 ms of search.
  const CliRun r = duet_check("--timeout 0.05 " + std::string(DUET_CHECKER_DATA_DIR) + "/hard_register.edn");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("hard_register.edn\tunknown\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ran out of time"), std::string::npos) << r.out;
}

TEST(CheckerCli, BadUsageIsExplained) {
  EXPECT_EQ(duet_check("").status, 2);
  const CliRun flag = duet_check("--frobnicate x");
  EXPECT_EQ(flag.status, 2);
  EXPECT_NE(flag.out.find("unknown option --frobnicate"), std::string::npos) << flag.out;
  const CliRun format = duet_check("--format json x");
  EXPECT_NE(format.out.find("unknown format 'json'"), std::string::npos) << format.out;
  const CliRun list = duet_check("--list-models");
  EXPECT_EQ(list.status, 0);
  EXPECT_NE(list.out.find("multi-register"), std::string::npos);
}

TEST(CheckerCli, HtmlTimelineIsWritten) {
  const std::string out = testing::TempDir() + "duet_cli_timeline.html";
  std::remove(out.c_str());
  const CliRun r = duet_check("--quiet --html " + out + " " + kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(r.status, 1) << r.out;
  std::ifstream in(out);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(page.find("not-linearizable"), std::string::npos);
  EXPECT_LT(page.size(), 200'000u);
}

TEST(CheckerCli, PagesOfFilesWithTheSameNameDoNotOverwriteEachOther) {
  const std::string dir = testing::TempDir() + "duet_cli_same_name";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + "/a " + dir + "/b").c_str());
  std::system(("cp " + kHistories + "/etcd/etcd_000.log " + dir + "/a/x.log && cp " + kHistories + "/etcd/etcd_002.log " + dir +
               "/b/x.log").c_str());
  const CliRun r = duet_check("--quiet --html " + dir + "/out.html " + dir + "/a/x.log " + dir + "/b/x.log");
  EXPECT_EQ(r.status, 1) << r.out;
  std::ifstream first(dir + "/out.x.log.html"), second(dir + "/out.1.x.log.html");
  const std::string a((std::istreambuf_iterator<char>(first)), std::istreambuf_iterator<char>());
  const std::string b((std::istreambuf_iterator<char>(second)), std::istreambuf_iterator<char>());
  EXPECT_NE(a.find("{\"n\":85,"), std::string::npos);  // etcd_000: 85 operations
  EXPECT_NE(a.find("\"v\":\"not-linearizable\""), std::string::npos);
  EXPECT_NE(b.find("{\"n\":77,"), std::string::npos);  // etcd_002: 77 operations
  EXPECT_NE(b.find("\"v\":\"linearizable\""), std::string::npos);
}

TEST(CheckerCli, UnwritableTimelineIsAnErrorNotAVerdictChange) {
  const CliRun r = duet_check("--quiet --html /nonexistent-dir/out.html " + kHistories + "/etcd/etcd_002.log");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("etcd_002.log\tlinearizable\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("duet-check: cannot write /nonexistent-dir/out.html"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 files: 1 linearizable, 0 not linearizable, 0 unknown, 0 unreadable"), std::string::npos) << r.out;
}

TEST(CheckerCli, ReadsStandardInput) {
  const CliRun r = duet_check("--quiet - < " + kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("-\tnot-linearizable\t"), std::string::npos) << r.out;
  const CliRun empty = duet_check("--quiet - < /dev/null");
  EXPECT_EQ(empty.status, 2) << empty.out;
  EXPECT_NE(empty.out.find("<stdin>:1: empty history file"), std::string::npos) << empty.out;
}

TEST(CheckerCli, UnknownModelIsAUsageError) {
  const CliRun r = duet_check("--model btree " + kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("duet-check: unknown model 'btree' (known: cas-register,"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("etcd_000.log\t"), std::string::npos) << "no file is read: " << r.out;
}

}  // namespace
