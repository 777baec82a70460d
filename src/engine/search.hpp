// The search: random cases from the run's seed, on the run's backend, until a budget runs out
// or a case fails; a failure goes on to be shrunk and reported, a pass to its verdict.
#pragma once

#include <string>

#include "engine/search_counts.hpp"
#include "engine/progress.hpp"
#include "engine/run_context.hpp"
#include "execute/trial_progress.hpp"

namespace duet::detail {

CheckResult run_search(RunContext& context);

/// The search's progress line; `where`: where the cases run (CaseBackend::where).
void print_search_progress(const RunContext& context, Progress& progress, const SearchCounts& counts,
                           const std::string& where);
/// The progress line of a case of many trials while it runs (an exhaustive search of one
/// program): `p` as the trial loop reports it, `seconds` since the case began.
void print_case_progress(Progress& progress, const SearchCounts& counts, const TrialProgress& p, double seconds);

}  // namespace duet::detail
