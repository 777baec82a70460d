// When the candidate crashes the process (a segmentation fault, an abort), say which case did
// it and how to replay it before the process dies.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "report/token.hpp"

namespace duet::detail {

/// The exit status of a process that a case tried to end through exit() or quick_exit().
inline constexpr int kExitDuringCase = 4;

/// Installs handlers for SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT while it lives (on an
/// alternate stack, so a stack overflow is caught too). The handler prints the check's name
/// and a replay token for the running case (and for a crash on a fiber, the fiber's stack),
/// then hands the signal to the previous handler (a sanitizer's, a death test's, or the
/// default), so the process still dies as it would.
///
/// It also catches a process exit (exit(), quick_exit(), from any thread) while a case runs:
/// it prints the same kind of report and ends the process with kExitDuringCase, so that a
/// candidate calling exit(0) cannot make a test look passed.
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
  /// The running case, by its token (copied into the buffer of the last one: a shrink's
  /// replays share one token, and allocate nothing).
  void token_case(const std::string& token);
  /// No case is running.
  void idle();
};

/// Isolation's child: where the handler leaves the return addresses of a crash on a fiber
/// (capture_crash_stack), in memory the test process reads once the child has died. `count`
/// is written last, so that a count the test process sees covers addresses already written.
void set_crash_stack_sink(std::uintptr_t* pcs, std::size_t capacity, std::atomic<std::uint64_t>* count) noexcept;

}  // namespace duet::detail
