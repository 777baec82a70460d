// EXPECT_* inside the calls of a parallel check, where duet intercepts them (on fibers, and on
// the calling thread under threads): a failure of the trial, shrunk and reported like any other,
// never dropped. (On worker threads GoogleTest reports them itself: docs/parallel.md.)
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#include <duet/sync.hpp>

#include <gtest/gtest.h>

#include <thread>

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// A counter whose add() asserts it never passes 2: any program with three adds fails.
struct Counter {
  duet::atomic<int> n{0};
  int add() {
    const int v = n.fetch_add(1) + 1;
    EXPECT_LE(v, 2) << "the third add";
    return v;
  }
};

duet::Lin<Counter> counter_spec() {
  return duet::Lin<Counter>("asserting", "c").op("add", [](Counter& c) { return c.add(); });
}

TEST(ParallelAssertions, AnExpectInsideACallOnFibersFailsTheCheck) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  duet::Config config;
  config.seed = 1;
  const duet::CheckResult r = duet::check_parallel(counter_spec(), pc, config);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "assertion failed")) << r.report;
  EXPECT_TRUE(has(r.report, "the third add")) << r.report;
  EXPECT_EQ(r.failing_length, 3u) << r.report;
}

// On threads: an assertion that only the calling thread's calls raise (the prefix, and the
// branch it runs itself), so that no worker thread reports one to GoogleTest directly.
const std::thread::id g_test_thread = std::this_thread::get_id();
struct CallerCounter {
  duet::atomic<int> n{0};
  int add() {
    const int v = n.fetch_add(1) + 1;
    if (std::this_thread::get_id() == g_test_thread) EXPECT_LE(v, 2) << "the third add, on the calling thread";
    return v;
  }
};

TEST(ParallelAssertions, AnExpectInsideACallOnTheCallingThreadFailsTheCheck) {
  auto spec = duet::Lin<CallerCounter>("asserting_on_threads", "c").op("add", [](CallerCounter& c) { return c.add(); });
  duet::ParallelConfig pc;
  pc.prefix_length = 5;
  duet::Config config;
  config.seed = 1;
  config.isolate = false;  // in this process: the interception is this process's
  const duet::CheckResult r = duet::check_parallel(spec, pc, config);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "assertion failed")) << r.report;
  EXPECT_TRUE(has(r.report, "on the calling thread")) << r.report;
}

}  // namespace
