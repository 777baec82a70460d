// The search: random cases from the run's seed, on the run's backend, until a budget runs out
// or a case fails; a failure goes on to be shrunk and reported, a pass to its verdict.
#pragma once

#include <string>

#include "engine/isolate.hpp"
#include "engine/progress.hpp"
#include "engine/run_context.hpp"

namespace duet::detail {

CheckResult run_search(RunContext& context);

/// The search's progress line; `where`: where the cases run (CaseBackend::where).
void print_search_progress(const RunContext& context, Progress& progress, const SearchCounts& counts,
                           const std::string& where);

}  // namespace duet::detail
