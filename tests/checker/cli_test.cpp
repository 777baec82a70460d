// duet-check, the command-line tool: its output lines, summary, exit status, diagnostics,
// witness and timeline, run as a user would.
#include <duet/version.hpp>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>

#include "support/emulation.hpp"

namespace {

struct CliRun {
  int status = -1;
  std::string out;  // stdout and stderr together
};

// `prefix` goes before the binary in the shell command: a pipe into it, a `timeout`.
CliRun duet_check_with_prefix(const std::string& prefix, const std::string& args) {
  CliRun r;
  const std::string command = prefix + std::string(DUET_CHECK_BIN) + " " + args + " 2>&1";
  FILE* p = popen(command.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) r.out.append(buf, n);
  const int raw = pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

CliRun duet_check(const std::string& args) { return duet_check_with_prefix("", args); }

const std::string kHistories = DUET_HISTORIES_DIR;

TEST(CheckerCli, OneLinePerFileAndExitStatus) {
  const CliRun ok = duet_check("--quiet " + kHistories + "/etcd/etcd_002.log " + kHistories + "/kv/c01-ok.txt");
  EXPECT_EQ(ok.status, 0) << ok.out;
  EXPECT_NE(ok.out.find(kHistories + "/etcd/etcd_002.log\tlinearizable\t"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(kHistories + "/kv/c01-ok.txt\tlinearizable\t"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find("2 files: 2 linearizable, 0 not linearizable, 0 unknown, 0 unreadable"), std::string::npos)
      << ok.out;

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
  EXPECT_NE(r.out.find("The operation that cannot be placed: #43 process 11: read -> 2 (line 85)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("longest partial linearization (state after each):"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("cannot place: #43 process 11: read -> 2"), std::string::npos) << r.out;
  // The state there is the one after the last operation of the partial order.
  const std::size_t at = r.out.find("where the state is ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string state = r.out.substr(at + 19, r.out.find('.', at) - at - 19);
  EXPECT_NE(r.out.find("   => " + state + "\n  cannot place:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in state: " + state + "\n"), std::string::npos) << r.out;
}

// The search found it: the history is shrunk to a failing window (20 of the 85 operations,
// the read that cannot be placed among them), unless --no-window.
TEST(CheckerCli, FailingWindowAndNoWindow) {
  const CliRun r = duet_check(kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(r.status, 1);
  const std::size_t at = r.out.find("The failing window: these ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::size_t size = std::stoul(r.out.substr(at + 26));
  EXPECT_GT(size, 1u);
  EXPECT_LT(size, 85u);
  EXPECT_NE(r.out.find("    #43 process 11: read -> 2 (line 85)\n", at), std::string::npos) << r.out;
  const CliRun plain = duet_check("--no-window " + kHistories + "/etcd/etcd_000.log");
  EXPECT_EQ(plain.status, 1);
  EXPECT_EQ(plain.out.find("failing window"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("The operation that cannot be placed: #43"), std::string::npos) << plain.out;
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
  const CliRun version = duet_check("--version");
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out, std::string("duet-check ") + duet::version_string + "\n");
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
  std::system(("cp " + kHistories + "/etcd/etcd_000.log " + dir + "/a/x.log && cp " + kHistories + "/etcd/etcd_002.log " +
               dir + "/b/x.log")
                  .c_str());
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

// A timeline path that is not a regular file is refused by name, after the verdict: a FIFO with
// no reader is not waited on (`timeout 20`: were it opened for writing, duet-check would wait for
// a reader forever and its verdict line, still buffered, would be lost), a link to /dev/zero is
// not written into, a directory is not swapped with the page. Each stays as it was.
TEST(CheckerCli, TimelinePathThatIsNotARegularFileIsRefusedByName) {
  const std::string dir = testing::TempDir() + "duet_cli_html_not_a_file";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + "/dir.html/kept && mkfifo " + dir +
               "/fifo.html && ln -s /dev/zero " + dir + "/zero.html")
                  .c_str());
  const std::string log = kHistories + "/etcd/etcd_002.log";
  for (const auto& [name, why] : {std::pair<std::string, std::string>{"fifo.html", "it is a pipe"},
                                  {"zero.html", "it leads to /dev/zero, a character device"},
                                  {"dir.html", "it is a directory"}}) {
    const auto t0 = std::chrono::steady_clock::now();
    const CliRun r = duet_check_with_prefix("timeout 20 ", "--quiet --html " + dir + "/" + name + " " + log);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0) << name;
    EXPECT_EQ(r.status, 2) << r.out;
    EXPECT_EQ(r.out.find(log + "\tlinearizable\t"), 0u) << r.out;
    EXPECT_NE(r.out.find("duet-check: cannot write " + dir + "/" + name + ": " + why + ", not a regular file\n"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("1 timeline pages could not be written"), std::string::npos) << r.out;
  }
  struct stat st {};
  EXPECT_TRUE(::stat((dir + "/fifo.html").c_str(), &st) == 0 && S_ISFIFO(st.st_mode));
  EXPECT_TRUE(::lstat((dir + "/zero.html").c_str(), &st) == 0 && S_ISLNK(st.st_mode));
  EXPECT_TRUE(::stat((dir + "/dir.html/kept").c_str(), &st) == 0 && S_ISDIR(st.st_mode));
  std::system(("rm -rf " + dir).c_str());
  const CliRun help = duet_check("--help");
  EXPECT_NE(help.out.find("(a FIFO, a device or a directory there is refused)"), std::string::npos) << help.out;
}

// With several files, each page is written or refused on its own; a link is written through
// (here to a file not there yet, as `>` would), and stays a link.
TEST(CheckerCli, EachTimelinePageIsWrittenOrRefusedOnItsOwn) {
  const std::string dir = testing::TempDir() + "duet_cli_html_each";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + " && mkfifo " + dir +
               "/out.etcd_000.log.html && ln -s target.html " + dir + "/out.etcd_002.log.html")
                  .c_str());
  const CliRun r = duet_check_with_prefix("timeout 20 ", "--html " + dir + "/out.html " + kHistories +
                                                             "/etcd/etcd_000.log " + kHistories + "/etcd/etcd_002.log");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("etcd_000.log\tnot-linearizable\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("duet-check: cannot write " + dir + "/out.etcd_000.log.html: it is a pipe, not a regular file"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("  timeline: " + dir + "/out.etcd_002.log.html\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 timeline pages could not be written"), std::string::npos) << r.out;
  struct stat st {};
  EXPECT_TRUE(::lstat((dir + "/out.etcd_002.log.html").c_str(), &st) == 0 && S_ISLNK(st.st_mode));
  std::ifstream in(dir + "/target.html");
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(page.find("{\"n\":77,"), std::string::npos) << page.size();  // etcd_002: 77 operations
  std::system(("rm -rf " + dir).c_str());
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


// ---- limits: the time budget covers reading and parsing; options are checked ----

// The milliseconds duet-check reports for `file` (its second column), or -1.
double reported_ms(const CliRun& r, const std::string& file) {
  const std::smatch m = [&] {
    std::smatch found;
    std::regex_search(r.out, found,
                      std::regex("(^|\n)" + std::regex_replace(file, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                                 "\t[a-z-]+\t([0-9.]+)\n"));
    return found;
  }();
  return m.empty() ? -1 : std::stod(m[2].str());
}

TEST(CheckerCli, TimeoutEndsWaitingForAFifoWithNoWriter) {
  const std::string dir = testing::TempDir() + "duet_cli_fifo";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + " && mkfifo " + dir + "/history.fifo").c_str());
  const auto t0 = std::chrono::steady_clock::now();
  // `timeout 20`: were the deadline ignored, it would wait for a writer forever.
  const CliRun r = duet_check_with_prefix("timeout 20 ", "--timeout 0.5 " + dir + "/history.fifo");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(dir + "/history.fifo\tunknown\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  the time budget ran out while reading the file (0 bytes read)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 files: 0 linearizable, 0 not linearizable, 1 unknown, 0 unreadable"), std::string::npos) << r.out;
  EXPECT_LT(seconds, 5.0);
  // Without --timeout a writer is waited for, as before.
  const CliRun fed = duet_check_with_prefix(
      "(sleep 0.3; cat " + std::string(DUET_CHECKER_DATA_DIR) + "/sample.duet > " + dir + "/history.fifo) & timeout 20 ",
      "--quiet " + dir + "/history.fifo");
  EXPECT_EQ(fed.status, 0) << fed.out;
  EXPECT_NE(fed.out.find("history.fifo\tlinearizable\t"), std::string::npos) << fed.out;
}

// At default settings: a device that never ends is refused at the size limit, a FIFO with no
// writer is given up after the input deadline (changed here to keep the test short).
TEST(CheckerCli, EndlessOrSilentInputEndsWithoutATimeout) {
  auto t0 = std::chrono::steady_clock::now();
  // Where the tests run slower (a sanitizer, an emulator), reading 512 MiB may take longer than
  // the default input deadline: it is scaled with the test's own limits.
  const double scale = duet_test::time_scale();
  const std::string deadline = scale > 1 ? "--input-timeout " + std::to_string(10 * scale) + " " : "";
  const CliRun zero = duet_check_with_prefix("timeout " + std::to_string(60 * scale) + " ", deadline + "/dev/zero");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0 * scale);
  EXPECT_EQ(zero.status, 2) << zero.out;
  EXPECT_NE(zero.out.find("/dev/zero\tunreadable\t"), std::string::npos) << zero.out;
  EXPECT_NE(
      zero.out.find("duet-check: /dev/zero:0: the input is larger than 512 MiB, the limit for one history (raise it with "
                    "--max-input MIB"),
      std::string::npos)
      << zero.out;
  const CliRun small = duet_check("--max-input 0.5 /dev/zero");
  EXPECT_NE(small.out.find("the input is larger than 0.5 MiB"), std::string::npos) << small.out;

  const std::string dir = testing::TempDir() + "duet_cli_fifo_default";
  std::system(("rm -rf " + dir + " && mkdir -p " + dir + " && mkfifo " + dir + "/h.fifo").c_str());
  t0 = std::chrono::steady_clock::now();
  const CliRun fifo = duet_check_with_prefix("timeout 20 ", "--input-timeout 0.5 " + dir + "/h.fifo");
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_EQ(fifo.status, 2) << fifo.out;
  EXPECT_NE(fifo.out.find(dir + "/h.fifo\tunknown\t"), std::string::npos) << fifo.out;
  EXPECT_NE(fifo.out.find("\n  reading took longer than 0.5 s, the limit for an input that is not a regular file"),
            std::string::npos)
      << fifo.out;
  // The usage says what the defaults are.
  const CliRun help = duet_check("--help");
  EXPECT_NE(help.out.find("--max-input MIB     refuse a history file larger than this (default 512)"), std::string::npos)
      << help.out;
  EXPECT_NE(help.out.find("device) for at most this long (default 10)"), std::string::npos) << help.out;
  std::system(("rm -rf " + dir).c_str());
}

TEST(CheckerCli, TimeoutCoversStandardInput) {
  // A writer that writes nothing for 2 s: duet-check gives up after 0.5 s.
  const CliRun r = duet_check_with_prefix("sleep 2 | ", "--timeout 0.5 -");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("-\tunknown\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the time budget ran out while reading the file (0 bytes read)"), std::string::npos) << r.out;
  const double ms = reported_ms(r, "-");
  EXPECT_GE(ms, 400);
  EXPECT_LT(ms, 1500) << r.out;
}

TEST(CheckerCli, TimeoutCoversReadingAndParsingABigFile) {
  const std::string path = testing::TempDir() + "duet_cli_big.txt";
  {
    std::ofstream out(path, std::ios::binary);
    std::string chunk;
    for (int i = 0; i < 300000; ++i)
      chunk += "{:process " + std::to_string(i % 7) + ", :type :" + (i % 2 == 0 ? "invoke" : "ok") +
               ", :f :put, :key \"k\", :value \"" + std::to_string(i / 2) + "\"}\n";
    out << chunk;  // about 20 MB
  }
  const CliRun r = duet_check("--timeout 0.001 " + path);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(path + "\tunknown\t"), std::string::npos) << r.out;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("\n  the time budget ran out while (reading the file \\([0-9]+ bytes read\\)|"
                                          "parsing the file \\([0-9]+ bytes read, stopped at line [0-9]+\\))\n")))
      << r.out;
  EXPECT_LT(reported_ms(r, path), 2000 * duet_test::time_scale()) << r.out;
  std::remove(path.c_str());
}

TEST(CheckerCli, LimitsMustBePositiveFiniteAndInRange) {
  const std::string file = kHistories + "/etcd/etcd_002.log";
  const struct {
    const char* args;
    const char* message;
  } cases[] = {
      {"--timeout 0", "duet-check: --timeout needs a positive number of seconds; omit it for no limit\n"},
      {"--timeout -1", "duet-check: --timeout needs a positive number of seconds; omit it for no limit\n"},
      {"--timeout inf", "duet-check: --timeout needs a positive number of seconds, not 'inf'\n"},
      {"--timeout nan", "duet-check: --timeout needs a positive number of seconds, not 'nan'\n"},
      {"--timeout 5s", "duet-check: --timeout needs a positive number of seconds, not '5s'\n"},
      {"--timeout 1e8",
       "duet-check: --timeout is at most 10000000 seconds (about 115 days), not '1e8'; omit it for no limit\n"},
      {"--memory 0", "duet-check: --memory needs a positive number of MiB; omit it for the default (2048)\n"},
      {"--memory inf", "duet-check: --memory needs a positive number of MiB, not 'inf'\n"},
      {"--memory 1e30", "duet-check: --memory is at most 1048576 MiB (1 TiB), not '1e30'\n"},
      {"--memory 2000000", "duet-check: --memory is at most 1048576 MiB (1 TiB), not '2000000'\n"},
      {"--memory 1e-9", "duet-check: --memory of '1e-9' MiB is less than a byte\n"},
  };
  for (const auto& c : cases) {
    const CliRun r = duet_check(std::string(c.args) + " " + file);
    EXPECT_EQ(r.status, 2) << c.args;
    EXPECT_EQ(r.out.rfind(c.message, 0), 0u) << c.args << ": " << r.out;
    EXPECT_EQ(r.out.find("etcd_002.log\t"), std::string::npos) << "no file is read: " << r.out;
  }
  // The largest accepted values work.
  EXPECT_EQ(duet_check("--quiet --timeout 10000000 --memory 1048576 " + file).status, 0);
  EXPECT_EQ(duet_check("--quiet --timeout 0.5 --memory 0.5 " + file).status, 0);
  const CliRun help = duet_check("--help");
  EXPECT_NE(help.out.find("reading and parsing included"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("at most 10000000"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("at most 1048576 = 1 TiB"), std::string::npos) << help.out;
}

// One 10 MB value the model rejects: a short message, quickly.
TEST(CheckerCli, HugeValueGivesAShortError) {
  const std::string path = testing::TempDir() + "duet_cli_huge_value.log";
  {
    const std::string x(10'000'000, 'x');
    std::ofstream(path, std::ios::binary) << "INFO  jepsen.util - 0\t:invoke\t:write\t\"" << x << "\"\n"
                                          << "INFO  jepsen.util - 0\t:ok\t:write\t\"" << x << "\"\n";
  }
  const CliRun r = duet_check(path);
  EXPECT_EQ(r.status, 2);
  EXPECT_LT(r.out.size(), 2048u) << r.out.substr(0, 1000);
  EXPECT_NE(r.out.find("duet-check: " + path + ":1: the value written must be an integer or nil, not \"xxx"),
            std::string::npos)
      << r.out.substr(0, 1000);
  EXPECT_NE(r.out.find("... (10000002 bytes)"), std::string::npos) << r.out.substr(0, 1000);
  EXPECT_LT(reported_ms(r, path), 3000 * duet_test::time_scale()) << r.out.substr(0, 1000);
  std::remove(path.c_str());
}

TEST(CheckerCli, UnknownModelInTheFileNamesItsLine) {
  const std::string path = testing::TempDir() + "duet_cli_model_nope.duet";
  std::ofstream(path) << ";duet-history 1\n;model nope\n"
                         "{:process 0, :invoke 1, :complete 2, :type :ok, :f :get, :key \"k\", :value \"\"}\n";
  const CliRun r = duet_check("--quiet " + path);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find(path + "\tunreadable\t"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("duet-check: " + path + ":2: unknown model 'nope' in the `;model` line (known: cas-register, "),
            std::string::npos)
      << r.out;
  EXPECT_EQ(duet_check("--quiet --model kv " + path).status, 0);  // --model overrides the file's
  std::remove(path.c_str());
}

TEST(CheckerCli, InitChangesTheAssumedStateAndSaysSo) {
  const std::string file = kHistories + "/variants/register.vector.edn";
  const CliRun edn = duet_check(file);
  EXPECT_EQ(edn.status, 0) << edn.out;
  EXPECT_NE(edn.out.find("assuming the register starts at 0 (the edn format's default; use --init to change)"),
            std::string::npos)
      << edn.out;
  const CliRun given = duet_check("--init 3 " + file);
  EXPECT_NE(given.out.find("assuming the register starts at 3 (--init)"), std::string::npos) << given.out;
  const CliRun not_edn = duet_check("--init '[1' " + file);
  EXPECT_EQ(not_edn.status, 2) << not_edn.out;
  EXPECT_NE(not_edn.out.find("duet-check: --init: "), std::string::npos) << not_edn.out;
  const CliRun two = duet_check("--init '1 2' " + file);
  EXPECT_EQ(two.status, 2) << two.out;
  EXPECT_NE(two.out.find("--init takes one EDN value; after it comes `2`"), std::string::npos) << two.out;
  const CliRun misfit = duet_check("--init '{:a 1}' " + file);
  EXPECT_EQ(misfit.status, 2) << misfit.out;
  EXPECT_NE(misfit.out.find("--init for cas-register must be an integer or nil, not {:a 1}"), std::string::npos)
      << misfit.out;
}

}  // namespace
