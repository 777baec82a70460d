// Searches side by side, more of them than cores, taking turns on the cores (the parts of one
// history: duet-check's partitions). At most `slots` run at once; one that has spent its
// quantum of work gives its slot to the search that has waited longest. So every part makes
// progress at the same pace, and the first violation comes at about the cheapest failing part's
// cost times the parts over the cores, whatever order the parts started in; without turns a
// core ran a part to its end, and the parts picked first could take minutes. No work is done
// twice: a search waits where it stopped.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>

namespace duet::detail {

class SearchTurns {
 public:
  explicit SearchTurns(std::size_t slots) : free_(slots == 0 ? 1 : slots) {}
  SearchTurns(const SearchTurns&) = delete;
  SearchTurns& operator=(const SearchTurns&) = delete;

  /// Waits for a slot, behind every search that asked before.
  void enter();
  /// Gives the slot up (the search is over).
  void leave();
  /// Called at each budget check of a search holding a slot: after `kQuantum` checks, when
  /// another search waits, gives it the slot and waits for the next turn.
  void pass(std::uint32_t& checks);

  /// Budget checks (each about 1,024 steps) a search runs before it passes: about a
  /// millisecond of search.
  static constexpr std::uint32_t kQuantum = 8;

  /// Searches waiting for a turn now.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  // A search in line: woken alone when the slot passes to it (not every waiting search at each
  // pass: with 16 in line that cost more than the searching).
  struct Waiter {
    std::condition_variable woken;
    bool admitted = false;
  };

  std::mutex mutex_;
  std::size_t free_;
  std::deque<Waiter*> line_;
  std::atomic<std::size_t> waiting_{0};
};

/// A slot of `turns` (none: nothing) held for a scope.
class SearchTurn {
 public:
  explicit SearchTurn(SearchTurns* turns) : turns_(turns) {
    if (turns_) turns_->enter();
  }
  ~SearchTurn() {
    if (turns_) turns_->leave();
  }
  SearchTurn(const SearchTurn&) = delete;
  SearchTurn& operator=(const SearchTurn&) = delete;

 private:
  SearchTurns* turns_;
};

}  // namespace duet::detail
