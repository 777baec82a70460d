// duet's hang limits count the time the watched code had, not the time it waited for a CPU: a
// case starved by other work on the machine is not called hung, while a case blocked or spinning
// forever still is, within about its limit. DUET_TIME_SCALE multiplies every such limit.
#include <gtest/gtest.h>

#include <duet/duet.hpp>

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "support/cpu_starvation.hpp"
#include "support/emulation.hpp"
#include "execute/hang_clock.hpp"

namespace {

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// ---- Subjects: a call that needs a little CPU, one that blocks forever, one that spins forever

struct Work {};
struct Nap {};
struct Block {};
struct Spin {};
std::string duet_show(const Work&) { return "work()"; }
std::string duet_show(const Nap&) { return "nap()"; }
std::string duet_show(const Block&) { return "block()"; }
std::string duet_show(const Spin&) { return "spin()"; }

struct Subject {};
template <class C>
struct OneCallSpec {
  using Sut = Subject;
  using State = int;
  using Cmd = std::variant<C>;
  static constexpr const char* sut_name = "s";
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(C{})); }
  static duet::Result run(const Cmd&, Sut&) {
    if constexpr (std::is_same_v<C, Work>) {
      duet_test::work_at_idle_priority(20);
    } else if constexpr (std::is_same_v<C, Nap>) {
      std::this_thread::sleep_for(std::chrono::milliseconds(400));
    } else if constexpr (std::is_same_v<C, Block>) {
      std::mutex m;
      std::condition_variable cv;
      std::unique_lock lock(m);
      cv.wait(lock, [] { return false; });
    } else {
      volatile bool forever = true;
      while (forever) {
      }
    }
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State&) {}
};

duet::Config isolated_one_call(double case_timeout) {
  duet::Config c;
  c.seed = 1;
  c.count = 8;  // about half the cases make a call
  c.max_length = 1;
  c.mean_length = 1;
  c.case_timeout = case_timeout;
  c.isolate = true;
  c.verbose = -1;
  c.output_dir = ::testing::TempDir() + "duet-hang-clock";
  return c;
}

// Sets (or, with nullptr, unsets) an environment variable for its lifetime: the hang tests set
// their limits themselves, whatever DUET_TIME_SCALE the run has (make multiarch sets one).
class Env {
 public:
  Env(const char* name, const char* value) : name_(name) {
    if (const char* v = std::getenv(name)) saved_ = v;
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~Env() {
    if (saved_) ::setenv(name_, saved_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A case that needs 20 ms of CPU and waits a second for it, its limit 300 ms: it is not a hang.
TEST(HangClock, AStarvedCaseIsNotAHang) {
  const Env unscaled("DUET_TIME_SCALE", nullptr);
  duet::CheckResult r;
  {
    const duet_test::StarvedCpu starved(2, 1.2);
    r = duet::check_sequential<OneCallSpec<Work>>(isolated_one_call(0.3));
  }
  EXPECT_EQ(r.status, duet::CheckResult::Status::passed) << r.report;
  EXPECT_FALSE(has(r.report, "hang after")) << r.report;
}

// A case blocked forever is reported at its limit, as before.
TEST(HangClock, ACaseBlockedForeverIsAHangAtItsLimit) {
  const Env unscaled("DUET_TIME_SCALE", nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_sequential<OneCallSpec<Block>>(isolated_one_call(0.3));
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "// <-- still running here: hang after 300 ms\n")) << r.report;
  EXPECT_LT(seconds_since(t0),
            3.0 * duet_test::time_scale());  // the first hang and its replays (the shrinker's, the report's)
}

// CPU seconds used by the child processes this process has waited for.
double children_cpu_seconds() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// And so is a case spinning forever, after about its limit of the CPU it gets (on a machine busy
// with other work, more wall time than that).
TEST(HangClock, ACaseSpinningForeverIsAHangAtItsLimit) {
  const Env unscaled("DUET_TIME_SCALE", nullptr);
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = children_cpu_seconds();
  const duet::CheckResult r = duet::check_sequential<OneCallSpec<Spin>>(isolated_one_call(0.3));
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "// <-- still running here: hang after 300 ms\n")) << r.report;
  EXPECT_LT(children_cpu_seconds() - cpu0, 3.0 * duet_test::time_scale());  // three hangs, and the rest
  EXPECT_LT(seconds_since(t0), 30.0 * duet_test::time_scale());
}

// ---- DUET_TIME_SCALE ---------------------------------------------------------------------------

// A call that sleeps 400 ms is a hang under a 200 ms limit, and not under that limit times 4,
// whether the scale comes from the code or from the environment.
TEST(TimeScale, MultipliesTheCaseLimit) {
  const Env unscaled("DUET_TIME_SCALE", nullptr);
  duet::Config c = isolated_one_call(0.2);
  const duet::CheckResult hung = duet::check_sequential<OneCallSpec<Nap>>(c);
  EXPECT_EQ(hung.status, duet::CheckResult::Status::failed) << hung.report;
  EXPECT_TRUE(has(hung.report, "// <-- still running here: hang after 200 ms\n")) << hung.report;
  c.time_scale = 4;
  const duet::CheckResult in_code = duet::check_sequential<OneCallSpec<Nap>>(c);
  EXPECT_EQ(in_code.status, duet::CheckResult::Status::passed) << in_code.report;
  c.time_scale.reset();
  const Env scaled("DUET_TIME_SCALE", "4");
  const duet::CheckResult from_environment = duet::check_sequential<OneCallSpec<Nap>>(c);
  EXPECT_EQ(from_environment.status, duet::CheckResult::Status::passed) << from_environment.report;
}

// A hang under a scaled limit is reported after the scaled time, and says so.
TEST(TimeScale, AHangSaysItsLimitWasScaled) {
  const Env scaled("DUET_TIME_SCALE", "2.5");
  const auto t0 = std::chrono::steady_clock::now();
  const duet::CheckResult r = duet::check_sequential<OneCallSpec<Block>>(isolated_one_call(0.12));
  EXPECT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_TRUE(has(r.report, "// <-- still running here: hang after 120 ms \xC3\x97 2.5 (DUET_TIME_SCALE)\n")) << r.report;
  EXPECT_GE(seconds_since(t0), 0.3);
}

// A scale below 1, or not a number, is an error: nothing is tested.
TEST(TimeScale, AnInvalidScaleIsAnError) {
  const Env unscaled("DUET_TIME_SCALE", nullptr);
  duet::Config c = isolated_one_call(1);
  c.time_scale = 0.5;
  const duet::CheckResult in_code = duet::check_sequential<OneCallSpec<Work>>(c);
  EXPECT_EQ(in_code.status, duet::CheckResult::Status::error) << in_code.report;
  EXPECT_TRUE(has(in_code.report, "Config::time_scale=0.5: expected a number >= 1")) << in_code.report;
  c.time_scale.reset();
  for (const char* text : {"fast", "0", "0.99", "-2", "2x", "nan", "inf", " 2"}) {
    const Env bad("DUET_TIME_SCALE", text);
    const duet::CheckResult r = duet::check_sequential<OneCallSpec<Work>>(c);
    EXPECT_EQ(r.status, duet::CheckResult::Status::error) << text << "\n" << r.report;
    EXPECT_TRUE(has(r.report, "DUET_TIME_SCALE=" + std::string(text) + ": expected a number >= 1")) << r.report;
  }
}

// ---- The clock itself ------------------------------------------------------------------------

using duet::detail::HangClock;

// What a HangClock of a thread at idle priority that needs 20 ms of CPU showed, looked at every
// `look_ms` while `busy` threads spun on its CPU for `seconds`: the most time it said the thread
// had, and the wall time the thread took.
struct StarvedWorker {
  double most_had_s = 0, wall_s = 0;
};
StarvedWorker watch_starved_worker(int busy, double seconds, int look_ms) {
  std::atomic<pid_t> tid{0};
  std::atomic<bool> done{false};
  std::int64_t most = 0;
  StarvedWorker seen;
  const duet_test::StarvedCpu starved(busy, seconds);
  std::thread worker([&] {
    tid = HangClock::this_thread();
    duet_test::work_at_idle_priority(20);
    done = true;
  });
  while (tid == 0) std::this_thread::yield();
  HangClock clock = HangClock::of_thread(tid);
  const auto t0 = std::chrono::steady_clock::now();
  clock.restart();
  while (!done) {
    most = std::max(most, clock.elapsed_ns());
    std::this_thread::sleep_for(std::chrono::milliseconds(look_ms));
  }
  seen.wall_s = seconds_since(t0);
  worker.join();
  seen.most_had_s = static_cast<double>(most) / 1e9;
  return seen;
}

// A thread that waits a second for a CPU, and needs 20 ms of it, has had about 20 ms.
TEST(HangClock, TheTimeAThreadWaitedForACpuIsNotCounted) {
  const StarvedWorker seen = watch_starved_worker(2, 1.0, 50);
  // Where the busy threads did not starve the worker (qemu-user's guest threads take no notice of
  // the idle priority), there was no waiting for the clock to leave out.
  if (seen.wall_s < 0.8) GTEST_SKIP() << "the worker was not starved here (it finished in " << seen.wall_s << " s)";
  EXPECT_LT(seen.most_had_s, 0.4) << "of " << seen.wall_s << " s";
}

// A thread kept to a trickle of CPU (a low priority on a busy CPU: a slice every few hundred
// milliseconds) runs between some looks and waits again: the waits after its last slice, which
// its accounting shows only at its next slice, are not counted as time it had. Three seconds of
// that, looked at every 200 ms: well under 150 ms had (it gets a few of its 20 ms, and the rest
// once the CPU is free; counting only the waits its accounting showed, 170 to 460 ms).
TEST(HangClock, AThreadStarvedToATrickleOfCpuHadOnlyItsSlices) {
  const StarvedWorker seen = watch_starved_worker(1, 3.0, 200);
  if (seen.wall_s < 1.5) GTEST_SKIP() << "the worker was not starved here (it finished in " << seen.wall_s << " s)";
  EXPECT_LT(seen.most_had_s, 0.15) << "of " << seen.wall_s << " s";
}

// A sleeping thread's time is all counted; so is the time of a thread the clock cannot read.
TEST(HangClock, SleepAndUnreadableThreadsCountWallTime) {
  HangClock sleeping = HangClock::of_thread(HangClock::this_thread());
  HangClock unreadable = HangClock::of_thread(-1);
  sleeping.restart();
  unreadable.restart();
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  EXPECT_GE(sleeping.elapsed_ns(), 150'000'000);
  EXPECT_GE(unreadable.elapsed_ns(), 150'000'000);
  EXPECT_EQ(unreadable.starved_ns(), 0);
}

}  // namespace
