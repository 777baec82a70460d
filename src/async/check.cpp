// duet::check_async: a property whose every case is one duet::run of the test body, its
// schedule drawn from the case's choice stream (so the engine replays and shrinks it).
#include <memory>

#include "duet/async.hpp"
#include "duet/detail/engine.hpp"
#include "duet/faults.hpp"
#include "duet/result.hpp"
#include "duet/source.hpp"
#include "duet/state_machine.hpp"  // record_step, record_failure, failing_step

namespace duet {

namespace detail {
namespace {

CaseOutcome run_async_case(const std::string& name, const std::function<task<void>()>& body, const AsyncOptions& options,
                           const CaseParams& params, Trace* trace) {
  CaseOutcome out;
  out.commands = 1;
  const std::size_t assertions_before = params.capture ? params.capture->count() : 0;
  std::string async_text;
  Result got;
  bool threw = false;
  {
    const AsyncTraceScope traced(trace ? &async_text : nullptr);
    try {
      duet::run(body(), options);
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      got = Result::current_exception();
      threw = true;
    }
  }
  const bool asserted = params.capture && params.capture->count() != assertions_before;
  const std::string code = "duet::run(" + name + "())";
  if (trace) {
    record_step(trace, code, got);
    trace->steps.back().async_trace = std::move(async_text);
    trace->no_draft = "the failing schedule comes from the choice stream: replay it with the token";
  }
  if (!threw && !asserted) return out;
  out.kind = CaseOutcome::Kind::fail;
  out.message = asserted ? "assertion failed: " + params.capture->messages_since(assertions_before)
                         : "the body threw " + got.show();
  if (trace) record_failure(trace, nullptr, out.message);
  else out.failing_step = failing_step(code, got, nullptr, out.message);
  return out;
}

}  // namespace
}  // namespace detail

CheckResult check_async(std::string name, std::function<task<void>()> body, const Config& config, const AsyncOptions& options) {
  if (!body) return detail::nothing_tested(name, "duet::check_async: no body");
  detail::Property p;
  p.name = name;
  p.spec_id = detail::hash32("duet::check_async:" + name);
  p.exact_replay = false;
  auto shared = std::make_shared<std::function<task<void>()>>(std::move(body));
  p.run_case = [shared, name, options](Source&, const detail::CaseParams& params, detail::Trace* trace) {
    return detail::run_async_case(name, *shared, options, params, trace);
  };
  return detail::run_property(p, config);
}

}  // namespace duet
