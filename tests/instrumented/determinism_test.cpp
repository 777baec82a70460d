// A fiber trial repeats exactly: random numbers, calendar time and clocks are a function of the
// trial (so a failure's replay computes what the failing run computed, and is no
// "nondeterministic" error), a library's globals are reset by FiberOptions::before_each_run, and
// the process's own rand() state is left as it was. Each subject below loses updates (a load and
// a store), and decides a detour from what it reads besides its memory.
#include <duet/detail/fiber_hooks.hpp>
#include <duet/executor.hpp>
#include <duet/lin.hpp>
#include <duet/parallel.hpp>

#include <gtest/gtest.h>

#include "engine/failure_report.hpp"
#include "support/emulation.hpp"
#include "support/outside_the_process.hpp"
#include "instrumented/checks.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>
#include <fcntl.h>
#include <sched.h>
#include <sys/wait.h>
#include <sys/random.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <unistd.h>

namespace {

using instrumented_test::on_fibers;
using instrumented_test::seeded;

bool has(const std::string& report, const std::string& what) { return report.find(what) != std::string::npos; }

// A lost update, after an extra step taken or not as `decide` says.
template <class Decide>
struct Detour {
  std::atomic<int> n{0};
  std::atomic<int> detours{0};
  Decide decide;
  int incr() {
    if (decide()) detours.fetch_add(1);
    const int v = n.load();
    n.store(v + 1);
    return v + 1;
  }
};

struct ByRand {
  bool operator()() const { return (std::rand() & 1) != 0; }
};
struct ByRandom {
  bool operator()() const { return (random() & 1) != 0; }
};
struct ByDrand48 {
  bool operator()() const { return drand48() < 0.5; }
};
struct ByRandomDevice {
  std::random_device device;  // made outside the run, drawn in it
  bool operator()() { return (device() & 1) != 0; }
};
struct ByGetrandom {
  bool operator()() const {
    unsigned char b = 0;
    return getrandom(&b, 1, 0) == 1 && (b & 1) != 0;
  }
};
// RocksDB reads a UUID from the kernel for every database it opens (std::ifstream), and a
// library may read /dev/urandom itself (open and read).
struct ByKernelUuid {
  bool operator()() const {
    std::ifstream f("/proc/sys/kernel/random/uuid");
    std::string uuid;
    std::getline(f, uuid);
    return !uuid.empty() && (std::stoul(uuid.substr(0, 8), nullptr, 16) & 1) != 0;
  }
};
struct ByUrandom {
  bool operator()() const {
    const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    unsigned char b = 0;
    const bool read_one = fd >= 0 && read(fd, &b, 1) == 1;
    if (fd >= 0) close(fd);
    return read_one && (b & 1) != 0;
  }
};
struct ByGettimeofday {
  bool operator()() const {
    timeval tv{};
    gettimeofday(&tv, nullptr);
    return (tv.tv_usec / 7 & 1) != 0;
  }
};
template <class Decide>
duet::Lin<Detour<Decide>> detour_spec() {
  return duet::Lin<Detour<Decide>>("detour", "c").op("incr", [](Detour<Decide>& c) { return c.incr(); });
}

// The lost update is found, shrunk and replayed on every seed: no "nondeterministic" error.
template <class Decide>
void found_and_replayed() {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    const duet::CheckResult r = duet::expect_unsafe(detour_spec<Decide>(), on_fibers(), seeded(seed));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
    EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  }
}

TEST(Determinism, RandDecidesAndTheFailureReplays) { found_and_replayed<ByRand>(); }
TEST(Determinism, RandomDecidesAndTheFailureReplays) { found_and_replayed<ByRandom>(); }
TEST(Determinism, Drand48DecidesAndTheFailureReplays) { found_and_replayed<ByDrand48>(); }
TEST(Determinism, RandomDeviceDecidesAndTheFailureReplays) { found_and_replayed<ByRandomDevice>(); }
TEST(Determinism, GetrandomDecidesAndTheFailureReplays) { found_and_replayed<ByGetrandom>(); }
TEST(Determinism, GettimeofdayDecidesAndTheFailureReplays) { found_and_replayed<ByGettimeofday>(); }
TEST(Determinism, TheKernelsUuidFileDecidesAndTheFailureReplays) { found_and_replayed<ByKernelUuid>(); }
TEST(Determinism, UrandomDecidesAndTheFailureReplays) { found_and_replayed<ByUrandom>(); }

// Outside a trial the kernel's files are the kernel's: two UUIDs differ.
TEST(Determinism, TheKernelsUuidFileOutsideATrialIsTheKernels) {
  const auto uuid = [] {
    std::ifstream f("/proc/sys/kernel/random/uuid");
    std::string u;
    std::getline(f, u);
    return u;
  };
  const std::string a = uuid(), b = uuid();
  if (a.empty()) GTEST_SKIP() << "this system has no /proc/sys/kernel/random/uuid";
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 36U) << a;
}

TEST(Determinism, TheSameRunGivesTheSameNumbers) {
  auto draw = [] {
    unsigned values[4] = {};
    std::random_device device;
    const duet::FiberRun run = duet::run_fibers({[&] {
                                                  values[0] = static_cast<unsigned>(std::rand());
                                                  values[1] = device();
                                                  values[2] = static_cast<unsigned>(lrand48());
                                                  values[3] = static_cast<unsigned>(std::time(nullptr));
                                                }},
                                                "");
    EXPECT_TRUE(run.completed) << run.failure;
    return std::to_string(values[0]) + " " + std::to_string(values[1]) + " " + std::to_string(values[2]) + " " +
           std::to_string(values[3]);
  };
  const std::string first = draw();
  std::srand(12345);  // the process's state is not the runs'
  EXPECT_EQ(draw(), first);
  // Calendar time in a run is virtual: 2026-01-01T00:00:00Z at the run's start.
  EXPECT_TRUE(first.ends_with(" 1767225600")) << first;
}

// Virtual time starts over with every run: a replay reads the clocks the run it replays read.
// duet replays a failure beside an uninstrumented library in processes forked from the test's
// (engine/clean_child.hpp); a library that mixes the process id into its choices (RocksDB's
// session ids) must see the same id there. A trial sees the test process's id in a forked
// child too, and the fiber's number as its CPU.
TEST(Determinism, ATrialSeesTheTestProcesssIdInAForkedChild) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  const pid_t test_pid = getpid();
  int cpu_of_fiber_1 = -1;
  const duet::FiberRun here = duet::run_fibers({[] {}, [&] { cpu_of_fiber_1 = sched_getcpu(); }}, "");
  ASSERT_TRUE(here.completed) << here.failure;
  EXPECT_EQ(cpu_of_fiber_1, 1 % get_nprocs_conf());
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    pid_t in_trial = 0;
    const duet::FiberRun run = duet::run_fibers({[&] { in_trial = getpid(); }}, "");
    std::_Exit(run.completed && in_trial == test_pid && getpid() != test_pid ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "status " << status;
}

TEST(Determinism, EveryRunStartsAtTheSameInstant) {
  auto clock_after_a_sleep = [] {
    std::int64_t ms = 0;
    const duet::FiberRun run = duet::run_fibers(
        {[&] {
          std::this_thread::sleep_for(std::chrono::milliseconds(5));
          ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
                   .count();
        }},
        "");
    EXPECT_TRUE(run.completed) << run.failure;
    return ms;
  };
  const std::int64_t first = clock_after_a_sleep();
  EXPECT_EQ(clock_after_a_sleep(), first);
  EXPECT_EQ(first, 1'000'005);  // the monotonic clocks start at 1000 s
}

// A fiber's CPU is below the count of configured CPUs, as the kernel's answer always is: a library
// indexes that many per-CPU slots with it, and fibers outnumber the CPUs of a small machine.
// A trial runs on a machine of four CPUs, whatever the machine: a library sizing its pool by the
// count starts as many threads wherever a token is replayed. Each fiber's CPU is below that
// count and the machine's; outside the trial the machine's count is back.
TEST(Determinism, ATrialSeesFourCpusAndEveryFibersCpuIsBelowThem) {
  const int machine = get_nprocs_conf();
  constexpr int kFibers = 12;
  std::array<int, kFibers> cpus{};
  std::array<long, 6> counts{};
  bool pinned = false;
  std::vector<std::function<void()>> fibers;
  fibers.push_back([&counts, &pinned] {
    cpu_set_t set;
    CPU_ZERO(&set);
    counts = {static_cast<long>(std::thread::hardware_concurrency()),
              get_nprocs(),
              get_nprocs_conf(),
              sysconf(_SC_NPROCESSORS_ONLN),
              sysconf(_SC_NPROCESSORS_CONF),
              sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : -1};
    CPU_ZERO(&set);
    CPU_SET(3, &set);
    pinned = pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
  });
  for (int i = 1; i < kFibers; ++i) fibers.push_back([&cpus, i] { cpus[static_cast<std::size_t>(i)] = sched_getcpu(); });
  const duet::FiberRun run = duet::run_fibers(fibers, "");
  ASSERT_TRUE(run.completed) << run.failure;
  for (std::size_t k = 0; k < counts.size(); ++k) EXPECT_EQ(counts[k], 4) << "count " << k;
  EXPECT_TRUE(pinned);
  for (int i = 1; i < kFibers; ++i) EXPECT_EQ(cpus[static_cast<std::size_t>(i)], i % std::min(machine, 4)) << "fiber " << i;
  EXPECT_EQ(static_cast<int>(std::thread::hardware_concurrency()), get_nprocs());
  EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), get_nprocs());
  cpu_set_t mine;
  ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
  EXPECT_GT(CPU_COUNT(&mine), 0);
}

// The C library's sleep() (whose nanosleep is the C library's own, not the interposed one) and
// usleep() sleep in virtual time too: ten seconds of them end at once.
TEST(Determinism, SleepAndUsleepTakeVirtualTime) {
  std::int64_t ms = 0;
  const auto start = std::chrono::steady_clock::now();
  const duet::FiberRun run = duet::run_fibers(
      {[&] {
        const auto before = std::chrono::steady_clock::now();
        sleep(9);
        usleep(1'000'000);
        ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - before).count();
      }},
      "");
  EXPECT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(ms, 10'000);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// A long sleep beside a fiber that spins with a short sleep per retry is waited for, not a
// livelock: 200 ms of 10 us retries are 60,000 steps, past the bound of 10,000 and its fair
// phase, so at the fair phase's end the clock jumps to the sleeper's deadline (fair_phase.cpp).
// Abseil's Mutex was reported livelocked so beside its cycle clock's calibration (1 ms, 2, ... 128).
// A spinner with no sleeper to wait for is still a livelock.
TEST(Determinism, ALongSleepBesideASpinnerThatSleepsIsWaitedFor) {
  for (const char* schedule : {"", "1", "1.0.1"}) {
    std::atomic<bool> done{false};
    const duet::FiberRun run = duet::run_fibers({[&] {
                                                   std::this_thread::sleep_for(std::chrono::milliseconds(200));
                                                   done = true;
                                                 },
                                                 [&] {
                                                   while (!done.load()) {
                                                     std::this_thread::yield();
                                                     std::this_thread::sleep_for(std::chrono::microseconds(10));
                                                   }
                                                 }},
                                                schedule);
    EXPECT_TRUE(run.completed) << schedule << "\n" << run.failure;
  }
  std::atomic<bool> never{false};
  const duet::FiberRun spin = duet::run_fibers({[&] {
                                                 while (!never.load())
                                                   std::this_thread::sleep_for(std::chrono::microseconds(10));
                                               }},
                                               "");
  EXPECT_FALSE(spin.completed);
  EXPECT_NE(spin.failure.find("livelock"), std::string::npos) << spin.failure;
}

TEST(Determinism, SrandInARunReseedsTheRunsGenerator) {
  int a = 0, b = 0, c = 0;
  ASSERT_TRUE(duet::run_fibers({[&] { std::srand(5), a = std::rand(); }}, "").completed);
  ASSERT_TRUE(duet::run_fibers({[&] { std::srand(5), b = std::rand(); }}, "").completed);
  ASSERT_TRUE(duet::run_fibers({[&] { std::srand(6), c = std::rand(); }}, "").completed);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
}

TEST(Determinism, RunsLeaveTheProcesssRandAsItWas) {
  std::srand(77);
  const int expected[2] = {std::rand(), std::rand()};
  std::srand(77);
  const int first = std::rand();
  // The runs draw rand() many times, before the check finds the lost update.
  EXPECT_TRUE(duet::expect_unsafe(detour_spec<ByRand>(), on_fibers(), seeded(1)).passed());
  ASSERT_TRUE(duet::run_fibers({[] { (void)std::rand(); }}, "").completed);
  EXPECT_EQ(first, expected[0]);
  EXPECT_EQ(std::rand(), expected[1]);
}

// ---- a library's global: reset by FiberOptions::before_each_run ----

// A global id counter, never reset by its library, and kept outside the process (a file's, a
// server's): a trial in a process of its own does not start it afresh either.
std::atomic<int>& g_next_ticket = duet_test::outside_the_process<std::atomic<int>>();

struct Tickets {
  std::atomic<int> n{0};
  std::atomic<int> last_ticket{0};
  int incr() {
    last_ticket.store(g_next_ticket.fetch_add(1));
    const int v = n.load();
    n.store(v + 1);
    return v + 1;
  }
};

duet::Lin<Tickets> tickets_spec() {
  return duet::Lin<Tickets>("tickets", "c").op("incr", [](Tickets& c) { return c.incr(); });
}

TEST(Determinism, AGlobalLeftByEarlierRunsIsNamedInTheNondeterminismReport) {
  const duet::CheckResult r = duet::expect_unsafe(tickets_spec(), on_fibers(), seeded(1));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "only the value read differs")) << r.report;
  EXPECT_TRUE(has(r.report, "FiberOptions::before_each_run")) << r.report;
}

TEST(Determinism, AGlobalResetBeforeEachRunReplays) {
  for (std::uint64_t seed = 1; seed <= 4; ++seed) {
    duet::ParallelConfig pc;
    pc.executor = duet::fibers(duet::random(), {.before_each_run = [] { g_next_ticket = 0; }});
    const duet::CheckResult r = duet::expect_unsafe(tickets_spec(), pc, seeded(seed));
    ASSERT_TRUE(r.passed()) << "seed " << seed << "\n" << r.report;
  }
}

// A library's statistics counter (libcds's per-thread-record counters, kept across runs in
// recycled records): it is updated by every call and read by nothing the run does. A replay
// reads other values there, and nothing else differs: the failure is a counterexample, and the
// report says which values differed.
std::atomic<long> g_calls_made{0};

struct CountedTickets {
  std::atomic<int> n{0};
  int incr() {
    g_calls_made.fetch_add(1);
    const int v = n.load();
    n.store(v + 1);
    return v + 1;
  }
};

TEST(Determinism, ACounterNothingReadsOnlyMakesTheReportNoteTheValues) {
  const auto spec = duet::Lin<CountedTickets>("counted_tickets", "c").op("incr", [](CountedTickets& c) { return c.incr(); });
  const duet::CheckResult r = duet::expect_unsafe(spec, on_fibers(), seeded(1));
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_FALSE(has(r.report, "nondeterministic")) << r.report;
  EXPECT_TRUE(has(r.report, "note: the replay read other values than the failing run at ")) << r.report;
  EXPECT_TRUE(has(r.report, "determinism_test.cpp")) << r.report;
}

TEST(Determinism, BeforeEachRunRunsBeforeEveryRunOutsideIt) {
  int calls = 0;
  bool inside = true;
  const duet::FiberOptions options{.before_each_run = [&] {
    ++calls;
    inside = duet::detail::fiber::current() != nullptr;
  }};
  ASSERT_TRUE(duet::run_fibers({[] {}}, "", options).completed);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(inside);
  duet::fibers(duet::random(), options)->run({[] {}, [] {}});
  EXPECT_EQ(calls, 2);
}

TEST(Determinism, ABeforeEachRunThatThrowsIsAnErrorOfTheCheck) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers(duet::random(), {.before_each_run = [] { throw std::runtime_error("no reset today"); }});
  const duet::CheckResult r = duet::check_parallel(tickets_spec(), pc, seeded(1, 5));
  EXPECT_EQ(r.status, duet::CheckResult::Status::error) << r.report;
  EXPECT_TRUE(has(r.report, "before_each_run threw: no reset today")) << r.report;
}

// ---- the nondeterminism report names the kind of thing that differs ----

std::string diverged(const std::string& first_line, const std::string& replay_line) {
  duet::detail::Trace a, b;
  a.interleaving = {"    0  f0  start", first_line};
  b.interleaving = {"    0  f0  start", replay_line};
  return duet::detail::divergence(a, "lost", b, duet::detail::CaseOutcome{});
}

TEST(DeterminismReport, NamesAValueReadAsStateThatOutlivedARun) {
  const std::string d = diverged("    1  f1  rmw                        atomic#2               5 -> 6         t.hpp:9",
                                 "    1  f1  rmw                        atomic#2               9 -> 10        t.hpp:9");
  EXPECT_EQ(d, "the replay diverged at step 1 (expected `f1 rmw atomic#2 5 -> 6 t.hpp:9`, got `f1 rmw atomic#2 9 -> 10 "
               "t.hpp:9`): only the value read differs: the memory held something else than in the first run, state "
               "that outlived an earlier run (a global or static, which FiberOptions::before_each_run can reset?)");
}

TEST(DeterminismReport, NamesAValueWrittenAsComingFromOutsideTheRun) {
  const std::string d = diverged("    1  f0  store                      atomic#0               := 41          t.hpp:9",
                                 "    1  f0  store                      atomic#0               := 7           t.hpp:9");
  EXPECT_TRUE(d.ends_with(": only the value written differs, with everything read before it the same: it came from "
                          "outside the run's memory (a clock, a random number, an address, or a global an earlier run "
                          "left?)"))
      << d;
}

TEST(DeterminismReport, NamesAnotherObjectAsAnAddress) {
  const std::string d = diverged("    1  f0  load                       atomic#1               = 0            t.hpp:9",
                                 "    1  f0  load                       atomic#4               = 0            t.hpp:9");
  EXPECT_TRUE(d.ends_with("): the same step reached another object, so which object it reached came from an address "
                          "(a hash of a pointer or a thread id, memory an earlier run freed?)"))
      << d;
}

TEST(DeterminismReport, NamesADurationAsAClock) {
  const std::string d = diverged("    1  f0  sleep                                             := 3ms         t.hpp:9",
                                 "    1  f0  sleep                                             := 5ms         t.hpp:9");
  EXPECT_TRUE(d.ends_with("): only a duration differs: a clock duet's virtual time does not cover?")) << d;
}

TEST(DeterminismReport, SaysNoKindWhenTheStepsDifferOtherwise) {
  const std::string d = diverged("    1  f0  load                       atomic#1               = 0            t.hpp:9",
                                 "    1  f1  store                      atomic#1               := 0           t.hpp:12");
  EXPECT_EQ(
      d, "the replay diverged at step 1 (expected `f0 load atomic#1 = 0 t.hpp:9`, got `f1 store atomic#1 := 0 t.hpp:12`)");
  // Two kinds at once: no guess.
  EXPECT_TRUE(diverged("    1  f0  rmw  atomic#1  5 -> 6  t.hpp:9", "    1  f0  rmw  atomic#3  7 -> 6  t.hpp:9")
                  .ends_with("t.hpp:9`)"));
}

}  // namespace
