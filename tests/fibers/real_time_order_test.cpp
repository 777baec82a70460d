// An exhaustive search orders the calls' real time: two calls of different branches whose steps
// are independent in memory still run in both orders, since a call that returned before another
// began constrains their history. Without it, a read that misses a write that returned before
// it began passed as "every execution explored" whenever the first schedule ran the read first.
#include <duet/gtest.hpp>
#include <duet/models/register.hpp>
#include <duet/sync.hpp>

#include <string>
#include <variant>

#include <gtest/gtest.h>

namespace {

// A register whose reads look where its writes do not store: a write that returned is never seen.
struct LostWriteRegister {
  duet::atomic<int> written{0};
  duet::atomic<int> read_from{0};
};
struct LostWriteBinding {
  using Sut = LostWriteRegister;
  static void write(Sut& r, int v) { r.written.store(v); }
  static int read(Sut& r) { return r.read_from.load(); }
};
using LostWriteSpec = duet::models::Register<LostWriteBinding>;

struct AtomicBinding {
  using Sut = duet::atomic<int>;
  static void write(Sut& r, int v) { r.store(v); }
  static int read(Sut& r) { return r.load(); }
};
using AtomicSpec = duet::models::Register<AtomicBinding>;

using duet::models::Read;
using duet::models::Write;
using Cmd = LostWriteSpec::Cmd;

// The read's branch comes first: a search that runs fiber 0 first and sees no race between the
// calls' steps would explore that one schedule.
const duet::Scenario<Cmd> kReadThenWrite{.branches = {{Read{}}, {Write{1}}}};

duet::ParallelConfig on_fibers(duet::Schedule schedule, duet::MemoryModel model) {
  duet::FiberOptions options;
  options.memory_model = model;
  return {.executor = duet::fibers(schedule, options)};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

struct Search {
  const char* name;
  duet::Schedule schedule;
  duet::MemoryModel model;
};
const Search kSearches[] = {{"optimal, sc", duet::exhaustive(duet::unbounded), duet::MemoryModel::sc},
                            {"optimal, cpp", duet::exhaustive(duet::unbounded), duet::MemoryModel::cpp},
                            {"sleep sets, sc", duet::exhaustive(2), duet::MemoryModel::sc},
                            {"sleep sets, cpp", duet::exhaustive(2), duet::MemoryModel::cpp}};

// Without a bound the search leaves the calls' orders to the check, which judges each order the
// run allows: the failing one is then run as a schedule of its own, whose token replays it.
TEST(RealTimeOrder, AReadThatMissesAWriteThatReturnedBeforeItBeganIsFound) {
  for (const Search& s : kSearches) {
    const duet::CheckResult r =
        duet::check_scenario<LostWriteSpec>(kReadThenWrite, on_fibers(s.schedule, s.model), {.verbose = -1});
    EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << s.name << "\n" << r.report << r.coverage;
    EXPECT_TRUE(has(r.report, "r.read() : 0")) << s.name << "\n" << r.report;
    const duet::CheckResult again = duet::check_scenario<LostWriteSpec>(kReadThenWrite, on_fibers(s.schedule, s.model),
                                                                        {.replay = r.replay_token, .verbose = -1});
    EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << s.name << "\n" << again.report;
  }
}

TEST(RealTimeOrder, TheCorrectRegisterPassesEverySearchComplete) {
  for (const Search& s : kSearches) {
    const duet::CheckResult r =
        duet::check_scenario<AtomicSpec>(kReadThenWrite, on_fibers(s.schedule, s.model), {.verbose = -1});
    EXPECT_TRUE(r) << s.name << "\n" << r.report;
    EXPECT_TRUE(has(r.coverage, "complete")) << s.name << "\n" << r.coverage;
  }
}

// Store buffering across the calls' boundaries: each branch stores one flag, then reads the
// other's (relaxed). Both reads missing the other's store is an execution C++ allows for the
// calls alone, and rules out once the check's seq_cst fences sit between each branch's two
// calls, as they do on threads (a fence after each store, before each load). The subject
// asserts when it sees that execution; the results say nothing (every call returns 0).
struct StoreBuffer {
  duet::atomic<int> x{0}, y{0};
  bool stored_x = false, stored_y = false;  // plain bookkeeping, outside the schedule
  bool x_missed = false, y_missed = false;
  int store_x() {
    x.store(1, std::memory_order_relaxed);
    stored_x = true;
    return 0;
  }
  int store_y() {
    y.store(1, std::memory_order_relaxed);
    stored_y = true;
    return 0;
  }
  int load_y() {
    y_missed = stored_x && y.load(std::memory_order_relaxed) == 0;
    if (x_missed && y_missed) ADD_FAILURE() << "both loads missed the other branch's store";
    return 0;
  }
  int load_x() {
    x_missed = stored_y && x.load(std::memory_order_relaxed) == 0;
    if (x_missed && y_missed) ADD_FAILURE() << "both loads missed the other branch's store";
    return 0;
  }
};
struct StoreX {};
struct StoreY {};
struct LoadX {};
struct LoadY {};
std::string duet_show(const StoreX&) { return "store_x()"; }
std::string duet_show(const StoreY&) { return "store_y()"; }
std::string duet_show(const LoadX&) { return "load_x()"; }
std::string duet_show(const LoadY&) { return "load_y()"; }
struct StoreBufferSpec {
  using Sut = StoreBuffer;
  using State = int;
  using Cmd = std::variant<StoreX, StoreY, LoadX, LoadY>;
  static constexpr const char* sut_name = "sb";
  static duet::Gen<Cmd> command(const State&) { return duet::one_of(duet::just(Cmd(StoreX{})), duet::just(Cmd(LoadY{}))); }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<StoreX>(c)) return s.store_x();
    if (std::holds_alternative<StoreY>(c)) return s.store_y();
    if (std::holds_alternative<LoadX>(c)) return s.load_x();
    return s.load_y();
  }
  static duet::Result expected(const Cmd&, const State&) { return 0; }
  static void next(const Cmd&, State&) {}
};

// Where the search leaves the check's fences out (an unbounded search under cpp), a run that
// fails some other way than its results is searched for again with them; if no run with them
// shows the failure, the check cannot say the program passes: it is an error that says why.
// Every search that keeps the fences in its runs, or runs under sc, never meets that execution.
TEST(RealTimeOrder, AFailureOnlyAnExecutionTheFencesRuleOutShowsIsNoPass) {
  const duet::Scenario<StoreBufferSpec::Cmd> kStoreBuffering{.branches = {{StoreX{}, LoadY{}}, {StoreY{}, LoadX{}}}};
  for (const Search& s : kSearches) {
    const duet::CheckResult r =
        duet::check_scenario<StoreBufferSpec>(kStoreBuffering, on_fibers(s.schedule, s.model), {.verbose = -1});
    if (std::string(s.name) == "optimal, cpp") {
      EXPECT_EQ(r.status, duet::CheckResult::Status::error) << s.name << "\n" << r.report;
      EXPECT_TRUE(has(r.report, "the failure needs an execution those fences rule out")) << s.name << "\n" << r.report;
      EXPECT_TRUE(has(r.report, "both loads missed the other branch's store")) << s.name << "\n" << r.report;
      // The program ran: what it showed is no verdict, not "nothing was tested".
      EXPECT_TRUE(has(r.report, "\n  no verdict: the error came in program 1 (")) << s.name << "\n" << r.report;
      EXPECT_FALSE(has(r.report, "nothing was tested")) << s.name << "\n" << r.report;
    } else {
      EXPECT_TRUE(r) << s.name << "\n" << r.report;
    }
  }
}

}  // namespace
