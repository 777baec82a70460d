// What the hang watchdog reads of the running case: written per case without a lock, read as
// one consistent sighting; and the token a hang or a crash is reported with.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstdint>
#include <thread>

#include "engine/monitor.hpp"
#include "support/cpu_starvation.hpp"
#include "support/emulation.hpp"

namespace {

using duet::detail::RunningCase;

TEST(RunningCase, EveryStartAndStopIsANewSighting) {
  RunningCase running;
  const RunningCase::Sighting idle = running.read();
  EXPECT_FALSE(idle.running);
  running.start_seeded(42, 7);
  const RunningCase::Sighting seeded = running.read();
  EXPECT_TRUE(seeded.running);
  EXPECT_TRUE(seeded.by_seed);
  EXPECT_EQ(seeded.case_seed, 42u);
  EXPECT_EQ(seeded.index, 7u);
  EXPECT_NE(seeded.serial, idle.serial);
  EXPECT_EQ(running.read().serial, seeded.serial);  // still the same case
  running.stop();
  EXPECT_FALSE(running.read().running);
  running.start_token();
  const RunningCase::Sighting by_token = running.read();
  EXPECT_TRUE(by_token.running);
  EXPECT_FALSE(by_token.by_seed);
  EXPECT_NE(by_token.serial, seeded.serial);
}

// A reader never sees half of one case and half of another while cases start and stop as
// fast as a search runs them.
TEST(RunningCase, SightingsAreConsistentWhileCasesChange) {
  RunningCase running;
  std::atomic<bool> done{false};
  std::thread search([&] {
    for (std::uint64_t i = 1; i <= 200000; ++i) {
      running.start_seeded(i, i);
      running.stop();
    }
    done = true;
  });
  std::uint64_t seen = 0, last_serial = 0;
  while (!done) {
    const RunningCase::Sighting s = running.read();
    EXPECT_EQ(s.serial % 2, 0u);
    EXPECT_GE(s.serial, last_serial);
    last_serial = s.serial;
    if (s.running) {
      ++seen;
      ASSERT_EQ(s.case_seed, s.index);
    }
  }
  search.join();
  RecordProperty("running_sightings", static_cast<int>(seen));
}

// A case restarted with the token it had copies nothing, and a new token replaces it: the hang
// report names the token of the case that hung.
TEST(Watchdog, AHangNamesTheTokenItsCaseStartedWith) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(
      {
        duet::detail::Watchdog watchdog("Spec", 0.2);
        watchdog.start("token-A");
        watchdog.stop();
        watchdog.start("token-B");
        watchdog.stop();
        watchdog.start("token-B");
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);
      },
      testing::ExitedWithCode(3), "DUET_REPLAY=token-B\n");
}

// One thread watches every watchdog of the process: of two live ones, the one whose case hangs
// past its timeout is reported, while the other's case runs on under a longer one.
TEST(Watchdog, OneThreadWatchesEveryLiveWatchdog) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(
      {
        duet::detail::Watchdog patient("Patient", 60);
        duet::detail::Watchdog strict("Strict", 0.2);
        patient.start("token-P");
        strict.start("token-S");
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);
      },
      testing::ExitedWithCode(3), "duet: Strict: error: .*\n  replay:     DUET_REPLAY=token-S\n");
}

// A case that waits a second for a CPU, and needs 20 ms of it, is not a hang under a 300 ms
// limit: the watchdog counts the time of the thread that runs the cases, not the wall clock.
TEST(Watchdog, TheTimeACaseWaitedForACpuIsNotCounted) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(
      {
        const duet_test::StarvedCpu starved(2, 1.0);
        std::thread check([] {
          duet::detail::Watchdog watchdog("Starved", 0.3);
          watchdog.start("token-S");
          duet_test::work_at_idle_priority(20);
          watchdog.stop();
        });
        check.join();
        std::exit(0);
      },
      testing::ExitedWithCode(0), "");
}

// A limit multiplied by DUET_TIME_SCALE is reported as the limit and its scale.
TEST(Watchdog, AScaledLimitIsReportedWithItsScale) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_EXIT(
      {
        duet::detail::Watchdog watchdog("Spec", 0.6, 3);
        watchdog.start("token-A");
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);
      },
      testing::ExitedWithCode(3), "a case has run for more than 0.2 s \xC3\x97 3 \\(DUET_TIME_SCALE\\): the candidate");
}

// A child made by fork() has none of its parent's threads: the watching thread the parent
// started is not there, and the child's first watchdog starts one of its own.
TEST(Watchdog, AChildOfForkStartsItsOwnWatchingThread) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "ThreadSanitizer ends a child of a multithreaded fork() that starts a thread";
#endif
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  { const duet::detail::Watchdog started("Parent", 60); }  // the parent's thread runs from here
  GTEST_FLAG_SET(death_test_style, "fast");                // fork() alone, no exec
  EXPECT_EXIT(
      {
        duet::detail::Watchdog watchdog("Child", 0.2);
        watchdog.start("token-C");
        std::this_thread::sleep_for(std::chrono::seconds(5));
        std::exit(0);
      },
      testing::ExitedWithCode(3), "DUET_REPLAY=token-C\n");
}

// The crash guard takes each token into the last one's buffer: a shorter one after a longer
// one is reported whole and alone.
TEST(CrashGuard, ACrashNamesTheTokenItsCaseStartedWith) {
  GTEST_FLAG_SET(death_test_style, duet_test::reexec_death_test_style());
  EXPECT_DEATH(
      {
        duet::detail::CrashGuard guard("Spec");
        guard.token_case("token-A-which-is-the-longer-one");
        guard.idle();
        guard.token_case("token-B");
        guard.idle();
        guard.token_case("token-B");
        std::raise(SIGSEGV);
      },
      "DUET_REPLAY=token-B\n");
}

}  // namespace
