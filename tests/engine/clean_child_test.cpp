// A failing fiber run that leaves calls unfinished (a deadlock) leaves what they half-did in the
// process: here a process-wide lock, held for good by a blocked fiber. The rest of the check
// (shrinking, the report's replay) must not start from it: it runs in a child forked before the
// check's first case (src/engine/clean_child.cpp), and the report says so.
#include <gtest/gtest.h>

#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include <mutex>
#include <string>

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A ledger whose journal lock is a spin lock on a flag of the whole process, as a library's
// global lock often is; post and audit take the two locks in opposite orders, and count takes
// the journal lock alone.
struct Ledger {
  static inline duet::atomic<bool> journal{false};
  duet::mutex book;
  static void lock_journal() {
    while (journal.exchange(true)) {
    }
  }
  static void unlock_journal() { journal.store(false); }
  int post() {
    std::lock_guard<duet::mutex> b(book);
    lock_journal();
    unlock_journal();
    return 1;
  }
  int audit() {
    lock_journal();
    book.lock();
    book.unlock();
    unlock_journal();
    return 1;
  }
  int count() {
    lock_journal();
    unlock_journal();
    return 1;
  }
};

duet::Lin<Ledger> ledger() {
  return duet::Lin<Ledger>("Ledger", "l")
      .op("post", [](Ledger& l) { return l.post(); })
      .op("audit", [](Ledger& l) { return l.audit(); })
      .op("count", [](Ledger& l) { return l.count(); });
}

// Shrunk here, after the failing run left the journal locked, `l.count()` alone would spin for
// good and be kept as the smallest failure, a program that fails in no fresh process.
TEST(CleanChild, ARunLeavingAGlobalLockHeldIsShrunkFromTheProcessAsItWas) {
  duet::Config c;
  c.seed = 1;
  c.output_dir = ::testing::TempDir() + "duet-clean-child";
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::check_parallel(ledger(), pc, c);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 2u) << r.report;
  EXPECT_TRUE(has(r.report, "l.post()") && has(r.report, "l.audit()")) << r.report;
  EXPECT_FALSE(has(r.report, "l.count()")) << r.report;
  EXPECT_TRUE(has(r.report, "  note: the failing run left calls unfinished (fibers blocked or spinning for good), and "
                            "what\n  they half-did stays in this process: the shrinking and the replay shown ran in a "
                            "child\n  process forked before the check's first case.\n"))
      << r.report;
}

}  // namespace
