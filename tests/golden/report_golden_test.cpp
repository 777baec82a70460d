// Failure output is UI: these pin the report and the draft test. Regenerate the expected
// files after a deliberate change with DUET_UPDATE_GOLDEN=1.
#include <duet/gtest.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <variant>

#include <pthread.h>
#include <sched.h>

#include <duet/models/bindings.hpp>
#include <duet/models/counter.hpp>
#include <duet/models/spsc_ring.hpp>

#include "kv_store_api.hpp"
#include "kv_store_spec.hpp"
#include "persistent_array.hpp"
#include "ring_buffer.hpp"
#include "support/crashing_subjects.hpp"
#include "support/draft_subjects.hpp"
#include "support/emulation.hpp"
#include "support/fiber_subjects.hpp"
#include "support/progress_subjects.hpp"
#include "support/scenario_subjects.hpp"
#include "support/test_specs.hpp"

namespace {

std::string golden_path(const std::string& name) { return std::string(DUET_SOURCE_DIR) + "/tests/golden/expected/" + name; }

std::string read(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Timings vary between runs, and the replay count with every change to the shrinker's passes;
// everything else must match to the byte.
std::string mask(std::string text) {
  // qemu-user (make multiarch) says on stderr that its guest died: the emulator's line, not duet's.
  text = std::regex_replace(
      text,
      std::regex("\n  what the process wrote to stderr before it died:\n    \\| qemu: uncaught target signal [^\n]*\n"), "");
  // make multiarch runs with DUET_TIME_SCALE, which a hang's report names with the limit.
  text = std::regex_replace(text, std::regex(" \xC3\x97 [0-9.e+]+ \\(DUET_TIME_SCALE\\)"), "");
  text = std::regex_replace(text, std::regex("[0-9]+\\.[0-9]+ s"), "#.## s");
  return std::regex_replace(text, std::regex("\\([0-9]+ replays\\)"), "(# replays)");
}

// A token of a check on threads records the search's share of overlapping trials and its CPUs,
// which depend on the machine like the header's.
std::string mask_threads_token(const std::string& text) {
  return std::regex_replace(text, std::regex("DUET_REPLAY=duet1\\.[A-Za-z0-9_-]+"), "DUET_REPLAY=duet1.(masked)");
}

void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  if (std::getenv("DUET_UPDATE_GOLDEN")) {
    std::ofstream(path) << actual;
    return;
  }
  EXPECT_EQ(read(path), actual) << "golden file " << path << " differs; rerun with DUET_UPDATE_GOLDEN=1 if intended";
}

// Isolation mode (DUET_FORK=1): a candidate that kills its process. Under a sanitizer the
// sanitizer reports the fault instead (tests/isolation covers that), so these run without one.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

duet::Config isolated(std::uint64_t seed, double case_timeout) {
  duet::Config c;
  c.seed = seed;
  c.output_dir = "duet-output/golden";
  c.case_timeout = case_timeout;
  c.isolate = true;
  return c;
}

TEST(Golden, IsolatedCrashReport) {
  if (kSanitized) GTEST_SKIP() << "the sanitizer reports the fault first";
  const duet::CheckResult r = duet::check_sequential<crashing::NullStackSpec>(isolated(1, 2.0));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("isolated_crash_report.txt", mask(r.report));
  expect_golden("isolated_crash_draft.cpp", read(r.draft_path));
}

TEST(Golden, IsolatedHangReport) {
  if (kSanitized) GTEST_SKIP() << "timings under a sanitizer";
  const duet::CheckResult r = duet::check_sequential<crashing::BufferSpec>(isolated(4, 0.1));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("isolated_hang_report.txt", mask(r.report));
}

TEST(Golden, IsolatedExitReport) {
  if (kSanitized) GTEST_SKIP() << "the sanitizer reports the fault first";
  const duet::CheckResult r = duet::check_sequential<crashing::LoggerSpec<0>>(isolated(6, 2.0));
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("isolated_exit_report.txt", mask(r.report));
}

TEST(Golden, RingBufferReport) {
  const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(
      {.seed = 1, .output_dir = "duet-output/golden", .name = "BuggyRingBuffer"});
  ASSERT_FALSE(r);
  expect_golden("ring_buffer_report.txt", mask(r.report));
  expect_golden("ring_buffer_draft.cpp", read(r.draft_path));
}

// A broken invariant: the draft runs the calls, then re-runs the check through a function the
// user defines with the invariant given to duet (compiled by draft_repro_main.cpp and
// draft_fixed_main.cpp: it fails against the subject and passes once fixed).
TEST(Golden, InvariantDraft) {
  const auto lin = duet::Lin<draft_subjects::CappedStack>("CappedStack", "s")
                       .op(
                           "push", [](draft_subjects::CappedStack& s, int x) { s.push(x); }, duet::integers(1, 3))
                       .op("top", [](draft_subjects::CappedStack& s) { return s.top(); })
                       .invariant([](const draft_subjects::CappedStack& s) {
                         return s.size() <= draft_subjects::CappedStack::kCapacity;
                       });
  const duet::CheckResult r = lin.check_stress({.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r);
  expect_golden("invariant_report.txt", mask(r.report));
  expect_golden("invariant_draft.cpp", read(r.draft_path));
}

// With the invariant's C++ spelling given, the draft states it directly.
TEST(Golden, InvariantDraftWithItsSpelling) {
  const auto lin =
      duet::Lin<draft_subjects::CappedStack>("CappedStack", "s")
          .op(
              "push", [](draft_subjects::CappedStack& s, int x) { s.push(x); }, duet::integers(1, 3))
          .invariant([](const draft_subjects::CappedStack& s) { return s.size() <= draft_subjects::CappedStack::kCapacity; },
                     "s.size() <= draft_subjects::CappedStack::kCapacity");
  const duet::CheckResult r = lin.check_stress({.seed = 1, .output_dir = "duet-output/golden_spelled"});
  ASSERT_FALSE(r);
  const std::string draft = read(r.draft_path);
  EXPECT_NE(draft.find("  EXPECT_TRUE(s.size() <= draft_subjects::CappedStack::kCapacity) << \"the invariant fails\";"),
            std::string::npos)
      << draft;
  EXPECT_EQ(draft.find("duet_invariant"), std::string::npos) << draft;
  EXPECT_EQ(draft.find("ADD_FAILURE"), std::string::npos) << draft;
}

TEST(Golden, ExceptionReport) {
  const duet::CheckResult r =
      duet::check_sequential<duet_test::BadBoundsSpec>({.seed = 3, .output_dir = "duet-output/golden", .name = "BadBounds"});
  ASSERT_FALSE(r);
  expect_golden("exception_report.txt", mask(r.report));
  expect_golden("exception_draft.cpp", read(r.draft_path));
}

TEST(Golden, ErrorReport) {
  const duet::CheckResult r = duet::check_sequential<ring::CorrectRingBufferSpec>({.replay = "duet1.AAAA", .name = "Q"});
  expect_golden("bad_token_report.txt", mask(r.report));
}

// A shrink cut short by a budget says so, and which budget: the case may not be minimal.
TEST(Golden, ShrinkStoppedByItsStepBudget) {
  const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(
      {.seed = 1, .shrink_steps = 5, .output_dir = "duet-output/golden", .name = "BuggyRingBuffer"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::step_budget);
  expect_golden("shrink_step_budget_report.txt", mask(r.report));
}

TEST(Golden, ShrinkStoppedByItsTimeBudget) {
  const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(
      {.seed = 1, .shrink_time = 0, .output_dir = "duet-output/golden", .name = "BuggyRingBuffer"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::time_budget);
  expect_golden("shrink_time_budget_report.txt", mask(r.report));
}

TEST(Golden, ShrinkReachedAFixedPoint) {
  const duet::CheckResult r = duet::check_sequential<ring::BuggyRingBufferSpec>(
      {.seed = 1, .output_dir = "duet-output/golden", .name = "BuggyRingBuffer"});
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::fixed_point);
  EXPECT_EQ(r.report.find("shrinking stopped"), std::string::npos) << r.report;
}

}  // namespace

// A failure that does not come back when replayed: the report shows the failing step as first
// seen (marked, with the model's value), and the draft asserts the model's value.
namespace flaky {
struct FlakyCounter {
  long n = 0;
};
struct FlakyIncr {};
struct FlakyGet {};
std::string duet_show(const FlakyIncr&) { return "incr()"; }
std::string duet_show(const FlakyGet&) { return "get()"; }
bool flaky_failed_once = false;
struct FlakyCounterSpec {
  using Sut = FlakyCounter;
  using State = long;
  using Cmd = std::variant<FlakyIncr, FlakyGet>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::just(Cmd(FlakyIncr{})), duet::just(Cmd(FlakyGet{})));
  }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<FlakyIncr>(c)) {
      ++s.n;
      return {};
    }
    // Wrong once in the life of the process, at the first get after two increments.
    if (s.n >= 2 && !flaky_failed_once) {
      flaky_failed_once = true;
      return s.n + 1;
    }
    return s.n;
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<FlakyIncr>(c)) return {};
    return s;
  }
  static void next(const Cmd& c, State& s) {
    if (std::holds_alternative<FlakyIncr>(c)) ++s;
  }
};

}  // namespace flaky

namespace {
using flaky::FlakyCounterSpec;

TEST(Golden, NondeterministicFailureAsFirstSeen) {
  using flaky::flaky_failed_once;
  flaky_failed_once = false;
  const duet::CheckResult r =
      duet::check_sequential<FlakyCounterSpec>({.seed = 1, .output_dir = "duet-output/golden", .name = "FlakyCounter"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::not_reproduced);
  expect_golden("nondeterministic_report.txt", mask(r.report));
  expect_golden("nondeterministic_draft.cpp", read(r.draft_path));
}

// Every draft goes to duet-output/golden: other binaries check the same subjects in parallel
// and would overwrite a draft in the default directory before it is read.
// On fibers: the Y diagram, the verdict and the interleaving that produced it.

// The drafts replay the failing schedule with duet::run_fibers; draft_repro_main.cpp compiles
// them and runs them against the buggy and the fixed subjects.
TEST(Golden, FiberLostUpdateReport) {
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<true>>(
      {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("fiber_lost_update_report.txt", mask(r.report));
  expect_golden("fiber_lost_update_draft.cpp", read(r.draft_path));
}

// With roles, the diagram heads each branch with its role and the draft names it.
TEST(Golden, FiberRolesReport) {
  using Ring = duet::models::BoundedQueue<duet::models::SpscRingBinding<duet::models::FiberSync>>;
  const duet::CheckResult r = duet::check_parallel<Ring>(
      {.roles = {{"producer", 1, {"push"}}, {"consumer", 2, {"pop"}}}, .executor = duet::fibers()},
      {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("fiber_roles_report.txt", mask(r.report));
  expect_golden("fiber_roles_draft.cpp", read(r.draft_path));
}

// A signature-only description's failure on fibers: its draft is a scenario of duet::call's,
// checked against duet_lin() (the user's description), replaying the failing schedule.
TEST(Golden, LinFiberScenarioDraft) {
  const duet::CheckResult r =
      duet::check_parallel(scenario_subjects::counter_lin<true>(), {.executor = duet::fibers(duet::pct(3))},
                           {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("lin_lost_update_draft.cpp", read(r.draft_path));
}

// The same through duet::Api: the draft checks duet_api()'s scenario, a live value by its name.
TEST(Golden, ApiFiberScenarioDraft) {
  const duet::CheckResult r = scenario_subjects::counter_api<true>().check_parallel(
      {.executor = duet::fibers(duet::pct(3))}, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("api_lost_update_draft.cpp", read(r.draft_path));
}

// A hand-written scenario's failure: the program as written, with the schedule shrunk and the
// note that the calls were not.
TEST(Golden, ScenarioReport) {
  const duet::Scenario<fiber_subjects::CounterSpec<true>::Cmd> incrs{
      .prefix = {fiber_subjects::Get{}},
      .branches = {{fiber_subjects::Incr{}, fiber_subjects::Get{}}, {fiber_subjects::Incr{}}}};
  const duet::CheckResult r = duet::check_scenario<fiber_subjects::CounterSpec<true>>(
      incrs, {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("scenario_lost_update_report.txt", mask(r.report));
}

// A replay's report reads as the run that recorded the token (1 program, 1 trial), with one line
// of the replay's own: how it ended, on which trial.
TEST(Golden, ReplayedReportSaysHowTheReplayEnded) {
  const duet::ParallelConfig fibers{.executor = duet::fibers()};
  const duet::CheckResult found =
      duet::check_parallel<fiber_subjects::CounterSpec<true>>(fibers, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(found.passed());
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::CounterSpec<true>>(
      fibers, {.replay = found.replay_token, .output_dir = "duet-output/golden"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("replayed_fiber_lost_update_report.txt", mask(r.report));
}

TEST(Golden, FiberDeadlockReport) {
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::AccountsSpec>(
      {.executor = duet::fibers()}, {.seed = 3, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("fiber_deadlock_report.txt", mask(r.report));
  expect_golden("fiber_deadlock_draft.cpp", read(r.draft_path));
}

// Progress guarantees (duet/progress.hpp): the guarantee, where the suspended fiber stopped and
// what the others did. Lock-freedom: Vyukov's queue, whose pop spins on a cell a suspended
// producer has claimed but not filled (the loads that only a suspended fiber can change);
// obstruction-freedom: a queue behind a mutex, whose call run alone blocks on the lock a
// suspended fiber holds. No draft: duet::run_fibers does not suspend fibers.
TEST(Golden, FiberLockFreedomReport) {
  using progress_subjects::VyukovQueue;
  const auto lin = duet::Lin<VyukovQueue>("VyukovQueue", "q")
                       .op(
                           "push", [](VyukovQueue& q, int x) { return q.push(x); }, duet::integers(0, 9))
                       .op("pop", [](VyukovQueue& q) { return q.pop(); });
  const duet::CheckResult r = duet::check_parallel(lin, {.executor = duet::fibers(), .progress = duet::lock_free(16)},
                                                   {.seed = 2, .output_dir = "duet-output/golden"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("fiber_lock_freedom_report.txt", mask(r.report));
}

TEST(Golden, FiberObstructionFreedomReport) {
  using Spec = duet::models::Queue<progress_subjects::MutexQueueBinding>;
  const duet::CheckResult r = duet::check_parallel<Spec>({.executor = duet::fibers(), .progress = duet::obstruction_free()},
                                                         {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  expect_golden("fiber_obstruction_freedom_report.txt", mask(r.report));
}

// A replay that runs differently from the failing run: no counterexample, and where it diverged.
TEST(Golden, FiberNondeterministicReport) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  fiber_subjects::moody_calls() = 0;
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::MoodyCounterSpec>(
      {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  expect_golden("fiber_nondeterministic_report.txt", mask(r.report));
}

// On threads the draft runs the program until the unexplained results come back. A bug that
// does not depend on the interleaving, so that the compiled draft fails every time.
TEST(Golden, ThreadsDraft) {
  duet::ParallelConfig pc;
  pc.branch_length = 2;
  const duet::CheckResult r =
      duet::check_parallel<fiber_subjects::OffByOneSpec>(pc, {.seed = 1, .output_dir = "duet-output/golden"});
  ASSERT_FALSE(r.passed());
  expect_golden("threads_off_by_one_draft.cpp", mask_threads_token(read(r.draft_path)));
}

// Crash injection: the crash's line under the interrupted command with the async steps that led
// to it, the failing step's judgement against every world the crash may have left, and why
// there is no draft test.
TEST(Golden, CrashReport) {
  const duet::CheckResult r = duet::check_sequential<kv::Spec<kv::Bug::directory_before_data>>(
      {.seed = 1, .output_dir = "duet-output/golden", .name = "kv"});
  ASSERT_FALSE(r);
  expect_golden("crash_report.txt", mask(r.report));
}

TEST(Golden, ApiCrashReport) {
  const duet::CheckResult r =
      kv::api<kv::Bug::directory_before_data>().check({.seed = 1, .output_dir = "duet-output/golden", .name = "kv_api"});
  ASSERT_FALSE(r);
  expect_golden("api_crash_report.txt", mask(r.report));
}

// A run that can never finish names what every fiber waits on, and where.
TEST(Golden, StarvedReport) {
  auto root = []() -> duet::task<int> {
    duet::channel<int> requests(1);
    duet::promise<int> reply;
    auto server = duet::spawn([&]() -> duet::task<void> {
      while (auto r = co_await requests.receive()) co_await duet::sleep_for(std::chrono::milliseconds(*r));
    });
    co_await requests.send(5);
    co_return co_await reply.get_future();  // nobody sets the reply
  };
  try {
    duet::run(root(), {.seed = 1});
    FAIL() << "no starved report";
  } catch (const duet::starved& e) {
    expect_golden("starved_report.txt",
                  std::regex_replace(e.what(), std::regex("report_golden_test\\.cpp:[0-9]+"), "report_golden_test.cpp:#"));
  }
}

// A check on threads whose branches never ran at once: inconclusive, with why and what to do.
// The branches are forced onto one CPU; the overlap figure is masked (a preemption inside a call
// may make it 0.02% instead of 0%).
TEST(Golden, InconclusiveReport) {
  cpu_set_t saved, one;
  CPU_ZERO(&saved);
  CPU_ZERO(&one);
  pthread_getaffinity_np(pthread_self(), sizeof saved, &saved);
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &saved)) {
      CPU_SET(c, &one);
      break;
    }
  pthread_setaffinity_np(pthread_self(), sizeof one, &one);
  const duet::CheckResult r = duet::check_parallel<duet::models::Counter<duet::models::AtomicCounter>>(
      {}, {.seed = 1, .count = 300, .name = "Counter"});
  pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
  ASSERT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  expect_golden("inconclusive_report.txt",
                std::regex_replace(r.report, std::regex("[0-9.]+% with overlapping"), "#% with overlapping"));
}

// A failure on threads that does not come back when replayed: not shrunk, and the report says how
// many replays and trials tried. The subject errs once in the process, on the calling thread
// (the prefix and branch 0 run there in a fixed order), so the first-seen case is deterministic.
inline std::thread::id glitch_thread;
inline int glitch_calls = 0;
struct Glitchy {
  int get() { return std::this_thread::get_id() == glitch_thread && ++glitch_calls == 40 ? 1 : 0; }
};
struct Get0 {};
inline std::string duet_show(const Get0&) { return "get()"; }
struct GlitchySpec {
  using Sut = Glitchy;
  using State = int;
  using Cmd = Get0;
  static constexpr const char* sut_name = "g";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Get0{}); }
  static duet::Result run(const Cmd&, Sut& s) { return s.get(); }
  static duet::Result expected(const Cmd&, const State&) { return 0; }
  static void next(const Cmd&, State&) {}
};

// A failure on threads searched again on fibers (DUET_FIBER_SEARCH): the section the report adds,
// with the fiber report, its draft and its replay line under DUET_EXECUTOR. A state-machine spec
// whose bug does not depend on the interleaving, so that the threads part shrinks the same way
// on every machine.
TEST(Golden, ThreadsFailureSearchedOnFibersReport) {
  duet::ParallelConfig pc;
  pc.branch_length = 2;
  const duet::CheckResult r = duet::check_parallel<fiber_subjects::OffByOneSpec>(
      pc, {.seed = 1, .output_dir = "duet-output/golden", .name = "OffByOneOnThreads"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const std::size_t section = r.report.find("\n  on fibers:");
  ASSERT_NE(section, std::string::npos) << r.report;
  expect_golden("threads_searched_on_fibers_report.txt", mask(r.report.substr(section)));
}

TEST(Golden, ThreadsFailureThatDoesNotRecurIsShownUnshrunk) {
  glitch_thread = std::this_thread::get_id();
  glitch_calls = 0;
  const duet::CheckResult r = duet::check_parallel<GlitchySpec>(
      {}, {.seed = 1, .count = 100, .output_dir = "duet-output/golden", .name = "Glitchy"});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_EQ(r.shrink_end, duet::CheckResult::ShrinkEnd::not_reproduced);
  // The header states the overlap; its share and the CPUs it saw depend on the machine.
  std::string shown = std::regex_replace(mask(r.report), std::regex("[0-9.]+% with overlapping"), "#% with overlapping");
  // The program is replayed for a time, not a number of times: at least 20, at least a second.
  const std::regex replays("did not come back in ([0-9]+) replays of the case \\(([0-9]+) trials in #.## s\\)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(shown, m, replays)) << r.report;
  EXPECT_GE(std::stoi(m[1]), 20) << r.report;
  EXPECT_GE(std::stoull(m[2]), 400U) << r.report;
  shown = std::regex_replace(shown, replays, "did not come back in # replays of the case (# trials in #.## s)");
  expect_golden("threads_not_reproduced_report.txt",
                mask_threads_token(std::regex_replace(shown, std::regex("branches on [0-9]+ CPUs?"), "branches on # CPUs")));
}

// States in reports (a spec's show_state and show_sut, Lin::state, Api::state): the state
// before the first step and after each, and along the closest sequential witness of a parallel
// failure, with the subject where the failing run ended.
struct ShownRingBufferSpec : ring::BuggyRingBufferSpec {
  static std::string show_state(const State& s) { return duet::show(s); }
};

TEST(Golden, StateMachineStateReport) {
  const duet::CheckResult r = duet::check_sequential<ShownRingBufferSpec>(
      {.seed = 1, .output_dir = "duet-output/golden_state", .name = "BuggyRingBuffer"});
  ASSERT_FALSE(r);
  expect_golden("state_machine_state_report.txt", mask(r.report));
}

struct ShownCounterSpec : fiber_subjects::CounterSpec<true> {
  static std::string show_state(const State& n) { return std::to_string(n); }
  static std::string show_sut(const Sut& c) { return "value " + std::to_string(c.get()); }
};

TEST(Golden, StateMachineParallelStateReport) {
  const duet::CheckResult r = duet::check_parallel<ShownCounterSpec>(
      {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/golden_state", .name = "Counter"});
  ASSERT_FALSE(r.passed());
  expect_golden("state_machine_parallel_state_report.txt", mask(r.report));
}

duet::Lin<draft_subjects::CappedStack> shown_capped_stack() {
  return duet::Lin<draft_subjects::CappedStack>("CappedStack", "s")
      .op(
          "push", [](draft_subjects::CappedStack& s, int x) { s.push(x); }, duet::integers(1, 3))
      .op("top", [](draft_subjects::CappedStack& s) { return s.top(); })
      .invariant([](const draft_subjects::CappedStack& s) { return s.size() <= draft_subjects::CappedStack::kCapacity; })
      .state([](const draft_subjects::CappedStack& s) { return duet::show(s.items()); });
}

TEST(Golden, LinStateReport) {
  const duet::CheckResult r = shown_capped_stack().check_stress({.seed = 1, .output_dir = "duet-output/golden_state"});
  ASSERT_FALSE(r);
  expect_golden("lin_state_report.txt", mask(r.report));
}

TEST(Golden, LinParallelStateReport) {
  using Counter = fiber_subjects::Counter<true>;
  const auto lin = duet::Lin<Counter>("Counter", "c")
                       .op("incr", [](Counter& c) { return c.incr(); })
                       .op("get", [](Counter& c) { return c.get(); })
                       .state([](const Counter& c) { return "value " + std::to_string(c.get()); });
  const duet::CheckResult r =
      duet::check_parallel(lin, {.executor = duet::fibers()}, {.seed = 1, .output_dir = "duet-output/golden_state"});
  ASSERT_FALSE(r.passed());
  expect_golden("lin_parallel_state_report.txt", mask(r.report));
}

// Ed's persistent arrays, the reference's values printed after each step.
TEST(Golden, ApiStateReport) {
  using namespace persistent;
  duet::Api api("PersistentArray");
  auto array = api.abstract<ref::Array, ed::Array>("a");
  auto index = [](const ref::Array& a) { return duet::integers(0, ref::length(a) - 1); };
  auto nonempty = [](const ref::Array& a) { return !a.empty(); };
  api.op("make", duet::args(duet::integers(0, 15), duet::sequential()), array, ref::make, ed::make);
  api.op("get", duet::args(array.where(nonempty), index), duet::value<std::int64_t>(), ref::get, ed::get);
  api.op("set", duet::args(array.where(nonempty), index, duet::sequential()), array, ref::set, ed::set);
  api.state(array, [](const ref::Array& a) { return duet::show(a); });
  const duet::CheckResult r = api.check({.seed = 1, .output_dir = "duet-output/golden_state"});
  ASSERT_FALSE(r);
  expect_golden("api_state_report.txt", mask(r.report));
}

}  // namespace
