// Which order of a history's operations the search checks: the one word of the search's
// vocabulary that a parallel check's settings name (duet::ParallelConfig::consistency), apart
// so that duet/api.hpp takes it without the search's budgets and clocks.
#pragma once

namespace duet::detail {

enum class Consistency {
  linearizable,  // real-time order: an operation that returned before another was invoked comes first
  sequential     // only each process's own order (qcheck-stm's weaker check)
};

}  // namespace duet::detail
