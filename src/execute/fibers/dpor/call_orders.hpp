// The real-time orders of the check's calls that one fiber run's execution allows. The check
// reads its clock at each call's invoke and response (duet::detail::event_time), inside a step
// of the calling fiber. Where the exhaustive search does not order those reads by running
// (Step::calls off), two runs that differ only in the order of independent steps are one run for
// the search, and its calls' invocations and responses may come in any order that keeps the
// run's happens-before: the order of the steps that read the clock in some schedule of the same
// execution. This gives that partial order of the reads; the check judges the run's history in
// each of its linear extensions (src/execute/call_order_check.hpp), instead of the search
// running each.
//
//   CallOrders o = call_orders(search.run_order(), sched.clock_reads());
//   o.before[r];   // the reads that come before read r in every order the run allows
//
// Internal to the exhaustive search.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/detail/trial_driver.hpp"
#include "duet/progress.hpp"
#include "duet/source.hpp"
#include "execute/fibers/dpor/run_order.hpp"

namespace duet::detail::fiber::dpor {

/// The order of `reads` that every schedule equivalent to the run `order` keeps (the run's
/// happens-before restricted to the steps that read the clock, and each fiber's own order): not
/// complete where a read is not inside a step of its fiber, or there are more than 64 reads.
/// CallOrders::times is left to the caller.
CallOrders call_orders(const RunOrder& order, std::span<const ClockRead> reads);

}  // namespace duet::detail::fiber::dpor
