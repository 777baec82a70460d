// Failure reporting: a failing case is run once more for its trace, compared with the failing
// run it should repeat (nondeterminism), and made into the report, its token and draft test.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/isolation/death.hpp"
#include "engine/run_context.hpp"
#include "report/report.hpp"

namespace duet::detail {

/// Fills the trace and the report text for a failing or erroring case of `choices` (or of
/// `seed_of_case`), `commands` the run's.
CheckResult report_failure(RunContext& context, ReportData data, const std::vector<std::uint64_t>& choices,
                           std::optional<std::uint64_t> seed_of_case, std::uint64_t commands);

/// Where a replay that should have been exact (the fiber scheduler) first differs from the
/// failing run it replays: in the interleaving, then in the calls or their results, then in the
/// verdict. Empty when it reproduced the run.
std::string divergence(const Trace& first, const std::string& first_message, const Trace& replay, const CaseOutcome& o);

/// The calls of a Y-program's trace.
std::size_t y_calls(const Trace& t);
/// Whether a failing Y-program's trace shows concurrency: on threads, calls on two threads or
/// more (the calling thread runs the prefix, the suffix and branch 0); on the fiber scheduler,
/// calls on two fibers or more (the prefix and suffix run alone, before and after them), a wait
/// woken spuriously (a contract a lone waiting call can break) or threads the subject started.
bool shows_concurrency(const Trace& t);

/// The one-line message of a case whose process died (isolation mode).
std::string death_message(const Death& d);
/// The failing step's comment for the call a case died in.
std::string death_comment(const Death& d);

}  // namespace duet::detail
