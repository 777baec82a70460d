// A user's test file, built by a project that uses duet as documented in README.md: a
// ready-made model (installed with the headers), duet's GoogleTest main, and the history
// checker. Compiled with -Wall -Wextra -Werror: duet's headers must not warn in a user's build.
#include <duet/gtest.hpp>
#include <duet/history.hpp>
#include <duet/models/queue.hpp>
#include <duet/version.hpp>

#include <deque>
#include <mutex>
#include <optional>
#include <string>

namespace {

class LockedQueue {
 public:
  void push(int x) {
    std::lock_guard lock(m_);
    q_.push_back(x);
  }
  std::optional<int> try_pop() {
    std::lock_guard lock(m_);
    if (q_.empty()) return std::nullopt;
    const int x = q_.front();
    q_.pop_front();
    return x;
  }

 private:
  std::mutex m_;
  std::deque<int> q_;
};

// Pops the newest element: a stack, not a queue.
class BackwardsQueue {
 public:
  void push(int x) { q_.push_back(x); }
  std::optional<int> try_pop() {
    if (q_.empty()) return std::nullopt;
    const int x = q_.back();
    q_.pop_back();
    return x;
  }

 private:
  std::deque<int> q_;
};

template <class Q>
struct Binding {
  using Sut = Q;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

TEST(Consumer, CorrectQueuePassesSequentially) {
  EXPECT_TRUE(duet::check_sequential<duet::models::Queue<Binding<LockedQueue>>>({.seed = 1, .count = 500}));
}

TEST(Consumer, BackwardsQueueIsCaughtAndShrunk) {
  const duet::CheckResult r =
      duet::check_sequential<duet::models::Queue<Binding<BackwardsQueue>>>({.seed = 1, .count = 2000, .verbose = -1});
  ASSERT_FALSE(r);
  EXPECT_NE(r.report.find("replay:"), std::string::npos) << r.report;
  EXPECT_LE(r.failing_length, 4u) << r.report;
}

TEST(Consumer, CorrectQueuePassesUnderThreads) {
  const duet::CheckResult r = duet::check_parallel<duet::models::Queue<Binding<LockedQueue>>>({}, {.seed = 1, .count = 50});
  // On a busy machine the threads' calls may (almost) never overlap: an honest "inconclusive".
  const bool no_overlap =
      r.status == duet::CheckResult::Status::error && r.report.find(": inconclusive: ") != std::string::npos;
  EXPECT_TRUE(r.passed() || no_overlap) << r.report;
}

TEST(Consumer, HistoryCheckerGivesBothVerdicts) {
  // A key-value store: p0 puts "x", then p1 reads "x" (linearizable) or "" (not: the put
  // had completed before the read began).
  const auto history = [](const std::string& read) {
    return duet::history::parse_history(
        ";duet-history 1\n;model kv\n"
        "{:process 0, :invoke 1, :complete 2, :type :ok, :f :put, :key \"k\", :input \"x\", :value nil}\n"
        "{:process 1, :invoke 3, :complete 4, :type :ok, :f :get, :key \"k\", :input nil, :value \"" +
            read + "\"}\n",
        duet::history::Format::automatic, "consumer.duet");
  };
  EXPECT_EQ(duet::history::check_history(history("x")).verdict, duet::history::Verdict::linearizable);
  EXPECT_EQ(duet::history::check_history(history("")).verdict, duet::history::Verdict::not_linearizable);
}

TEST(Consumer, VersionIsThePackages) { EXPECT_STREQ(duet::version_string, DUET_EXPECTED_VERSION); }

}  // namespace
