// The parallel checks over a state-machine spec, compiled once: a trial of a Y-program, its
// record, the operations a spec draws, one case, the shape and the roles validated, the
// property built. A test file compiles only the calls into its spec (ModelYSteps<Spec>).
#include <algorithm>

#include "duet/parallel.hpp"

namespace duet::detail {

ModelYStepsBase::~ModelYStepsBase() = default;

StepVerdict ModelYStepsBase::trial(const YShape& shape, Executor& executor, const Noise& noise,
                                   std::vector<Observed>& observed) {
  last_made_ = nullptr;
  TrialRunner<LinSubject> runner{[this] {
                                   std::unique_ptr<LinSubject> made = make_subject();
                                   last_made_ = made.get();
                                   return made;
                                 },
                                 [this](std::size_t i, LinSubject& subject) { return call(i, subject.object); }};
  // With Spec::show_sut the candidate stays as the run left it until the next trial.
  if (shows_sut()) runner.recycle = [this](std::unique_ptr<LinSubject> t) { ended_ = std::move(t); };
  runner.destroyed = [this] { last_made_ = nullptr; };  // its threads were still running
  return run_trial_verdict(runner, shape, executor, noise, observed, subject_maker());
}

std::string ModelYStepsBase::violation(Consistency consistency) const {
  return "no " + consistency_name(consistency) + " order of the calls explains the results";
}

void ModelYStepsBase::record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
                             const std::string& verdict) const {
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < calls(); ++i) texts.push_back(shown(i));
  record_y(trace, shape, texts, observed, setup(), verdict);
  if (!trace) return;
  trace->draft_setup = draft_setup();
  trace->y_witness = witness_;
  trace->y_witness_states = witness_states_;
  if (shows_sut() && last_made_) trace->y_subject_state = printed_sut(*last_made_);
}

// The spec's printer may throw: the report says so in the candidate's place.
std::string ModelYStepsBase::printed_sut(const LinSubject& subject) const {
  try {
    return show_sut(subject.object);
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    return "(" + threw("the spec's show_sut") + ")";
  }
}

std::vector<std::string> sampled_op_names(const MakeModelYSteps& make, std::size_t draws) {
  std::vector<std::string> names;
  try {
    Source src = Source::from_seed(0x0d0e5e11);
    std::unique_ptr<ModelYStepsBase> walk;  // a prefix drawn from the initial state, 25 calls long
    for (std::size_t i = 0; i < draws; ++i) {
      if (i % 25 == 0) {
        walk = make();
        walk->begin_part(YSteps::Part::prefix, 0, nullptr);
      }
      StepVerdict failure;
      const CaseSteps::Drawn drawn = walk->draw_call(src, nullptr, failure);
      if (drawn == CaseSteps::Drawn::failed) break;
      if (drawn != CaseSteps::Drawn::command) continue;
      std::string name = op_name(walk->shown(walk->calls() - 1));
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(std::move(name));
    }
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    // The spec's own code threw: the check itself will say so; the names seen so far stand.
  }
  return names;
}

CaseOutcome run_model_parallel_case(const MakeModelYSteps& make, const ParallelParams& pp, Source& src, Trace* trace,
                                    const CaseParams& cp) {
  std::unique_ptr<ModelYStepsBase> steps;
  try {
    steps = make();
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    CaseOutcome out;
    out.kind = CaseOutcome::Kind::error;
    out.message = threw("the model's initial state");
    return out;
  }
  return run_y_case(*steps, pp, src, trace, cp, [&]() -> std::unique_ptr<YSteps> { return make(); });
}

namespace {
// Validates the shape, and the roles' and progress guarantees' operation names against the
// operations the spec's generator draws.
std::string model_parallel_error(const ModelParallelSpec& spec, const ParallelConfig& pc) {
  std::string why = check_parallel_config(pc);
  if (why.empty() && (!pc.roles.empty() || !pc.progress.ops.empty())) why = op_names_error(pc, sampled_op_names(spec.make));
  return why;
}

Property model_parallel_property(const ModelParallelSpec& spec, const ParallelConfig& pc,
                                 const std::shared_ptr<const GivenProgram>& given = nullptr) {
  Property p;
  p.name = spec.name;
  // A walk over every program draws each argument's first few values, not the whole domain.
  p.domain = spec.domain.empty() || !pc.every_program
                 ? spec.domain
                 : "the first " + std::to_string(pc.every_program->values) + " values of each argument's generator (" +
                       spec.domain + ")" + (pc.every_program->symmetric_values ? ", alike up to renaming" : "");
  p.spec_id = hash32(p.name + "/parallel" + (given ? scenario_signature(pc, *given) : shape_signature(pc)));
  auto pp = parallel_params(pc, p, given);
  p.run_case = [pp, make = spec.make](Source& src, const CaseParams& cp, Trace* trace) {
    return run_model_parallel_case(make, *pp, src, trace, cp);
  };
  offer_fiber_twin(p, pc, [spec, given](const ParallelConfig& on) { return model_parallel_property(spec, on, given); });
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

CheckResult check_model_scenario(const ModelScenario& scenario, const ParallelConfig& pc, const Config& config) {
  const std::string& name = scenario.spec.name;
  if (auto why = model_parallel_error(scenario.spec, pc); !why.empty()) return parallel_config_error(name, why);
  if (auto why = given_program_error(pc, *scenario.given); !why.empty()) return nothing_tested(name, why);
  return run_property(model_parallel_property(scenario.spec, pc, scenario.given), config);
}

CheckResult check_model_parallel(const ModelParallelSpec& spec) { return check_model_parallel(spec, {}, {}); }

CheckResult expect_model_unsafe(const ModelParallelSpec& spec) { return expect_model_unsafe(spec, {}, {}); }

}  // namespace duet::detail
