// How isolation's child process ended without answering, as the report says it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace duet::detail {

/// How a child process ended without answering.
struct Death {
  enum class Kind : unsigned char {
    signal,       // killed by a signal it raised (SIGSEGV, SIGABRT, ...)
    exit_call,    // exit() or quick_exit() during a case
    exit_status,  // ended some other way (_exit, a sanitizer's report) with this status
    hang          // still running at the case time limit: killed
  } kind = Kind::signal;
  int code = 0;           // the signal, or the exit status (exit_call: -1 for quick_exit)
  double limit_ms = 0;    // hang: the limit it ran past (DUET_TIME_SCALE applied)
  double scale = 1;       // hang: the DUET_TIME_SCALE the limit was multiplied by
  std::string sanitizer;  // a sanitizer's headline, e.g. "AddressSanitizer: SEGV on unknown address 0x000000000000"
  std::string output;     // the end of what the child wrote to stderr (a sanitizer's report)
  std::vector<std::uintptr_t> stack;  // a crash on a fiber: its return addresses (crash_stack.hpp)

  /// "a segmentation fault (SIGSEGV)", "hang after 200 ms", "hang after 200 ms × 10 (DUET_TIME_SCALE)", "exit(0)", ...
  std::string what() const;
};

/// The headline of a sanitizer's report in a child's output ("AddressSanitizer: SEGV on unknown
/// address 0x000000000000"), without the pid prefix and the pc details; empty if there is none.
std::string sanitizer_headline(const std::string& output);

}  // namespace duet::detail
