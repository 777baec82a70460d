// The seed examples as fuzz targets: each function gives the duet::FuzzTarget that one
// *_fuzz.cpp file turns into LLVMFuzzerTestOneInput, and that tests/fuzz/fuzz_targets_test.cpp
// replays crash files through (DUET_REPLAY_FILE), so that both run the same spec.
#pragma once

#include <duet/fuzz.hpp>

#include "patricia.hpp"
#include "persistent_array.hpp"
#include "ring_buffer.hpp"
#include "support/fiber_subjects.hpp"

namespace duet_fuzz {

// "How Ed got fired": the in-place set.
inline duet::Api persistent_array_api() {
  return persistent::spec(persistent::ed::make, persistent::ed::get, persistent::ed::set);
}
inline duet::FuzzTarget persistent_array() { return duet::fuzz_api(persistent_array_api()); }

// The ring buffer whose size() is wrong once it wraps.
inline duet::FuzzTarget ring_buffer() { return duet::fuzz_sequential<ring::BuggyRingBufferSpec>(); }

// Little-endian Patricia trees whose union compares branching masks as signed integers.
inline duet::Api patricia_api() { return patricia::spec(patricia::union_signed_masks); }
inline duet::FuzzTarget patricia() { return duet::fuzz_api(patricia_api()); }
// The same with keys drawn without edge bias (uniform 64-bit keys), for the benchmark.
inline duet::Api patricia_uniform_api() { return patricia::spec(patricia::union_signed_masks, false); }
inline duet::FuzzTarget patricia_uniform() { return duet::fuzz_api(patricia_uniform_api()); }

// A counter whose increment is a load then a store, on the fiber scheduler: the bytes choose
// the program and its schedules.
inline duet::ParallelConfig racy_counter_config() {
  duet::ParallelConfig pc;
  pc.executor = duet::fibers();
  return pc;
}
inline duet::FuzzTarget racy_counter() {
  return duet::fuzz_parallel<fiber_subjects::CounterSpec<true>>(racy_counter_config());
}

// ---- The correct twins, fuzzed continuously (continuous.txt, .clusterfuzzlite/): a failure of
// one of these is duet's bug (a false report, or a crash or sanitizer report in the engine, the
// shrinker or the fiber scheduler), where the examples above fail by design within seconds.

inline duet::FuzzTarget fixed_persistent_array() {
  return duet::fuzz_api(persistent::spec(persistent::fixed::make, persistent::fixed::get, persistent::fixed::set));
}
inline duet::FuzzTarget fixed_ring_buffer() { return duet::fuzz_sequential<ring::CorrectRingBufferSpec>(); }
inline duet::FuzzTarget fixed_patricia() { return duet::fuzz_api(patricia::spec(patricia::union_)); }
inline duet::FuzzTarget atomic_counter() {
  return duet::fuzz_parallel<fiber_subjects::CounterSpec<false>>(racy_counter_config());
}

}  // namespace duet_fuzz
