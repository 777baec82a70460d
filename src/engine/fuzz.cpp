// The body of every DUET_FUZZ_TARGET: one case from the fuzzer's bytes; a failure is reported
// the duet way, then the process aborts so that the fuzzer keeps the input.
#include "duet/fuzz.hpp"

#include <cstdio>
#include <cstdlib>

namespace duet::detail {

int fuzz_one(const FuzzTarget& target, const std::uint8_t* data, std::size_t size) {
  Config config;
  config.verbose = -1;  // the report is printed here, once
  config.seed = 0;      // unused (the bytes are the case); drawing a random one costs more than a case
  const CheckResult r = target(std::span<const std::uint8_t>(data, size), config);
  if (r.status == CheckResult::Status::passed) return 0;
  std::fputs(r.report.c_str(), stderr);
  std::fputs(r.status == CheckResult::Status::failed
                 ? "duet: the fuzzer's input makes the check fail (report above); aborting so that the fuzzer keeps it.\n"
                   "  Replay it through the test binary with DUET_REPLAY_FILE=<the crash file>.\n"
                 : "duet: the check cannot run (report above); aborting.\n",
             stderr);
  std::fflush(stderr);
  std::abort();
}

}  // namespace duet::detail
