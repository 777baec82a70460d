// An exhaustive search orders the calls' real time: two calls of different branches whose steps
// are independent in memory still run in both orders, since a call that returned before another
// began constrains their history. Without it, a read that misses a write that returned before
// it began passed as "every execution explored" whenever the first schedule ran the read first.
#include <duet/gtest.hpp>
#include <duet/models/register.hpp>
#include <duet/sync.hpp>

#include <string>

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

}  // namespace
