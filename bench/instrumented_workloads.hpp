// Workloads that bench/instrumented_bench.cpp runs twice: compiled plainly there, and with
// duet_instrument in bench/instrumented_subject.cpp.
#pragma once

#include <atomic>
#include <cstddef>

#include <boost/lockfree/queue.hpp>

namespace duet_bench {

// n pushes and n pops on a Boost.Lockfree queue, on one thread; the sum popped. Each file
// uses its own capacity: inline functions and template instances are shared by every file of a
// program (the linker keeps one copy), so the instrumented and the plain measurement must not
// instantiate the same ones.
template <std::size_t Capacity>
long queue_round_trips(int n) {
  static boost::lockfree::queue<int, boost::lockfree::capacity<Capacity>> q;
  long sum = 0;
  for (int i = 0; i < n; ++i) {
    q.push(i);
    int v = 0;
    if (q.pop(v)) sum += v;
  }
  return sum;
}

template <class Atomic>
void increments(Atomic& a, int n) {
  for (int i = 0; i < n; ++i) a.fetch_add(1);
}

long queue_round_trips_instrumented(int n);
void increments_std_atomic(std::atomic<int>& a, int n);

}  // namespace duet_bench
