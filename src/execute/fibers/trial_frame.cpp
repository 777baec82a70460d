// The trial's own fiber (scheduler.hpp, TrialFrame): the subject made and the prefix run on a
// fiber numbered after the branches, the branches started once it has done so, the suffix run
// and the subject destroyed on it once they have all finished. So a thread the subject starts
// anywhere in its trial is a fiber of the run, and its destructor joins it within the run.
//
// The frame's own mechanics are no steps of the run: the branches wait on `gate_` and the
// trial's fiber on `joined_` without a trace event, a switch point or a pick of their own, and
// the wait for the branches follows the opening of the gate with no switch point between, so
// the first pick among the branches is the one a run without a frame makes first. When the
// setup started no fiber, its steps are forgotten as the gate opens (rebase): everything it did
// happens before the branches start, as it did when the setup ran outside the run (unless a
// wait of the setup woke spuriously: a failure one lone call can meet, which its report shows).
#include "execute/fibers/runtime.hpp"

#include <limits>
#include <mutex>

#include "execute/fibers/threads_outside.hpp"

namespace duet::detail::fiber {
namespace {

// The first thread that outlived its trial, for every later run of the process.
struct Outlived {
  std::mutex lock;
  std::string what;
};
Outlived& outlived() {
  static auto* o = new Outlived;  // never destroyed: a late run may still ask
  return *o;
}

}  // namespace

void remember_outlived(const std::string& what) {
  Outlived& o = outlived();
  const std::lock_guard<std::mutex> hold(o.lock);
  if (o.what.empty()) o.what = what;
}

std::string earlier_outlived_error() {
  Outlived& o = outlived();
  const std::lock_guard<std::mutex> hold(o.lock);
  if (o.what.empty()) return {};
  return "an earlier fiber run of this process ended with " + o.what.substr(0, o.what.find(", after the suffix")) +
         "; that thread was abandoned, and what the library keeps in globals may still count on it (a background "
         "thread it believes is running, work queued for it), so no later fiber run in this process can be "
         "judged. No verdict: check such a subject on threads, or in a process of its own";
}

void Runtime::begin_frame(const TrialFrame* frame) {
  frame_ = frame;
  quiet_ = false;
  setup_woke_spuriously_ = false;
  lone_setup_ = frame != nullptr;
  if (frame == nullptr) {
    trial_fiber_ = kNoFiber;
    return;
  }
  trial_fiber_ = static_cast<std::uint32_t>(n_);
  branches_left_ = n_;
  branches_clock_.fill(0);
  frame_body_ = [this] { frame_main(); };
  body_[n_] = &frame_body_;
  ++n_;
}

// After the fibers are made: the branches wait for the setup to end.
void Runtime::gate_branches() {
  if (trial_fiber_ == kNoFiber) return;
  for (std::uint32_t b = 0; b < trial_fiber_; ++b) {
    views_[b].state = FiberState::blocked;
    fibers_[b].blocked_on = &gate_;
  }
}

void Runtime::frame_main() {
  const auto last = [this] {
    if (frame_->last) frame_->last();
  };
  try {
    frame_->setup();
  } catch (...) {  // the trial's fiber ends by it (FiberResult::error): its branches never start
    for (std::uint32_t b = 0; b < trial_fiber_; ++b) views_[b].state = FiberState::finished;
    branches_left_ = 0;
    last();
    throw;
  }
  bool ran = false;
  {
    const DuetsOwnThread inside;  // duet's own code, to the teardown
    if (open_gate()) {
      wait_for_branches();
      ran = !draining_;  // else the run failed: the subject is abandoned, not destroyed
    }
  }
  if (ran) {
    quiet_ = !others_alive();
    try {
      frame_->teardown();
    } catch (...) {
      last();
      throw;
    }
  }
  last();
}

// The setup has ended: the branches may run. False when the run failed meanwhile.
bool Runtime::open_gate() {
  lone_setup_ = false;
  if (draining_) return false;
  Fiber& main = self();
  // A setup that started a fiber, or whose wait woke spuriously (a failure a lone call can
  // meet, which its report must show), keeps its steps.
  if (n_ == trial_fiber_ + std::size_t{1} && !setup_woke_spuriously_) {
    rebase();
  } else {
    for (std::uint32_t b = 0; b < trial_fiber_; ++b) join(fibers_[b].clock, main.clock, n_);
    tick(main);
  }
  for (std::uint32_t b = 0; b < trial_fiber_; ++b) make_runnable(b, WakeReason::notified);
  return true;
}

// Blocks the trial's fiber until the last branch has finished; no switch point before.
void Runtime::wait_for_branches() {
  Fiber& main = self();
  if (branches_left_ != 0) {
    views_[current].state = FiberState::blocked;
    views_[current].pending = Event{};  // no operation: the setup's last one is done
    main.blocked_on = &joined_;
    main.blocked_since = ++block_seq_;
    main.deadline = kNoTimeout;
    const std::uint32_t next = choose_when_idle();
    if (next == kNoFiber) stop_run();
    transfer(next);
  }
  join(main.clock, branches_clock_, n_);
  tick(main);
}

// The setup started no fiber: the run starts over as the branches start, as if the setup had
// run before it (its steps, objects, clocks, memory histories and call boundaries forgotten).
void Runtime::rebase() {
  ++identity_busy_;  // clearing frees memory: nothing to forget objects for
  trace.clear();
  clock_reads.clear();
  objects_.clear();
  table_.reset();
  pointer_names_.reset();
  --identity_busy_;
  shadow_.reset();
  released_.fill(0);
  annotated_.at.clear();
  if (model_on_) {
    model_.begin_run();
    for (std::uint32_t i = 0; i < n_; ++i) model_.start_fiber(i);
  }
  for (std::uint32_t i = 0; i < n_; ++i) {
    views_[i].steps = 0;
    fibers_[i].clock.fill(0);
    fibers_[i].clock[i] = 1;
  }
  switch_points_ = 0;
  result.weak_order_used = false;
  result.weak_order_loc = {};
}

void Runtime::frame_fiber_ended(std::uint32_t fiber) {
  if (fiber >= trial_fiber_ || branches_left_ == 0) return;  // not a branch (a spawned fiber's slot)
  join(branches_clock_, fibers_[fiber].clock, n_);
  if (--branches_left_ == 0 && views_[trial_fiber_].state == FiberState::blocked &&
      fibers_[trial_fiber_].blocked_on == &joined_)
    make_runnable(trial_fiber_, WakeReason::notified);
}

bool Runtime::others_alive() const {
  for (std::uint32_t j = 0; j < n_; ++j)
    if (j != current && views_[j].state != FiberState::finished) return true;
  return false;
}

void Runtime::begin_judging(Picker& picker) {
  judging_ = true;
  picker_ = &picker;
  max_steps_before_judging_ = config.max_steps;
  config.max_steps = std::numeric_limits<std::size_t>::max() / 4;  // no bound: the oracle's calls take what they take
}

std::uint32_t Runtime::leave_to_the_process() {
  for (std::uint32_t j = 0; j < n_; ++j) result.left_with_process += views_[j].state != FiberState::finished;
  return kNoFiber;
}

// Where the thread that is fiber `j` was started, from its spawn in the trace (none: the trace
// was quiet then).
std::string Runtime::started_at(std::uint32_t j) const {
  for (auto e = trace.rbegin(); e != trace.rend(); ++e)
    if (e->event.op == Op::spawn && e->written.type == ValueType::fiber && e->written.bits == j)
      return " (started at " + location(e->event.loc) + ")";
  return {};
}

std::string Runtime::outlived_text() const {
  std::string out;
  std::size_t count = 0;
  for (std::uint32_t j = 0; j < n_; ++j) {
    if (views_[j].state == FiberState::finished) continue;
    if (++count > 1) continue;
    const Event& e = views_[j].pending;
    out = "fiber " + std::to_string(j) + (views_[j].state == FiberState::blocked ? " waits in " : " is at ") +
          event_phrase(TraceEvent{0, j, e, {}, {}}) + started_at(j);
  }
  return (count == 1 ? "a thread the subject started outlived its trial: " + out
                     : std::to_string(count) + " threads the subject started outlived its trial (" + out + ", ...)") +
         ", after the suffix ran and the subject was destroyed (a detached thread, or one its destructor does not "
         "join). A fiber run ends with its trial, so such a thread cannot go on into the next one, as it does "
         "in a process. No verdict: check such a subject on threads, or have the library's background work run "
         "on threads the subject owns and joins (a pool of its own that the library accepts, docs/real-libraries.md)";
}

}  // namespace duet::detail::fiber
