// Isolation mode (Config::isolate, DUET_FORK=1): a candidate that crashes, hangs or ends the
// process is a failure like any other, said for what it is and shrunk to the calls that do it,
// in every front end; and a check that does not die reads the same as without isolation.
#include <gtest/gtest.h>

#include <duet/api.hpp>
#include <duet/lin.hpp>
#include <duet/gtest.hpp>
#include <duet/parallel.hpp>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <sstream>
#include <string>

#include "support/crashing_subjects.hpp"
#include "support/fiber_crashes.hpp"
#include "support/fiber_subjects.hpp"
#include "support/report_text.hpp"
#include "support/test_specs.hpp"

namespace {

using namespace crashing;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

// The report says the process died of the invalid access: a segmentation fault, or under the
// sanitizers (the asan preset: ASan and UBSan) their report, attached.
bool died_of_bad_access(const std::string& report) {
  if (!kAsan) return has(report, "the process died here: a segmentation fault (SIGSEGV)");
  return has(report, "what the process wrote to stderr before it died") &&
         (has(report, "AddressSanitizer: ") || has(report, "runtime error: "));
}


std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

duet::Config isolated(std::uint64_t seed, double case_timeout = 2.0) {
  duet::Config c;
  c.seed = seed;
  c.case_timeout = case_timeout;
  c.isolate = true;
  c.output_dir = ::testing::TempDir() + "duet-isolation";
  return c;
}

// ---- Crashes --------------------------------------------------------------------------------

TEST(IsolationCrash, NullDereferenceIsShrunkToTheFourCalls) {
  const duet::CheckResult r = duet::check_sequential<NullStackSpec>(isolated(1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  // Under the sanitizers, their handler reports the fault and ends the child with its own status.
  EXPECT_TRUE(died_of_bad_access(r.report)) << r.report;
  EXPECT_EQ(r.failing_length, 4u) << r.report;
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point) << r.report;
  // push, push, pop, then the call that reads the lost node.
  EXPECT_TRUE(std::regex_search(
      r.report,
      std::regex(
          R"(1  s\.push\(0\);[^\n]*\n +2  s\.push\(0\);[^\n]*\n +3  s\.pop\(\);[^\n]*\n +4  s\.(top|pop)\(\); +// <-- the process died here)")))
      << r.report;
  // The draft runs the fatal call in a death test, which fails until the call returns.
  ASSERT_FALSE(r.draft_path.empty()) << r.report;
  const std::string draft = read_file(r.draft_path);
  EXPECT_TRUE(has(draft, "EXPECT_EXIT(")) << draft;
  EXPECT_TRUE(has(draft, "::testing::ExitedWithCode(42)")) << draft;
  EXPECT_TRUE(has(draft, "// the process died")) << draft;  // the one-line message
  // Isolated by the code (Config::isolate), the replay is isolated too: no DUET_FORK=1 needed.
  EXPECT_TRUE(has(r.report, "\n  replay:     DUET_REPLAY=duet1.")) << r.report;

  // The token replays it, in a child again, to the same report.
  duet::Config replay = isolated(1);
  replay.replay = r.replay_token;
  const duet::CheckResult again = duet::check_sequential<NullStackSpec>(replay);
  ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_EQ(again.failing_length, 4u) << again.report;
  EXPECT_EQ(again.replay_token, r.replay_token);
}

// Out-of-bounds reads through a computed pointer, in the reference-vs-candidate front end.
TEST(IsolationCrash, WildReadInAnApiSpecIsShrunk) {
  duet::Api api("WildBuffer");
  auto buf = api.abstract<std::deque<std::int64_t>, WildBuffer>("b");
  api.op(
      "make", duet::args(), buf, [] { return std::deque<std::int64_t>{}; }, [] { return WildBuffer{}; });
  api.op(
      "write", duet::args(buf, duet::integers<std::int64_t>(0, 9)), duet::unit(),
      [](std::deque<std::int64_t>& d, std::int64_t v) {
        d.push_back(v);
        if (d.size() > 4) d.pop_front();
      },
      [](WildBuffer& w, std::int64_t v) { w.write(v); });
  api.op(
      "read_last", duet::args(buf.where([](const std::deque<std::int64_t>& d) { return !d.empty(); })),
      duet::value<std::int64_t>(), [](const std::deque<std::int64_t>& d) { return d.back(); },
      [](const WildBuffer& w) { return w.read_last(); });
  const duet::CheckResult r = api.check(isolated(2));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(kAsan ? died_of_bad_access(r.report) : has(r.report, "segmentation fault (SIGSEGV)")) << r.report;
  // make, three writes, the read.
  EXPECT_EQ(r.failing_length, 5u) << r.report;
  EXPECT_TRUE(has(r.report, "read_last(b0);")) << r.report;
}

// A stack overflow from unbounded recursion kills the child too (no alternate stack there).
TEST(IsolationCrash, StackOverflowIsShrunk) {
  duet::Api api("LoopTree");
  auto tree = api.abstract<std::vector<int>, std::shared_ptr<LoopTree>>("t");
  api.op(
      "make", duet::args(), tree, [] { return std::vector<int>{}; }, [] { return std::make_shared<LoopTree>(); });
  api.op(
      "insert", duet::args(tree, duet::integers(0, 5)), duet::unit(), [](std::vector<int>& v, int k) { v.push_back(k); },
      [](std::shared_ptr<LoopTree>& t, int k) { t->insert(k); });
  api.op(
      "depth_positive", duet::args(tree), duet::value<bool>(), [](const std::vector<int>& v) { return !v.empty(); },
      [](const std::shared_ptr<LoopTree>& t) { return t->depth() > 0; });
  const duet::CheckResult r = api.check(isolated(3));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(kAsan ? died_of_bad_access(r.report) : has(r.report, "segmentation fault (SIGSEGV)")) << r.report;
  // make, insert twice the same key, then depth.
  EXPECT_EQ(r.failing_length, 4u) << r.report;
  EXPECT_TRUE(has(r.report, "insert(t0, 0);")) << r.report;
}

// The signature-only front end (duet::Lin, stress mode): the null dereference too.
TEST(IsolationCrash, LinStressIsShrunk) {
  auto lin = duet::Lin<NullStack>("NullStack", "s")
                 .op(
                     "push", [](NullStack& s, int x) { s.push(x); }, duet::integers(0, 3))
                 .op("pop_if_any",
                     [](NullStack& s) {
                       if (s.size > 0) s.pop();
                     })
                 .op("top_if_any", [](NullStack& s) { return s.size > 0 ? s.top() : -1; });
  const duet::CheckResult r = lin.check_stress(isolated(15));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(kAsan ? died_of_bad_access(r.report) : has(r.report, "segmentation fault (SIGSEGV)")) << r.report;
  EXPECT_EQ(r.failing_length, 4u) << r.report;  // push, push, pop_if_any, then one that reads
  EXPECT_TRUE(has(r.report, "s.push(0);")) << r.report;
}

// ---- Hangs ----------------------------------------------------------------------------------

TEST(IsolationHang, EndlessLoopOnOneArgumentIsShrunkToTheOneCall) {
  const duet::CheckResult r = duet::check_sequential<BufferSpec>(isolated(4, 0.1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 1u) << r.report;
  // The smallest argument that overflows the 32-bit power of two: 2^31 + 1.
  EXPECT_TRUE(has(r.report, "b.reserve(2147483649);")) << r.report;
  EXPECT_TRUE(has(r.report, "<-- still running here: hang after 100 ms")) << r.report;
}

TEST(IsolationHang, SelfDeadlockIsShrunk) {
  duet::Api api("SelfLockCache");
  auto cache = api.abstract<std::vector<int>, std::shared_ptr<SelfLockCache>>("c");
  api.op(
      "make", duet::args(), cache, [] { return std::vector<int>{}; }, [] { return std::make_shared<SelfLockCache>(); });
  api.op(
      "put", duet::args(cache, duet::integers(0, 9)), duet::unit(), [](std::vector<int>& v, int x) { v.push_back(x); },
      [](std::shared_ptr<SelfLockCache>& c, int x) { c->put(x); });
  api.op(
      "evict", duet::args(cache), duet::unit(),
      [](std::vector<int>& v) {
        if (!v.empty()) v.pop_back();
      },
      [](std::shared_ptr<SelfLockCache>& c) { c->evict(); });
  const duet::CheckResult r = api.check(isolated(5, 0.1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "hang after 100 ms")) << r.report;
  EXPECT_EQ(r.failing_length, 3u) << r.report;  // make, put, evict
  EXPECT_TRUE(has(r.report, "evict(c0);")) << r.report;
}

// ---- Ending the process ---------------------------------------------------------------------

TEST(IsolationExit, ExitZeroOnTheThirdCallIsAShrunkFailure) {
  const duet::CheckResult r = duet::check_sequential<LoggerSpec<0>>(isolated(6));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_FALSE(r.passed());
  EXPECT_EQ(r.failing_length, 3u) << r.report;
  EXPECT_TRUE(has(r.report, "logger.log(0);")) << r.report;
  EXPECT_TRUE(has(r.report, "<-- a call of exit(0) ended the process here")) << r.report;
}

TEST(IsolationExit, QuickExitAndUnderscoreExitAreShrunkFailures) {
  const duet::CheckResult quick = duet::check_sequential<LoggerSpec<1>>(isolated(7));
  ASSERT_EQ(quick.status, duet::CheckResult::Status::failed) << quick.report;
  EXPECT_TRUE(has(quick.report, "a call of quick_exit()")) << quick.report;
  EXPECT_EQ(quick.failing_length, 3u) << quick.report;
  // _exit runs no handler at all: the child simply ends, in the middle of a case.
  const duet::CheckResult raw = duet::check_sequential<LoggerSpec<2>>(isolated(8));
  ASSERT_EQ(raw.status, duet::CheckResult::Status::failed) << raw.report;
  EXPECT_TRUE(has(raw.report, "// <-- the process died here: an exit with status 0")) << raw.report;
  EXPECT_EQ(raw.failing_length, 3u) << raw.report;
}

// A fuzzer's crash file whose input segfaults replays in the child too (DUET_FORK=1 with
// DUET_REPLAY_FILE): shrunk and shown instead of killing the test. Random inputs play the fuzzer.
TEST(IsolationCrash, AFuzzerInputThatCrashesIsShrunkInTheChild) {
  const std::string file = ::testing::TempDir() + "duet-isolation-crash-input";
  std::mt19937_64 rng(7);
  duet::CheckResult r;
  int tries = 0;
  for (; tries < 2000 && r.status != duet::CheckResult::Status::failed; ++tries) {
    std::string input(24, '\0');
    for (char& c : input) c = static_cast<char>(rng());
    std::ofstream(file, std::ios::binary) << input;
    duet::Config c = isolated(0);
    c.replay_file = file;
    r = duet::check_sequential<NullStackSpec>(c);
    // An input that gives no command checks nothing: an error that says so, and the next one.
    if (r.status == duet::CheckResult::Status::error)
      ASSERT_TRUE(has(r.report, "not a valid input for this check")) << r.report;
  }
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << "no crashing input among " << tries;
  EXPECT_TRUE(has(r.report, "failed on a fuzzer's input")) << r.report;
  EXPECT_TRUE(died_of_bad_access(r.report)) << r.report;
  EXPECT_EQ(r.failing_length, 4u) << r.report;
}

// ---- Checks that do not die read the same with or without isolation -------------------------

TEST(IsolationSame, ADisagreementGivesTheSameReport) {
  duet::Config plain;
  plain.seed = 9;
  plain.output_dir = ::testing::TempDir() + "duet-isolation";
  const duet::CheckResult in_process = duet::check_sequential<duet_test::BadBoundsSpec>(plain);
  const duet::CheckResult in_child = duet::check_sequential<duet_test::BadBoundsSpec>(isolated(9));
  ASSERT_EQ(in_process.status, duet::CheckResult::Status::failed) << in_process.report;
  ASSERT_EQ(in_child.status, duet::CheckResult::Status::failed) << in_child.report;
  EXPECT_EQ(duet_test::without_time(in_child.report), duet_test::without_time(in_process.report));
  EXPECT_EQ(in_child.replay_token, in_process.replay_token);
  EXPECT_EQ(in_child.cases, in_process.cases);
}

TEST(IsolationSame, APassingCheckRunsAsManyCases) {
  duet::Config plain;
  plain.seed = 10;
  plain.count = 300;
  duet::Config child = isolated(10);
  child.count = 300;
  const duet::CheckResult a = duet::check_sequential<NullStackSpec>([&] {
    duet::Config c = plain;
    c.max_length = 2;  // too short to reach the bug
    return c;
  }());
  const duet::CheckResult b = duet::check_sequential<NullStackSpec>([&] {
    duet::Config c = child;
    c.max_length = 2;
    return c;
  }());
  ASSERT_TRUE(a.passed()) << a.report;
  ASSERT_TRUE(b.passed()) << b.report;
  EXPECT_EQ(a.cases, 300u);
  EXPECT_EQ(b.cases, 300u);
  EXPECT_EQ(a.commands, b.commands);
}

// A case that ended its process once and never again (a sanitizer's report of a rare race, say):
// the report shows the child's last words from the death it saw, though no replay repeated it.
std::string dies_once_marker;
struct DiesOnceSpec : fiber_subjects::CounterSpec<false> {
  static duet::Result run(const Cmd& c, Sut& s) {
    if (!std::ifstream(dies_once_marker)) {
      std::ofstream(dies_once_marker) << "died\n";
      std::fputs("the child's last words\n", stderr);
      std::abort();
    }
    return fiber_subjects::CounterSpec<false>::run(c, s);
  }
};

// `check()` with `marker` naming a file of this name that does not exist yet (the subject that
// dies once writes it), removed afterwards.
template <class Check>
duet::CheckResult with_fresh_marker(std::string& marker, const std::string& name, Check check) {
  marker = ::testing::TempDir() + name;
  std::remove(marker.c_str());
  duet::CheckResult r = check();
  std::remove(marker.c_str());
  return r;
}

TEST(IsolationSame, ADeathNoReplayRepeatedShowsItsLastWords) {
  const duet::CheckResult r = with_fresh_marker(dies_once_marker, "duet_dies_once_marker",
                                                [] { return duet::check_sequential<DiesOnceSpec>(isolated(1)); });
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "the failure did not come back")) << r.report;
  EXPECT_TRUE(has(r.report, "what the process wrote to stderr before it died")) << r.report;
  EXPECT_TRUE(has(r.report, "| the child's last words")) << r.report;
}

// A negative test on threads whose crash never came back (it struck the first trial only, as a
// rare race does): unsafe, as expected, and the report shows the program that crashed, as the
// child drew it before its trials; no replay could show it.
TEST(IsolationParallel, ACrashNoReplayRepeatedShowsTheProgramThatCrashed) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation is off under ThreadSanitizer";
#endif
  const duet::CheckResult r = with_fresh_marker(dies_once_marker, "duet_dies_once_on_threads_marker",
                                                [] { return duet::expect_unsafe<DiesOnceSpec>({}, isolated(1)); });
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "unsafe, as expected")) << r.report;
  EXPECT_TRUE(has(r.report, "the failure did not come back")) << r.report;
  EXPECT_TRUE(has(r.report, "an abort (SIGABRT)")) << r.report;
  EXPECT_TRUE(has(r.report, "in a trial of this program")) << r.report;
  EXPECT_TRUE(has(r.report, "until a trial ends the process\n  again")) << r.report;
  EXPECT_TRUE(std::regex_search(r.report, std::regex(R"(c\.(incr|get)\(\))"))) << r.report;
  EXPECT_GT(r.failing_length, 0u) << r.report;
  EXPECT_FALSE(has(r.report, "(0 calls)")) << r.report;
  EXPECT_EQ(r.trials, 1u) << r.report;  // the first call of the first trial: the trial counts
}

// Subjects whose third made in a process ends it (each trial makes one, and only the child
// makes them): the search's child dies in the third trial of its first program. `Once`: only
// the first time (the marker file says it happened), as a rare race would; else in every child.
std::string third_subject_marker;
int subjects_made = 0;
template <bool Once>
struct ThirdSubjectAborts : fiber_subjects::Counter<false> {
  ThirdSubjectAborts() {
    if (++subjects_made != 3) return;
    if (Once && std::ifstream(third_subject_marker)) return;
    if (Once) std::ofstream(third_subject_marker) << "died\n";
    std::abort();
  }
};
template <bool Once>
struct DiesInThirdTrialSpec : fiber_subjects::CounterSpec<false> {
  using Sut = ThirdSubjectAborts<Once>;
};

// A search that failed as the child died in the third trial of its first program: the trials it
// ran before, and that one, are the search's.
void expect_died_in_the_third_trial(const duet::CheckResult& r) {
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "in a trial of this program")) << r.report;
  EXPECT_EQ(r.cases, 1u) << r.report;
  EXPECT_EQ(r.trials, 3u) << r.report;
  EXPECT_TRUE(has(r.report, ": failed after 1 program, 3 trials, ")) << r.report;
}

// `check()` run by a process that has made no subject yet, its third subject dying once.
template <class Check>
duet::CheckResult with_the_third_subject_dying_once(const std::string& marker_name, Check check) {
  subjects_made = 0;
  return with_fresh_marker(third_subject_marker, marker_name, check);
}

TEST(IsolationParallel, ADeathInATrialCountsTheTrialsBeforeItAndItself) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation is off under ThreadSanitizer";
#endif
  const duet::CheckResult r = with_the_third_subject_dying_once(
      "duet_third_subject_marker", [] { return duet::check_parallel<DiesInThirdTrialSpec<true>>({}, isolated(1)); });
  expect_died_in_the_third_trial(r);
  EXPECT_TRUE(has(r.report, "the failure did not come back")) << r.report;
}

// The same in the signature-only front end's stress mode (no oracle makes subjects).
TEST(IsolationParallel, ADeathInALinTrialCountsTheTrialsBeforeItAndItself) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation is off under ThreadSanitizer";
#endif
  auto lin = duet::Lin<ThirdSubjectAborts<true>>("Counter", "c")
                 .op("incr", [](ThirdSubjectAborts<true>& c) { return c.incr(); })
                 .op("get", [](ThirdSubjectAborts<true>& c) { return c.get(); });
  expect_died_in_the_third_trial(with_the_third_subject_dying_once(
      "duet_third_subject_lin_marker", [&] { return duet::stress_parallel(lin, {}, isolated(1)); }));
}

// A death every child repeats: the search's count as above, and the token's replay dies on its
// third trial too, and says so.
TEST(IsolationParallel, AReplayedDeathSaysOnWhichTrialItDied) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation is off under ThreadSanitizer";
#endif
  subjects_made = 0;
  const duet::CheckResult r = duet::check_parallel<DiesInThirdTrialSpec<false>>({}, isolated(1));
  expect_died_in_the_third_trial(r);
  if (::testing::Test::HasFatalFailure()) return;

  duet::Config replay = isolated(1);
  replay.replay = r.replay_token;
  const duet::CheckResult again = duet::check_parallel<DiesInThirdTrialSpec<false>>({}, replay);
  ASSERT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  EXPECT_TRUE(has(again.report, ": failed after 1 program, 3 trials, ")) << again.report;
  EXPECT_TRUE(has(again.report, "\n  replayed:   DUET_REPLAY: failed as recorded, on its 3rd trial\n")) << again.report;
  EXPECT_EQ(again.trials, 3u) << again.report;
}

TEST(IsolationSame, DuetForkTurnsItOn) {
  ::setenv("DUET_FORK", "1", 1);
  duet::Config c;
  c.seed = 1;
  c.case_timeout = 2.0;
  c.output_dir = ::testing::TempDir() + "duet-isolation";
  const duet::CheckResult r = duet::check_sequential<NullStackSpec>(c);
  ::unsetenv("DUET_FORK");
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.failing_length, 4u) << r.report;
  // Isolated by the environment only: the replay needs it as well.
  EXPECT_TRUE(has(r.report, "\n  replay:     DUET_FORK=1 DUET_REPLAY=duet1.")) << r.report;
  ::setenv("DUET_FORK", "maybe", 1);
  const duet::CheckResult bad = duet::check_sequential<NullStackSpec>(c);
  ::unsetenv("DUET_FORK");
  EXPECT_EQ(bad.status, duet::CheckResult::Status::error) << bad.report;
  EXPECT_TRUE(has(bad.report, "DUET_FORK=maybe: expected 1, true, yes or on (or 0, false, no, off)")) << bad.report;
}

// ---- An isolated check inside a fiber run --------------------------------------------------

// Forked on a fiber's stack, isolation's child would go on with the fiber run, and its scheduler
// would take it back into the outer check and then into the test program: the inner check is an
// error instead, and the outer check goes on.
TEST(IsolationNested, AnIsolatedCheckInsideAFiberRunIsAnError) {
  std::optional<duet::CheckResult> inner;
  auto outer =
      duet::Lin<fiber_subjects::Counter<false>>("Outer", "o").op("incr", [&inner](fiber_subjects::Counter<false>& c) {
        const int n = c.incr();
        if (n == 2 && !inner) inner = duet::check_sequential<fiber_subjects::CounterSpec<false>>(isolated(1));
        return n;
      });
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  pc.prefix_length = 0;  // every call in a branch, on a fiber
  duet::Config c;
  c.seed = 1;
  c.count = 10;
  const duet::CheckResult r = duet::check_parallel(outer, pc, c);
  EXPECT_TRUE(r.passed()) << r.report;
  ASSERT_TRUE(inner.has_value());
  EXPECT_EQ(inner->status, duet::CheckResult::Status::error) << inner->report;
  EXPECT_TRUE(has(inner->report, "this check was started inside a fiber run")) << inner->report;
}

// ---- Parallel checks: a crash in a trial ----------------------------------------------------

TEST(IsolationParallel, CrashOnFibersIsShrunkAndShowsTheProgram) {
  duet::Config c = isolated(11);
  c.count = 50;  // the 8th program crashes; the default second ran one under qemu-aarch64
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::check_parallel<NullStackSpec>(pc, c);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(kAsan ? died_of_bad_access(r.report) : has(r.report, "segmentation fault (SIGSEGV)")) << r.report;
  EXPECT_TRUE(has(r.report, "in a trial of this program")) << r.report;
  EXPECT_TRUE(has(r.report, "s.push(0)")) << r.report;
  EXPECT_LE(r.failing_length, 4u) << r.report;
}

// A double free on a fiber, in one interleaving, with DUET_FORK=1: a failure shrunk as a crash
// (not a replay that diverged), whose report shows the crashing fiber's stack from the child.
TEST(IsolationParallel, ACrashOnAFiberIsShrunkAndShowsTheFibersStack) {
  duet::Config c = isolated(1);
  c.count = 50;  // the 10th program crashes; the default second ran one under qemu-aarch64
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::check_parallel(fiber_crashes::slot_spec(), pc, c);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "\n  replay:     DUET_REPLAY=duet1.")) << r.report;
  if (kAsan) return;  // the sanitizer's report, attached, shows the stack
  EXPECT_TRUE(has(r.report, "the process died of an abort (SIGABRT)")) << r.report;
  EXPECT_TRUE(std::regex_search(r.report, std::regex("\n  the crashing fiber's stack, innermost call first:\n"
                                                     "    #0-#[0-9]+  in the system's libraries: [^\n]*abort[^\n]*\n"
                                                     "(    #[0-9]+  [^\n]*operator delete[^\n]*\n)?"
                                                     "    #[0-9]+  fiber_crashes::Slot::discard\\(int\\*\\)")))
      << r.report;
  EXPECT_TRUE(has(r.report, "fiber_crashes::Slot::release()")) << r.report;
}

// A crash that needs the state earlier cases left in the child process does not come back when
// its case is replayed alone in a fresh one: the report is the crash as first seen, saying why
// it could not be replayed, not a test refused as nondeterministic.
TEST(IsolationParallel, ACrashThatNeedsEarlierCasesIsReportedAsFirstSeen) {
  duet::Config c = isolated(1);
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  const duet::CheckResult r = duet::check_parallel(fiber_crashes::earlier_cases_spec(), pc, c);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "the process died of an abort (SIGABRT)")) << r.report;
  EXPECT_TRUE(has(r.report, "but not when the case ran again in another\n  child process")) << r.report;
  EXPECT_TRUE(has(r.report, "the same\n  seed with DUET_FORK=1 runs the same cases again")) << r.report;
  EXPECT_TRUE(r.draft_path.empty()) << r.report;
}

// Checks on threads are isolated by default, so their replay line needs no DUET_FORK=1; on
// fibers they are not, and a crash found with DUET_FORK=1 replays with it.
TEST(IsolationParallel, ReplayLineSaysDuetForkOnlyWhereTheReplayNeedsIt) {
#if defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "isolation is off under ThreadSanitizer";
#endif
  duet::Config c;
  c.seed = 12;
  c.time = 10;
  c.output_dir = ::testing::TempDir() + "duet-isolation";
  const duet::CheckResult threads = duet::check_parallel<NullStackSpec>({}, c);
  ASSERT_EQ(threads.status, duet::CheckResult::Status::failed) << threads.report;
  ASSERT_TRUE(has(threads.report, "in a trial of this program")) << threads.report;
  EXPECT_TRUE(has(threads.report, "\n  replay:     DUET_REPLAY=duet1.")) << threads.report;
  EXPECT_FALSE(has(threads.report, "DUET_FORK=1")) << threads.report;

  ::setenv("DUET_FORK", "1", 1);
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  c.seed = 11;
  const duet::CheckResult fibers = duet::check_parallel<NullStackSpec>(pc, c);
  ::unsetenv("DUET_FORK");
  ASSERT_EQ(fibers.status, duet::CheckResult::Status::failed) << fibers.report;
  EXPECT_TRUE(has(fibers.report, "\n  replay:     DUET_FORK=1 DUET_REPLAY=duet1.")) << fibers.report;
}

TEST(IsolationParallel, CrashOnThreadsIsShrunkAndShowsTheProgram) {
  duet::Config c = isolated(12);
  c.time = 10;
  duet::ParallelConfig pc;
  const duet::CheckResult r = duet::check_parallel<NullStackSpec>(pc, c);
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "in a trial of this program")) << r.report;
  EXPECT_LE(r.failing_length, 4u) << r.report;
}

}  // namespace

namespace {

// The child's own thread pool places and starts the branches as the parent's would: the
// branches overlap, so a passing check is a pass and not "inconclusive".
TEST(IsolationParallel, BranchesOnThreadsOverlapInTheChild) {
  duet::Config c = isolated(13);
  c.time = 1;
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<false>>({}, c);
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_GT(r.overlapped_trials, 0u);
  EXPECT_GE(r.cpus, 1u);
}

TEST(IsolationParallel, NegativeTestFindsTheRaceInTheChild) {
  duet::Config c = isolated(14);
  c.time = 60;
  const duet::CheckResult r = duet::expect_unsafe<fiber_subjects::CounterSpec<true>>({}, c);
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_TRUE(has(r.report, "unsafe, as expected")) << r.report;
}

// A check on fibers of code that has no switch point (plain std::atomic, not compiled through
// duet_instrument) tested nothing: in a child process too, that is an error, never a pass (the
// child's verdict on it reached the parent as a pass before).
struct PlainCounter {
  std::atomic<int> n{0};
  int incr() { return n.fetch_add(1) + 1; }
};

TEST(IsolationParallel, FibersThatMetNoSwitchPointInAChildAreNoPass) {
  const auto lin = duet::Lin<PlainCounter>("plain_counter", "c").op("incr", [](PlainCounter& c) { return c.incr(); });
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  duet::Config c;
  c.seed = 1;
  c.count = 20;
  c.isolate = true;
  const duet::CheckResult r = duet::check_parallel(lin, pc, c);
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "the fibers met no switch point")) << r.report;
}

}  // namespace
