// The check's side of the calls' real-time orders (TrialDriver::call_orders): where an
// exhaustive search on fibers leaves them to the check, a trial's history is judged in every
// order of its calls that its execution allows, not only in the order the run took. Two orders
// in which the same calls of different branches return before the same others begin are one
// history: each is judged once per program and results. Under the C++ memory model the run
// leaves the check's fences out, and an order is judged only where the execution is consistent
// with the fences placed in it (execute/fibers/dpor/fence_orders.hpp); the run's own order is
// then one of those, and a run that fails otherwise (a crash, an assertion) is searched for
// again with the fences in.
//
//   driver.begin_program(...);
//   CallOrderCheck orders(shape, driver, src.mode() == Source::Mode::random);
//   ... after each trial, whose own order explained its results or not:
//   switch (orders.judge(observed, own_order_explained, explains)) ...
//   ... a trial that failed otherwise: if (orders.search_again_with_fences(message)) continue;
//   ... after the trials: orders.unshown_failure(), an error when not empty
//
// Internal to the Y-program loop (y_trials.cpp, y_verdict.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "duet/detail/trial_driver.hpp"
#include "duet/progress.hpp"
#include "engine/word_order.hpp"
#include "duet/parallel.hpp"  // duet/detail/y_program.hpp: YShape, Observed

namespace duet::detail {

class CallOrderCheck {
 public:
  enum class Verdict : unsigned char {
    explained,    // every order the trial allows explains its results (or the driver runs them)
    unexplained,  // one does not: the driver's search now runs every order, to show it
    failed,       // the run's own order, one its execution had, does not: the trial failed
  };
  using Explains = std::function<bool(const std::vector<Observed>&)>;

  /// A program begun on `driver`, before its first trial; `searching`: its trials are a search
  /// (not a replay), so the driver may leave the orders to the check
  /// (TrialDriver::leave_call_orders_to_check).
  CallOrderCheck(const YShape& shape, TrialDriver& driver, bool searching);
  /// After a trial whose own order explained its `observed` calls (`own`) or not: each order
  /// the driver lists, judged with `explains`. Where one does not explain them, or they were
  /// too many to list, the driver's search starts again running every order.
  Verdict judge(const std::vector<Observed>& observed, bool own, const Explains& explains);
  /// Whether `observed` (its results, and which calls of different branches returned before
  /// which began) was explained already in this program: the run's own order need not be
  /// judged again.
  bool explained_before(const std::vector<Observed>& observed);
  /// After a trial that failed otherwise (`failure`: a crash, an assertion): true where its run
  /// had the check's fences left out, and the driver's search starts again with them, to show
  /// it in a run the check allows; false: the trial's failure stands.
  bool search_again_with_fences(const std::string& failure);
  /// After the trials: where a failure was met and no run showed it, why that is no pass (an
  /// error of the case); else empty.
  std::string unshown_failure() const;

 private:
  struct OrderWalk;
  // Judges `observed` in each distinct precedence of its calls over the orders `orders` allows;
  // `listed` false when they were too many to walk.
  Verdict judge(const std::vector<Observed>& observed, bool own, const CallOrders& orders, const Explains& explains,
                bool& listed);
  // The driver's search starts again running every order (and the fences).
  void order_by_running();
  // Which call of a branch returns before which call of another begins in `observed` (a bit per
  // ordered pair of calls): all that the check reads of the times that an order changes.
  std::vector<std::uint64_t> precedence(const std::vector<Observed>& observed) const;
  // The branch calls of `history` timed as `order` has the reads.
  void retime(std::vector<Observed>& history, const CallOrders& orders, const std::vector<std::uint32_t>& order) const;

  TrialDriver& driver_;
  bool left_ = false;        // the driver leaves the orders to the check
  bool failed_ = false;      // an order of an exact list did not explain its trial: the search runs every order since
  std::string run_failure_;  // a run with the fences left out failed so: the search runs them since
  std::vector<std::uint32_t> branch_of_;                        // per call: 1 + its branch, 0 for the prefix and suffix
  std::vector<std::pair<std::uint32_t, std::uint32_t>> reads_;  // per call of the trial: its invoke's and response's reads
  // Per results: the precedences explained (ordered element by element: engine/word_order.hpp).
  using Explained = std::vector<std::pair<std::vector<Result>, std::set<std::vector<std::uint64_t>, WordsLess>>>;
  Explained explained_;
  // The entry of `observed`'s results, or explained_.end().
  Explained::iterator explained_for(const std::vector<Observed>& observed);
};

}  // namespace duet::detail
