// Fuzz targets from any spec (Monolith's idea): a coverage-guided fuzzer's bytes become duet's
// choice stream, so the fuzzer steers which calls, arguments and, on fibers, which schedules
// a case tries. One macro makes the target; libFuzzer and AFL++ (through its libFuzzer driver)
// run it as it is, and so does OSS-Fuzz. See docs/fuzzing.md.
//
//   // persistent_array_fuzz.cpp; clang++ -fsanitize=fuzzer,address,undefined
//   #include <duet/fuzz.hpp>
//   DUET_FUZZ_TARGET(duet::fuzz_api(persistent::spec(ed::make, ed::get, ed::set)))
//
// An input that makes the check fail prints duet's report (the shrunk scenario as C++, a draft
// test, a replay token) and aborts, so the fuzzer keeps it as a crash file. The ordinary test
// binary replays that file with the same report:
//
//   DUET_REPLAY_FILE=crash-1a2b... ./tests --gtest_filter=PersistentArray.*
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>

#include "duet/api.hpp"
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/executor.hpp"
#include "duet/parallel.hpp"
#include "duet/state_machine.hpp"

namespace duet {

/// What a fuzz target runs on each input: one case from the bytes, under the settings.
using FuzzTarget = std::function<CheckResult(std::span<const std::uint8_t> bytes, const Config& config)>;

/// A state-machine spec's target (duet::check_sequential_bytes).
///
///   duet::FuzzTarget target = duet::fuzz_sequential<RingBufferSpec>();  // DUET_FUZZ_TARGET(target)
template <class Spec>
FuzzTarget fuzz_sequential() {
  return
      [](std::span<const std::uint8_t> bytes, const Config& config) { return check_sequential_bytes<Spec>(bytes, config); };
}

/// A duet::Api spec's target (Api::check_bytes); the Api is copied into the target.
///
///   duet::FuzzTarget target = duet::fuzz_api(persistent::spec(ed::make, ed::get, ed::set));
inline FuzzTarget fuzz_api(Api api, ApiOptions options = {}) {
  return [api = std::move(api), options](std::span<const std::uint8_t> bytes, const Config& config) {
    return api.check_bytes(bytes, config, options);
  };
}

/// A parallel check on the fiber scheduler: the bytes choose the program and its schedules.
/// (On threads the outcome would depend on timing, not on the bytes: use fibers.)
///
///   duet::FuzzTarget target = duet::fuzz_parallel<CounterSpec>({.executor = duet::fibers()});
template <class Spec>
FuzzTarget fuzz_parallel(ParallelConfig pc) {
  return [pc](std::span<const std::uint8_t> bytes, const Config& config) {
    return check_parallel_bytes<Spec>(bytes, pc, config);
  };
}

namespace detail {
/// Runs the target on one input; a failure or an error prints the report and aborts.
int fuzz_one(const FuzzTarget& target, const std::uint8_t* data, std::size_t size);
}  // namespace detail

}  // namespace duet

/// Defines LLVMFuzzerTestOneInput from a duet::FuzzTarget (or any callable taking the bytes and
/// a duet::Config and returning a duet::CheckResult), built once, on the first input.
#define DUET_FUZZ_TARGET(...)                                                         \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    static const ::duet::FuzzTarget duet_fuzz_target = (__VA_ARGS__);                 \
    return ::duet::detail::fuzz_one(duet_fuzz_target, data, size);                    \
  }
