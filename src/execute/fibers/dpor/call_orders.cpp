// The order of a run's reads of the check's clock that its execution keeps (call_orders.hpp).
#include "execute/fibers/dpor/call_orders.hpp"

#include <algorithm>

namespace duet::detail::fiber::dpor {

CallOrders call_orders(const RunOrder& order, std::span<const ClockRead> reads) {
  const std::span<const Step> steps = order.steps();
  CallOrders o;
  if (reads.size() > 64) return o;
  // A read happens inside the step of its fiber that the trace ended with when it was read
  // (Runtime::harness_fence marks that step): no other fiber runs between them.
  std::vector<std::size_t> host(reads.size());
  for (std::size_t r = 0; r < reads.size(); ++r) {
    const std::uint32_t at = reads[r].steps;
    if (at == 0 || at > steps.size() || steps[at - 1].fiber != reads[r].fiber) return o;
    host[r] = at - 1;
  }
  o.before.assign(reads.size(), 0);
  o.complete = true;
  // Under the C++ memory model each read's step ends with the check's seq_cst fence, and fences
  // are dependent on each other: the run's own order is the only one.
  if (std::all_of(host.begin(), host.end(), [&](std::size_t h) { return steps[h].model && steps[h].fenced; })) {
    for (std::size_t b = 0; b < reads.size(); ++b) o.before[b] = (std::uint64_t{1} << b) - 1;
    return o;
  }
  // Reads come in run order: an earlier read of the same fiber, or one whose step happens before
  // this one's, comes first in every schedule of the execution.
  for (std::size_t b = 0; b < reads.size(); ++b)
    for (std::size_t a = 0; a < b; ++a)
      if (reads[a].fiber == reads[b].fiber || order.before(host[a], host[b])) o.before[b] |= std::uint64_t{1} << a;
  return o;
}

}  // namespace duet::detail::fiber::dpor
