// duet::exhaustive() in the duet::run calls of a spec's commands (check_sequential, Api::check):
// each such run is searched from the state the case's earlier commands left, the case executed
// again for each schedule. Subject: permits whose try_acquire checks and then takes, so two
// acquirers racing for the last permit both get it; with none or with two permits left the race
// is harmless, so only a search from the right state finds it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <variant>

#include "duet/api.hpp"
#include "duet/async.hpp"
#include "duet/gtest.hpp"
#include "duet/state_machine.hpp"
#include "duet/sync.hpp"

namespace {

template <bool kCheckThenTake>
class Permits {
 public:
  void release() { permits_.fetch_add(1); }
  bool try_acquire() {
    if constexpr (kCheckThenTake) {
      if (permits_.load() <= 0) return false;
      permits_.fetch_sub(1);  // another acquirer may have taken the last one since the load
      return true;
    } else {
      int p = permits_.load();
      while (p > 0)
        if (permits_.compare_exchange_weak(p, p - 1)) return true;
      return false;
    }
  }

 private:
  duet::atomic<int> permits_{0};
};

template <class P>
duet::task<void> acquirer(P& permits, int& got) {
  if (permits.try_acquire()) ++got;
  co_return;
}

// Two acquirers at once: how many got a permit.
template <class P>
duet::task<int> contend(P& permits) {
  int got = 0;
  auto a = duet::spawn(acquirer(permits, got));
  auto b = duet::spawn(acquirer(permits, got));
  co_await a;
  co_await b;
  co_return got;
}

struct Release {};
struct Contend {};
std::string duet_show(const Release&) { return "release()"; }
std::string duet_show(const Contend&) { return "contend()"; }

template <bool kCheckThenTake>
struct PermitsSpec {
  using Sut = Permits<kCheckThenTake>;
  using State = int;  // permits left
  using Cmd = std::variant<Release, Contend>;
  static duet::Gen<Cmd> command(const State&) {
    return duet::one_of(duet::just(Cmd(Release{})), duet::just(Cmd(Contend{})));
  }
  static duet::Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Release>(c)) {
      s.release();
      return {};
    }
    return duet::run(contend(s), {.schedule = duet::exhaustive(1)});
  }
  static duet::Result expected(const Cmd& c, const State& permits) {
    if (std::holds_alternative<Release>(c)) return {};
    return std::min(permits, 2);
  }
  static void next(const Cmd& c, State& permits) {
    if (std::holds_alternative<Release>(c)) ++permits;
    else permits -= std::min(permits, 2);
  }
};

TEST(SpecRunsExhaustive, FindsARaceOnlyTheCommandsBeforeItExpose) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    const duet::CheckResult r = duet::check_sequential<PermitsSpec<true>>({.seed = seed, .count = 200, .verbose = -1});
    ASSERT_EQ(r.status, duet::CheckResult::Status::failed) << r.report;
    // Shrunk to the state the race needs: one permit, then the two acquirers.
    EXPECT_EQ(r.failing_length, 2u) << r.report;
    EXPECT_NE(r.report.find("release();"), std::string::npos) << r.report;
    if (seed == 1) std::printf("%s\n", r.report.c_str());
  }
}

TEST(SpecRunsExhaustive, APassSaysWhatTheSearchCovered) {
  const duet::CheckResult r = duet::check_sequential<PermitsSpec<false>>({.seed = 1, .count = 100});
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find("exhaustive(1) for the duet::run calls of "), std::string::npos) << r.coverage;
  EXPECT_NE(r.coverage.find(", complete: all "), std::string::npos) << r.coverage;
  EXPECT_NE(r.coverage.find("a case's other runs drew random schedules"), std::string::npos) << r.coverage;
  std::printf("%s\n", r.coverage.c_str());
}

TEST(SpecRunsExhaustive, TheSameSeedGivesTheSameReportAndTheTokenReplaysIt) {
  const duet::CheckResult first = duet::check_sequential<PermitsSpec<true>>({.seed = 5, .count = 200});
  const duet::CheckResult again = duet::check_sequential<PermitsSpec<true>>({.seed = 5, .count = 200});
  ASSERT_EQ(first.status, duet::CheckResult::Status::failed) << first.report;
  EXPECT_EQ(first.replay_token, again.replay_token);
  const duet::CheckResult replayed = duet::check_sequential<PermitsSpec<true>>({.replay = first.replay_token});
  EXPECT_EQ(replayed.status, duet::CheckResult::Status::failed) << replayed.report;
}

// Many acquirers, a deep bound: the search cannot finish within the case's allowance (half of
// case_timeout), and the pass says the search was incomplete rather than claiming coverage.
struct ManyAcquirers {};
std::string duet_show(const ManyAcquirers&) { return "many_acquirers()"; }

duet::task<void> many(Permits<false>& permits) {
  int got = 0;
  std::vector<duet::future<void>> acquirers;
  for (int i = 0; i < 6; ++i) acquirers.push_back(duet::spawn(acquirer(permits, got)));
  for (auto& a : acquirers) co_await a;
}

struct SlowSearchSpec {
  using Sut = Permits<false>;
  using State = int;
  using Cmd = std::variant<ManyAcquirers>;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(ManyAcquirers{})); }
  static duet::Result run(const Cmd&, Sut& s) {
    duet::run(many(s), {.schedule = duet::exhaustive(4)});
    return {};
  }
  static duet::Result expected(const Cmd&, const State&) { return {}; }
  static void next(const Cmd&, State&) {}
};

TEST(SpecRunsExhaustive, ASearchPastTheCasesAllowanceSaysItIsIncomplete) {
  const duet::CheckResult r = duet::check_sequential<SlowSearchSpec>({.seed = 1, .count = 1, .case_timeout = 0.4});
  ASSERT_TRUE(r.passed()) << r.report;
  EXPECT_NE(r.coverage.find(", incomplete: "), std::string::npos) << r.coverage;
  EXPECT_NE(r.coverage.find("stopped at the case's time allowance"), std::string::npos) << r.coverage;
}

// The same in an Api spec: an operation whose candidate runs the acquirers.
template <bool kCheckThenTake>
duet::Api permits_api() {
  duet::Api api("Permits");
  using P = std::shared_ptr<Permits<kCheckThenTake>>;  // a handle: the pool itself does not move
  auto permits = api.abstract<int, P>("permits");
  api.op(
      "make", duet::args(), permits, [] { return 0; }, [] { return std::make_shared<Permits<kCheckThenTake>>(); });
  api.op(
      "release", duet::args(permits), duet::unit(), [](int& n) { ++n; }, [](P& p) { p->release(); });
  api.op(
      "contend", duet::args(permits), duet::value<int>(),
      [](int& n) {
        const int got = std::min(n, 2);
        n -= got;
        return got;
      },
      [](P& p) { return duet::run(contend(*p), {.schedule = duet::exhaustive(1)}); });
  return api;
}

TEST(SpecRunsExhaustive, InAnApiSpec) {
  const duet::CheckResult found = permits_api<true>().check({.seed = 1, .count = 300});
  ASSERT_EQ(found.status, duet::CheckResult::Status::failed) << found.report;
  EXPECT_NE(found.report.find("contend("), std::string::npos) << found.report;
  const duet::CheckResult passed = permits_api<false>().check({.seed = 1, .count = 300});
  ASSERT_TRUE(passed.passed()) << passed.report;
  EXPECT_NE(passed.coverage.find("exhaustive(1) for the duet::run calls of "), std::string::npos) << passed.coverage;
}

// Outside a check nothing can execute the run again: refused, as an error of the caller.
TEST(SpecRunsExhaustive, OutsideAnyCheckItIsRefused) {
  Permits<false> p;
  EXPECT_THROW(duet::run(contend(p), {.schedule = duet::exhaustive()}), std::runtime_error);
}

}  // namespace
