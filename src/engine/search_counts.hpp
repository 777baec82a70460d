// The counters a search keeps: the progress line, the pass line and a failure's report read them.
#pragma once

#include <cstdint>

#include "engine/wire.hpp"

namespace duet::detail {

struct SearchCounts {
  std::uint64_t cases = 0, commands = 0, attempts = 0, rejected = 0, overruns = 0, abandoned = 0, busy = 0, trials = 0,
                overlapped = 0, cpus = 0;
};
template <WireSelf<SearchCounts> Self, class Visit>
auto wire_fields(Self& c, Visit&& visit) {
  return visit(c.cases, c.commands, c.attempts, c.rejected, c.overruns, c.abandoned, c.busy, c.trials, c.overlapped, c.cpus);
}

}  // namespace duet::detail
