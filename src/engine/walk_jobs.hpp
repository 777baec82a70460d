// A walk over every program on several cores (Config::jobs, DUET_JOBS): the search runs in
// worker processes forked from this one, worker j taking the programs the walk numbers j modulo
// the jobs (of this shard's), and this process adds up what they ran and reports as the one walk
// would: the same verdict, the same counts, and the same first counterexample (the failing
// program first in the walk's order, whichever worker met it; counted up to it), for any number
// of workers. Shrinking and the report run here, from the failing case's choices.
//
// Processes, not threads: a check's executor, its strategy and the fiber runtime are the
// check's own, and a worker's copy of them (and of the subject's statics) costs nothing to make.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/backend.hpp"
#include "engine/protocol.hpp"
#include "engine/search_counts.hpp"

namespace duet::detail {

// After each of a worker's cases: where its walk was, and its counts so far.
struct CaseMark {
  WalkProgress walk;
  SearchCounts counts;
};
template <WireSelf<CaseMark> Self, class Visit>
auto wire_fields(Self& m, Visit&& visit) {
  return visit(m.walk, m.counts);
}

// What a worker sends when its share is done.
struct ShareAnswer {
  std::vector<CaseMark> marks;  // one per case, in order
  WalkProgress walk;            // at the end
  SearchCounts counts;          // at the end
  SearchAnswer search;          // how the search ended (a failing case with its trace)
  std::string totals;           // Property::save_totals, after a share that did not fail
};
template <WireSelf<ShareAnswer> Self, class Visit>
auto wire_fields(Self& a, Visit&& visit) {
  return visit(a.marks, a.walk, a.counts, a.search, a.totals);
}

class WalkJobsBackend final : public CaseBackend {
 public:
  /// `jobs` >= 2 workers, for a property with a walk (Property::walk_progress).
  WalkJobsBackend(RunContext& context, InProcessBackend& inner, std::uint32_t jobs)
      : context_(context), inner_(inner), jobs_(jobs) {}
  CaseRun run_case(RunRequest request) override { return inner_.run_case(std::move(request)); }
  SearchEnd search(SearchCounts& counts, Clock::time_point start, Progress& progress) override;
  ShrinkOutcome shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                       const std::string& token) override {
    return inner_.shrink(failing, budget, progress, token);
  }
  /// The workers' answer: nothing exercised only when no worker exercised anything.
  std::string unexercised() const override { return unexercised_; }
  std::string where() const override { return ", in " + std::to_string(jobs_) + " processes"; }
  /// Not taken: its workers fork from this process, which has run the failing cases' replays.
  bool take_trial_processes() override { return false; }

 private:
  RunContext& context_;
  InProcessBackend& inner_;
  std::uint32_t jobs_;
  std::string unexercised_;
};

/// The processes `jobs` asks for: itself, or the CPUs this process may use when 0.
std::uint32_t jobs_to_run(std::uint32_t jobs);

}  // namespace duet::detail
