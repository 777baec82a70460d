// One negative test per class of race (tests/support/racy_subjects.hpp), each at expect_unsafe's
// default budget: the subjects have no yield or sleep to widen their windows, so these measure
// what placement, the start barrier and noise find on their own.
#include <duet/gtest.hpp>

#include "support/racy_subjects.hpp"

namespace {

// The check's own pass line and the counterexample's calls.
template <class T>
void expect_found(const duet::Lin<T>& lin, const char* call) {
  const duet::CheckResult r = duet::expect_unsafe(lin);
  ASSERT_TRUE(r) << r.report;
  EXPECT_NE(r.report.find("unsafe, as expected: a counterexample after "), std::string::npos) << r.report;
  EXPECT_NE(r.report.find("with overlapping branches"), std::string::npos) << r.report;
  EXPECT_NE(r.report.find(call), std::string::npos) << r.report;
}

TEST(NegativeBugClass, SizeCounterUpdatedOutsideTheLock) { expect_found(racy::counted_queue(), "q.size()"); }
TEST(NegativeBugClass, PairReadTorn) { expect_found(racy::torn_pair(), "p.get()"); }
TEST(NegativeBugClass, DoubleCheckedInitWithoutSecondCheck) { expect_found(racy::lazy_instance(), "l.get()"); }
TEST(NegativeBugClass, TransferOneLockAtATime) { expect_found(racy::bank(), "bank.total()"); }
TEST(NegativeBugClass, TreiberPopLoadThenStore) { expect_found(racy::load_store_stack(), "s.pop()"); }
TEST(NegativeBugClass, WrapCounterCheckThenAct) { expect_found(racy::wrap_counter(), "w.next()"); }

}  // namespace
