// DUET_EXECUTOR (--duet_executor): every parallel check of a binary on the executor it names,
// without editing the tests, so that a CI matrix runs one suite on threads and on fibers.
#pragma once

#include <optional>
#include <string>

#include "duet/parallel_config.hpp"

namespace duet::detail {

/// The executor the setting names, read from the flag or the variable.
struct NamedExecutor {
  bool fibers = false;
  std::optional<Schedule> schedule;  // fibers:random|pct|exhaustive; none: the check's own, else random
  std::string text;                  // as given: "fibers:pct"
  std::string where;                 // "DUET_EXECUTOR" or "--duet_executor"
};

/// The accepted values, for errors and help.
inline constexpr const char* kExecutorForms = "threads, fibers, fibers:random, fibers:pct or fibers:exhaustive";

/// The setting, or none when unset. Throws std::invalid_argument naming the accepted forms for
/// any other value (Settings resolution reports it as a bad setting of every check).
std::optional<NamedExecutor> named_executor();

/// Why `pc` cannot run on the named executor (thread hooks on fibers, fiber hooks on threads, an
/// executor object of its own); empty when it can, when nothing is named, or when the value is
/// malformed (reported by the settings instead, as every malformed setting is).
std::string named_executor_error(const ParallelConfig& pc);

/// Why a check under `pc` cannot run on fibers (per-thread hooks, an executor object of its
/// own), or empty.
std::string fibers_unsupported(const ParallelConfig& pc);

/// While one lives, DUET_EXECUTOR names nothing on this thread: a check rebuilt on fibers for a
/// failure found on threads (engine/fiber_bridge.hpp) runs there even under DUET_EXECUTOR=threads.
class FibersOverNamedExecutor {
 public:
  FibersOverNamedExecutor();
  ~FibersOverNamedExecutor();
  FibersOverNamedExecutor(const FibersOverNamedExecutor&) = delete;
  FibersOverNamedExecutor& operator=(const FibersOverNamedExecutor&) = delete;

 private:
  bool was_;
};

/// `pc` with its executor replaced by the named one; `pc` itself when nothing is named, the
/// value is malformed, or it names where `pc` runs already. `note`, when given, gets the words a
/// report says it with ("on fibers:pct(3) (DUET_EXECUTOR=fibers:pct)"), or stays empty.
ParallelConfig on_named_executor(const ParallelConfig& pc, std::string* note = nullptr);

}  // namespace duet::detail
