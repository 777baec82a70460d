// A failing parallel program's draft as a scenario test (scenario_draft.hpp).
#include "execute/scenario_draft.hpp"

#include <string>
#include <vector>

#include "duet/detail/trial_driver.hpp"
#include "duet/progress.hpp"
#include "report/token.hpp"

namespace duet::detail {
namespace {

std::string roles_cpp(const std::vector<Role>& roles) {
  std::string out = "{";
  for (std::size_t r = 0; r < roles.size(); ++r) {
    out += (r == 0 ? "{" : ", {") + show_string(roles[r].name) + ", " + std::to_string(roles[r].count) + ", {";
    for (std::size_t k = 0; k < roles[r].ops.size(); ++k) out += (k == 0 ? "" : ", ") + show_string(roles[r].ops[k]);
    out += "}}";
  }
  return out + "}";
}

// The ParallelConfig the draft passes, fields in declaration order; empty for the defaults.
std::string config_cpp(const ParallelParams& pp, const Trace& trace, bool fibers) {
  const ParallelConfig& pc = pp.config;
  std::vector<std::string> fields;
  if (!pc.roles.empty()) fields.push_back(".roles = " + roles_cpp(pc.roles));
  if (pc.consistency == Consistency::sequential) fields.push_back(".consistency = duet::Consistency::sequential");
  if (pp.noise) fields.push_back(".noise = true");
  if (fibers) {
    const std::string schedule = trace.schedule == "random" ? "random()" : trace.schedule;
    fields.push_back(".executor = duet::fibers(duet::" + schedule +
                     (trace.fiber_options.empty() ? "" : ", " + trace.fiber_options) + ")");
  }
  if (fields.empty()) return {};
  std::string out = "{";
  for (std::size_t i = 0; i < fields.size(); ++i) out += (i == 0 ? "" : ", ") + fields[i];
  return out + "}";
}

}  // namespace

void record_scenario_draft(Trace& trace, const YSteps& steps, const ParallelParams& pp, const YShape& shape,
                           std::span<const std::uint64_t> trial_choices) {
  trace.scenario = {};
  if (pp.config.progress.stated()) return;
  Trace::ScenarioDraft draft;
  std::string signature;
  std::vector<std::string> keys;
  if (!steps.scenario_draft(draft, signature, keys)) return;
  TrialDriver& driver = pp.executor->trial_driver();
  const bool fibers = driver.deterministic();
  draft.config = config_cpp(pp, trace, fibers);
  if (fibers) {
    GivenProgram program{shape, trace.y_prefix};
    for (const auto& branch : trace.y_branches) program.calls.insert(program.calls.end(), branch.begin(), branch.end());
    program.calls.insert(program.calls.end(), trace.y_suffix.begin(), trace.y_suffix.end());
    if (!keys.empty()) program.calls = std::move(keys);
    ReplayRecord rec;
    rec.spec_id = hash32(signature + scenario_signature(pp.config, program));
    rec.cases = 1;
    rec.choices.assign(trial_choices.begin(), trial_choices.end());
    rec.executor = driver.execution();
    rec.trials = 1;
    draft.token = encode_token(rec);
  }
  trace.scenario = std::move(draft);
}

}  // namespace duet::detail
