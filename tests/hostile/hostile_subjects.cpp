// Candidates and models that end the process or exhaust memory in the middle of a case. Not a
// test suite of its own: tests/hostile/hostile_test.cpp runs each test here in a child process
// and checks that it fails the way duet says (a candidate calling exit(0) must not pass).
#include <duet/gtest.hpp>
#include <duet/parallel.hpp>
#include <duet/sync.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include <atomic>
#include <cstdlib>
#include <new>
#include <thread>
#include <variant>

#include "support/crashing_subjects.hpp"
#include "support/fiber_crashes.hpp"

// ---- memory that runs out: while a "hog" lives, every allocation fails, as when a candidate
// has taken all the memory there is (duet's own allocations fail too, until the case unwinds).
namespace {
std::atomic<int> hogs{0};
}
// Every unaligned form is replaced, so that each allocation and its release use one allocator
// (AddressSanitizer checks the pairing).
namespace {
void* allocate(std::size_t n) noexcept {
  if (hogs.load(std::memory_order_relaxed) > 0) return nullptr;
  return std::malloc(n ? n : 1);
}
}  // namespace
void* operator new(std::size_t n) {
  if (void* p = allocate(n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept { return allocate(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }

namespace hostile {

// ---- a counter whose candidate (or model) misbehaves on its third call
enum class Misbehaviour {
  none,
  candidate_exits,
  candidate_quick_exits,
  model_exits,
  candidate_hogs_memory,
  candidate_forks,            // its child returns from the call, as the parent does
  candidate_forks_and_execs,  // its child runs `true`
  candidate_forks_and_exits,  // its child calls _exit(0)
};
Misbehaviour misbehaviour = Misbehaviour::none;

// ---- a candidate that forks: once per process (a child that goes on inherits `forked` and never
// forks again: a test of a fork bomb must not be one). The parent waits for its child, so that
// the child has ended, one way or another, before the call returns.
bool forked = false;
int forked_child_status = -1;  // its exit status, in the process that forked it

void fork_once() {
  if (forked) return;
  forked = true;
  const pid_t child = ::fork();
  if (child == 0) {
    if (misbehaviour == Misbehaviour::candidate_forks_and_execs) {
      ::execlp("true", "true", static_cast<char*>(nullptr));
      ::_exit(127);
    }
    if (misbehaviour == Misbehaviour::candidate_forks_and_exits) ::_exit(0);
    return;
  }
  int status = 0;
  if (child > 0 && ::waitpid(child, &status, 0) == child && WIFEXITED(status)) forked_child_status = WEXITSTATUS(status);
}
bool forks() {
  return misbehaviour == Misbehaviour::candidate_forks || misbehaviour == Misbehaviour::candidate_forks_and_execs ||
         misbehaviour == Misbehaviour::candidate_forks_and_exits;
}

struct Hog {
  Hog() { ++hogs; }
  ~Hog() { --hogs; }
  Hog(const Hog&) = delete;
  Hog& operator=(const Hog&) = delete;
};

struct Counter {
  long n = 0;
  int calls = 0;
  std::unique_ptr<Hog> hog;
  // The process is ending under the call: duet must report it, never destroy the candidate
  // first (a destructor that cannot run then, as a joinable thread's, would end the report).
  bool exiting = false;
  Counter() = default;
  Counter(const Counter&) = delete;
  Counter& operator=(const Counter&) = delete;
  ~Counter() {
    if (exiting) std::abort();
  }
};
struct Incr {};
struct Get {};
std::string duet_show(const Incr&) { return "incr()"; }
std::string duet_show(const Get&) { return "get()"; }

struct CounterSpec {
  using Sut = Counter;
  using State = long;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(Incr{})), duet::just(Cmd(Get{}))); }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (++s.calls == 3) {
      s.exiting = misbehaviour == Misbehaviour::candidate_exits;
      if (misbehaviour == Misbehaviour::candidate_exits) std::exit(0);
      if (misbehaviour == Misbehaviour::candidate_quick_exits) std::quick_exit(0);
      if (misbehaviour == Misbehaviour::candidate_hogs_memory) {
        s.hog = std::make_unique<Hog>();
        throw std::bad_alloc();  // what the candidate's next allocation would throw
      }
      if (forks()) fork_once();
    }
    if (std::holds_alternative<Incr>(c)) {
      ++s.n;
      return {};
    }
    return s.n;
  }
  static duet::Result expected(const Cmd& c, const State& s) {
    static int calls = 0;
    if (misbehaviour == Misbehaviour::model_exits && ++calls == 3) std::exit(0);
    if (std::holds_alternative<Incr>(c)) return {};
    return s;
  }
  static void next(const Cmd& c, State& s) {
    if (std::holds_alternative<Incr>(c)) ++s;
  }
};

}  // namespace hostile

namespace {
using namespace hostile;

TEST(Hostile, SequentialCandidateExits) {
  misbehaviour = Misbehaviour::candidate_exits;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
}

TEST(Hostile, SequentialCandidateQuickExits) {
  misbehaviour = Misbehaviour::candidate_quick_exits;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
}

TEST(Hostile, ModelExits) {
  misbehaviour = Misbehaviour::model_exits;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
}

TEST(Hostile, CandidateRunsOutOfMemory) {
  misbehaviour = Misbehaviour::candidate_hogs_memory;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
}

// The child returns into the check: duet ends it there, with status 5.
TEST(Hostile, SequentialCandidateForks) {
  misbehaviour = Misbehaviour::candidate_forks;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
  EXPECT_EQ(forked_child_status, 5);
}

TEST(Hostile, SequentialCandidateForksAndExecs) {
  misbehaviour = Misbehaviour::candidate_forks_and_execs;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
  EXPECT_EQ(forked_child_status, 0);
}

TEST(Hostile, SequentialCandidateForksAndExits) {
  misbehaviour = Misbehaviour::candidate_forks_and_exits;
  EXPECT_TRUE(duet::check_sequential<CounterSpec>());
  EXPECT_EQ(forked_child_status, 0);
}

// ---- a check run before main, by a static initialiser, when HOSTILE_CHECK_BEFORE_MAIN is set
// (this file's initialisers run before the library's)
struct CheckBeforeMain {
  CheckBeforeMain() {
    if (!std::getenv("HOSTILE_CHECK_BEFORE_MAIN")) return;
    duet::Config c;
    c.seed = 1;
    c.count = 20;
    const duet::CheckResult r = duet::check_sequential<CounterSpec>(c);
    std::printf("check before main: %s, %llu cases\n", r.passed() ? "passed" : r.report.c_str(),
                static_cast<unsigned long long>(r.cases));
    std::fflush(stdout);
  }
} check_before_main;

// ---- the reference-vs-candidate front end: the candidate's get exits on a box holding 7. What
// decides the exit is in the case itself, so that the case's token ends the process again (a
// count of calls across cases would exit in a case whose replay alone does not).
long ref_get(const long& v) { return v; }
long exiting_get(const long& v) {
  if (v == 7) std::exit(0);
  return v;
}

TEST(Hostile, ApiCandidateExits) {
  duet::Api api("Box");
  auto box = api.abstract<long, long>("b");
  api.op(
      "make", duet::args(duet::integers(0, 9)), box, [](int x) -> long { return x; }, [](int x) -> long { return x; });
  api.op("get", duet::args(box), duet::value<long>(), ref_get, exiting_get);
  EXPECT_TRUE(api.check());
}

// ---- the parallel runner: a branch on a worker thread exits (never the test's own thread)
std::thread::id test_thread;
std::atomic<int> worker_calls{0};

TEST(Hostile, ParallelBranchExits) {
  test_thread = std::this_thread::get_id();
  auto lin = duet::Lin<std::atomic<long>>("ExitingCounter", "c")
                 .op("incr",
                     [](std::atomic<long>& c) {
                       if (std::this_thread::get_id() != test_thread && ++worker_calls == 3) std::exit(0);
                       c.fetch_add(1);
                     })
                 .op("get", [](std::atomic<long>& c) { return c.load(); });
  EXPECT_TRUE(duet::check_parallel(lin));
}

// ---- a branch call that forks, once: on threads and on fibers
struct ForkingCounter {
  duet::atomic<long> n{0};
};

duet::Lin<ForkingCounter> forking_counter() {
  misbehaviour = Misbehaviour::candidate_forks;
  return duet::Lin<ForkingCounter>("ForkingCounter", "c")
      .op("incr",
          [](ForkingCounter& c) {
            if (c.n.fetch_add(1) == 1) fork_once();
          })
      .op("get", [](ForkingCounter& c) { return c.n.load(); });
}

TEST(Hostile, ParallelBranchForks) { EXPECT_TRUE(duet::check_parallel(forking_counter())); }

TEST(Hostile, FiberBranchForks) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  EXPECT_TRUE(duet::check_parallel(forking_counter(), pc));
}

// ---- a hang and a crash on threads, at default settings: a shrunk report, never the process
// ending (tests/hostile/hostile_parallel_test.cpp). The report goes to stdout, for the test.
void print_report(const duet::CheckResult& r) {
  std::fputs(r.report.c_str(), stdout);
  std::fflush(stdout);
}

TEST(Hostile, TicketLockSpinsForever) {
  const duet::CheckResult r = duet::check_parallel(crashing::ticket_lock_counter());
  print_report(r);
  EXPECT_TRUE(r);
}

TEST(Hostile, TwoOwnerDequeCrashes) {
  const duet::CheckResult r = duet::expect_unsafe(crashing::two_owner_deque());
  print_report(r);
  EXPECT_TRUE(r);
}

// ---- a double free on a fiber, in one interleaving, in process: the crash report shows the
// crashing fiber's stack (tests/hostile/hostile_test.cpp)
TEST(Hostile, FiberDoubleFree) {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  duet::Config c;
  c.seed = 1;
  EXPECT_TRUE(duet::check_parallel(fiber_crashes::slot_spec(), pc, c));
}

// ---- isolated on purpose: a candidate that closes every descriptor, then blocks
TEST(Hostile, ClosingServiceBlocks) {
  duet::Config c;
  c.isolate = true;
  c.case_timeout = 0.2;
  c.seed = 1;
  const duet::CheckResult r = duet::check_sequential<crashing::ClosingServiceSpec>(c);
  print_report(r);
  EXPECT_TRUE(r);
}

}  // namespace
