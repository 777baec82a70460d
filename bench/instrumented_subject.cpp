// The instrumented half of bench/instrumented_bench.cpp: the same workloads, compiled with
// duet_instrument (only this file).
#include "instrumented_workloads.hpp"

namespace duet_bench {

long queue_round_trips_instrumented(int n) { return queue_round_trips<1000>(n); }
void increments_std_atomic(std::atomic<int>& a, int n) { increments(a, n); }

}  // namespace duet_bench
