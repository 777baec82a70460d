// DUET_TIMELINE: a failure on the fiber scheduler writes its interleaving as an HTML page, and
// its report names the file. The page is pinned byte for byte (regenerate it after a deliberate
// change with DUET_UPDATE_GOLDEN=1); a page that cannot be written is a line of the report.
// Set through the environment, as a user running a test binary would.
#include <duet/gtest.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "support/fiber_subjects.hpp"

namespace {

namespace fs = std::filesystem;

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The variable for one check.
struct ScopedTimeline {
  explicit ScopedTimeline(const std::string& where) { ::setenv("DUET_TIMELINE", where.c_str(), 1); }
  ~ScopedTimeline() { ::unsetenv("DUET_TIMELINE"); }
};

// Two increments that both read 0: 2 calls, 8 steps on 2 fibers (the golden report's case).
duet::CheckResult lost_update(const std::string& where, duet::Config config = {}) {
  const ScopedTimeline timeline(where);
  config.seed = 1;
  config.output_dir = "duet-output/report";
  return duet::check_parallel<fiber_subjects::CounterSpec<true>>({.executor = duet::fibers()}, config);
}

TEST(FiberTimeline, PageOfTheLostUpdateIsPinned) {
  const std::string path = "duet-output/report/lost_update_timeline.html";
  fs::remove(path);
  const duet::CheckResult r = lost_update(path);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_NE(r.report.find("\n  timeline:   " + path + "\n"), std::string::npos) << r.report;
  const std::string page = read(path);
  const std::string golden = std::string(DUET_SOURCE_DIR) + "/tests/report/expected/fiber_lost_update_timeline.html";
  if (std::getenv("DUET_UPDATE_GOLDEN")) std::ofstream(golden) << page;
  EXPECT_EQ(read(golden), page) << "page " << path << " differs from " << golden
                                << "; rerun with DUET_UPDATE_GOLDEN=1 if intended";
  // A lane per fiber, a bar per call, a mark per step.
  EXPECT_NE(page.find(">fiber 0</div>"), std::string::npos);
  EXPECT_NE(page.find(">fiber 1</div>"), std::string::npos);
  EXPECT_NE(page.find(">c.incr() : 1</div>"), std::string::npos);
  EXPECT_NE(page.find("fiber_subjects.hpp:26"), std::string::npos);
}

// The same run gives the same bytes, in process or isolated in a child (the steps cross the
// pipe with the rest of the trace).
TEST(FiberTimeline, PageIsTheSameEveryRunAndIsolated) {
  const std::string a = "duet-output/report/same_a.html", b = "duet-output/report/same_b.html";
  fs::remove(a);
  fs::remove(b);
  ASSERT_EQ(lost_update(a).status, duet::CheckResult::Status::failed);
  ASSERT_EQ(lost_update(b, {.isolate = true}).status, duet::CheckResult::Status::failed);
  EXPECT_FALSE(read(a).empty());
  EXPECT_EQ(read(a), read(b));
}

// A directory gets <name>_timeline.html; the check's name is escaped in the page.
TEST(FiberTimeline, DirectoryGetsANamedPageAndTextIsEscaped) {
  const std::string dir = "duet-output/report/pages";
  fs::remove_all(dir);
  const duet::CheckResult r = lost_update(dir, {.name = "<b>Counter</b> & \"x\""});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const std::string path = dir + "/_b_Counter_b_x_timeline.html";
  EXPECT_NE(r.report.find("\n  timeline:   " + path + "\n"), std::string::npos) << r.report;
  const std::string page = read(path);
  EXPECT_EQ(page.find("<b>Counter"), std::string::npos);
  EXPECT_NE(page.find("&lt;b&gt;Counter&lt;&#47;b&gt; &amp; &quot;x&quot;"), std::string::npos);
}

// A page that cannot be written is said in the report; the check still reports its failure,
// with its draft test.
TEST(FiberTimeline, UnwritablePathIsALineOfTheReport) {
  fs::create_directories("duet-output/report");
  std::ofstream("duet-output/report/a_file") << "x";
  const duet::CheckResult under_file = lost_update("duet-output/report/a_file/t.html");
  ASSERT_EQ(under_file.status, duet::CheckResult::Status::failed) << under_file.report;
  EXPECT_NE(under_file.report.find("\n  timeline:   not written: cannot create duet-output/report/a_file"),
            std::string::npos)
      << under_file.report;
  EXPECT_FALSE(under_file.draft_path.empty());

  fs::create_directories("duet-output/report/a_dir.html");
  const duet::CheckResult on_dir = lost_update("duet-output/report/a_dir.html");
  ASSERT_EQ(on_dir.status, duet::CheckResult::Status::failed) << on_dir.report;
  EXPECT_NE(on_dir.report.find("\n  timeline:   not written: cannot write duet-output/report/a_dir.html: it is a "
                               "directory, not a regular file\n"),
            std::string::npos)
      << on_dir.report;
}

}  // namespace
