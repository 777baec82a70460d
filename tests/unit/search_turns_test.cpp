// Searches taking turns on the cores (include/duet/detail/search_turns.hpp).
#include <duet/detail/search_turns.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace {

using duet::detail::SearchTurn;
using duet::detail::SearchTurns;

TEST(SearchTurns, NoMoreSearchesHoldATurnThanThereAreSlots) {
  SearchTurns turns(2);
  std::atomic<int> holding{0}, most{0};
  std::vector<std::thread> searches;
  for (int s = 0; s < 8; ++s)
    searches.emplace_back([&] {
      const SearchTurn turn(&turns);
      std::uint32_t checks = 0;
      for (int step = 0; step < 2000; ++step) {
        const int now = holding.fetch_add(1) + 1;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        holding.fetch_sub(1);
        turns.pass(checks);  // gives the turn away every kQuantum calls while others wait
      }
    });
  for (std::thread& t : searches) t.join();
  EXPECT_LE(most.load(), 2);
  EXPECT_GE(most.load(), 1);
}

TEST(SearchTurns, ASearchThatPassesLetsTheLongestWaitingGoFirst) {
  // One slot: the first search holds it while the others line up in order, then passes it.
  SearchTurns turns(1);
  std::vector<int> order;
  turns.enter();
  std::vector<std::thread> waiting;
  for (int s = 0; s < 3; ++s) {
    waiting.emplace_back([&, s] {
      const SearchTurn turn(&turns);
      order.push_back(s);  // one at a time: the slot is the lock
    });
    while (turns.waiting() < static_cast<std::size_t>(s + 1)) std::this_thread::yield();  // in line before the next
  }
  std::uint32_t checks = SearchTurns::kQuantum - 1;
  turns.pass(checks);  // others wait: the turn goes to them, and comes back after them
  order.push_back(-1);
  turns.leave();
  for (std::thread& t : waiting) t.join();
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, -1}));
}

TEST(SearchTurns, PassingWithNobodyWaitingKeepsTheTurn) {
  SearchTurns turns(1);
  const SearchTurn turn(&turns);
  std::uint32_t checks = 0;
  for (std::uint32_t i = 0; i < 10 * SearchTurns::kQuantum; ++i) turns.pass(checks);  // returns: nobody waits
  SUCCEED();
}

}  // namespace
