// Which real-time orders of the calls the check's seq_cst fences allow a run (C++ memory model).
// Where an exhaustive search leaves the calls' orders to the check, the check's fences at each
// call's invoke and response are left out of the run (SchedulerConfig::harness_fences): the
// search explores the structure's executions alone, and an order of the clock reads is kept
// only where the execution, with a seq_cst fence at each read placed in that order, is one C++
// allows. C++20 [atomics.order]/4.4: if fence X happens before A, B happens before fence Y and
// A is coherence-ordered before B, X precedes Y in S. So a read p may come before a read q of
// another fiber only if nothing q's fiber does after q is coherence-ordered before something
// p's fiber did before p (a later call reading a value older than an earlier call's store).
//
//   std::vector<std::uint64_t> not_after = fence_conflicts(sched.trace(), sched.clock_reads());
//   not_after[q] & (1 << p)   // read q may not come after read p
//
// Happens-before is taken as each fiber's own order: fewer orders ruled out than C++ rules
// out (the fences' own synchronisation, and the rules for seq_cst operations, are left out),
// never more; the check runs an order that fails, so a kept order that no execution has costs
// a search, not a verdict.
//
// Internal to the exhaustive search.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail::fiber::dpor {

/// Per read of `reads` (at most 64): the reads it may not come after (bits), where the fences
/// placed in that order would make the execution of `trace` one that C++ forbids. A load whose
/// store the trace does not place in its object's modification order rules nothing out.
std::vector<std::uint64_t> fence_conflicts(std::span<const TraceEvent> trace, std::span<const ClockRead> reads);

}  // namespace duet::detail::fiber::dpor
