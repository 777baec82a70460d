// A relaxed queue model of one's own, written on the public base duet::models::RelaxedQueue (the
// queue's commands, run on a binding, as SpuriousEmptyQueue's and Bag's are): a 2-relaxed FIFO
// (try_pop returns one of the two oldest items) that a strict queue satisfies, a queue that
// serves the two oldest alternately satisfies and a queue that skips further does not. The
// base's name from before it was public still names it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <duet/duet.hpp>
#include <duet/parallel.hpp>
#include <duet/models/bindings_std.hpp>
#include <duet/models/relaxed_queue.hpp>

#include "support/emulation.hpp"

namespace {

// try_pop returns one of the `k` oldest items (each once), nullopt only when empty.
template <class B, std::size_t k>
struct KRelaxedQueue : duet::models::RelaxedQueue<B, std::deque<int>> {
  using Base = duet::models::RelaxedQueue<B, std::deque<int>>;
  using States = std::vector<std::deque<int>>;
  static States next_states(const typename Base::Cmd& c, const std::deque<int>& s, const duet::Result& got) {
    std::deque<int> t = s;
    if (auto* p = std::get_if<duet::models::Push>(&c)) {
      t.push_back(p->x);
      return {t};
    }
    if (got == duet::Result(std::optional<int>())) return s.empty() ? States{s} : States{};
    States next;  // every position the item could have come from (equal items: several)
    for (std::size_t i = 0; i < k && i < s.size(); ++i)
      if (got == duet::Result(std::optional<int>(s[i]))) {
        std::deque<int> u = s;
        u.erase(u.begin() + static_cast<std::ptrdiff_t>(i));
        next.push_back(std::move(u));
      }
    return next;
  }
};

// Hands out the second-oldest item on every other pop (when there are two): a 2-relaxed FIFO,
// and no FIFO.
struct Alternating {
  std::mutex m;
  std::deque<int> d;
  bool skip = false;
};
template <std::size_t skip_to>
struct AlternatingBinding {
  using Sut = Alternating;
  static void push(Sut& q, int x) {
    std::lock_guard lock(q.m);
    q.d.push_back(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    std::lock_guard lock(q.m);
    if (q.d.empty()) return std::nullopt;
    q.skip = !q.skip;
    const std::size_t at = q.skip ? std::min(skip_to, q.d.size() - 1) : 0;
    const int x = q.d[at];
    q.d.erase(q.d.begin() + static_cast<std::ptrdiff_t>(at));
    return x;
  }
};

duet::Config quiet(duet::Config c) {
  c.verbose = -1;
  c.output_dir = testing::TempDir() + "duet_relaxed_queue";
  return c;
}

TEST(RelaxedQueueBase, AModelOfOnesOwnOnThePublicBase) {
  // The base gives the queue's commands, subject and values; the model, the rest.
  using Two = KRelaxedQueue<duet::models::MutexQueue, 2>;
  static_assert(std::is_same_v<Two::Cmd, std::variant<duet::models::Push, duet::models::TryPop>>);
  EXPECT_EQ(Two::sut_name, std::string("q"));
  EXPECT_EQ(Two::domain(), duet::models::Queue<duet::models::MutexQueue>::domain());
  // The name it had before it was public names the same base.
  static_assert(std::is_same_v<duet::models::detail::RelaxedQueueBase<duet::models::MutexQueue, std::deque<int>>,
                               duet::models::RelaxedQueue<duet::models::MutexQueue, std::deque<int>>>);
}

TEST(RelaxedQueueBase, AStrictQueueAndAnAlternatingOneAreTwoRelaxed) {
  const duet::Config config = quiet({.seed = 1, .count = 1000});
  const duet::CheckResult strict = duet::check_sequential<KRelaxedQueue<duet::models::MutexQueue, 2>>(config);
  EXPECT_TRUE(strict) << strict.report;
  const duet::CheckResult alternating = duet::check_sequential<KRelaxedQueue<AlternatingBinding<1>, 2>>(config);
  EXPECT_TRUE(alternating) << alternating.report;
  const duet::CheckResult threads = duet::check_parallel<KRelaxedQueue<AlternatingBinding<1>, 2>>(
      {}, duet_test::in_process_if_forks_cannot_start_threads(quiet({.seed = 1, .count = 100})));
  EXPECT_TRUE(threads) << threads.report;
  // The relaxation allows, it does not require: the alternating queue is no FIFO.
  using Fifo = KRelaxedQueue<AlternatingBinding<1>, 1>;
  EXPECT_FALSE(duet::check_sequential<Fifo>(config));
}

TEST(RelaxedQueueBase, SkippingFurtherThanTheModelAllowsIsFound) {
  const duet::CheckResult r =
      duet::check_sequential<KRelaxedQueue<AlternatingBinding<2>, 2>>(quiet({.seed = 1, .count = 2000}));
  ASSERT_FALSE(r) << r.report;
  EXPECT_NE(r.report.find("q.try_pop()"), std::string::npos) << r.report;
}

}  // namespace
