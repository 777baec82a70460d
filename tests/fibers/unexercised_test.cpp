// A check on fibers whose runs meet no switch point (the subject uses no duet/sync.hpp type and
// was not compiled with duet_instrument) tested no interleaving: an error saying so, not a pass.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace {

TEST(FiberUnexercised, PlainStdAtomicOnFibersIsAnError) {
  auto lin = duet::Lin<std::atomic<int>>("plain", "a").op("incr", [](std::atomic<int>& a) { return a.fetch_add(1); });
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  duet::Config config;
  config.seed = 1;
  config.count = 50;
  const duet::CheckResult r = duet::check_parallel(lin, pc, config);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_NE(r.report.find("the fibers met no switch point in any run"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("duet_instrument"), std::string::npos) << r.report;
}

}  // namespace
