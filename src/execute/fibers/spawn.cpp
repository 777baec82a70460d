// Fibers a run starts (duet::spawn, and threads of instrumented code): a slot (a finished
// thread's, past the limit), a stack, the child's clock after its parent's; the run's end when
// no slot or stack is left, as duet's own limit; and what becomes of spawned bodies after a run.
#include <algorithm>
#include <string>
#include <utility>

#include "duet/executor.hpp"  // detail::abandon
#include "execute/fibers/instrumented.hpp"
#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

std::uint32_t Runtime::spawn(std::function<void()>&& body, duet::source_location loc) {
  enter(Op::spawn, ObjectKind::none, nullptr, std::memory_order_seq_cst, loc);
  std::uint32_t slot = kNoFiber;
  if (n_ < kMaxFibers) {
    slot = static_cast<std::uint32_t>(n_);
  } else {
    // A finished thread's slot, never a branch's nor the trial's (their results are the run's).
    for (auto j = static_cast<std::uint32_t>(first_spawned_); j < n_ && slot == kNoFiber; ++j)
      if (views_[j].state == FiberState::finished && !fibers_[j].awaits_join) slot = j;
  }
  if (slot == kNoFiber) refuse_spawn(std::move(body), fiber_limit_text(loc));
  const std::uint32_t previous_epoch = slot < n_ ? fibers_[slot].clock[slot] : 0;
  if (slot == n_) {
    if (stacks_.size() <= slot) {
      bool mapped = true;
      try {
        stacks_.push_back(map_stack(config.stack_size));
      } catch (...) {
        mapped = false;
      }
      if (!mapped) {  // outside the handler, and no temporary left: this stack is abandoned
        std::string why = "duet::spawn at " + location(loc) + ": no memory for a fiber stack";
        refuse_spawn(std::move(body), std::move(why));
      }
      ++stats.stacks_mapped;
    }
    ++n_;
    result.fibers.emplace_back();
  } else {
    result.fibers[slot] = FiberResult{};
  }
  spawned_[slot] = std::move(body);  // empty: a finished fiber's body went with it
  body_[slot] = &spawned_[slot];
  Fiber& parent = self();
  start_fiber(slot, parent.tsan_fiber);
  Fiber& child = fibers_[slot];
  child.clock = parent.clock;
  child.clock[slot] = std::max(previous_epoch, parent.clock[slot]) + 1;
  tick(parent);
  quiet_ = false;  // a teardown that starts a fiber is the run's from here (trial_frame.cpp)
  lone_setup_ = false;
  record(Op::spawn, {}, {slot, ValueType::fiber});
  try {
    picker_->fiber_started(slot);
  } catch (...) {
    picker_error_ = std::current_exception();
  }
  if (picker_error_) stop_run();
  return slot;
}

std::string Runtime::fiber_limit_text(duet::source_location loc) const {
  std::size_t unjoined = 0;  // finished threads whose slot waits for their join (Fiber::awaits_join)
  for (std::size_t j = 0; j < n_; ++j) unjoined += views_[j].state == FiberState::finished && fibers_[j].awaits_join;
  return "duet::spawn at " + location(loc) + ": " + std::to_string(kMaxFibers) +
         " fibers are alive already, duet's limit per run" +
         (unjoined > 0 ? " (" + std::to_string(unjoined) + " of them threads that have finished and are not joined yet)"
                       : std::string()) +
         " (kMaxFibers, set by DUET_MAX_FIBERS when duet is configured: cmake -DDUET_MAX_FIBERS=" +
         std::to_string(kMaxFibers * 2) + "; each fiber costs a stack of FiberOptions::stack_size while it is alive)";
}

// The run ends as duet's own limit, not the code's failure. The body never ran: it is kept
// off this stack (which is abandoned) and destroyed after the run, outside it.
void Runtime::refuse_spawn(std::function<void()>&& body, std::string why) {
  rejected_ = std::move(body);
  if (!draining_) {  // the run failed already: that failure is its outcome
    result.outcome = Outcome::limit;
    result.limit = std::move(why);
  }
  stop_run();
}

// After the loop, outside the run: a spawned body whose fiber did not finish (the run was
// abandoned) must be gone before the next run, which must neither resume nor observe it. One
// that never started is destroyed (its destructors run outside any run: no events); one that
// started may be referred to from its abandoned frames, so it is kept, never destroyed.
void Runtime::settle_spawned() {
  std::function<void()> gone;
  gone.swap(rejected_);
  for (std::size_t i = 0; i < n_; ++i) {
    if (body_[i] != &spawned_[i] || !spawned_[i]) continue;
    if (views_[i].steps == 0) {
      std::function<void()> unstarted;
      unstarted.swap(spawned_[i]);
    } else {
      auto* kept = new std::function<void()>();
      kept->swap(spawned_[i]);
      duet::detail::abandon(kept);
    }
  }
}

}  // namespace duet::detail::fiber
