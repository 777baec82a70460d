// Scheduling strategies for the fiber scheduler (scheduler.hpp), beyond the uniform RandomPicker:
// PCT (probabilistic concurrency testing) and an exhaustive, preemption-bounded depth-first
// search with sleep sets.
//
// One rule for all of them: a strategy DECIDES each pick, and the decision is recorded in the
// choice stream as the index of the chosen candidate (Source::draw_decided); spurious wake-ups
// and notify_one's choice of waiter are recorded with the same bounds RandomPicker draws them
// with. So the choices a strategy leaves in its Source replay with a plain RandomPicker (same
// spurious_one_in) over Source::replay(choices), byte for byte, and the shrinker reduces them
// toward 0 = "keep running the current fiber" = fewer preemptions, with no strategy code.
//
//   // PCT, depth 3: priorities and change points fresh every run, k learnt from earlier runs.
//   duet::Source src = duet::Source::from_seed(seed);
//   PctPicker pct(src, 3);
//   for (...) { src.restart(next_seed); sched.run(branches, pct); }
//
//   // Every schedule with at most 2 preemptions, independent orders explored once.
//   Explorer ex(sched, src, {.preemption_bound = 2});
//   Picker* p;
//   while (ex.next(p)) {
//     src.restart(0);  // each schedule's picks on their own
//     reset_the_program_state();
//     const RunResult& r = sched.run(branches, *p);
//     if (failed(r)) { /* src.choices() replays it */ }
//     ex.finish(r);
//   }
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "duet/source.hpp"
#include "execute/fibers/schedule_search.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber {

/// PCT (Burckhardt, Kothari, Musuvathi, Nagarakatte, "A Randomized Scheduler with Probabilistic
/// Guarantees of Finding Bugs", ASPLOS 2010). At the start of every run each fiber gets a random
/// distinct priority in d..d+n-1, and d-1 distinct change points are drawn uniformly in [1, k].
/// At every pick the highest-priority candidate runs; when the run has executed c_j events (c_j
/// the change point numbered j), the fiber that was running gets priority d-j, below every
/// initial priority.
///
/// Guarantee (the paper's Theorem): for a program of n fibers running at most k steps, a bug of
/// depth d (one that shows whenever d specific ordering constraints hold, e.g. depth 1 = one
/// fiber's event before another's, depth 2 = additionally one preemption at one place) is found
/// in each run with probability at least 1 / (n * k^(d-1)). Measured in tests/fibers and bench
/// (docs/benchmarks.md): on a depth-2 bug the observed rate matches the bound.
///
/// Steps are the run's events (trace entries; PickContext::step), so k should be about the
/// number of events before the last scheduling choice. Given as 0, k adapts: the first run has
/// no change points, and each later run uses the most events before a choice seen in the runs
/// so far. A change point reached between two choices applies at the next choice, to the fiber
/// that was running there.
///
/// Fibers created during the run (duet::spawn, a thread the code under test starts) get a
/// priority when they are first able to run: a uniformly random rank among the ranked ones
/// (those at or above it move up), as the paper inserts a thread created during the run.
///
/// The priorities and change points come from Source::draw_unrecorded (not part of the choice
/// stream: only the picks are), so in replay and bytes modes they are inert and the picks read
/// back are the ones made. Spurious wake-ups and waiter picks are drawn exactly as RandomPicker
/// draws them (same spurious_one_in).
class PctPicker final : public Picker {
 public:
  /// 1 <= depth <= 64; steps = k, or 0 to learn it from the runs. Throws
  /// std::invalid_argument for a depth outside that range.
  PctPicker(Source& src, std::size_t depth, std::size_t steps = 0, std::uint64_t spurious_one_in = 8);

  void begin_run(std::size_t fibers) override;
  std::size_t pick(const PickContext& ctx) override;
  bool spurious_wakeup(std::uint32_t fiber, const Event& wait) override;
  std::size_t pick_waiter(std::uint32_t notifier, std::span<const std::uint32_t> waiters) override;
  std::size_t pick_store(std::uint32_t, const Event&, std::size_t stores) override { return random_store(src_, stores); }

  std::size_t depth() const { return depth_; }
  /// k of the run under way (0: no change points in this run).
  std::size_t steps() const { return k_; }
  /// The most events before a choice seen so far (what an adaptive k becomes).
  std::size_t steps_seen() const { return seen_steps_; }
  /// Why PCT cannot run at this depth, or empty: what the constructor throws for, so that a
  /// check can refuse the schedule before its first case.
  static std::string depth_error(std::size_t depth);
  /// 1 / (n * k^(d-1)): the per-run probability PCT guarantees for a bug of depth d.
  static double bound(std::size_t fibers, std::size_t steps, std::size_t depth);

 private:
  struct Change {
    std::size_t step;
    std::uint32_t priority;
  };
  Source& src_;
  std::size_t depth_;
  std::size_t fixed_steps_;
  std::uint64_t spurious_one_in_;
  std::size_t k_ = 0;
  std::size_t seen_steps_ = 0;
  std::array<std::uint32_t, kMaxFibers> priority_{};
  std::array<bool, kMaxFibers> ranked_{};  // has a priority (a fiber made during the run gets one when first seen)
  std::size_t ranked_count_ = 0;           // fibers with an initial priority (d and up)
  void rank_new_fiber(std::uint32_t fiber);
  std::vector<Change> changes_;  // this run's change points, by step
  std::size_t next_change_ = 0;
};

/// Whether a fiber's pending operation and an executed event can give different results in
/// the two orders: the same object and at least one of them writes (stores, read-modify-writes,
/// successful or attempted CAS, duet::var writes and destruction, every mutex operation,
/// notifies, waits, blocking and waking). Two loads (or duet::var reads) of one object are
/// independent, so are operations on different objects, and anything without an object (a
/// fiber's start, duet::yield). A condition-variable wait also releases and retakes its mutex,
/// which the event does not name: it is dependent on every operation on an object.
///
/// Under the C++ memory model (`memory_model`), also: two seq_cst loads of one object (the
/// second may not read older than the first), and a seq_cst fence with every seq_cst operation
/// and fence (the order among them decides which stores later loads may read).
bool dependent(const Event& pending, const Event& executed, bool memory_model = false) noexcept;
/// Under the C++ memory model: an executed step that a pending step may depend on whatever its
/// operation, because the pending step may end with one of the check's seq_cst fences (which
/// are no events): a step with such a fence, a seq_cst operation, a seq_cst fence.
bool orders_every_fence(const TraceEvent& executed) noexcept;
/// The same for an operation, given whether one of the check's fences ended its step.
bool orders_every_fence(const Event& e, bool fenced) noexcept;

struct ExplorerConfig {
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();
  /// At most this many preemptions per schedule. A preemption is a pick that switches away
  /// from a fiber that could continue (PickContext::current_continues and a pick other than
  /// 0); switching when the current fiber finished, blocked or yields is free.
  std::size_t preemption_bound = 2;
  /// Stop after this many runs (stats().complete is then false).
  std::size_t max_schedules = 1'000'000;
  /// The partial-order reduction (Godefroid's sleep sets). Off: every schedule within the
  /// bound is run.
  bool sleep_sets = true;
  /// Fair schedules only, as CHESS: a fiber that yields (duet::yield, or a spin the scheduler
  /// detected) may run again only after every fiber that could run when it yielded has run (or
  /// stopped being able to). Without it a search over three spinning fibers would explore the
  /// spinners passing the turn among themselves until the run's step limit.
  bool fair = true;
  /// Must equal the replaying RandomPicker's: spurious wake-ups are recorded as its draws.
  std::uint64_t spurious_one_in = 8;
  /// Spurious wake-ups per schedule that the search explores (each condition-variable wait
  /// then branches: wake normally or spuriously). 0: never spurious.
  std::size_t spurious_bound = 0;
  /// Under the C++ memory model: loads per schedule that the search lets read an older store
  /// (each load with a choice then branches over the stores it may read, newest first). The
  /// program's dependences include the model's (see dependent() and orders_every_fence()).
  bool memory_model = false;
  std::size_t stale_read_bound = 2;
  /// Order the calls' real time by running (a sleeping fiber wakes on a step that invokes or
  /// returns from a call): off where the check judges every order of the calls a run allows
  /// (dpor/call_orders.hpp).
  bool order_calls = true;
};

struct ExplorerStats {
  std::size_t runs = 0;       // schedules handed out and finished
  std::size_t schedules = 0;  // runs that completed a schedule not equivalent to an earlier one
  /// Runs the sleep sets cut short: at some point every allowed pick was asleep (or a sleeping
  /// fiber was the only one able to run), so whatever followed is equivalent to a schedule
  /// already explored. The run went on with default picks to its end (a run cannot be stopped
  /// without abandoning its fibers); its outcome is a real one, just not a new one.
  std::size_t redundant = 0;
  std::size_t sleep_pruned = 0;  // alternatives at choice points never run: asleep
  std::size_t bound_pruned = 0;  // alternatives never run: over the preemption bound
  std::size_t max_choices = 0;   // choice points in the longest schedule
  bool complete = false;         // the whole search space was covered (not stopped by max_schedules)
  /// The whole search's runs: estimated from the share of its tree behind it while it goes on
  /// (search_share.hpp), exact once it is complete; 0 before the first estimate.
  double runs_in_all = 0;
};

/// Systematic exploration of one program's schedules: a stateless depth-first search (each
/// schedule is a run from the start, replaying the prefix it shares with the previous one), as
/// CHESS and Loom do, over every pick (and notify_one's waiter, and spurious wake-ups up to
/// spurious_bound), with at most preemption_bound preemptions per schedule, picks in candidate
/// order (0 = keep running the current fiber first).
///
/// Partial-order reduction: sleep sets (Godefroid 1996). After the alternative t has been
/// explored at a choice point, the later alternatives there carry t "asleep": t is not picked
/// while everything executed since is independent of it (see dependent()), since those
/// schedules are equivalent to one that ran t first. Without a preemption bound this is exact:
/// every Mazurkiewicz trace (equivalence class of schedules under swapping adjacent independent
/// steps) is completed exactly once, and the rest of the runs are redundant. With a bound, the
/// equivalent schedule may need more preemptions than the bound allows (Coons, Musuvathi and
/// McKinley, "Bounded partial-order reduction", OOPSLA 2013), so only the alternative "keep
/// running the current fiber" is put to sleep: moving the current fiber's step ahead of a
/// preemption never adds a preemption, so every schedule within the bound keeps an explored
/// equivalent within the bound (checked in tests/fibers/strategies_test.cpp against the
/// unreduced search). Assumed: code between two instrumented operations touches only its own
/// fiber's memory (shared memory goes through duet's types), and the program is deterministic
/// given its schedule. Yields and detected spins make the candidates depend on who ran last,
/// which swapping independent steps changes; these guarantees are stated (and tested) for
/// programs without them, and with them the search stays a sound exploration of real schedules
/// but may cover fewer traces.
///
/// Every decision is recorded in `src` with Source::draw_decided (src must be in random mode):
/// restart it before each run to keep each schedule's choices apart, and a failing schedule's
/// src.choices() replays with RandomPicker(src, config.spurious_one_in) over Source::replay.
class Explorer final : public ScheduleSearch {
 public:
  /// `sched`: the scheduler the schedules run on (the search reads its trace between picks);
  /// `src`: where the decisions are recorded. Both must outlive the Explorer.
  Explorer(const Scheduler& sched, Source& src, ExplorerConfig config = {});
  Explorer(const Explorer&) = delete;
  Explorer& operator=(const Explorer&) = delete;

  /// The picker for the next schedule; false when the search is over (complete, or
  /// max_schedules runs). Run the scheduler with it (the program's state reset), then finish().
  bool next(Picker*& picker) override;
  /// Ends the schedule just run. Throws std::runtime_error when the run did not repeat the
  /// choices of the schedule prefix it was given (the program is nondeterministic, or its state
  /// was not reset between schedules). next() throws std::logic_error when src is not in
  /// random mode.
  void finish(const RunResult& result) override;

  const ExplorerStats& stats() const override { return stats_; }
  const dpor::RunOrder& run_order() const override;
  /// About the schedule just finished: its preemptions, whether it was redundant.
  std::size_t preemptions() const { return preemptions_; }
  bool redundant() const { return redundant_; }
  const ExplorerConfig& config() const { return config_; }

 private:
  mutable dpor::RunOrder last_order_;  // run_order()'s, computed when asked
  // The picker handed to the scheduler: forwards every decision to the search.
  class RunPicker final : public Picker {
   public:
    explicit RunPicker(Explorer& ex) : ex_(ex) {}
    std::size_t pick(const PickContext& ctx) override { return ex_.pick(ctx); }
    bool spurious_wakeup(std::uint32_t fiber, const Event&) override { return ex_.spurious(fiber); }
    std::size_t pick_waiter(std::uint32_t, std::span<const std::uint32_t> waiters) override { return ex_.waiter(waiters); }
    std::size_t pick_store(std::uint32_t, const Event&, std::size_t stores) override { return ex_.store(stores); }

   private:
    Explorer& ex_;
  };
  struct Node {
    enum class Kind : std::uint8_t { pick, waiter, spurious, store };
    Kind kind = Kind::pick;
    std::uint8_t options = 0;  // candidates, waiters, or 2 (normal, spurious)
    std::uint8_t chosen = 0;
    std::uint32_t allowed = 0;  // options the search may take (bound, fairness, spurious budget)
    std::uint32_t done = 0;     // options whose subtrees are explored
    // Pick nodes.
    bool continues = false;
    std::uint32_t sleep = 0;                        // fibers asleep on arrival (bit per fiber)
    std::size_t step = 0;                           // events before this choice
    std::array<std::uint8_t, kMaxFibers> fibers{};  // candidates' fiber numbers
  };

  std::size_t pick(const PickContext& ctx);
  bool spurious(std::uint32_t fiber);
  std::size_t waiter(std::span<const std::uint32_t> waiters);
  std::size_t store(std::size_t stores);
  std::size_t choice(Node::Kind kind, std::size_t options, std::uint32_t allowed);
  std::uint64_t record(std::uint64_t max, std::uint64_t decided);
  void advance();  // accounts for the events executed since the last choice
  void after_pick(const Node& n);
  bool next_option(Node& n) const;
  double runs_in_all() const;  // after a backtrack: the estimate from the path taken next

  const Scheduler& sched_;
  Source& src_;
  ExplorerConfig config_;
  ExplorerStats stats_;
  RunPicker picker_{*this};
  std::vector<Node> stack_;
  bool finished_ = false;

  // The run under way.
  std::size_t pos_ = 0;                      // next choice point's index in stack_
  std::size_t seen_step_ = 0;                // events already accounted for
  std::uint32_t asleep_ = 0;                 // the sleep set after the events seen so far
  std::array<Event, kMaxFibers> pending_{};  // each fiber's pending operation at the last pick
  std::size_t preemptions_ = 0;
  std::size_t spurious_ = 0;
  std::size_t stale_ = 0;    // loads that read an older store
  std::size_t choices_ = 0;  // decisions recorded
  bool redundant_ = false;
  bool diverged_ = false;
  std::size_t diverged_at_ = 0;
  std::array<std::uint32_t, kMaxFibers> waiting_for_{};  // fairness: who must run before each fiber
};

}  // namespace duet::detail::fiber
