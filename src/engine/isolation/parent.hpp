// Isolation mode (DUET_FORK=1, Config::isolate): cases run in a child process, so that a
// candidate that crashes, hangs or ends the process takes the child down, not the check. This is
// the parent's side: it forks the child (child.hpp), sends it requests, watches it for hangs, and
// reads what a dead child left in the memory they share (shared_block.hpp): the case it had
// drawn, which the engine calls a failure and shrinks like any other, each shrink candidate in a
// child again.
//
// One child serves many requests (a whole search, then one replay after another), so the cost
// is a fork per death, not per case. A request and its answer are opaque bytes here; the engine
// (protocol.hpp) says what they hold.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <sys/types.h>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/isolation/child.hpp"
#include "engine/isolation/death.hpp"
#include "engine/search_counts.hpp"
#include "execute/hang_clock.hpp"

namespace duet::detail {

struct SharedBlock;

/// What a dead child left behind.
struct Remains {
  Death death;
  bool in_case = false;                // a case was running when it died
  std::vector<std::uint64_t> choices;  // the case's choices up to its death
  bool choices_complete = true;        // false: more than the tap holds
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
  std::optional<Trace> trace;  // traced requests: the steps done (or the program drawn)
  std::string calling;         // traced requests: the call running when it died
  double case_ms = 0;          // how long the case had run
  // Parallel cases: the trials begun (the one that died among them), of which those whose
  // branches overlapped, and the most CPUs they ran on (the finished trials').
  std::uint64_t trials = 0, overlapped = 0, cpus = 0;
};

/// A shrink running in the child: how far it got (shared memory, so that it survives a death).
struct ShrinkProgress {
  bool accepted = false;  // choices/spans/mark hold the last case kept
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t mark = Source::kNoMark;
  std::uint64_t tried = 0, kept = 0;
  std::vector<std::uint64_t> candidate;  // the candidate being replayed (what the child died on)
};

class Isolation {
 public:
  using Handler = IsolatedChild::Handler;
  /// in_child: runs once in each new child, first (to restart what fork does not copy, such as
  /// a thread pool). hang_seconds: a case running longer is killed as a hang, its time counted
  /// by a HangClock of the child (not the time the child waited for a CPU). time_scale:
  /// DUET_TIME_SCALE, which hang_seconds includes already and the child's other limits get.
  Isolation(Handler handler, std::function<void()> in_child, double hang_seconds, double time_scale = 1);
  ~Isolation();
  Isolation(const Isolation&) = delete;
  Isolation& operator=(const Isolation&) = delete;

  /// handler(request) in the child, forking one if none is alive. The answer; or nullopt if the
  /// child died, with remains() saying how. `tick` runs about every 200 ms while waiting.
  /// Throws std::runtime_error when no child can be made (fork or pipe failed).
  std::optional<std::string> call(const std::string& request, const std::function<void()>& tick = {});
  /// Forks the child now, if none is alive: it holds the process as it is at this point.
  /// Throws std::runtime_error as call() does.
  void start() {
    if (pid_ <= 0) spawn();
  }
  const Remains& remains() const { return remains_; }
  /// The search's counters as the child last counted them (after each case; zeroed when a
  /// search begins: reset_counts).
  SearchCounts counts() const;
  void reset_counts();
  std::uint64_t children() const { return children_; }
  /// How far the child's shrink got (reset before each shrink request).
  ShrinkProgress shrink_progress() const;
  void reset_shrink_progress();

 private:
  void spawn();
  /// What the dead child left; `status` from waitpid.
  void collect_death(bool hung, int status);
  /// The running case's record and trace, as it left them.
  void collect_case(Remains& r) const;
  /// The end of what the child wrote to stderr since the last answer.
  void collect_output(Death& death) const;
  /// Kills the child and its process group; its wait status.
  int kill_and_reap();
  /// The child's wait status if it has ended (then reaped), else nothing.
  std::optional<int> reaped();
  void forward_output();
  /// The running case's time so far (its start, as the child wrote it), on clock_.
  std::int64_t case_time(std::int64_t started);

  Handler handler_;
  std::function<void()> in_child_;
  double hang_seconds_;
  double time_scale_;
  std::optional<HangClock> clock_;  // the child's
  std::int64_t clocked_case_ = 0;   // the start of the case clock_ times (0: none)
  SharedBlock* shared_ = nullptr;
  pid_t pid_ = -1;
  int fd_ = -1;                  // the parent's end of the socket
  int output_fd_ = -1;           // the child's stderr (a memory file the parent reads)
  std::uint64_t forwarded_ = 0;  // bytes of it already copied to the parent's stderr
  std::uint64_t children_ = 0;
  Remains remains_;
};

}  // namespace duet::detail
