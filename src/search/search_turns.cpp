// Searches taking turns on the cores (duet/detail/search_turns.hpp): a line of waiting searches,
// the slot handed to the first of it.
#include "duet/detail/search_turns.hpp"

namespace duet::detail {

void SearchTurns::enter() {
  std::unique_lock lock(mutex_);
  if (free_ > 0 && line_.empty()) {
    --free_;
    return;
  }
  Waiter me;
  line_.push_back(&me);
  waiting_.store(line_.size(), std::memory_order_relaxed);
  me.woken.wait(lock, [&] { return me.admitted; });
}

void SearchTurns::leave() {
  const std::lock_guard lock(mutex_);
  if (line_.empty()) {
    ++free_;
    return;
  }
  // The slot goes straight to the longest waiting (free_ unchanged), woken alone. Notified
  // under the lock: its Waiter lives on its stack until it has seen `admitted`.
  Waiter* next = line_.front();
  line_.pop_front();
  waiting_.store(line_.size(), std::memory_order_relaxed);
  next->admitted = true;
  next->woken.notify_one();
}

void SearchTurns::pass(std::uint32_t& checks) {
  if (++checks < kQuantum) return;
  checks = 0;
  if (waiting_.load(std::memory_order_relaxed) == 0) return;
  leave();
  enter();
}

}  // namespace duet::detail
