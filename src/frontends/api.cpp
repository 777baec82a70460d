// The reference-vs-candidate front end's scenario loop: the engine sees it as a Property.
#include <cctype>
#include <memory>

#include "duet/api.hpp"

namespace duet {
namespace detail {
namespace {

struct ApiData {
  std::vector<std::function<std::unique_ptr<HandleStoreBase>()>> factories;
  std::vector<std::string> prefixes;
  std::vector<std::shared_ptr<const OpBase>> ops;
  std::size_t max_handles = 32;
};

CaseOutcome run_api_case(const ApiData& d, Source& src, const CaseParams& params, Trace* trace) {
  CaseOutcome out;
  Env env;
  env.prefixes = &d.prefixes;
  env.max_handles = d.max_handles;
  for (const auto& make : d.factories) env.stores.push_back(make());

  const std::size_t failures_before = params.capture ? params.capture->count() : 0;
  auto fail = [&](std::string message) {
    out.kind = CaseOutcome::Kind::fail;
    out.message = std::move(message);
    return out;
  };

  for (std::size_t i = 0; i < params.max_length; ++i) {
    const std::size_t span = src.begin_span();
    if (src.draw(params.continue_odds) == 0) break;
    // Choose an operation that can run here: one whose arguments can be built from the live
    // handles, and which the reference does not decline.
    StepOutcome step{StepOutcome::Status::declined, {}};
    for (int attempt = 0; attempt < 32 && step.status == StepOutcome::Status::declined; ++attempt) {
      ++out.attempts;
      const OpBase& op = *d.ops[static_cast<std::size_t>(src.draw(d.ops.size() - 1))];
      step = op.step(src, env, trace);
      if (step.status == StepOutcome::Status::declined) ++out.rejected;
    }
    if (step.status == StepOutcome::Status::declined) break;
    ++out.commands;
    src.end_span(span);
    if (step.status == StepOutcome::Status::failed) return fail(std::move(step.message));
    if (step.status == StepOutcome::Status::abandoned) {
      out.kind = CaseOutcome::Kind::abandoned;
      out.message = std::move(step.message);
      return out;
    }
    if (params.capture && params.capture->count() != failures_before) {
      std::string msg = "assertion failed: " + params.capture->messages_since(failures_before);
      if (trace) record_failure(trace, nullptr, msg);
      return fail(std::move(msg));
    }
    // Well-formedness of every live value, not only of those this step touched: a candidate
    // that shares structure between values may corrupt one through another.
    for (const auto& store : env.stores) {
      if (auto broken = store->check_all()) {
        if (trace) record_failure(trace, nullptr, *broken);
        return fail(*broken);
      }
    }
  }
  return out;
}

}  // namespace

void record_api_step(Trace* trace, std::string code, std::string observed, bool binds) {
  Step step;
  step.code = std::move(code);
  step.observed = std::move(observed);
  // A binding step is a declaration: the draft test states it, it does not compare it.
  step.kind = step.observed.empty() || binds ? Step::Kind::none : Step::Kind::value;
  trace->steps.push_back(std::move(step));
}

bool is_name_list(const std::string& text) {
  if (text.size() < 3 || text.front() != '{' || text.back() != '}') return false;
  bool at_start = true;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    const char c = text[i];
    if (at_start) {
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '_')) return false;
      at_start = false;
    } else if (c == ',') {
      if (i + 1 >= text.size() - 1 || text[i + 1] != ' ') return false;
      ++i;
      at_start = true;
    } else if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) {
      return false;
    }
  }
  return !at_start;
}

void record_api_failure(Trace* trace, std::string code, std::string expected, std::string explanation) {
  Step step;
  step.code = std::move(code);
  step.expected = std::move(expected);
  step.assertion = !step.expected.empty();
  step.explanation = std::move(explanation);
  trace->steps.push_back(std::move(step));
  trace->failed = true;
}

}  // namespace detail

detail::Property Api::property(const ApiOptions& options) const {
  auto data = std::make_shared<detail::ApiData>();
  data->factories = factories_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
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

static Config with_fuel(Config config, const ApiOptions& options) {
  if (options.fuel > 0 && !config.max_length) config.max_length = options.fuel;
  return config;
}

CheckResult Api::check(const Config& config, const ApiOptions& options) const {
  if (ops_.empty()) {
    CheckResult r;
    r.name = name_;
    r.report = "duet: " + name_ + ": error: the API declares no operation\n  nothing was tested\n";
    return r;
  }
  return detail::run_property(property(options), with_fuel(config, options));
}

CheckResult Api::check_bytes(std::span<const std::uint8_t> bytes, const Config& config, const ApiOptions& options) const {
  return detail::run_property(property(options), with_fuel(config, options), bytes);
}

}  // namespace duet
