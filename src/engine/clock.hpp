// The engine's clock: searches, shrinks, progress lines and the hang watchdog time themselves
// with it.
#pragma once

#include <chrono>

namespace duet::detail {

using Clock = std::chrono::steady_clock;

/// Seconds since `t`.
inline double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace duet::detail
