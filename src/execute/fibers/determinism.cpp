#include "execute/fibers/determinism.hpp"

#include <atomic>
#include <exception>

#include "duet/detail/fiber_hooks.hpp"

namespace duet::detail::fiber {

constinit thread_local std::uint64_t t_trial = 0;

namespace {
std::atomic<std::uint64_t> g_trials{0};
}

std::string begin_trial(const std::function<void()>& before) {
  t_trial = 0;  // the hook runs as the process's code: the previous trial is over
  std::string error;
  if (before) {
    try {
      before();
    } catch (const std::exception& e) {
      error = std::string("FiberOptions::before_each_run threw: ") + e.what();
    } catch (...) {
      error = "FiberOptions::before_each_run threw an exception that is not a std::exception";
    }
  }
  // After the hook, which may read the clock or draw random numbers as the process does.
  t_virtual_ns = 0;
  t_trial = g_trials.fetch_add(1, std::memory_order_relaxed) + 1;
  return error;
}

void end_trial() noexcept { t_trial = 0; }

}  // namespace duet::detail::fiber
