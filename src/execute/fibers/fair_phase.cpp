// The fair phase: what a run gets after max_steps switch points before it is called a livelock.
//
// A strategy may starve a fiber: PCT runs the fiber of highest priority as long as it can, so
// a spin-wait that writes on every retry (which spin detection does not take for a spin) can
// run forever while the fiber it waits for, of lower priority, never gets a step. That is the
// strategy's doing, not the subject's. So past max_steps the picker is no longer asked: every
// scheduling decision goes to the next runnable fiber after the current one, by number, for
// max_steps more switch points. A run that finishes there goes on as any other; one that does
// not is a livelock of the subject (describe() says the fair schedule was tried).
//
// The fair picks draw nothing from the choice stream: they follow from the fiber numbers and
// the step count alone, so a replay (a token, a draft's duet::run_fibers) makes the same ones.
//
// A fiber that sleeps (or waits with a deadline) while others spin is waited for, not a
// livelock: in a process its time passes while they spin, however long each of their retries
// takes. Virtual time passes only when no fiber can run, so a long sleeper beside a spinner
// that sleeps 10 us a retry (Abseil's Mutex beside its cycle clock's calibration, which sleeps
// 1 ms, then 2, 4 ... 128) took more steps than the bound allows. So at the end of the fair
// phase the clock jumps to the latest deadline of the fibers blocked with one, each of them
// times out (a schedule a process may show), and the run gets its fair phase again; a few
// times at most (kTimePasses), then it is a livelock. The same from the same state: replays too.
#include <algorithm>

#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

void Runtime::switch_point() {
  if (draining_) {  // a failing run ending its calls (drain.cpp)
    drain_switch_point();
    return;
  }
  ++switch_points_;
  if (switch_points_ > config.max_steps && switch_points_ - config.max_steps > config.max_steps && !let_the_time_pass()) {
    if (trial_ended()) {  // fibers the subject started go on after its trial (trial_frame.cpp)
      result.outcome = Outcome::limit;
      result.limit = outlived_text();
      remember_outlived(result.limit);
    } else {
      result.outcome = Outcome::livelock;
      result.fair_steps = config.max_steps;
    }
    stop_run();
  }
  if (monitor != nullptr) monitor->at_switch_point(*this);  // may suspend fibers, or end the run
  const std::uint32_t next = choose(true);
  if (next == kNoFiber) stop_run();  // the picker failed
  transfer(next);
}

bool Runtime::let_the_time_pass() {
  constexpr std::size_t kTimePasses = 16;
  if (time_passes_ == kTimePasses) return false;
  std::uint64_t latest = 0;
  bool timed = false;
  for (std::uint32_t j = 0; j < n_; ++j)
    if (views_[j].state == FiberState::blocked && fibers_[j].deadline != kNoTimeout) {
      latest = std::max(latest, fibers_[j].deadline);
      timed = true;
    }
  if (!timed) return false;
  ++time_passes_;
  switch_points_ = config.max_steps + 1;  // a fair phase again
  t_virtual_ns = std::max(t_virtual_ns, latest);
  for (std::uint32_t j = 0; j < n_; ++j)
    if (views_[j].state == FiberState::blocked && fibers_[j].deadline <= t_virtual_ns) make_runnable(j, WakeReason::timeout);
  return true;
}

std::size_t Runtime::fair_pick(const PickContext& ctx) const {
  // Round robin: the candidate closest after the current fiber, wrapping around (at the run's
  // start, fiber 0 first). The current fiber itself comes last: another runnable one goes first.
  const auto n = static_cast<std::uint32_t>(n_);
  const std::uint32_t from = ctx.current == kNoFiber ? n - 1 : ctx.current;
  std::size_t best = 0;
  std::uint32_t best_distance = n;
  for (std::size_t i = 0; i < ctx.candidates.size(); ++i) {
    const std::uint32_t distance = (ctx.candidates[i] + n - from - 1) % n;
    if (distance < best_distance) {
      best = i;
      best_distance = distance;
    }
  }
  return best;
}

}  // namespace duet::detail::fiber
