// Searches taking turns on the cores (duet/detail/search_turns.hpp): a ticket queue, so that
// the longest waiting search goes next.
#include "duet/detail/search_turns.hpp"

namespace duet::detail {

void SearchTurns::enter() {
  std::unique_lock lock(mutex_);
  const std::uint64_t ticket = next_ticket_++;
  waiting_.fetch_add(1, std::memory_order_relaxed);
  turn_.wait(lock, [&] { return ticket == admitted_ && free_ > 0; });
  waiting_.fetch_sub(1, std::memory_order_relaxed);
  ++admitted_;
  --free_;
  turn_.notify_all();  // the next ticket may go too, if a slot is free
}

void SearchTurns::leave() {
  {
    const std::lock_guard lock(mutex_);
    ++free_;
  }
  turn_.notify_all();
}

void SearchTurns::pass(std::uint32_t& checks) {
  if (++checks < kQuantum) return;
  checks = 0;
  if (waiting_.load(std::memory_order_relaxed) == 0) return;
  leave();
  enter();
}

}  // namespace duet::detail
