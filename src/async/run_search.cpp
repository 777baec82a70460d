// The case search behind duet::exhaustive() in a spec's duet::run calls (run_search.hpp).
//
// The k-th run that asks for exhaustive() in a case is "run k". Execution 1 searches run 0's
// first schedule; each further execution restores the case's choices (its commands are the
// same), gives run k the search's next schedule and every other run a random one (the same in
// every execution: the restored choices draw them), until run k's search is complete; then run
// k + 1. The runs' schedules are not combined: that would multiply the searches.
#include "async/run_search.hpp"

#include <algorithm>
#include <chrono>
#include <memory>

#include "execute/fibers/strategies.hpp"
#include "report/report.hpp"

namespace duet::detail::async {

namespace {

using Clock = std::chrono::steady_clock;

struct RunSearch {
  bool searching = false;                     // random mode: the run searched gets the search's schedules
  std::size_t target = 0;                     // the run searched now
  std::size_t next_run = 0;                   // exhaustive runs begun in this execution
  std::size_t runs_seen = 0;                  // the most in one execution
  bool target_met = false;                    // in this execution
  std::unique_ptr<CheckSchedules> schedules;  // the target's scheduler and search
  Schedule schedule;                          // as the target asked

  // The target's search is over: its figures go to the totals, the next run gets a new one.
  void finish_target(RunSearchTotals& totals, bool out_of_time = false) {
    if (!schedules) return;
    if (const fiber::ExplorerStats* s = schedules->strategy->search_stats(); s && s->runs > 0) {
      ++totals.runs;
      if (!s->complete && out_of_time) ++totals.runs_out_of_time;
      totals.bound = schedule.preemption_bound;
      totals.stale_reads = schedule.stale_reads;
      totals.memory_model = schedules->scheduler->config().cpp_memory_model;
      totals.complete += s->complete;
      totals.schedules += s->schedules;
      totals.redundant += s->redundant;
    }
    schedules.reset();
  }
};

thread_local RunSearch* t_search = nullptr;

class ActiveSearch {
 public:
  explicit ActiveSearch(RunSearch& search) noexcept : previous_(t_search) { t_search = &search; }
  ~ActiveSearch() { t_search = previous_; }
  ActiveSearch(const ActiveSearch&) = delete;
  ActiveSearch& operator=(const ActiveSearch&) = delete;

 private:
  RunSearch* previous_;
};

}  // namespace

bool run_search_active() noexcept { return t_search != nullptr; }

CheckSchedules* searched_run(const AsyncOptions& options) {
  RunSearch* s = t_search;
  if (!s) return nullptr;
  const std::size_t index = s->next_run++;
  s->runs_seen = std::max(s->runs_seen, s->next_run);
  if (!s->searching || index != s->target) return nullptr;
  if (!s->schedules) {
    s->schedules = std::make_unique<CheckSchedules>(options);
    s->schedules->strategy->begin_program({});
    s->schedule = options.schedule;
  }
  s->target_met = true;
  return s->schedules.get();
}

CaseOutcome search_case_runs(const RunCase& execute, Source& src, const CaseParams& params, Trace* trace,
                             RunSearchTotals& totals) {
  RunSearch search;
  const ActiveSearch active(search);
  // A run recording its trace (the report's replay) executes once.
  search.searching = trace == nullptr && src.mode() == Source::Mode::random;
  if (!search.searching) return execute(src, params, trace);
  const Source start = src;
  CaseOutcome out = execute(src, params, nullptr);
  if (search.runs_seen == 0) return out;  // no run asked for exhaustive(): nothing to search
  // The allowance counts from here: the first execution is any case's, under the case timeout.
  const Clock::time_point deadline =
      Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(params.search_seconds));
  ++totals.cases;
  ++totals.executions;
  while (out.kind == CaseOutcome::Kind::pass) {
    if (!search.target_met || !search.schedules->strategy->more()) {
      search.finish_target(totals);
      if (++search.target >= search.runs_seen) break;
    }
    if (Clock::now() >= deadline) {
      ++totals.timed_out;
      search.finish_target(totals, true);
      break;
    }
    src = start;
    search.next_run = 0;
    search.target_met = false;
    out = execute(src, params, nullptr);
    ++totals.executions;
  }
  search.finish_target(totals);
  return out;
}

std::string RunSearchTotals::coverage() const {
  if (cases == 0) return {};
  const std::string name = "exhaustive(" + std::to_string(bound) + ")";
  const std::string limits =
      plural(bound, "preemption", "preemptions") +
      (memory_model ? " and at most " + plural(stale_reads, "stale read", "stale reads") : std::string());
  const std::string what = name + " for the duet::run calls of " + plural(cases, "case", "cases") +
                           ", each run searched alone from the state its case's commands left";
  const std::string done = plural(schedules, "schedule", "schedules") + " of " + plural(runs, "run", "runs") +
                           " with at most " + limits + " explored (plus " + plural(redundant, "run", "runs") +
                           " the sleep sets found redundant), in " + plural(executions, "execution", "executions") +
                           " of the cases; a case's other runs drew random schedules";
  if (complete == runs && timed_out == 0)
    return what + ", complete: all " + done +
           "; schedules with more preemptions, and combinations of the runs' schedules, were not explored";
  std::string stopped;
  if (timed_out != 0)
    stopped +=
        plural(timed_out, "case", "cases") +
        " stopped at the case's time allowance (half its case_timeout), the run being searched and the case's later runs left incomplete";
  if (const std::size_t over_budget = runs - complete - runs_out_of_time; over_budget != 0)
    stopped += (stopped.empty() ? "" : ", ") + plural(over_budget, "run", "runs") + " stopped at the search's budget of " +
               std::to_string(fiber::ExplorerConfig{}.max_schedules) + " runs";
  return what + ", incomplete: " + stopped + "; " + done;
}

}  // namespace duet::detail::async

namespace duet::detail {

Property searching_case_runs(Property property) {
  auto totals = std::make_shared<async::RunSearchTotals>();
  auto execute = std::move(property.run_case);
  property.run_case = [execute, totals](Source& src, const CaseParams& params, Trace* trace) {
    return async::search_case_runs(execute, src, params, trace, *totals);
  };
  auto before = std::move(property.coverage);
  property.coverage = [before, totals] {
    const std::string own = before ? before() : std::string();
    const std::string searched = totals->coverage();
    return own.empty() ? searched : searched.empty() ? own : own + "; " + searched;
  };
  return property;
}

}  // namespace duet::detail
