// When the candidate crashes the process (a segmentation fault, an abort), say which case did
// it and how to replay it before the process dies.
#pragma once

#include <cstdint>
#include <string>

#include "duet/detail/token.hpp"

namespace duet::detail {

/// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT while it lives (on an
/// alternate stack, so a stack overflow is caught too). The handler prints the check's name
/// and a replay token for the running case, then hands the signal to the previous handler
/// (a sanitizer's, a death test's, or the default), so the process still dies as it would.
class CrashGuard {
 public:
  explicit CrashGuard(std::string name);
  ~CrashGuard();
  CrashGuard(const CrashGuard&) = delete;
  CrashGuard& operator=(const CrashGuard&) = delete;

  /// What every token of this check carries (spec, run seed, generation settings).
  void set_header(const ReplayRecord& header);
  /// Hot loop: the running case, from a seed (its token is made only if it crashes).
  void seeded_case(std::uint64_t index, std::uint64_t case_seed);
  /// The running case, by its token.
  void token_case(std::string token);
  /// No case is running.
  void idle();
};

}  // namespace duet::detail
