// Verdicts: what a check's run comes to when no failure is reported as found (a pass, nothing
// tested, inconclusive), and a negative test's verdict, where a counterexample is the pass.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend.hpp"
#include "engine/clock.hpp"
#include "engine/search_counts.hpp"
#include "engine/protocol.hpp"
#include "engine/run_context.hpp"

namespace duet::detail {

/// A search that found no failure: passed, or why it tested nothing (every case abandoned, no
/// command generated, the branches never overlapped, ...), asking `backend` where the cases ran.
CheckResult search_verdict(const RunContext& context, const CaseBackend& backend, const SearchEnd& end,
                           const SearchCounts& counts, double seconds);

/// One case (a replay, a fuzzer's input) that passed.
CheckResult single_case_passed(const RunContext& context, const CaseOutcome& o, Clock::time_point start);

/// A negative test's verdict: a counterexample that shows concurrency (shows_concurrency: calls
/// on two threads or more, or on fibers a spurious wake-up or threads the subject started) is the pass (its report kept as information, and a pass
/// line like any other check's), one whose calls all ran on one thread otherwise is an error (the
/// subject fails without concurrency), none found is the failure. A replay's outcome in words
/// comes from context.replay_summary.
CheckResult expected_failure_verdict(CheckResult r, const RunContext& context);

}  // namespace duet::detail
