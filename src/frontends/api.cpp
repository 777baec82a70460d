// The reference-vs-candidate front end, duet::Api: its checks as Properties the engine runs.
// Its sequential steps are in api_steps.cpp, its Y-programs in api_y_steps.cpp, judging a call
// in api_judge.cpp. An operation's typed part (detail::Op, duet/detail/api/operation.hpp) only
// draws arguments, calls into the user's functions and deconstructs their results; a call
// (api_call.cpp), running it, judging its results and reporting them are compiled once.
#include <memory>
#include <string>

#include "frontends/api_data.hpp"

namespace duet {
namespace detail {

IllFormed ill_formed(const std::string& var, const std::string& why, std::string type) {
  return {"the well-formedness check fails on " + var + (why.empty() ? "" : ": " + why), var, std::move(type)};
}

std::string Env::fresh(std::size_t type_id) { return (*prefixes)[type_id] + std::to_string(next_var++); }

Env::Env(const Env& o) : prefixes(o.prefixes), next_var(o.next_var), max_handles(o.max_handles) {
  stores.reserve(o.stores.size());
  for (const auto& s : o.stores) stores.push_back(s->clone());
}
Env& Env::operator=(const Env& o) {
  if (this != &o) *this = Env(o);
  return *this;
}

}  // namespace detail

Api::Api(std::string name) : name_(std::move(name)) {}
Api::Api(const Api&) = default;
Api::Api(Api&&) noexcept = default;
Api& Api::operator=(const Api&) = default;
Api& Api::operator=(Api&&) noexcept = default;
Api::~Api() = default;

std::size_t Api::add_abstract(std::unique_ptr<detail::HandleStore> empty_store, const std::string& prefix) {
  stores_.push_back(std::move(empty_store));
  prefixes_.push_back(prefix);
  return stores_.size() - 1;
}

void Api::add_op(std::unique_ptr<detail::OpBase> op) { ops_.push_back(std::move(op)); }

detail::Property Api::property(const ApiOptions& options) const {
  auto data = std::make_shared<detail::ApiData>();
  data->stores = stores_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
  data->recovers = recovers_;
  data->crash_one_in = options.crash_one_in;
  data->shows = shows_;
  detail::Property p;
  p.name = name_;
  std::string signature = name_;
  for (const auto& op : ops_) signature += "/" + op->name;
  p.spec_id = detail::hash32(signature);
  p.run_case = [data](Source& src, const detail::CaseParams& params, detail::Trace* trace) {
    return detail::run_api_case(*data, src, params, trace);
  };
  return p;
}

detail::Property Api::parallel_property(const ParallelConfig& pc, const ApiOptions& options,
                                        const Scenario<>* scenario) const {
  detail::Property p = property(options);
  auto data = std::make_shared<detail::ApiData>();
  data->stores = stores_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
  data->shows = shows_;
  data->parallel_signature = std::to_string(p.spec_id) + "/parallel";
  std::shared_ptr<const detail::GivenProgram> given;
  std::shared_ptr<const std::vector<Call>> calls;
  if (scenario) {
    given = detail::api_given_program(*scenario);
    calls = std::make_shared<const std::vector<Call>>(detail::scenario_calls(*scenario));
  }
  p.spec_id = detail::hash32(data->parallel_signature +
                             (given ? detail::scenario_signature(pc, *given) : detail::shape_signature(pc)));
  auto pp = detail::parallel_params(pc, p, given);
  p.run_case = [data, pp, calls](Source& src, const detail::CaseParams& cp, detail::Trace* trace) {
    return detail::run_api_parallel_case(*data, *pp, src, trace, cp, calls.get());
  };
  // The check that built it runs the twin, while this Api lives.
  detail::offer_fiber_twin(
      p, pc, [this, options, scenario](const ParallelConfig& on) { return parallel_property(on, options, scenario); });
  return p;
}

static std::string parallel_unsupported(const std::vector<std::shared_ptr<const detail::OpBase>>& ops) {
  for (const auto& op : ops)
    if (!op->parallel_ok)
      return "operation " + op->name + " is nondeterministic or has no reference: not supported under threads";
  return {};
}

// Why the API cannot run under pc, or empty.
static std::string parallel_error(const ParallelConfig& pc, const std::vector<std::shared_ptr<const detail::OpBase>>& ops) {
  if (ops.empty()) return "the API declares no operation";
  std::string why = detail::check_parallel_config(pc);
  if (why.empty()) why = parallel_unsupported(ops);
  if (why.empty()) {
    std::vector<std::string> names;
    names.reserve(ops.size());
    for (const auto& op : ops) names.push_back(op->name);
    why = detail::op_names_error(pc, names);
  }
  return why;
}

CheckResult Api::check_parallel(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(parallel_property(pc, options), config);
}

CheckResult Api::expect_unsafe(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(detail::expecting_failure(parallel_property(detail::unsafe_config(pc), options)), config);
}

CheckResult Api::check_scenario(const Scenario<>& scenario, const ParallelConfig& pc, const Config& config,
                                const ApiOptions& options) const {
  if (std::string why = parallel_error(pc, ops_); !why.empty()) return detail::parallel_config_error(name_, why);
  std::string why = detail::api_scenario_error(scenario, ops_);
  if (why.empty()) why = detail::given_program_error(pc, *detail::api_given_program(scenario));
  if (!why.empty()) return detail::nothing_tested(name_, why);
  return detail::run_property(parallel_property(pc, options, &scenario), config);
}

static Config with_fuel(Config config, const ApiOptions& options) {
  if (options.fuel > 0 && !config.max_length) config.max_length = options.fuel;
  return config;
}

CheckResult Api::check(const Config& config, const ApiOptions& options) const {
  if (ops_.empty()) return detail::nothing_tested(name_, "the API declares no operation");
  return detail::run_property(detail::searching_case_runs(property(options)), with_fuel(config, options));
}

CheckResult Api::check_bytes(std::span<const std::uint8_t> bytes, const Config& config, const ApiOptions& options) const {
  return detail::run_property(detail::searching_case_runs(property(options)), with_fuel(config, options), bytes);
}

}  // namespace duet
