// The six bug classes of the threads zoo (tests/support/racy_subjects.hpp: plain std::atomic
// and std::mutex, unchanged) on the fiber scheduler through duet_instrument: found on every seed
// with every strategy, shrunk, and replayed to the same interleaving; their correct twins
// (correct_twins.hpp) pass. On threads the same races need seconds to minutes of trials.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#include "instrumented/correct_twins.hpp"
#include "support/racy_subjects.hpp"

namespace {

using instrumented_test::found_on_every_seed;
using instrumented_test::twin_passes;

TEST(InstrumentedBugClass, SizeCounterUpdatedOutsideTheLockFound) { found_on_every_seed(racy::counted_queue(), 6); }
TEST(InstrumentedBugClass, PairReadTornFound) { found_on_every_seed(racy::torn_pair(), 2); }
TEST(InstrumentedBugClass, DoubleCheckedInitWithoutSecondCheckFound) { found_on_every_seed(racy::lazy_instance(), 3); }
TEST(InstrumentedBugClass, TransferOneLockAtATimeFound) { found_on_every_seed(racy::bank(), 5); }
TEST(InstrumentedBugClass, TreiberPopLoadThenStoreFound) { found_on_every_seed(racy::load_store_stack(), 7); }
TEST(InstrumentedBugClass, WrapCounterCheckThenActFound) { found_on_every_seed(racy::wrap_counter(), 5); }

// A failure of any of the six on threads comes with its interleaving on fibers: the failing
// program searched again there (DUET_FIBER_SEARCH), its trace and a token that replays it.
TEST(InstrumentedBugClass, AFailureOnThreadsGetsItsFiberTrace) {
  using instrumented_test::expect_fiber_trace;
  using instrumented_test::fiber_search_of;
  expect_fiber_trace(racy::counted_queue(), fiber_search_of(racy::counted_queue(), 1));
  expect_fiber_trace(racy::torn_pair(), fiber_search_of(racy::torn_pair(), 1));
  expect_fiber_trace(racy::lazy_instance(), fiber_search_of(racy::lazy_instance(), 1));
  expect_fiber_trace(racy::bank(), fiber_search_of(racy::bank(), 1));
  expect_fiber_trace(racy::load_store_stack(), fiber_search_of(racy::load_store_stack(), 1));
  expect_fiber_trace(racy::wrap_counter(), fiber_search_of(racy::wrap_counter(), 1));
}

TEST(InstrumentedBugClass, CorrectTwinsPass) {
  twin_passes(twins::counted_queue());
  twin_passes(twins::torn_pair());
  twin_passes(twins::lazy_instance());
  twin_passes(twins::bank());
  twin_passes(twins::cas_stack());
  twin_passes(twins::wrap_counter());
}

}  // namespace
