#include "engine/case_loop.hpp"

namespace duet::detail {

CaseOutcome ended(CaseOutcome out, StepVerdict& v, Trace* trace) {
  switch (v.kind) {
    case StepVerdict::Kind::ok: out.kind = CaseOutcome::Kind::pass; break;
    case StepVerdict::Kind::fail: out.kind = CaseOutcome::Kind::fail; break;
    case StepVerdict::Kind::abandoned: out.kind = CaseOutcome::Kind::abandoned; break;
    case StepVerdict::Kind::error: out.kind = CaseOutcome::Kind::error; break;
  }
  out.message = std::move(v.message);
  if (!trace) out.failing_step = std::move(v.failing_step);
  return out;
}

void CaseSteps::fail_on_assertion(StepVerdict& v, Trace* trace) { v = assertion_failed(trace, assertion_message()); }

}  // namespace duet::detail
