// Every example in the public headers' doc comments (a `///   code` line of include/duet/*.hpp
// or include/duet/testing/*.hpp), verbatim, in a context that makes it compile: docs that
// stop compiling fail the build. tests/unit/doc_examples_check.cmake (ctest
// Docs.EveryHeaderExampleIsCompiled) fails when a header gains an example line this file does
// not contain; whitespace may differ only in runs of spaces, and each example line is a whole
// line here.
//
// The types the examples name (QueueSpec, Ref::Array, KvHandle, Store, Harness, ...) are small
// but real. Examples with a cheap budget run; those that only need to compile (the unsafe
// checks on real threads, a racy std::vector, checks with the default time budget) sit in
// functions that are never called.
#include <duet/async.hpp>
#include <duet/fuzz.hpp>
#include <duet/gtest.hpp>
#include <duet/history.hpp>
#include <duet/history_model.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/queue.hpp>
#include <duet/models/spsc_ring.hpp>
#include <duet/models/treiber_stack.hpp>
#include <duet/sync.hpp>
#include <duet/testing/block_device.hpp>

#include <oneapi/tbb/concurrent_queue.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <shared_mutex>
#include <span>
#include <sstream>
#include <stdint.h>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "avl.hpp"                     // docs/examples: the AVL sets (AvlSet below)
#include "persistent_array.hpp"        // docs/examples: Ed's persistent arrays (fuzz.hpp)
#include "ring_buffer.hpp"             // docs/examples: the tutorial's ring buffer and its spec
#include "support/fiber_subjects.hpp"  // the counter on duet::atomic (CounterSpec, Counter)
#include "support/verdicts.hpp"
#include "support/emulation.hpp"

// ---- config.hpp ----

namespace own_main {
int main(int argc, char** argv);
}
// duet/config.hpp: a main() of one's own that reads duet's flags (a function named main outside
// the global namespace is an ordinary function; it is only compiled here). Declared first so
// that it has external linkage, as an unused main would.
namespace own_main {
int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  duet::parse_flags(&argc, argv);
  return RUN_ALL_TESTS();
}
}  // namespace own_main

// ---- state_machine.hpp: the libFuzzer entry point (nothing else in this binary defines it) ----

namespace {

// The mutex-guarded deque of duet's bindings, bound to its queue model.
using QueueSpec = duet::models::Queue<duet::models::MutexQueue>;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto r = duet::check_sequential_bytes<QueueSpec>({data, size});
  if (r.status != duet::CheckResult::Status::passed) { std::fputs(r.report.c_str(), stderr); std::abort(); }
  return 0;
}

namespace {

// ---- state_machine.hpp ----

using RingBufferSpec = ring::CorrectRingBufferSpec;

TEST(RingBuffer, AgreesWithDeque) {
  EXPECT_TRUE(duet::check_sequential<RingBufferSpec>({.count = 10000}));
}

TEST(DocExamples, FuzzerEntryPointRunsOneCase) {
  const std::array<std::uint8_t, 12> bytes{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8};
  EXPECT_EQ(LLVMFuzzerTestOneInput(bytes.data(), bytes.size()), 0);
}

/// A "counter" whose every read must give 3: the postcondition example.
struct Three {
  int read() const { return 3; }
};
struct Read {};
inline std::string duet_show(const Read&) { return "read()"; }
struct ThreeSpec {
  using Sut = Three;
  using State = int;
  using Cmd = std::variant<Read>;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Read{})); }
  static duet::Result run(const Cmd&, Sut& t) { return t.read(); }
  static duet::Verdict postcondition(const Cmd&, const State&, const duet::Result& r) {
    return r == duet::Result(3) ? duet::Verdict(true) : duet::Verdict::fail("expected 3");
  }
  static void next(const Cmd&, State&) {}
};

TEST(DocExamples, PostconditionVerdict) {
  EXPECT_TRUE(duet::check_sequential<ThreeSpec>({.count = 200}));
  const duet::Verdict bad = ThreeSpec::postcondition(Read{}, 0, duet::Result(4));
  EXPECT_FALSE(bad.ok);
  EXPECT_EQ(bad.why, "expected 3");
}

// The optional printers for reports: the model's state and the candidate.
struct ShownRingBufferSpec : ring::CorrectRingBufferSpec {
  static std::string show_state(const State& s) { return duet::show(s); }
  static std::string show_sut(const Sut& q) { return duet::show(q.size()); }
};

TEST(DocExamples, SpecPrintsItsState) {
  EXPECT_TRUE(duet::check_sequential<ShownRingBufferSpec>({.count = 200}));
  EXPECT_EQ(ShownRingBufferSpec::show_state({1, 2}), "std::deque<int>{1, 2}");
}

// ---- gen.hpp ----

struct Push {
  int x;
};

TEST(DocExamples, Construct) {
  const duet::Gen<Push> pushes =
      duet::construct<Push>(duet::small_int())
      ;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto a = duet::Source::from_seed(seed), b = duet::Source::from_seed(seed);
    EXPECT_EQ(pushes(a).x, duet::small_int()(b));  // the member drawn as the generator draws it
  }
}

// ---- result.hpp ----

TEST(DocExamples, Capture) {
  std::vector<int> v{1, 2, 3};
  duet::Result r = duet::capture([&] { return v.at(7); });   // "throws std::out_of_range(...)"
  ASSERT_TRUE(r.is_exception());
  EXPECT_EQ(r.exception_type(), "std::out_of_range");
}

// ---- executor.hpp ----

TEST(DocExamples, SchedulePrints) {
  std::ostringstream os;
  os << duet::exhaustive(1);   // "duet::exhaustive(1, 2)"
  EXPECT_EQ(os.str(), "duet::exhaustive(1, 2)");
}

// ---- lin.hpp ----

TEST(DocExamples, LinInvariant) {
  auto lin = duet::Lin<std::vector<int>>("vector", "v")
                 .invariant([](const std::vector<int>& v) { return v.size() <= v.capacity(); },
                            "v.size() <= v.capacity()")
                 .op("push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::small_int());
  EXPECT_TRUE(lin.check_stress({.count = 300}));
}

TEST(DocExamples, LinState) {
  auto lin = duet::Lin<std::vector<int>>("vector", "v")
                 .op("push_back", [](std::vector<int>& v, int x) { v.push_back(x); }, duet::small_int());
  lin.state([](const std::vector<int>& v) { return duet::show(v); });
  EXPECT_TRUE(lin.check_stress({.count = 300}));
}

// ---- source.hpp ----

TEST(DocExamples, ScopedDraws) {
  duet::Source s = duet::Source::from_seed(5);
  int calls = 0;
  for (;;) {
    if (s.draw(3, 1) == 0) break;   // stops a quarter of the time; enumerated: stop, go on
    ++calls;
  }
  const int x = static_cast<int>(s.draw_value(9));   // 0..9; enumerated: 0 and 1
  EXPECT_LE(x, 9);
  {
    const int x = static_cast<int>(s.draw_datum(9));   // 0..9; enumerated: 0, 1 (or 0 alone first)
    EXPECT_LE(x, 9);
  }
  EXPECT_GE(calls, 0);
}

// ---- parallel_config.hpp ----

TEST(DocExamples, EveryProgram) {
  duet::ParallelConfig pc{.branch_length = 3, .prefix_length = 1,
                          .executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                          .every_program = duet::EveryProgram{.values = 2}};
  pc.branch_length = 1;  // the example's scope takes minutes: one call per branch here
  EXPECT_TRUE(duet::check_parallel<duet::models::TreiberStackSpec<>>(pc));
  pc.every_program = duet::EveryProgram{.values = 3, .symmetric_values = true};
  EXPECT_TRUE(duet::check_parallel<duet::models::TreiberStackSpec<>>(pc));
}

// ---- parallel.hpp ----

duet::Lin<tbb::concurrent_queue<int>> tbb_queue_lin() {
  auto lin = duet::Lin<tbb::concurrent_queue<int>>("queue", "q")
      .op("push", [](tbb::concurrent_queue<int>& q, int x) { q.push(x); }, duet::small_int())
      .op("try_pop", [](tbb::concurrent_queue<int>& q) { int x = 0; return q.try_pop(x) ? std::optional<int>(x) : std::nullopt; });
  return lin;
}

// The default time budget (about a second each): compiled, not run; the same checks run below
// with a small budget.
[[maybe_unused]] void check_parallel_examples() {
  EXPECT_TRUE(duet::check_parallel<QueueSpec>({.branches = 3}));
  const auto lin = tbb_queue_lin();
  EXPECT_TRUE(duet::check_parallel(lin));
}

// Config::trace_steps = 0, every step of a fiber interleaving in a report (config.hpp): compiled,
// not run (tests/fibers/trace_steps_test.cpp runs it).
[[maybe_unused]] void trace_steps_example() {
  using Spec = QueueSpec;
  duet::check_parallel<Spec>({.executor = duet::fibers()}, {.trace_steps = 0});
}

// Config::timeline, a fiber failure's interleaving as an HTML page (config.hpp): compiled, not
// run (tests/report/fiber_timeline_test.cpp runs it).
[[maybe_unused]] void timeline_example() {
  using Spec = QueueSpec;
  duet::check_parallel<Spec>({.executor = duet::fibers()}, {.timeline = "duet-output"});
}

// Config::fiber_search, how long a failure on threads is searched for on fibers (config.hpp):
// compiled, not run (tests/engine/fiber_bridge_test.cpp runs the search).
[[maybe_unused]] void fiber_search_example() {
  using Spec = QueueSpec;
  EXPECT_TRUE(duet::check_parallel<Spec>({}, {.fiber_search = 10}));
}

// Config::jobs, a walk over every program on every core (config.hpp): compiled, not run
// (tests/fibers/walk_jobs_test.cpp runs walks in several processes).
[[maybe_unused]] void jobs_example() {
  using Spec = QueueSpec;
  const duet::ParallelConfig pc{.executor = duet::fibers(duet::exhaustive(duet::unbounded)),
                                .every_program = duet::EveryProgram{.values = 2}};
  duet::check_parallel<Spec>(pc, {.jobs = 0});  // every core
}

// Config::time_scale, the time limits multiplied (config.hpp): compiled, not run
// (tests/unit/hang_clock_test.cpp runs a scaled limit).
[[maybe_unused]] void time_scale_example() {
  using Spec = QueueSpec;
  duet::check_sequential<Spec>({.case_timeout = 2, .time_scale = 10});  // a 20 s limit
}

// Roles: a single-producer single-consumer ring, and a deque whose owner pushes and pops while
// thieves steal (a locked std::deque here: the roles are the example).
using SpscSpec = duet::models::BoundedQueue<duet::models::SpscRingBinding<>>;
struct LockedDeque {
  std::mutex m;
  std::deque<int> items;
  std::optional<int> take(bool back) {
    std::lock_guard lock(m);
    if (items.empty()) return std::nullopt;
    const int x = back ? items.back() : items.front();
    back ? items.pop_back() : items.pop_front();
    return x;
  }
};
[[maybe_unused]] void roles_examples() {
  auto deque = duet::Lin<LockedDeque>("deque", "d")
                   .op("push", [](LockedDeque& d, int x) { std::lock_guard lock(d.m); d.items.push_back(x); }, duet::small_int())
                   .op("pop", [](LockedDeque& d) { return d.take(true); })
                   .op("steal", [](LockedDeque& d) { return d.take(false); });
  EXPECT_TRUE(duet::check_parallel<SpscSpec>({.roles = {{"producer", 1, {"push"}}, {"consumer", 1, {"pop"}}}}));
  EXPECT_TRUE(duet::check_parallel(deque, {.roles = {{"owner", 1, {"push", "pop"}}, {"thief", 2, {"steal"}}}}));
}

// ThreadHooks: what a subject needs on every thread that calls it.
thread_local bool t_in_domain = false;
void domain_register() { t_in_domain = true; }
void domain_unregister() { t_in_domain = false; }
TEST(DocExamples, ThreadHooksRunOnEveryThreadOfARun) {
  auto pool = duet::make_thread_pool(true, {.start = [] { domain_register(); }, .stop = [] { domain_unregister(); }});
  std::atomic<int> registered{0};
  pool->run({[&] { registered += t_in_domain; }, [&] { registered += t_in_domain; }});
  EXPECT_EQ(registered.load(), 2);
}

// On threads a small budget may see too little overlap (a slow sanitizer build, a loaded
// machine): that honest "inconclusive" is fine here, a failure is not.
using test_verdicts::passed_or_inconclusive;

TEST(DocExamples, CheckParallelWithASmallBudget) {
  const duet::CheckResult queue = duet::check_parallel<QueueSpec>({.branches = 3}, {.count = 50});
  EXPECT_TRUE(passed_or_inconclusive(queue)) << queue.report;
  const duet::CheckResult tbb = duet::check_parallel(tbb_queue_lin(), {}, {.count = 50});
  EXPECT_TRUE(passed_or_inconclusive(tbb)) << tbb.report;
}

/// std::vector<int> under threads, its capacity reserved (a race gives wrong sizes rather
/// than a crash): unsafe.
struct PushBack {
  int x;
};
struct VectorSize {};
inline std::string duet_show(const PushBack& p) { return "push_back(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const VectorSize&) { return "size()"; }
struct StdVectorSpec {
  using Sut = std::vector<int>;
  using State = std::size_t;
  using Cmd = std::variant<PushBack, VectorSize>;
  static constexpr const char* sut_name = "v";
  static std::unique_ptr<Sut> init_sut() {
    auto v = std::make_unique<Sut>();
    v->reserve(1024);
    return v;
  }
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::construct<PushBack>(duet::small_int()).map([](PushBack p) { return Cmd(p); }),
                        duet::just(Cmd(VectorSize{})));
  }
  static duet::Result run(const Cmd& c, Sut& v) {
    if (auto* p = std::get_if<PushBack>(&c)) {
      v.push_back(p->x);
      return {};
    }
    return v.size();
  }
  static duet::Result expected(const Cmd& c, const State& n) {
    if (std::holds_alternative<PushBack>(c)) return {};
    return n;
  }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<PushBack>(c)) ++n;
  }
};

// A real data race on threads (tests/negative runs such checks alone): compiled, not run.
[[maybe_unused]] void expect_unsafe_on_threads_example() {
  EXPECT_TRUE(duet::expect_unsafe<StdVectorSpec>({}, {.time = 10}));
}

// ---- executor.hpp ----

using CounterSpec = fiber_subjects::CounterSpec<true>;  // increments as a load then a store
using Counter = fiber_subjects::Counter<true>;

// ---- scenario.hpp and check_scenario: hand-written programs (compiled, not run; the racy
// counter fails them: tests/parallel/scenario_test.cpp runs such checks) ----

[[maybe_unused]] void scenario_examples() {
  using fiber_subjects::Get;
  using fiber_subjects::Incr;
  const duet::Call push = duet::call("push", 3);
  (void)push;
  const duet::Scenario<CounterSpec::Cmd> incrs{.prefix = {Get{}}, .branches = {{Incr{}}, {Incr{}, Get{}}}};
  const duet::Scenario<CounterSpec::Cmd> two_incrs{.branches = {{Incr{}}, {Incr{}}}};
  EXPECT_TRUE(duet::check_scenario<CounterSpec>(two_incrs, {.executor = duet::fibers(duet::exhaustive())}));
  EXPECT_TRUE(duet::check_scenario<CounterSpec>(incrs));
  const auto lin = tbb_queue_lin();
  const duet::Scenario<> pops{.prefix = {duet::call("push", 1)},
                              .branches = {{duet::call("try_pop")}, {duet::call("try_pop")}}};
  EXPECT_TRUE(duet::check_scenario(lin, pops, {.executor = duet::fibers(duet::pct(3))}));
}

// A hand-written scenario against a correct queue passes on threads and on fibers.
TEST(DocExamples, ScenarioOfTwoPopsPasses) {
  const auto lin = tbb_queue_lin();
  const duet::Scenario<> pops{.prefix = {duet::call("push", 1)},
                              .branches = {{duet::call("try_pop")}, {duet::call("try_pop")}}};
  const duet::CheckResult r = duet::check_scenario(lin, pops, {}, {.count = 20});
  EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;  // on a loaded machine the two pops may not overlap
}

// ---- executor.hpp: every execution of each program (compiled, not run) ----

[[maybe_unused]] void unbounded_exhaustive_example() {
  EXPECT_TRUE(duet::check_parallel<QueueSpec>({.executor = duet::fibers(duet::exhaustive(duet::unbounded))}));
}

// ---- progress.hpp: progress guarantees, checked on fibers (compiled, not run) ----

[[maybe_unused]] void progress_examples() {
  const duet::Progress stack = duet::lock_free();                                 // every operation
  const duet::Progress queue = duet::lock_free().op("size", duet::wait_free(3));  // size() promises more
  const duet::Progress mpmc = duet::lock_free(50).blocking("pop");                // pop() may wait: exempt
  (void)stack, (void)queue, (void)mpmc;
  EXPECT_TRUE(duet::check_parallel<QueueSpec>({.executor = duet::fibers(), .progress = duet::obstruction_free()}));
  EXPECT_TRUE(duet::check_parallel<duet::models::TreiberStackSpec<>>({.executor = duet::fibers(), .progress = duet::lock_free()}));
  EXPECT_TRUE(duet::check_parallel<CounterSpec>({.executor = duet::fibers(), .progress = duet::wait_free(1)}));
}

// ---- fuzz.hpp and check_parallel_bytes: each target runs a fuzzer's input ----

std::span<const std::uint8_t> some_input() {
  static const std::array<std::uint8_t, 24> bytes{3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3, 2, 3, 8, 4, 6, 2, 6, 4};
  return bytes;
}

TEST(DocExamples, FuzzSequential) {
  duet::FuzzTarget target = duet::fuzz_sequential<RingBufferSpec>();  // DUET_FUZZ_TARGET(target)
  EXPECT_NE(target(some_input(), {}).status, duet::CheckResult::Status::error);
}

TEST(DocExamples, FuzzApi) {
  namespace ed = persistent::ed;
  duet::FuzzTarget target = duet::fuzz_api(persistent::spec(ed::make, ed::get, ed::set));
  EXPECT_NE(target(some_input(), {.output_dir = ::testing::TempDir() + "duet-doc"}).status, duet::CheckResult::Status::error);
}

TEST(DocExamples, FuzzParallel) {
  duet::FuzzTarget target = duet::fuzz_parallel<CounterSpec>({.executor = duet::fibers()});
  EXPECT_NE(target(some_input(), {.output_dir = ::testing::TempDir() + "duet-doc"}).status, duet::CheckResult::Status::error);
  const std::uint8_t* data = some_input().data();
  const std::size_t size = some_input().size();
  auto r = duet::check_parallel_bytes<CounterSpec>({data, size}, {.executor = duet::fibers()});
  EXPECT_NE(r.status, duet::CheckResult::Status::error) << r.report;
}

TEST(DocExamples, FibersExecutorFindsTheLostUpdate) {
  EXPECT_TRUE(duet::expect_unsafe<CounterSpec>({.executor = duet::fibers()}));
}

namespace mylib {
int next_id = 0;
}

TEST(DocExamples, BeforeEachRunResetsAGlobal) {
  auto reset = [] { mylib::next_id = 0; };  // a global the library never resets
  auto executor = duet::fibers(duet::random(), {.before_each_run = reset});
  EXPECT_TRUE(duet::expect_unsafe<CounterSpec>({.executor = executor}));
}

TEST(DocExamples, TrialProcessesAlways) {
  if (!duet_test::forked_children_start_threads()) GTEST_SKIP() << duet_test::kForkedChildThreadsReason;
  // RocksDB with its default Env: its background threads live as long as the process
  auto executor = duet::fibers(duet::random(), {.trial_processes = duet::TrialProcesses::always});
  EXPECT_TRUE(duet::expect_unsafe<CounterSpec>({.executor = executor}));
}

TEST(DocExamples, RunFibersReplaysASchedule) {
  Counter c;
  duet::Result a, b;
  const duet::FiberRun run = duet::run_fibers({[&] { a = duet::capture([&] { return c.incr(); }); },
                                               [&] { b = duet::capture([&] { return c.incr(); }); }},
                                              "1.0.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
  // Deterministic: fiber 1 runs its increment to the end first, then fiber 0.
  EXPECT_EQ(a.show(), "2");
  EXPECT_EQ(b.show(), "1");
}

// ---- sync.hpp ----

TEST(DocExamples, Atomic) {
  duet::atomic<int> hits{0};
  hits.fetch_add(1);                          // a switch point, traced with this line
  int seen = hits.load(std::memory_order_acquire);   // may read an older store in fiber runs
  EXPECT_EQ(seen, 1);
}

TEST(DocExamples, AtomicThreadFence) {
  duet::atomic<int> data{0};
  duet::atomic<bool> ready{false};
  data.store(42, std::memory_order_relaxed);
  duet::atomic_thread_fence(std::memory_order_release);
  ready.store(true, std::memory_order_relaxed);
  EXPECT_TRUE(ready.load());
}

TEST(DocExamples, VarUnderAMutex) {
  duet::mutex m;
  duet::var<int> balance{0};
  auto deposit = [&] {
    { std::lock_guard g(m); balance = balance.get() + 1; }   // fine with the lock, a race without
  };
  const duet::FiberRun run = duet::run_fibers({deposit, deposit}, "0.1.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(balance.get(), 2);
}

TEST(DocExamples, Mutex) {
  int count = 0;
  duet::mutex m;
  { std::lock_guard g(m); ++count; }  // lock and unlock are switch points
  EXPECT_EQ(count, 1);
}

TEST(DocExamples, RecursiveMutex) {
  duet::recursive_mutex m;
  m.lock(); m.lock(); m.unlock(); m.unlock();
  EXPECT_TRUE(m.try_lock());
  m.unlock();
}

TEST(DocExamples, SharedMutex) {
  int value = 0, seen = -1;
  duet::shared_mutex m;
  { std::shared_lock r(m); seen = value; }   // many readers
  { std::lock_guard w(m); value = 42; }      // one writer
  EXPECT_EQ(seen, 0);
  EXPECT_EQ(value, 42);
}

TEST(DocExamples, SpinLockYields) {
  duet::atomic<bool> locked{false};
  int inside = 0;
  auto critical = [&] {
    while (locked.exchange(true)) duet::yield();
    ++inside;
    locked.store(false);
  };
  const duet::FiberRun run = duet::run_fibers({critical, critical}, "0.1.1.0.1.0");
  ASSERT_TRUE(run.completed) << run.failure;
  EXPECT_EQ(inside, 2);
}

TEST(DocExamples, ConditionVariable) {
  duet::var<bool> ready{false};
  duet::mutex m;
  duet::condition_variable cv;
  bool woke = false;
  const duet::FiberRun run = duet::run_fibers(
      {[&] {
         std::unique_lock lk(m);
         cv.wait(lk, [&] { return ready.get(); });
         woke = true;
       },
       [&] {
         {
           std::lock_guard g(m);
           ready = true;
         }
         cv.notify_one();
       }},
      "0.1.0.1");
  ASSERT_TRUE(run.completed) << run.failure;
  EXPECT_TRUE(woke);
}

// ---- api.hpp ----

// Persistent arrays (the reference copies on set; so does the candidate, on shared storage),
// keys mapped into each side's own type, and increasing-number generators (nondeterministic).
namespace Ref {
using Array = std::vector<std::int64_t>;
inline Array make(int n) { return Array(static_cast<std::size_t>(n), 0); }
inline std::int64_t get(const Array& a, int i) { return a.at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  Array b = a;
  b.at(static_cast<std::size_t>(i)) = x;
  return b;
}
struct Key {
  explicit Key(int n) : n(n) {}
  int n;
};
inline bool contains(const Array& a, Key k) { return std::find(a.begin(), a.end(), k.n) != a.end(); }
struct Gen {
  int last = -1;
};
inline Gen create() { return {}; }
}  // namespace Ref

namespace Cand {
using Array = std::shared_ptr<const std::vector<std::int64_t>>;
inline Array make(int n) { return std::make_shared<const std::vector<std::int64_t>>(static_cast<std::size_t>(n), 0); }
inline std::int64_t get(const Array& a, int i) { return a->at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  auto b = std::make_shared<std::vector<std::int64_t>>(*a);
  b->at(static_cast<std::size_t>(i)) = x;
  return b;
}
struct Key {
  explicit Key(int n) : value(n) {}
  std::int64_t value;
};
inline bool contains(const Array& a, Key k) { return std::find(a->begin(), a->end(), k.value) != a->end(); }
struct Gen {
  int n = 0;
};
inline Gen create() { return {}; }
inline int next(Gen& g) { return g.n += 2; }
}  // namespace Cand

duet::Api persistent_array_api() {
  duet::Api api("PersistentArray");
  auto arr = api.abstract<Ref::Array, Cand::Array>("a");
  auto index = [](const Ref::Array& a) { return duet::integers(0, static_cast<int>(a.size()) - 1); };
  api.op("make", duet::args(duet::integers(1, 8)), arr, Ref::make, Cand::make);
  api.op("get", duet::args(arr, index), duet::value<std::int64_t>(), Ref::get, Cand::get);
  api.op("set", duet::args(arr, index, duet::small_int().map([](int x) { return std::int64_t{x}; })), arr, Ref::set,
         Cand::set);
  api.op("contains", duet::args(arr,
      duet::map_outof(duet::small_int(), [](int n) { return Ref::Key(n); }, [](int n) { return Cand::Key(n); })
      ), duet::value<bool>(), Ref::contains, Cand::contains);
  return api;
}

TEST(DocExamples, ApiState) {
  duet::Api api = persistent_array_api();
  auto arr = api.abstract<Ref::Array, Cand::Array>("b");
  api.state(arr, [](const Ref::Array& a) { return duet::show(a); });
  EXPECT_TRUE(api.check({.count = 300}));
}

TEST(DocExamples, ApiCheck) {
  duet::Api api = persistent_array_api();
  EXPECT_TRUE(api.check({.count = 10000}));
}

TEST(DocExamples, ApiCheckParallelWithASmallBudget) {
  duet::Api api = persistent_array_api();
  const duet::CheckResult r = api.check_parallel({.branches = 2}, {.count = 50});
  EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;
}

// The default time budget (about a second), and an unsafe check on real threads (the
// persistent arrays are safe: expect_unsafe would search for its whole budget): compiled, not
// run.
[[maybe_unused]] void api_parallel_examples(duet::Api& api) {
  EXPECT_TRUE(api.check_parallel({.branches = 2}));
  EXPECT_TRUE(api.expect_unsafe({.branches = 2}));
  const duet::Scenario<> two_gets{.prefix = {duet::call("make", 4)}, .branches = {{duet::call("get", "a0", 1)}, {duet::call("get", "a0", 2)}}};
  EXPECT_TRUE(api.check_scenario(two_gets));
}

// A hand-written scenario over persistent arrays: two reads of one array at once.
TEST(DocExamples, ApiScenarioOfTwoGetsPasses) {
  const duet::Api api = persistent_array_api();
  const duet::Scenario<> two_gets{.prefix = {duet::call("make", 4)}, .branches = {{duet::call("get", "a0", 1)}, {duet::call("get", "a0", 2)}}};
  const duet::CheckResult r = api.check_scenario(two_gets, {}, {.count = 20});
  EXPECT_TRUE(passed_or_inconclusive(r)) << r.report;  // on a loaded machine the two gets may not overlap
}

bool api_fuzz_one(const duet::Api& api, const std::uint8_t* data, std::size_t size) {
  auto r = api.check_bytes(std::span<const std::uint8_t>(data, size));
  return r.passed();
}

TEST(DocExamples, ApiCheckBytes) {
  const duet::Api api = persistent_array_api();
  const std::array<std::uint8_t, 16> bytes{0, 3, 1, 0, 2, 7, 1, 1, 0, 4, 2, 2, 9, 0, 1, 3};
  EXPECT_TRUE(api_fuzz_one(api, bytes.data(), bytes.size()));
  EXPECT_TRUE(api.check_bytes(std::span<const std::uint8_t>(bytes.data(), bytes.size())));
}

TEST(DocExamples, ApiNondeterministicResult) {
  duet::Api api("IncreasingSequence");
  auto gen = api.abstract<Ref::Gen, Cand::Gen>("t");
  api.op("create", duet::args(), gen, Ref::create, Cand::create);
  api.op("next", duet::args(gen), duet::nondet(duet::value<int>()),
  [](Ref::Gen& g, int got) -> duet::Diagnostic<int> {
    if (got > g.last) { g.last = got; return duet::valid(got); }
    return duet::invalid("not above " + std::to_string(g.last));
  }
  , Cand::next);
  EXPECT_TRUE(api.check({.count = 500}));
}

/// An AVL set (docs/examples/avl.hpp) with the balance check as a method.
struct AvlSet {
  avl::Set s;
  bool balanced() const { return avl::balanced(s).ok; }
};
AvlSet add_copy(const AvlSet& s, int x) { return {avl::add(s.s, x)}; }

TEST(DocExamples, ApiSoloWithAWellFormednessCheck) {
  duet::Api api("AvlSet");
  auto set = api.abstract<duet::Solo, AvlSet>("s", [](const AvlSet& s) { return s.balanced(); });
  api.op("empty", duet::args(), set, [] { return AvlSet{}; });
  api.op("add", duet::args(set, duet::small_int()), set, &add_copy);
  EXPECT_TRUE(api.check({.count = 500}));
}

/// A key-value store whose puts go through to a device (shared by the handle's copies) and
/// a cache: a crash loses the cache, remount reloads it from the device.
struct KvHandle {
  std::shared_ptr<std::map<std::string, std::string>> device = std::make_shared<std::map<std::string, std::string>>();
  std::map<std::string, std::string> cache;
  void put(const std::string& k, const std::string& v) {
    duet::fault_point("kv.put");
    (*device)[k] = v;
    cache[k] = v;
  }
  std::optional<std::string> get(const std::string& k) const {
    auto it = cache.find(k);
    return it == cache.end() ? std::nullopt : std::optional<std::string>(it->second);
  }
  void remount() { cache = *device; }
};

TEST(DocExamples, ApiRecover) {
  using Map = std::map<std::string, std::string>;
  duet::Api api("kv");
  auto db = api.abstract<std::map<std::string, std::string>, KvHandle>("db");
  api.recover(db, [](KvHandle& h) { h.remount(); });
  const auto key = duet::element_of<std::string>({"a", "b"});
  api.op("open", duet::args(), db, [] { return Map{}; }, [] { return KvHandle{}; });
  api.op("put", duet::args(db, key, duet::element_of<std::string>({"x", "y"})), duet::unit(),
         [](Map& m, const std::string& k, const std::string& v) { m[k] = v; },
         [](KvHandle& h, const std::string& k, const std::string& v) { h.put(k, v); });
  api.op(
      "get", duet::args(db, key), duet::value<std::optional<std::string>>(),
      [](Map& m, const std::string& k) {
        auto it = m.find(k);
        return it == m.end() ? std::nullopt : std::optional<std::string>(it->second);
      },
      [](KvHandle& h, const std::string& k) { return h.get(k); });
  EXPECT_TRUE(api.check({.count = 500}));
}

// ---- history.hpp ----

TEST(DocExamples, HistoryValue) {
  using namespace duet::history;
  Value v = Value::vector({Value::integer(3), Value::nil()});   // prints as [3 nil]
  EXPECT_EQ(v.to_string(), "[3 nil]");
}

TEST(DocExamples, ParseHistory) {
  using namespace duet::history;
  History h = parse_history("INFO  jepsen.util - 0\t:invoke\t:read\tnil\n...", Format::automatic, "x.log");
  EXPECT_EQ(h.format, Format::jepsen_log);
  ASSERT_EQ(h.ops.size(), 1u);
  EXPECT_EQ(h.ops[0].f, "read");
}

/// A key-value store for client threads.
class LockedStore {
 public:
  void put(const std::string& k, const std::string& v) {
    std::lock_guard lock(m_);
    data_[k] = v;
  }

 private:
  std::mutex m_;
  std::map<std::string, std::string> data_;
};

TEST(DocExamples, Recorder) {
  using namespace duet::history;
  const std::size_t threads = 4;
  LockedStore store;
  Recorder rec(threads, "kv");
  std::vector<std::thread> clients;
  for (std::size_t p = 0; p < threads; ++p) {
    clients.emplace_back([&rec, &store, p] {
      // on client thread p:
      auto op = rec.invoke(p, "put", Value::string("k"), Value::string("v"));
      store.put("k", "v");
      rec.complete(p, op, Value::nil());
    });
  }
  for (std::thread& t : clients) t.join();
  // after the clients joined:
  CheckReport r = check_history(rec.history("stress run"));
  EXPECT_EQ(r.verdict, Verdict::linearizable) << r.explanation;
}

TEST(DocExamples, RecorderOnAVirtualClock) {
  using namespace duet::history;
  std::uint64_t now = 0;
  Recorder sim(2, "cas-register", [&now] { return now; });
  now = 10;
  const auto w = sim.invoke(0, "write", std::nullopt, Value::integer(1));
  now = 20;
  const auto r = sim.invoke(1, "read", std::nullopt, Value::nil());
  now = 30;
  sim.complete(0, w, Value::nil());
  now = 40;
  sim.complete(1, r, Value::integer(1));
  const History h = sim.history("simulated");
  ASSERT_EQ(h.ops.size(), 2u);
  EXPECT_EQ(h.ops[0].invoke, 10u);
  EXPECT_EQ(h.ops[0].response, 30u);
  EXPECT_EQ(h.ops[1].response, 40u);
  EXPECT_EQ(check_history(h).verdict, Verdict::linearizable);
}

// ---- history_model.hpp ----

struct GrowOnlySet {
  using State = std::set<std::int64_t>;
  State init() const { return {}; }
  bool step(State& s, const duet::history::Operation& op) const {
    if (op.f == "add") return s.insert(op.input.number), true;
    if (op.outcome != duet::history::Outcome::ok) return true;  // a read with no result
    return op.output.items.size() == s.size();                  // read -> every element
  }
};

namespace cli_example {
duet::history::Models models = [] {
  duet::history::Models m;
  m.add("gset", "grow-only set: add x, read -> all", GrowOnlySet{});
  return m;
}();
int main(int argc, char** argv) { return duet::history::cli_main(argc, argv, models); }
}  // namespace cli_example

TEST(DocExamples, UserModels) {
  using namespace duet::history;
  duet::history::Models models;
  models.add("gset", "grow-only set: add x, read -> all", GrowOnlySet{});
  // add 1 and add 2 complete before a read that sees only one element: not linearizable.
  std::uint64_t now = 0;
  Recorder rec(2, "gset", [&now] { return now; });
  auto a = rec.invoke(0, "add", std::nullopt, Value::integer(1));
  rec.complete(0, a, Value::nil());
  ++now;
  auto b = rec.invoke(1, "add", std::nullopt, Value::integer(2));
  ++now;
  rec.complete(1, b, Value::nil());
  ++now;
  auto r = rec.invoke(0, "read", std::nullopt, Value::nil());
  ++now;
  rec.complete(0, r, Value::vector({Value::integer(1)}));
  const History h = rec.history("gset run");
  CheckOptions options;
  options.models = &models;
  EXPECT_EQ(check_history(h, options).verdict, Verdict::not_linearizable);
  auto parts = duet::history::components_by_key(h, [](const Operation& op) {
    return std::vector<std::string>{op.key ? op.key->to_string() : ""};
  });
  EXPECT_EQ(parts.size(), 1u);  // no keys: one part

  // The same history through a duet-check of one's own.
  const std::string file = (std::filesystem::temp_directory_path() / "duet_doc_gset.duet").string();
  std::ofstream(file) << write_duet_history(h);
  std::string arg0 = "my-check", arg1 = file;
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  testing::internal::CaptureStdout();
  const int status = cli_example::main(2, argv);
  const std::string out = testing::internal::GetCapturedStdout();
  EXPECT_EQ(status, 1) << out;
  EXPECT_NE(out.find("not-linearizable"), std::string::npos) << out;
  std::filesystem::remove(file);
}

// ---- async.hpp ----

TEST(DocExamples, VirtualClock) {
  auto deadline = duet::virtual_clock::now() + std::chrono::seconds(30);
  EXPECT_EQ(deadline - duet::virtual_clock::now(), std::chrono::seconds(30));
}

/// A directory in one sector of a mock disk: key=value lines.
struct Disk {
  duet::BlockDevice device{{.sector_size = 64, .sectors = 4}};
  duet::task<std::string> read(std::uint64_t sector) {
    std::array<std::byte, 64> block{};
    co_await device.read(sector, block);
    std::string text;
    for (std::byte b : block)
      if (b != std::byte{0}) text += static_cast<char>(b);
    co_return text;
  }
};
struct Store {
  Disk disk;
  std::uint64_t directory_sector = 1;
};
std::string decode(const std::string& block, const std::string& key) {
  const std::string prefix = key + "=";
  const auto at = block.find(prefix);
  if (at == std::string::npos) return {};
  return block.substr(at + prefix.size(), block.find('\n', at) - at - prefix.size());
}

duet::task<std::string> get(Store& s, std::string key) {
  auto block = co_await s.disk.read(s.directory_sector);
  co_return decode(block, key);
}

duet::task<void> put_directory(Store& s, std::string text) {
  std::array<std::byte, 64> block{};
  for (std::size_t i = 0; i < text.size() && i < block.size(); ++i) block[i] = static_cast<std::byte>(text[i]);
  co_await s.disk.device.write(s.directory_sector, block);
}

TEST(DocExamples, TaskReadsADirectory) {
  Store store;
  duet::run(put_directory(store, "a=1\nb=22\n"));
  EXPECT_EQ(duet::run(get(store, "b")), "22");
}

/// A device that calls back when an operation completes (on a fiber of its own).
struct CallbackDevice {
  template <class F>
  void on_complete(F f) {
    duet::post([f = std::make_shared<F>(std::move(f))] { (*f)(); });
  }
};

duet::task<int> completion(CallbackDevice& device) {
  duet::promise<int> p;
  auto f = p.get_future();
  device.on_complete([p = std::move(p)]() mutable { p.set_value(42); });
  co_return co_await f;
}

TEST(DocExamples, PromiseSetByACallback) {
  CallbackDevice device;
  EXPECT_EQ(duet::run(completion(device)), 42);
}

duet::task<int> read_sector(duet::BlockDevice& disk, std::uint64_t sector) {
  std::array<std::byte, 64> block{};
  co_await disk.read(sector, block);
  co_return static_cast<int>(block[0]);
}
int checksum(const std::vector<int>& buffer) {
  int sum = 0;
  for (int x : buffer) sum += x;
  return sum;
}

duet::task<int> sector_plus_checksum(duet::BlockDevice& disk, const std::vector<int>& buffer) {
  auto a = duet::spawn(read_sector(disk, 3));
  auto b = duet::spawn([&] { return checksum(buffer); });
  co_return co_await a + co_await b;
}

TEST(DocExamples, Spawn) {
  duet::BlockDevice disk({.sector_size = 64, .sectors = 4});
  std::array<std::byte, 64> block{};
  block[0] = std::byte{5};
  duet::run(disk.write(3, block));
  const std::vector<int> buffer{1, 2, 3};
  EXPECT_EQ(duet::run(sector_plus_checksum(disk, buffer)), 11);
}

struct DuetExecutor { void post(std::function<void()> f) { duet::post(std::move(f)); } };

duet::task<int> posted() {
  DuetExecutor executor;
  auto done = std::make_shared<duet::promise<int>>();
  auto f = done->get_future();
  executor.post([done] { done->set_value(7); });
  co_return co_await f;
}

TEST(DocExamples, ExecutorPosts) { EXPECT_EQ(duet::run(posted()), 7); }

duet::task<int> channel_sum() {
  int sum = 0;
  duet::channel<int> ch(2);
  auto producer = duet::spawn([&]() -> duet::task<> { for (int i = 0; i < 5; ++i) co_await ch.send(i); ch.close(); co_return; });
  while (auto v = co_await ch.receive()) sum += *v;
  co_await producer;
  co_return sum;
}

TEST(DocExamples, Channel) { EXPECT_EQ(duet::run(channel_sum()), 10); }

/// A server that is down: every fetch fails.
std::optional<std::string> flaky() { return std::nullopt; }

/// Fetches, retrying every 5 s of virtual time for a minute.
duet::task<std::optional<std::string>> fetch_with_retry(std::optional<std::string> (*fetch)()) {
  const auto deadline = duet::virtual_clock::now() + std::chrono::seconds(60);
  while (duet::virtual_clock::now() < deadline) {
    if (auto got = fetch()) co_return got;
    co_await duet::sleep_for(std::chrono::seconds(5));
  }
  co_return std::nullopt;
}

TEST(Retry, GivesUpAfterAMinute) {
  EXPECT_EQ(duet::run(fetch_with_retry(flaky)), std::nullopt);   // 60 s of virtual time
}

/// A log whose appends take a lock around the write.
struct Harness {
  duet::mutex m;
  std::vector<std::string> log;
  duet::task<void> append(std::string record) {
    co_await duet::switch_point();
    std::lock_guard g(m);
    log.push_back(std::move(record));
  }
  duet::task<std::size_t> records() {
    std::lock_guard g(m);
    co_return log.size();
  }
};

TEST(Log, ConcurrentAppendsKeepEveryRecord) {
  EXPECT_TRUE(duet::check_async("two appends", []() -> duet::task<void> {
    Harness h;
    auto a = duet::spawn(h.append("x"));
    auto b = duet::spawn(h.append("y"));
    co_await a; co_await b;
    EXPECT_EQ(co_await h.records(), 2u);
  }));
}

// duet::Caller (state_machine.hpp): a relaxed spec's next_states that takes the caller.
struct CallerExample {
  using State = int;
  using Cmd = int;
  static std::vector<State> next_states(const Cmd& c, const State& s, const duet::Result& r,
                                        duet::Caller who);   // who.thread: 0, 1, 2...
};
static_assert(duet::detail::NextStatesOfCaller<CallerExample>);

// duet::Lin::reset (lin.hpp): a subject costly to make, returned to a fresh one's state.
struct Table {
  std::vector<int> slots = std::vector<int>(4096);
  void clear() { std::fill(slots.begin(), slots.end(), 0); }
};
[[maybe_unused]] void lin_reset_example() {
  duet::Lin<Table> lin("table", "t");
  lin.reset([](Table& t) { t.clear(); });
}

}  // namespace
