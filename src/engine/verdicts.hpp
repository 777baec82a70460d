// Verdicts: what a check's run comes to when no failure is reported as found (a pass, nothing
// tested, inconclusive), and a negative test's verdict, where a counterexample is the pass.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend.hpp"
#include "engine/clock.hpp"
#include "engine/isolate.hpp"
#include "engine/protocol.hpp"
#include "engine/run_context.hpp"

namespace duet::detail {

/// A search that found no failure: passed, or why it tested nothing (every case abandoned, no
/// command generated, the branches never overlapped, ...), asking `backend` where the cases ran.
CheckResult search_verdict(const RunContext& context, const CaseBackend& backend, const SearchEnd& end,
                           const SearchCounts& counts, double seconds);

/// One case (a replay, a fuzzer's input) that passed.
CheckResult single_case_passed(const RunContext& context, const CaseOutcome& o, Clock::time_point start);

/// A negative test's verdict: the counterexample is the pass (its report kept as information,
/// and a pass line like any other check's), none found is the failure. `replayed`: the replay's
/// outcome in words, when the check replayed a case instead of searching.
CheckResult expected_failure_verdict(CheckResult r, const Settings& s, const Property& p, const std::string& replayed);

}  // namespace duet::detail
