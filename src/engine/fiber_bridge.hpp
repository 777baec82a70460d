// From a failure on threads to a deterministic trace: the program that failed on threads is
// searched again on the fiber scheduler (random, PCT, then exhaustive schedules, within
// DUET_FIBER_SEARCH), where a failure is an interleaving that a token replays step for step.
// A failure seen on threads depends on timing; the same program on fibers either fails there
// too, and the report shows how, or the report says why the fibers could not show it.
#pragma once

#include <string>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"

namespace duet::detail {

/// The lines a failed check on threads adds to its report about its program on fibers; empty
/// where it has no fiber twin (Property::fiber_twin), is a negative test, did not fail, or
/// DUET_FIBER_SEARCH is 0.
/// `replay_isolated`: the check's cases run in a child process without DUET_FORK=1 (a check on
/// threads, and so the same check moved to fibers by DUET_EXECUTOR): its replay lines need none.
std::string search_on_fibers(const Property& checked, const Settings& settings, const CheckResult& failure,
                             bool replay_isolated = true);

}  // namespace duet::detail
