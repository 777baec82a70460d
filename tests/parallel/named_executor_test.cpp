// DUET_EXECUTOR: every parallel check of a binary on the executor it names, over the check's own,
// so that a CI matrix runs one suite on threads and on fibers without editing it.
#include <duet/lin.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include "support/fiber_subjects.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

using fiber_subjects::CounterSpec;

// Sets a variable for one test and puts back what was there.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// A counter of plain int: nothing a fiber can switch at.
struct PlainCounter {
  int value = 0;
  int incr() { return ++value; }
};

duet::Config quick(std::uint64_t seed) {
  duet::Config c;
  c.seed = seed;
  c.time = 2;  // on threads (the code before DUET_EXECUTOR) a search could take the default 60 s
  c.verbose = -1;
  return c;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// A check written for threads (no executor) runs on fibers: the racy counter is found there,
// the report says where it ran, and its replay line carries the setting that puts it there.
TEST(NamedExecutor, FibersRunsACheckWrittenForThreads) {
  const ScopedVariable on("DUET_EXECUTOR", "fibers");
  const duet::CheckResult r = duet::check_parallel<CounterSpec<true>>({}, quick(1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "executor:   on fibers:random (DUET_EXECUTOR=fibers, over the check's own threads)"))
      << r.report;
  EXPECT_TRUE(has(r.report, "replay:     DUET_EXECUTOR=fibers DUET_REPLAY=")) << r.report;
  EXPECT_TRUE(has(r.report, "interleaving (fiber scheduler")) << r.report;
  // The token replays on fibers, exactly, with the setting the report names.
  duet::Config replay = quick(1);
  replay.replay = r.replay_token;
  const duet::CheckResult again = duet::check_parallel<CounterSpec<true>>({}, replay);
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_EQ(again.failing_length, r.failing_length) << again.report;
}

// A test that set threads explicitly runs on fibers with the strategy named.
TEST(NamedExecutor, FiberStrategiesOverrideAnExplicitThreadPool) {
  for (const char* name : {"fibers:pct", "fibers:exhaustive"}) {
    const ScopedVariable on("DUET_EXECUTOR", name);
    const duet::CheckResult r = duet::expect_unsafe<CounterSpec<true>>({.executor = duet::make_thread_pool()}, quick(2));
    ASSERT_TRUE(r.passed()) << name << "\n" << r.report;
    const std::string expected = std::string(name) == "fibers:pct" ? "on fibers:pct(3)" : "on fibers:exhaustive(2)";
    EXPECT_TRUE(has(r.report, "with overlapping branches, " + expected + " (DUET_EXECUTOR=" + name)) << r.report;
  }
}

// A negative test that reads its verdict's words ("unsafe, as expected: a counterexample after")
// passes on either executor: where the check was moved to is said last, as a pass line says it.
TEST(NamedExecutor, ANegativeVerdictKeepsItsWordsAndSaysWhereItRanLast) {
  const ScopedVariable on("DUET_EXECUTOR", "fibers");
  const duet::CheckResult r = duet::expect_unsafe<CounterSpec<true>>({}, quick(8));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, ": unsafe, as expected: a counterexample after ")) << r.report;
  EXPECT_TRUE(has(r.report, "with overlapping branches, on fibers:random (DUET_EXECUTOR=fibers, over the check's own "
                            "threads)\n"))
      << r.report;
}

// Two calls inside it at once end the process: a race whose symptom is a crash.
struct Exclusive {
  duet::atomic<bool> busy{false};
  int enter() {
    if (busy.exchange(true)) std::abort();
    duet::yield();
    busy.store(false);
    return 1;
  }
};

// A check written for threads runs in a child process by default, so a negative test may expect
// its race to end in a crash. Moved to fibers, it keeps that child: the crash is the
// counterexample, not the end of the test binary.
TEST(NamedExecutor, ACheckWrittenForThreadsKeepsItsChildProcessOnFibers) {
  const ScopedVariable on("DUET_EXECUTOR", "fibers");
  const auto lin = duet::Lin<Exclusive>("Exclusive", "e").op("enter", [](Exclusive& e) { return e.enter(); });
  const duet::CheckResult r = duet::expect_unsafe(lin, {}, quick(9));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "an abort (SIGABRT)")) << r.report;
  EXPECT_TRUE(has(r.report, "on fibers:random (DUET_EXECUTOR=fibers")) << r.report;
}

// The other way: a check written for fibers runs on threads, and says so when it passes.
TEST(NamedExecutor, ThreadsOverrideAFiberCheck) {
  const ScopedVariable on("DUET_EXECUTOR", "threads");
  testing::internal::CaptureStdout();
  duet::Config c = quick(3);
  c.verbose = 0;
  c.count = 20;
  c.isolate = false;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<false>>({.executor = duet::fibers()}, c);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_NE(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(out, "on threads (DUET_EXECUTOR=threads, over the check's own fibers:random)")) << out << r.report;
  // On fibers it would have said how many fiber operations it scheduled; threads overlap instead.
  EXPECT_TRUE(has(out + r.report, "overlapping branches")) << out << r.report;
}

// Replayed without the setting, the token names the setting that ran it.
TEST(NamedExecutor, AReplayWithoutTheSettingNamesIt) {
  std::string token;
  {
    const ScopedVariable on("DUET_EXECUTOR", "fibers:pct");
    token = duet::check_parallel<CounterSpec<true>>({}, quick(6)).replay_token;
  }
  ASSERT_FALSE(token.empty());
  duet::Config replay = quick(6);
  replay.replay = token;
  const duet::CheckResult r = duet::check_parallel<CounterSpec<true>>({}, replay);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "if DUET_EXECUTOR ran it there, set DUET_EXECUTOR=fibers:pct again")) << r.report;
}

// A negative test of plain std:: code moved to fibers meets no switch point: an error saying so,
// never "found none" as if the subject had been searched.
TEST(NamedExecutor, PlainCodeOnFibersSaysNothingInterleaved) {
  const ScopedVariable on("DUET_EXECUTOR", "fibers");
  duet::Config c = quick(7);
  c.count = 50;
  c.time.reset();
  const duet::CheckResult r = duet::expect_unsafe<CounterSpec<false>>({}, c);
  // CounterSpec<false> uses duet's types; a subject with none is the lin below.
  EXPECT_NE(r.status, duet::CheckResult::Status::error) << r.report;
  const duet::CheckResult plain = duet::expect_unsafe(
      duet::Lin<PlainCounter>("PlainCounter", "c").op("incr", [](PlainCounter& p) { return p.incr(); }), {}, c);
  EXPECT_EQ(plain.status, duet::CheckResult::Status::error) << plain.report;
  EXPECT_TRUE(has(plain.report, "none could be found here: the fibers met no switch point")) << plain.report;
}

TEST(NamedExecutor, AMalformedValueIsAnErrorNamingTheForms) {
  for (const char* bad : {"fiber", "fibers:pct(3)", "Threads", "fibers:"}) {
    const ScopedVariable on("DUET_EXECUTOR", bad);
    const duet::CheckResult r = duet::check_parallel<CounterSpec<false>>({}, quick(4));
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << bad << "\n" << r.report;
    EXPECT_TRUE(has(r.report, std::string("DUET_EXECUTOR=") + bad +
                                  ": expected threads, fibers, fibers:random, fibers:pct or fibers:exhaustive"))
        << r.report;
  }
}

// Thread hooks set up each thread; fibers share one: an error saying so, never the check run on
// threads as written, nor on fibers without its hooks.
TEST(NamedExecutor, ThreadHooksCannotMoveToFibers) {
  const ScopedVariable on("DUET_EXECUTOR", "fibers");
  duet::ParallelConfig pc;
  pc.thread_hooks.start = [] {};
  const duet::CheckResult r = duet::check_parallel<CounterSpec<false>>(pc, quick(5));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "cannot run on fibers (DUET_EXECUTOR=fibers): its thread_hooks")) << r.report;
}

}  // namespace
