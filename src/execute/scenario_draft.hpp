// A failing parallel program's draft as a scenario test (duet::check_scenario): what the case
// loop adds to the front end's part (YSteps::scenario_draft), the settings the draft passes and,
// on fibers, the token that replays the failing schedule in that scenario check.
#pragma once

#include <cstdint>
#include <span>

#include "duet/parallel.hpp"

namespace duet::detail {

/// Fills trace.scenario for the failing trial just recorded (its calls in `trace`, its choices
/// `trial_choices`), or leaves it empty when the front end cannot write the program as a
/// scenario or the check states progress guarantees (a draft does not restate them).
void record_scenario_draft(Trace& trace, const YSteps& steps, const ParallelParams& pp, const YShape& shape,
                           std::span<const std::uint64_t> trial_choices);

}  // namespace duet::detail
