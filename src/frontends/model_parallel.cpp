// The parallel checks over a state-machine spec, compiled once: the shape and the roles
// validated, the property built, the Y-programs run. A test file compiles only the spec's own
// steps (ModelYSteps<Spec>, run_parallel_case<Spec>) and the operation names it samples.
#include "duet/parallel.hpp"

namespace duet::detail {

namespace {
// Validates the shape, and the roles against the operations the spec's generator draws.
std::string model_parallel_error(const ModelParallelSpec& spec, const ParallelConfig& pc) {
  std::string why = check_parallel_config(pc);
  if (why.empty() && !pc.roles.empty()) why = roles_error(pc, spec.op_names());
  return why;
}

Property model_parallel_property(const ModelParallelSpec& spec, const ParallelConfig& pc) {
  Property p;
  p.name = spec.name;
  p.domain = spec.domain;
  auto pp = parallel_params(pc, p);
  p.spec_id = hash32(p.name + "/parallel" + shape_signature(pc));
  p.run_case = [pp, run = spec.run_case](Source& src, const CaseParams& cp, Trace* trace) {
    return run(*pp, src, trace, cp);
  };
  return p;
}
}  // namespace

CheckResult check_model_parallel(const ModelParallelSpec& spec, const ParallelConfig& pc, const Config& config) {
  if (auto why = model_parallel_error(spec, pc); !why.empty()) return parallel_config_error(spec.name, why);
  return run_property(model_parallel_property(spec, pc), config);
}

CheckResult check_model_parallel_bytes(const ModelParallelSpec& spec, std::span<const std::uint8_t> bytes,
                                       const ParallelConfig& pc, const Config& config) {
  if (auto why = model_parallel_error(spec, pc); !why.empty()) return parallel_config_error(spec.name, why);
  if (!runs_on_fibers(pc))
    return nothing_tested(spec.name, "a parallel check driven by a fuzzer's bytes needs the fiber scheduler "
                                     "(ParallelConfig{.executor = duet::fibers()}): on threads the outcome "
                                     "follows the timing, not the bytes");
  return run_property(model_parallel_property(spec, pc), config, bytes);
}

CheckResult expect_model_unsafe(const ModelParallelSpec& spec, const ParallelConfig& pc, const Config& config) {
  if (auto why = model_parallel_error(spec, pc); !why.empty()) return parallel_config_error(spec.name, why);
  return run_property(expecting_failure(model_parallel_property(spec, unsafe_config(pc))), config);
}

CheckResult check_model_parallel(const ModelParallelSpec& spec) { return check_model_parallel(spec, {}, {}); }

CheckResult expect_model_unsafe(const ModelParallelSpec& spec) { return expect_model_unsafe(spec, {}, {}); }

}  // namespace duet::detail
