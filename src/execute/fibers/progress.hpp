// Progress guarantees checked on fibers (duet/progress.hpp): the monitor a fiber run consults
// at its switch points, at each call's invoke and response, and when no fiber can run.
//
//   ProgressMonitor monitor;
//   monitor.configure(duet::lock_free());            // per check
//   monitor.branch_calls({{"s.push(1)"}, {"s.pop()"}});  // per program: what each fiber calls
//   scheduler.set_progress(&monitor);
//   monitor.begin_run(src);                          // draws this run's episode
//   scheduler.run(branches, picker);                 // Outcome::progress when a promise broke
//   monitor.coverage();                              // "lock-freedom (bound 100 steps): ..."
//
// An episode is how a run tests obstruction- and lock-freedom. Its place is drawn from the
// choice stream before the run: a fiber, one of its calls, and a step of that call's own; when
// the fiber reaches that step (a switch point inside the call):
// - lock: that fiber is suspended; the others run, and within the bound's steps of theirs some
//   call must finish (a lock the suspended fiber holds, a flag only it resets: they cannot);
// - solo: every other fiber is suspended; the chosen call, run alone, must finish within its
//   bound of its own steps.
// Then every fiber runs again and the run goes on as any other (its results are still checked
// for linearizability). Wait-freedom needs no episode: each call's own steps are counted in
// every run, against its bound. Every choice is a draw of the case's stream, so a violation
// replays from its token and shrinks with the program.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "duet/progress.hpp"
#include "duet/source.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber {

class Runtime;

class ProgressMonitor {
 public:
  /// The check's guarantee; resets what the monitor learnt and counted. Without `episodes`
  /// (an exhaustive search, which would not explore them) only wait-freedom is checked.
  void configure(const Progress& p, bool episodes = true);
  /// Obstruction- or lock-freedom is stated for some operation (wait-freedom aside).
  static bool needs_episodes(const Progress& p);
  const Progress& progress() const { return progress_; }
  /// Obstruction- or lock-freedom is stated: runs draw episodes.
  bool episodes() const { return max_kind_ >= Progress::Kind::obstruction_free && episode_kinds_ != 0; }
  /// The calls of each branch (fiber) of the program about to run, as reports print them.
  void branch_calls(const std::vector<std::vector<std::string>>& calls);
  /// Before a run: draws where its episode starts, and which kind (from `src`).
  void begin_run(Source& src);

  // ---- the runtime's hooks ----
  bool suspended(std::uint32_t fiber) const { return suspended_[fiber]; }
  /// At each switch point of the current fiber (not while a failing run drains).
  void at_switch_point(Runtime& rt);
  /// The current fiber read the check's clock: a call's invoke or response.
  void call_boundary(Runtime& rt);
  /// No fiber can run: an episode ends, or is a violation (true: the run is over, its outcome
  /// set). False when no episode is under way.
  enum class Idle : unsigned char { none, resumed, violated };
  Idle idle(Runtime& rt);

  /// For a pass: which guarantees were checked, over how many states and runs.
  std::string coverage() const;
  /// Why the runs tested no guarantee (no episode found a call pending, no call counted), or empty.
  std::string unexercised() const;
  /// What coverage() and unexercised() count: saved where a share of a walk over every program
  /// ran, added where the walk is reported.
  std::vector<std::uint64_t> totals() const;
  void add_totals(std::span<const std::uint64_t> saved);

 private:
  enum class Episode : unsigned char { none, lock, solo };
  struct Call {
    bool pending = false;
    std::size_t index = 0;             // calls this fiber started before this one
    std::size_t own_steps = 0;         // switch points inside the call
    std::size_t responses_before = 0;  // responses in the run when it was invoked
    Progress::Override promise;
  };
  struct Response {
    std::uint32_t fiber;
    std::string call;
  };
  Progress::Override promise_of(std::uint32_t fiber, std::size_t index) const;
  std::string call_text(std::uint32_t fiber) const;
  void begin_episode(Runtime& rt);
  void end_episode(bool held);
  void judge(Runtime& rt);
  [[noreturn]] void violated(Runtime& rt, std::string what);
  [[noreturn]] void inconclusive(Runtime& rt, std::string what);
  std::string guarantee_text() const;
  std::string suspended_text(Runtime& rt) const;
  std::string others_text(Runtime& rt, bool blocked) const;
  std::string wait_free_text(Runtime& rt, std::uint32_t fiber) const;
  std::size_t lock_bound(std::size_t fibers) const;

  Progress progress_;
  Progress::Kind max_kind_ = Progress::Kind::none;
  unsigned episode_kinds_ = 0;  // 1: lock episodes, 2: solo episodes
  std::vector<std::vector<std::string>> calls_;
  // This run.
  std::array<Call, kMaxFibers> call_{};
  std::array<bool, kMaxFibers> suspended_{};
  std::vector<Response> responses_;
  std::size_t at_step_ = 0;  // the episode starts at this own step of call `at_call_` of `target_` (0: none)
  std::size_t at_call_ = 0;
  Episode planned_ = Episode::none, episode_ = Episode::none;
  bool episode_done_ = false;
  std::uint32_t target_ = kNoFiber;  // the fiber the episode suspends (lock) or runs alone (solo)
  std::size_t episode_trace_ = 0;    // trace size when it began
  std::size_t episode_steps_ = 0;    // steps counted against the bound
  std::size_t uncounted_steps_ = 0;  // steps of fibers in exempt calls: past the bound the episode ends
  std::size_t bound_ = 0;
  // Over the check.
  std::size_t learnt_steps_ = 0;  // the most own steps a call took before any episode: where episodes may start
  std::uint64_t runs_ = 0, lock_held_ = 0, solo_held_ = 0, others_done_ = 0, wait_free_calls_ = 0;
};

}  // namespace duet::detail::fiber
