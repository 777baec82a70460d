// The drain of a failing run. A data race is reported where it is found, but the run does not
// stop there: the fibers go on, so that each ends the calls it was in (a lock it holds is
// released, a record it half-updated is finished, its thread-specific data destroyed) and the
// subject's state, which outlives the run (a library's globals, its reclamation lists), is left
// as a real execution would leave it. A fiber abandoned in the middle of a call would leave it
// half-updated, and the next trial, the shrinker's replays or the process's exit would trip on
// it (a global spin lock held forever, a double free in the reclamation code).
//
// The drain is no part of the run's result: nothing is recorded (the trace ends at the race),
// nothing is checked, no choice is drawn (the fibers take turns at each switch point, as in
// the fair phase before a livelock verdict, fair_phase.cpp; a load reads the newest store; a
// notify wakes the longest waiter), so a replay drains the same way and tokens are unchanged. Memory freed during the drain, or freed where the race
// was found, is kept rather than given back: another fiber may still use it. A drain that cannot
// finish (a deadlock, more than max_steps switch points, a crash injected by the subject, duet's
// limits) is abandoned as a failing run was before, and the run's outcome stays the race.
#include "execute/fibers/runtime.hpp"

namespace duet::detail::fiber {

void Runtime::begin_drain() {
  draining_ = true;
  drain_steps_ = 0;
}

void Runtime::drain_switch_point() {
  if (++drain_steps_ > config.max_steps) stop_run();  // it cannot end its calls: abandoned
  const std::uint32_t next = choose(true);            // the fair phase's round robin (fair_phase.cpp)
  if (next == kNoFiber) stop_run();
  transfer(next);
}

}  // namespace duet::detail::fiber
