// A long case's progress line. A parallel case is many trials (an exhaustive search of one
// program runs it thousands of times, for minutes), and the search loop prints its progress
// between cases only: the trial loop tells it of each trial here, on the thread that runs the
// case, and the search loop prints a line when one is due.
//
//   const TrialProgressScope scope([&](const TrialProgress& p) { if (progress.due()) print(p); });
//   ... trial_progress(trials_so_far);       // the trial loop, as each trial starts
//   ... search_progress(runs, runs_in_all);  // an exhaustive search, after each run
#pragma once

#include <cstdint>
#include <functional>

namespace duet::detail {

struct TrialProgress {
  std::uint64_t trials = 0;  // the running case's trials so far
  std::uint64_t runs = 0;    // its exhaustive search's runs so far (0: no search)
  double runs_in_all = 0;    // and their estimate in all (0: none yet)
};

/// Tells this thread's reporter, if any, that a trial starts (the case's `trials` so far).
void trial_progress(std::uint64_t trials);
/// An exhaustive search's runs so far and its estimate of its runs in all (search_share.hpp),
/// for the next trial_progress of this thread.
void search_progress(std::uint64_t runs, double runs_in_all);

/// The reporter of this thread while it lives (a search loop's).
class TrialProgressScope {
 public:
  using Reporter = std::function<void(const TrialProgress&)>;
  explicit TrialProgressScope(Reporter reporter);
  ~TrialProgressScope();
  TrialProgressScope(const TrialProgressScope&) = delete;
  TrialProgressScope& operator=(const TrialProgressScope&) = delete;

 private:
  friend void trial_progress(std::uint64_t);
  friend void search_progress(std::uint64_t, double);
  Reporter reporter_;
  TrialProgress now_;
  TrialProgressScope* saved_;
};

}  // namespace duet::detail
