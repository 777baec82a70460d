// Optimal dynamic partial-order reduction on the fiber scheduler (Abdulla, Aronis, Jonsson,
// Sagonas, "Source Sets: A Foundation for Optimal Dynamic Partial Order Reduction", JACM 2017,
// Algorithm 2, as Nidhugg implements it), stateless: each schedule is a run from the start that
// replays the prefix it shares with the previous one.
//
// After each run, every race (two dependent steps of different fibers with nothing between them
// in happens-before) is reversed: the steps that do not happen after the first one, then the
// second, become a branch of a wakeup tree at the state before the first step, unless a fiber
// asleep there, or a branch already in the tree, starts an equivalent schedule. A new run takes
// the deepest branch left. Each Mazurkiewicz trace (schedules equal up to swapping adjacent
// independent steps) is then completed exactly once, and no run is cut short by sleep sets:
// where the sleep-set search (Explorer) runs a redundant schedule, this one runs none. A
// step of one fiber that returns from a call and a step of another that invokes one are
// dependent (Step::responds): the calls' real-time order is part of what the check judges,
// unless the check judges every order of them a run allows itself (OptimalConfig::order_calls).
//
//   OptimalExplorer ex(sched, src);
//   Picker* p;
//   while (ex.next(p)) {
//     src.restart(0);
//     reset_the_program_state();
//     ex.finish(sched.run(branches, *p));
//   }
//   ex.stats().complete;   // every trace of the program explored, each once
//
// Scope, stated where it is not met (outside_scope()): no preemption bound; no blocking (a
// fiber blocked on a mutex, a condition variable, a future) and no notify_one choosing among
// waiters; every branch the reduction asks for is one the scheduler offers. Under the C++ memory
// model, an execution is a schedule and the store each load read: a load with a choice of store
// branches over them (the newest first, older ones within the stale-read bound), and its
// dependences are the model's (seq_cst loads and fences, the check's fences). A load reads an
// older store only where a newer store it did not read could not have run after it: otherwise
// that execution is the one where the load ran first, which the search runs in that order (see
// first_older()). A fiber that spun (re-read values it had seen) must let another run before
// it goes on: a branch that would let it go on spinning is not taken (spin_yields()); it would
// only repeat what it saw. A compare-exchange that failed may succeed in another order: a race's reversal takes it as the
// write it may become, which keeps the search complete and may run an equivalent schedule twice
// (measured in tests/fibers/optimal_explorer_test.cpp). Every decision is recorded in `src` as
// Explorer records it, so a failing schedule replays with RandomPicker.
#pragma once

#include <array>
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "duet/source.hpp"
#include "execute/fibers/dpor/run_order.hpp"
#include "execute/fibers/dpor/wakeup_tree.hpp"
#include "execute/fibers/schedule_search.hpp"
#include "execute/fibers/scheduler.hpp"
#include "execute/fibers/strategies.hpp"

namespace duet::detail::fiber::dpor {

struct OptimalConfig {
  static constexpr std::size_t kUnbounded = std::numeric_limits<std::size_t>::max();
  /// Stop after this many runs (stats().complete is then false).
  std::size_t max_schedules = 1'000'000;
  /// Under the C++ memory model: loads per schedule that may read an older store (each load
  /// with a choice then branches over the stores it may read, newest first).
  std::size_t stale_read_bound = 2;
  /// Must equal the replaying RandomPicker's: a wait's spurious wake-up is recorded as its draw.
  std::uint64_t spurious_one_in = 8;
  /// Order the calls' real time by running (Step::calls): off where the check judges every
  /// order of the calls a run allows (call_orders.hpp).
  bool order_calls = true;
};

class OptimalExplorer final : public ScheduleSearch {
 public:
  OptimalExplorer(const Scheduler& sched, Source& src, OptimalConfig config = {});
  OptimalExplorer(const OptimalExplorer&) = delete;
  OptimalExplorer& operator=(const OptimalExplorer&) = delete;

  /// The picker for the next schedule; false when the search is over. Throws std::logic_error
  /// when src is not in random mode.
  bool next(Picker*& picker) override;
  /// Ends the schedule just run. Throws std::runtime_error when the run did not repeat the
  /// prefix it was given (the program is nondeterministic, or its state was not reset).
  void finish(const RunResult& result) override;

  /// runs, schedules (complete, each a new trace), redundant (a run a sleep set cut short: an
  /// optimal search has none on the programs in scope), max_choices, complete.
  const ExplorerStats& stats() const override { return stats_; }
  /// The last run's steps and their happens-before, as the search's dependence sees them.
  const RunOrder& run_order() const override { return order_; }
  bool redundant() const { return redundant_; }
  std::size_t preemptions() const { return preemptions_; }
  /// Branches the reduction asked for that the scheduler could not take (see the class
  /// comment): the search is not complete when there are any.
  std::size_t unreachable() const { return unreachable_; }
  /// Branches not taken because they would let a fiber go on spinning after the scheduler
  /// made it yield (it re-read values it had seen, SchedulerConfig::spin_threshold): the
  /// states they would reach differ only by those repeated reads. Not a loss of coverage.
  std::size_t spin_yields() const { return yielded_; }
  /// Races reversed into a wakeup tree, and races whose reversal an asleep fiber or an existing
  /// branch already covered.
  std::size_t races_reversed() const { return reversed_; }
  std::size_t races_covered() const { return covered_; }
  /// Why the program is outside the reduction's scope (the first thing seen, or a branch the
  /// scheduler could not take), or empty.
  std::string outside_scope() const override;

 private:
  using Fibers = std::bitset<kMaxFibers>;
  // A state of the run under way: the position in its trace before one step.
  struct Node {
    std::uint32_t fiber = 0;  // the step taken from here in the run under way
    Step step;                // that step, once run
    bool pick = false;        // the scheduler offered a choice here
    Fibers candidates, sleep, done;
    Fibers spinning;          // pick nodes: runnable, not offered (they spun and must yield)
    Fibers known;             // the fibers whose next step from here next_of() holds
    std::size_t seen_in = 0;  // the run (stats().runs before it) that last set `next` at a pick
    WakeupTree wakeup;        // branches left to explore from here
  };
  class RunPicker final : public Picker {
   public:
    explicit RunPicker(OptimalExplorer& ex) : ex_(ex) {}
    std::size_t pick(const PickContext& ctx) override { return ex_.pick(ctx); }
    bool spurious_wakeup(std::uint32_t, const Event&) override { return ex_.spurious(); }
    std::size_t pick_waiter(std::uint32_t, std::span<const std::uint32_t> waiters) override { return ex_.waiter(waiters); }
    std::size_t pick_store(std::uint32_t fiber, const Event& load, std::size_t stores) override {
      return ex_.store(fiber, load, stores);
    }

   private:
    OptimalExplorer& ex_;
  };

  std::size_t pick(const PickContext& ctx);
  bool spurious();
  std::size_t waiter(std::span<const std::uint32_t> waiters);
  std::size_t store(std::uint32_t fiber, const Event& load, std::size_t stores);
  std::size_t first_older(std::uint32_t fiber, const Event& load, std::size_t stores);
  std::uint64_t record(std::uint64_t max, std::uint64_t decided);

  void advance();  // the trace's new steps: checks the prefix, makes forced nodes
  Node arrival();  // the state after the last node's step (its next steps: next_of(nodes_.size()))
  void see(std::size_t at, Node& n, const PickContext& ctx);
  // Fiber q's next step from node `at` (where the node's `known` has q): a row of slots per
  // node, as many as the search's fibers need, kept across runs.
  Step& next_of(std::size_t at, std::uint32_t q) { return next_[at * stride_ + q]; }
  const Step& next_of(std::size_t at, std::uint32_t q) const { return next_[at * stride_ + q]; }
  void widen(std::size_t fibers);  // rows for that many fibers
  void reserve_next(std::size_t at);
  void not_offered(const Node& n, std::uint32_t fiber, std::size_t branches);
  std::uint32_t choose(Node& n);  // a new pick node's step: its tree's first branch, or any awake candidate
  void take(Node& n);             // n's step taken: its branch's subtree seeds the next node
  void sync_order();              // order_ takes the run's trace so far
  void reverse_races();
  void insert(std::size_t at, std::vector<Step> w);
  void fill_next(std::span<const Step> steps);
  void backtrack();
  double runs_in_all() const;        // after a backtrack: the estimate from the path taken next
  bool other_store(std::size_t at);  // the load at `at` reads its next store
  void drop_stores_from(std::size_t at);
  void start_weak();

  const Scheduler& sched_;
  Source& src_;
  OptimalConfig config_;
  ExplorerStats stats_;
  RunPicker picker_{*this};
  std::vector<Node> nodes_;             // the run's states, by trace position
  std::vector<Step> next_;              // the nodes' rows of next steps (next_of)
  std::vector<Step> attempts_;          // fill_next's: each step of the run as attempted()
  std::size_t stride_ = 0;              // slots a row
  std::size_t width_ = 0;               // 1 + the highest fiber seen: loops over fibers stop there
  RunOrder order_;                      // the run's steps so far (then the prefix the next run replays)
  std::size_t ordered_ = 0;             // the run's trace events order_ has taken
  std::vector<WakeupTree::Node> seed_;  // the wakeup subtree of the next node to be made
  std::size_t replay_ = 0;              // nodes before this one replay the previous run
  std::size_t seen_ = 0;                // trace events accounted for
  std::size_t blocked_at_ = std::numeric_limits<std::size_t>::max();  // where a redundant run stopped making nodes
  bool finished_ = false;
  bool redundant_ = false;
  bool diverged_ = false;
  std::size_t diverged_at_ = 0;
  std::size_t preemptions_ = 0;
  std::size_t choices_ = 0;
  std::size_t unreachable_ = 0;
  std::size_t yielded_ = 0;
  std::size_t reversed_ = 0;
  std::size_t covered_ = 0;
  std::string outside_;
  // Loads with a choice of store (the C++ memory model), by trace position: the store read in
  // the run under way, and how many of them the search explores.
  struct StoreChoice {
    std::size_t at = 0;
    std::size_t stores = 0;
    std::size_t chosen = 0;
    std::size_t older = 1;  // the first older store to explore (first_older())
    std::size_t allowed = 1;
  };
  std::vector<StoreChoice> stores_;
  std::size_t store_pos_ = 0;  // the run's next load with a choice
  std::size_t stale_ = 0;      // the run's loads that read an older store
  bool model_ = false;         // the scheduler runs the C++ memory model
  bool weak_ = false;          // and a run used an order weaker than seq_cst: the model's dependences apply
};

}  // namespace duet::detail::fiber::dpor
