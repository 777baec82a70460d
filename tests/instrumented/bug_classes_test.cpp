// The six bug classes of the threads zoo (tests/support/racy_subjects.hpp: plain std::atomic
// and std::mutex, unchanged) on the fiber scheduler through duet_instrument: found on every seed
// with every strategy, shrunk, and replayed to the same interleaving; their correct twins
// (correct_twins.hpp) pass. On threads the same races need seconds to minutes of trials.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>

#include <gtest/gtest.h>

#include "instrumented/checks.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "instrumented/correct_twins.hpp"
#include "support/racy_subjects.hpp"

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

// Seeds per strategy: 100 (the figure docs/instrumented.md gives) with DUET_SOAK=1, else 20.
std::uint64_t seeds() { return std::getenv("DUET_SOAK") != nullptr ? 100 : 20; }

std::string interleaving(const std::string& report) {
  const std::size_t at = report.find("interleaving (");
  return at == std::string::npos ? std::string() : report.substr(at, report.find("(The replay", at) - at);
}

// Found on every seed with every strategy; the shrunk lengths (calls) are printed, and none
// may exceed `longest`.
template <class T>
void found_on_every_seed(const duet::Lin<T>& lin, std::size_t longest) {
  const std::pair<const char*, duet::Schedule> strategies[] = {
      {"random", duet::random()}, {"pct(3)", duet::pct(3)}, {"exhaustive(2)", duet::exhaustive(2)}};
  for (const auto& [strategy, schedule] : strategies) {
    std::size_t shortest = ~std::size_t{0}, most = 0, found = 0;
    for (std::uint64_t seed = 1; seed <= seeds(); ++seed) {
      duet::Config config;
      config.seed = seed;
      config.verbose = -1;
      const duet::CheckResult r = duet::expect_unsafe(lin, on_fibers(schedule), config);
      ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
      EXPECT_LE(r.failing_length, longest) << r.report;
      found += r.passed();
      shortest = std::min(shortest, r.failing_length);
      most = std::max(most, r.failing_length);
    }
    std::printf("%s, %s: found on %zu of %llu seeds, shrunk to %zu to %zu calls\n", lin.name().c_str(),
                strategy, found, static_cast<unsigned long long>(seeds()), shortest, most);
  }
  // The token replays the shrunk program with the same interleaving, step for step.
  duet::Config config;
  config.seed = 1;
  const duet::CheckResult first = duet::check_parallel(lin, on_fibers(duet::random()), config);
  ASSERT_FALSE(first.passed()) << first.report;
  duet::Config replay;
  replay.replay = first.replay_token;
  const duet::CheckResult again = duet::check_parallel(lin, on_fibers(duet::random()), replay);
  ASSERT_FALSE(again.passed()) << again.report;
  EXPECT_FALSE(interleaving(first.report).empty()) << first.report;
  EXPECT_EQ(interleaving(first.report), interleaving(again.report));
}

template <class T>
void twin_passes(const duet::Lin<T>& lin) {
  duet::Config config;
  config.seed = 1;
  config.count = std::getenv("DUET_SOAK") != nullptr ? 10'000 : 1'000;
  const duet::CheckResult r = duet::check_parallel(lin, on_fibers(duet::random()), config);
  EXPECT_TRUE(r.passed()) << r.report;
}

TEST(InstrumentedBugClass, SizeCounterUpdatedOutsideTheLockFound) { found_on_every_seed(racy::counted_queue(), 6); }
TEST(InstrumentedBugClass, PairReadTornFound) { found_on_every_seed(racy::torn_pair(), 2); }
TEST(InstrumentedBugClass, DoubleCheckedInitWithoutSecondCheckFound) { found_on_every_seed(racy::lazy_instance(), 3); }
TEST(InstrumentedBugClass, TransferOneLockAtATimeFound) { found_on_every_seed(racy::bank(), 5); }
TEST(InstrumentedBugClass, TreiberPopLoadThenStoreFound) { found_on_every_seed(racy::load_store_stack(), 7); }
TEST(InstrumentedBugClass, WrapCounterCheckThenActFound) { found_on_every_seed(racy::wrap_counter(), 5); }

TEST(InstrumentedBugClass, CorrectTwinsPass) {
  twin_passes(twins::counted_queue());
  twin_passes(twins::torn_pair());
  twin_passes(twins::lazy_instance());
  twin_passes(twins::bank());
  twin_passes(twins::cas_stack());
  twin_passes(twins::wrap_counter());
}

}  // namespace
