// The happens-before order of one fiber run, as the optimal partial-order reduction sees it
// (optimal_explorer.hpp): each trace event is a step; a step happens before another when they
// are of one fiber in that order, when one is the spawn of the other's fiber, or when they are
// dependent (dependent() in strategies.hpp) and ran in that order, and transitively.
//
//   RunOrder order;
//   order.assign(steps_of(sched.trace()));
//   for (const Race& r : order.races())
//     std::vector<Step> v = order.reversal(r);   // what runs the race the other way round
//
// Internal to the exhaustive search.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber::dpor {

/// One step of a run: the fiber that took it and its operation (a trace event).
struct Step {
  std::uint32_t fiber = 0;
  Event event;
  std::uint32_t spawned = kNoFiber;  // a spawn: the fiber it made
  /// Under the C++ memory model (`model`): one of the check's seq_cst fences ended the step
  /// (assumed of a step not run yet, where the search orders the calls: without `calls` the
  /// fences are not in the run, SchedulerConfig::harness_fences), and a load's store (its trace
  /// position; kNoStep: the value from before the run, or not known).
  bool model = false;
  bool fenced = false;
  /// The check read a call's invoke or response time in the step (both assumed of a step not
  /// run yet, or run at another time): a response and an invocation of different fibers are
  /// dependent under any model, since their order is the calls' real-time order, which the
  /// check judges by.
  bool invokes = false;
  bool responds = false;
  /// The search orders the calls' real time by running (invokes and responds are then as
  /// above); off where the check judges every order the run allows itself (call_orders.hpp),
  /// and the steps are then never dependent by the calls' boundaries.
  bool calls = true;
  std::uint32_t read_from = kNoStep;
};

/// A trace event as a step; `model`: the run was under the C++ memory model; `calls`: the
/// search orders the calls' boundaries (Step::calls).
Step step_of(const TraceEvent& e, bool model = false, bool calls = true);
/// A fiber's next step, not run yet: under the model, assumed to end with a fence.
Step pending_step(std::uint32_t fiber, const Event& e, bool model, bool calls = true);
/// What a step may be when run at another time: a compare-exchange that failed may succeed, a
/// lock attempt that blocked may take the mutex (both then write); a load may read another
/// store. Other steps are the same.
Step attempted(Step s);
/// Whether two steps are the same step (a search's prefix replayed).
bool same_step(const Step& a, const Step& b) noexcept;
/// The steps of a run, one per trace event.
std::vector<Step> steps_of(std::span<const TraceEvent> trace, bool model = false, bool calls = true);

/// Whether the order of two steps of different fibers can matter (the exhaustive search's
/// dependence, with the C++ memory model's where a step is under it: see dependent() and
/// orders_every_fence(); a spawn and a step of the fiber it made are ordered by the spawn, not
/// by dependence).
bool steps_dependent(const Step& a, const Step& b) noexcept;

/// Two steps, `first` before `second` in the run, of different fibers, dependent, with no step
/// between them in happens-before: running `second` first gives a different trace.
struct Race {
  std::size_t first = 0, second = 0;
};

class RunOrder {
 public:
  /// Computes the order of `steps` (copied).
  void assign(std::span<const Step> steps);
  /// Keeps the order of the first `n` steps only: a search keeps the prefix its next run
  /// replays and pushes the run's new steps, instead of computing the whole order again.
  void truncate(std::size_t n);
  /// One more step, after those in the order: its predecessors and its races.
  void push(const Step& s);
  /// The run's trial fiber (RunResult::trial_fiber; kNoFiber: none): its steps before the
  /// branches start happen before each branch's first step, and every branch's steps before
  /// its steps after them (a new value empties the order).
  void set_trial_fiber(std::uint32_t fiber) {
    if (fiber == trial_fiber_) return;
    truncate(0);
    trial_fiber_ = fiber;
  }
  std::size_t size() const { return steps_.size(); }
  std::span<const Step> steps() const { return steps_; }
  /// Whether step `i` happens before step `j`.
  bool before(std::size_t i, std::size_t j) const { return i < j && (words_[offset_[j] + i / 64] >> (i % 64)) & 1u; }
  /// Every race of the run, by second step then first.
  const std::vector<Race>& races() const { return races_; }
  /// The steps after r.first and before r.second that do not happen after r.first, in run
  /// order, then r.second: from the state before r.first, a way to run the race the other way
  /// round (Abdulla et al.'s notdep(e, E).e').
  std::vector<Step> reversal(const Race& r) const;
  /// Whether `load` (a fiber's next step, after the steps in the order) could have run before
  /// every write in `later` (positions of writes of its object): none of them happens before it
  /// but by its conflict with the load itself. Then the load reading a store older than all of
  /// them is the same execution as the load running before them, as a search of every order
  /// has it.
  bool could_precede(const Step& load, std::span<const std::size_t> later) const;

 private:
  // Step j's predecessors: a row of (j + 63) / 64 words from offset_[j] (positions below j).
  void merge_row(std::uint64_t* into, std::size_t k) const;  // into |= step k's row
  void recount_fibers();
  /// The steps the trial's frame puts before a next step of `fiber` (the start of the branches
  /// after the setup, the end of the branches before the teardown), into `out`.
  void frame_predecessors(std::uint32_t fiber, std::vector<std::size_t>& out) const;

  std::vector<Step> steps_;
  std::vector<std::uint64_t> words_;
  std::vector<std::size_t> offset_{0};  // size() + 1 entries: where each row starts
  std::vector<std::size_t> previous_;   // per step: 1 + its fiber's step before it (0: none)
  std::vector<Race> races_;
  std::array<std::size_t, kMaxFibers> last_{};   // per fiber: 1 + its latest step (0: none)
  std::array<std::size_t, kMaxFibers> spawn_{};  // per fiber: 1 + the step that spawned it
  std::size_t fibers_ = 0;                       // 1 + the highest fiber with a step or a spawn
  std::uint32_t trial_fiber_ = kNoFiber;         // set_trial_fiber
  std::vector<std::size_t> direct_;              // scratch of push()
  std::vector<std::uint64_t> through_;           // scratch of push()
};

/// The positions of the writes of `object` among `steps`, in order.
std::vector<std::size_t> writes_of(std::span<const Step> steps, std::uint32_t object);
/// Whether the C++ memory model still holds every store of `object` that `steps` made (only
/// atomic accesses, fewer stores than AtomicsModel::kHistory): candidate k of a load is then
/// the k-th newest of them.
bool history_holds_every_store(std::span<const Step> steps, std::uint32_t object);

/// Whether fiber `p` can start the sequence `w` from a state where p's next step is `next`
/// (null: not known): p's first step in `w` depends on no step before it in `w`, or p has no
/// step in `w` and its next step depends on none of them (a weak initial of w).
bool weak_initial(std::uint32_t p, std::span<const Step> w, const Step* next);

/// `w` without fiber p's first step (unchanged when p has none).
std::vector<Step> without_first_of(std::uint32_t p, std::span<const Step> w);

}  // namespace duet::detail::fiber::dpor
