// The spec-independent half of the state-machine front end's steps.
#include "duet/state_machine.hpp"

namespace duet::detail {

StepVerdict StateMachineStepsBase::assertion_failed(Trace* trace, std::string why) {
  if (ran_) return fail_here(trace, nullptr, std::move(why));
  if (trace) record_failure(trace, nullptr, why);  // before any command: the report shows the message
  return StepVerdict::fail(std::move(why));
}

StepVerdict StateMachineStepsBase::fail_here(Trace* trace, const Result* want, std::string why) const {
  if (trace) {
    record_failure(trace, want, why);
    return StepVerdict::fail(std::move(why));
  }
  return StepVerdict::fail(why, failing_step(last_command(), got_, want, why));
}

}  // namespace duet::detail
