// A check whose cases run in this process can end a trial with calls left in the middle: a
// deadlock or a livelock on fibers leaves its fibers blocked for good (a lock held, a record
// half-updated, a library's global state half-changed), and no drain can finish them. What
// they half-did stays in the process, and every later run here would start from it: the
// shrinker would keep candidates that fail only because of it, and the report's replay would
// show a run that a fresh process does not repeat.
//
// So such a check forks a child before its first case, which keeps the process as it was then
// and waits. When the search's failing case left calls unfinished, the rest of the check (the
// shrinking and the report's replay) runs in that child, as isolation mode runs it, and the
// report says so. The process keeps what the one failing run left (its subject is leaked, never
// destroyed); a check that passes never uses the child (but see below).
//
// The same holds for a run that called into an uninstrumented library: what the library keeps
// in its globals changed (RocksDB's counter of the databases it opened, hashed into which lock
// stripe a cache entry takes; a pool it believes is running), and a replay here would start
// from it and diverge ("nondeterministic"). So after such a failure the shrinking and the replay
// also run in the child, each case in a worker forked from it, which retires after a run that
// called a library: every replay starts from the process as it was before the first case.
//
// In a binary built with duet_instrument the search itself runs in the child's worker from the
// start (Execution::searches_in_clean_child): a trial there may start a library's process-wide
// thread and leave it abandoned, which no later check of the process could run beside, so the
// check's process never runs a trial and every check of the binary starts from it as the test
// left it. It costs the zygote's fork and the worker's, per check.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace duet::detail {

struct RunContext;
struct ReportData;
class ForkedBackend;

class CleanChild {
 public:
  /// Forks when the check's execution may leave calls unfinished and runs in this process;
  /// otherwise, or where no child can be made, holds why not.
  explicit CleanChild(RunContext& context);
  ~CleanChild();
  CleanChild(const CleanChild&) = delete;
  CleanChild& operator=(const CleanChild&) = delete;

  /// After the search found a failure: if some trial since the check started left calls
  /// unfinished or called into an uninstrumented library, the check's backend becomes the child
  /// (when there is one), and the report says so (ReportData::left_unfinished, ::library_state,
  /// ::no_clean_child).
  void take_over(RunContext& context, ReportData& data);
  /// The check's backend becomes the child, whatever the trials left: a failure that did not
  /// replay is searched for again there (engine/search.cpp). False where there is no child.
  bool hand_over(RunContext& context);

 private:
  std::unique_ptr<ForkedBackend> child_;
  std::string why_none_;  // no child: why (empty where none was needed)
  std::uint64_t unfinished_at_start_ = 0;
  std::uint64_t library_runs_at_start_ = 0;
};

}  // namespace duet::detail
