// Shrink driving: a failing case is replayed until it fails again, shrunk on its backend within
// the budget, then reported.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "engine/backend.hpp"
#include "engine/clock.hpp"
#include "engine/run_context.hpp"
#include "report/report.hpp"

namespace duet::detail {

/// Replays `choices` on `backend` up to the run's replay attempts (a failure that depends on
/// thread timing may need several tries to come back), remembering the failing run. Given
/// `keep_trying_until`, an executor that replays by chance (threads) goes on past those attempts
/// until the failure comes back or that time.
Replayed replay_choices(CaseBackend& backend, RunContext& context, const std::vector<std::uint64_t>& choices,
                        std::optional<Clock::time_point> keep_trying_until = std::nullopt);

/// The first failure of a run: shrink it (unless the spec could not run at all) and report.
/// `seed_of_case`: the seed it was run from, when it can be replayed from it.
CheckResult shrink_and_report(RunContext& context, ReportData data, const CaseRun& failed_case,
                              std::optional<std::uint64_t> seed_of_case, std::uint64_t commands, Clock::time_point start);

/// The shrink of a case in this process, with its progress lines; each replay is watched as a
/// case of its own (a shrink may take longer than one case may).
ShrinkOutcome shrink_here(CaseBackend& backend, RunContext& context, const ShrinkStart& failing, const ShrinkBudget& budget,
                          Progress& progress, const std::string& token);

}  // namespace duet::detail
