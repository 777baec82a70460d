// What the executors and the front ends share beside duet/executor.hpp: how a run that failed
// ends a trial (ScheduleFailed, ExecutorFailed), a subject kept after such a run, and the calls'
// timestamps. Not a public header.
#pragma once

#include <cstdint>
#include <string>

namespace duet {

namespace detail {
/// Thrown out of Executor::run by the fiber executor when the run itself failed (deadlock,
/// livelock, data race, misuse of a lock): the trial ends there, with this verdict.
struct ScheduleFailed {
  std::string message;
  bool duet_limit = false;  // duet's own limit ended the run: an error of the check, not a failure
};

/// Thrown out of Executor::run when the executor itself could not run the branches as asked (a
/// ThreadHooks function threw): an error of the check, with this message.
struct ExecutorFailed {
  std::string message;
};

/// A subject that a failed fiber run left mid-operation is kept, never destroyed: `p` is leaked
/// on purpose (told to LeakSanitizer, so sanitizer runs stay clean).
void abandon(const void* p) noexcept;

/// Which side of a call a timestamp is taken on. Inside a fiber run an exhaustive search orders
/// a branch's response against another branch's invocation (the calls' real-time order), not
/// two invocations or two responses; `either` is ordered against both.
enum class CallEdge : unsigned char { invoke = 1, response = 2, either = 3 };

/// A monotonic timestamp for invoke/response events. Fenced on both sides so that it is not
/// reordered with the memory effects of the call it brackets. Inside a fiber run, a logical
/// clock (the run is sequential: the order of the calls is exact).
std::uint64_t event_time(CallEdge edge = CallEdge::either);
}  // namespace detail

}  // namespace duet
