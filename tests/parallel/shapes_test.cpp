// Programs of 3, 4 and 8 branches, sequential consistency, and the register and set models.
#include <duet/gtest.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/register.hpp>
#include <duet/models/set.hpp>

#include <atomic>
#include <mutex>
#include <oneapi/tbb/concurrent_set.h>
#include <set>

#include "support/verdicts.hpp"

namespace {

using duet::models::AtomicCounter;
using duet::models::AtomicRegister;
using duet::models::TbbSet;

// With more branches than CPUs the branches may share CPUs so much that their calls almost
// never overlap: then the honest verdict is "inconclusive", never a failure of a correct subject.
using test_verdicts::passed_or_inconclusive;

TEST(ParallelShapes, ThreeFourAndEightBranches) {
  for (std::size_t branches : {3, 4, 8}) {
    SCOPED_TRACE(std::to_string(branches) + " branches");
    const duet::CheckResult r =
        duet::check_parallel<duet::models::Counter<AtomicCounter>>({.branches = branches}, {.count = 300});
    EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;
    EXPECT_GT(r.trials, 0u);
  }
}

TEST(ParallelShapes, BadShapesAreErrors) {
  for (std::size_t branches : {0, 1, 9}) {
    const duet::CheckResult r = duet::check_parallel<duet::models::Counter<AtomicCounter>>({.branches = branches});
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << branches;
    EXPECT_NE(r.report.find("branches must be 2 to 8"), std::string::npos) << r.report;
  }
}

TEST(ParallelShapes, SequentialConsistencyMode) {
  const duet::CheckResult r = duet::check_parallel<duet::models::Counter<AtomicCounter>>(
      {.consistency = duet::Consistency::sequential}, {.count = 500});
  EXPECT_TRUE(r) << r.report;
}

TEST(ParallelShapes, AtomicRegisterWithCas) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Register<AtomicRegister>>({.suffix_length = 2}, {.count = 2000}));
}

TEST(ParallelShapes, TbbConcurrentSet) { EXPECT_TRUE(duet::check_parallel<duet::models::Set<TbbSet>>({}, {.count = 2000})); }

}  // namespace

namespace {

// One pool shared by checks of different widths: every worker takes part in every round, so
// none runs a stale round or misses one (which would hang or free memory in use).
TEST(ParallelShapes, SharedPoolAcrossWidths) {
  auto pool = std::shared_ptr<duet::Executor>(duet::make_thread_pool());
  for (std::size_t branches : {2, 5, 3, 8, 2, 4}) {
    SCOPED_TRACE(std::to_string(branches) + " branches");
    const duet::CheckResult r =
        duet::check_parallel<duet::models::Counter<AtomicCounter>>({.branches = branches, .executor = pool}, {.count = 100});
    EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;
    EXPECT_GT(r.trials, 0u);
  }
}

}  // namespace
