// Noise on threads: random delays before the branches' calls, a choice of the program (so it
// replays with the token and shrinks away when a failure does not need it), on by default for
// expect_unsafe only, and never on fibers.
#include <duet/gtest.hpp>
#include <duet/models/counter.hpp>

#include <atomic>
#include <chrono>
#include <string>

#include "support/emulation.hpp"

namespace {

// Wrong in every trial, whatever the timing: get() is one too high.
struct OffByOneGet {
  using Sut = std::atomic<long>;
  static void incr(Sut& c) { c.fetch_add(1); }
  static long get(Sut& c) { return c.load() + 1; }
};
using OffByOneSpec = duet::models::Counter<OffByOneGet>;

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Noise, DescribesEachLevel) {
  using duet::detail::Noise;
  EXPECT_EQ(Noise{}.describe(), "");
  EXPECT_EQ((Noise{.level = 1}).describe(),
            "random delays of up to 0.25 µs before the branches' calls (noise level 1 of 2)");
  EXPECT_EQ((Noise{.level = 2, .yields = true}).describe(),
            "random delays of up to 4 µs before the branches' calls, and yields (noise level 2 of 2)");
}

// Level 0 costs nothing; level 2 waits up to 4 µs per call, and over many calls some wait.
TEST(Noise, DelaysStayWithinTheirLevel) {
  using duet::detail::Noise;
  const Noise none{}, top{.level = 2, .seed = 42};
  const auto time = [](const Noise& n) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t call = 0; call < 2000; ++call) n.before_call(call);
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  };
  const double scale = duet_test::time_scale();  // emulated code runs 10 to 40 times slower
  EXPECT_LT(time(none), 2000.0 * 0.05 * scale);  // well under 50 ns a call
  const double top_us = time(top);
  EXPECT_GT(top_us, 2000.0 * 0.05);                 // some calls did wait
  EXPECT_LT(top_us, (2000.0 * 4.0 + 5e5) * scale);  // none much beyond 4 µs (with room for preemption)
}

// A failure that needs no noise is shown without it: the shrinker took the level to 0.
TEST(Noise, ShrinksAwayWhenTheFailureDoesNotNeedIt) {
  const duet::CheckResult r = duet::check_parallel<OffByOneSpec>({.noise = true}, {.seed = 5, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  EXPECT_FALSE(has(r.report, "noise:")) << r.report;
}

// expect_unsafe's programs carry a noise choice; check_parallel's do not, unless asked: a token
// replays only under the setting it was found with.
TEST(Noise, TokensReplayOnlyWithTheSameSetting) {
  const duet::CheckResult with = duet::check_parallel<OffByOneSpec>({.noise = true}, {.seed = 5, .verbose = -1});
  ASSERT_EQ(with.status, duet::CheckResult::Status::failed) << with.report;
  const duet::CheckResult again =
      duet::check_parallel<OffByOneSpec>({.noise = true}, {.replay = with.replay_token, .verbose = -1});
  EXPECT_EQ(again.status, duet::CheckResult::Status::failed) << again.report;
  const duet::CheckResult without = duet::check_parallel<OffByOneSpec>({}, {.replay = with.replay_token, .verbose = -1});
  EXPECT_EQ(without.status, duet::CheckResult::Status::error) << without.report;
  // expect_unsafe turns noise on by default: its token is check_parallel's with noise. (Its
  // verdict is an error, the off-by-one failing without concurrency; the token is still kept.)
  const duet::CheckResult unsafe = duet::expect_unsafe<OffByOneSpec>({}, {.seed = 5, .verbose = -1});
  ASSERT_FALSE(unsafe.replay_token.empty()) << unsafe.report;
  const duet::CheckResult replayed =
      duet::check_parallel<OffByOneSpec>({.noise = true}, {.replay = unsafe.replay_token, .verbose = -1});
  EXPECT_EQ(replayed.status, duet::CheckResult::Status::failed) << replayed.report;
}

// On fibers the scheduler chooses the interleavings: noise is ignored, and tokens do not
// depend on it.
TEST(Noise, IgnoredOnFibers) {
  const duet::CheckResult r =
      duet::check_parallel<OffByOneSpec>({.noise = true, .executor = duet::fibers()}, {.seed = 5, .verbose = -1});
  ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
  const duet::CheckResult replayed =
      duet::check_parallel<OffByOneSpec>({.executor = duet::fibers()}, {.replay = r.replay_token, .verbose = -1});
  EXPECT_EQ(replayed.status, duet::CheckResult::Status::failed) << replayed.report;
  EXPECT_FALSE(has(r.report, "noise:")) << r.report;
}

}  // namespace
