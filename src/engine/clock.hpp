// The engine's clock: searches, shrinks, progress lines and the hang watchdog time themselves
// with it.
#pragma once

#include <chrono>
#include <ctime>

namespace duet::detail {

using Clock = std::chrono::steady_clock;

/// Seconds since `t`.
inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

/// The clock read once per case or replay, where the time goes to the cases (the search's time
/// budget and progress lines, the shrink's budget): CLOCK_MONOTONIC_COARSE where there is one (a
/// few nanoseconds, where Clock::now() took about 60 on a virtual machine: a tenth of a short
/// case), at most a scheduler tick (1 to 10 ms) behind Clock::now(), whose readings it may be
/// compared with (the same clock, read at its last tick).
inline Clock::time_point coarse_now() {
#ifdef CLOCK_MONOTONIC_COARSE
  timespec now{};
  ::clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
  return Clock::time_point(
      std::chrono::duration_cast<Clock::duration>(std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec)));
#else
  return Clock::now();
#endif
}

/// Seconds since `t` on the coarse clock.
inline double coarse_since(Clock::time_point t) { return std::chrono::duration<double>(coarse_now() - t).count(); }

}  // namespace duet::detail
