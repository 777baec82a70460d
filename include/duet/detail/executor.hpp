// Execution of a Y-program's branches: all at once, each on its own thread (or, later, fiber).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace duet::detail {

/// Runs branch functions concurrently. Implementations: a persistent thread pool (the
/// default), threads created per run (for comparison), and the deterministic fiber scheduler.
class Executor {
 public:
  virtual ~Executor() = default;
  /// Starts every branch together (a spin barrier) and returns when all have finished.
  virtual void run(const std::vector<std::function<void()>>& branches) = 0;
  virtual const char* name() const = 0;
};

/// A pool of threads kept for the whole check: spawning threads per trial costs more than the
/// trial itself. `pin`: bind worker i to CPU i modulo the CPUs available.
std::unique_ptr<Executor> make_thread_pool(bool pin = false);
/// New threads for every run (the naive way; kept for the benchmark that measures the pool).
std::unique_ptr<Executor> make_thread_per_run();

/// A monotonic timestamp for invoke/response events. Fenced on both sides so that it is not
/// reordered with the memory effects of the call it brackets.
std::uint64_t event_time();

}  // namespace duet::detail
