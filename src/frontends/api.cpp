// The reference-vs-candidate front end's scenario loop: the engine sees it as a Property.
#include <cctype>
#include <memory>

#include "duet/api.hpp"
#include "duet/detail/case_loop.hpp"

namespace duet {
namespace detail {
namespace {

struct ApiData {
  std::vector<std::function<std::unique_ptr<HandleStoreBase>()>> factories;
  std::vector<std::string> prefixes;
  std::vector<std::shared_ptr<const OpBase>> ops;
  std::size_t max_handles = 32;
};

// The API's steps for the case loop. Drawing an operation's arguments and running it are
// one step of the operation (its arguments may depend on what earlier ones returned), so
// draw() runs it and step() gives its verdict.
class ApiSteps final : public CaseSteps {
 public:
  explicit ApiSteps(const ApiData& d) : d_(d) {}
  StepVerdict start(Trace* trace) override {
    trace_ = trace;
    env_.prefixes = &d_.prefixes;
    env_.max_handles = d_.max_handles;
    for (const auto& make : d_.factories) env_.stores.push_back(make());
    return {};
  }
  // Chooses an operation that can run here: one whose arguments can be built from the live
  // handles, and which the reference does not decline.
  Drawn draw(Source& src, StepVerdict&) override {
    const OpBase& op = *d_.ops[static_cast<std::size_t>(src.draw(d_.ops.size() - 1))];
    outcome_ = op.step(src, env_, trace_);
    return outcome_.status == StepOutcome::Status::declined ? Drawn::rejected : Drawn::command;
  }
  StepVerdict step(Trace*) override {
    switch (outcome_.status) {
      case StepOutcome::Status::failed: return StepVerdict::fail(std::move(outcome_.message), std::move(outcome_.failing_step));
      case StepOutcome::Status::abandoned: return StepVerdict::abandoned(std::move(outcome_.message));
      default: return {};
    }
  }
  // Well-formedness of every live value, not only of those this step touched: a candidate
  // that shares structure between values may corrupt one through another.
  StepVerdict after_step(Trace* trace) override {
    for (const auto& store : env_.stores)
      if (auto broken = store->check_all()) {
        if (trace) record_failure(trace, nullptr, *broken);
        return StepVerdict::fail(*broken);
      }
    return {};
  }
  StepVerdict assertion_failed(Trace* trace, std::string why) override {
    if (trace) record_failure(trace, nullptr, why);
    return StepVerdict::fail(std::move(why));
  }

 private:
  const ApiData& d_;
  Env env_;
  Trace* trace_ = nullptr;
  StepOutcome outcome_;
};

CaseOutcome run_api_case(const ApiData& d, Source& src, const CaseParams& params, Trace* trace) {
  ApiSteps steps(d);
  return run_case_loop(steps, src, params, trace);
}

// One Y-program over the API: the prefix drawn and run on both sides (it must agree), the
// branches drawn from the handles the prefix made, then trials: prefix again on both sides,
// branches at once on the candidate, the search with the reference as the oracle.
struct ReferenceOracle {
  using State = Env;
  static constexpr bool memo = false;
  const std::vector<std::shared_ptr<ApiCall>>* calls;
  const Env* start;
  State initial() const { return *start; }
  bool apply(State& env, std::size_t i) const { return (*calls)[i]->check_reference(env, nullptr); }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};

Env fresh_env(const ApiData& d) {
  Env env;
  env.prefixes = &d.prefixes;
  env.max_handles = d.max_handles;
  for (const auto& make : d.factories) env.stores.push_back(make());
  return env;
}

// The API's Y-programs: the prefix drawn and run on both sides (it must agree), the branches
// drawn from the handles the prefix made; in each trial the prefix runs again on both sides,
// the branches at once on the candidate, and the reference is the search's oracle. No suffix.
class ApiYSteps final : public YSteps {
 public:
  explicit ApiYSteps(const ApiData& d) : d_(d), gen_(fresh_env(d)) {}

  void begin_part(Part part, std::size_t) override { part_ = part; }

  CaseSteps::Drawn draw_call(Source& src, Trace* trace, StepVerdict& failure) override {
    if (part_ == Part::suffix) return CaseSteps::Drawn::none;
    std::shared_ptr<ApiCall> call = d_.ops[static_cast<std::size_t>(src.draw(d_.ops.size() - 1))]->draw(src, gen_);
    if (!call) return CaseSteps::Drawn::rejected;
    if (part_ == Part::branch) {
      calls_.push_back(std::move(call));
      return CaseSteps::Drawn::command;
    }
    prefix_.push_back(call);
    call->run_candidate();
    std::string why;
    if (call->check_reference(gen_, &why)) return CaseSteps::Drawn::command;
    failure = StepVerdict::fail("in the sequential prefix: " + call->text + ": " +
                                (why.empty() ? "candidate finds " + call->outcome_text() : why));
    if (trace) {  // the prefix ran like a sequential scenario: report it as one
      for (std::size_t i = 0; i + 1 < prefix_.size(); ++i)
        record_api_step(trace, prefix_[i]->shown_call(), prefix_[i]->outcome_text());
      record_api_failure(trace, call->shown_call(), "", failure.message);
    }
    return CaseSteps::Drawn::failed;
  }

  bool runnable(const YShape&) const override { return !calls_.empty(); }

  // `observed` holds the branch calls only: the prefix is checked on both sides as it runs.
  StepVerdict trial(const YShape& shape, Executor& executor, std::vector<Observed>& observed) override {
    Env env = fresh_env(d_);
    std::string why;
    for (auto& c : prefix_) {
      c->rebind(env);
      c->run_candidate();
      if (!c->check_reference(env, &why))
        return StepVerdict::fail("in the sequential prefix (a trial): " + c->text + ": " +
                                 (why.empty() ? "candidate finds " + c->outcome_text() : why));
    }
    after_prefix_ = env;
    for (auto& c : calls_) c->rebind(env);
    observed.assign(calls_.size(), Observed{});
    std::vector<std::function<void()>> branches;
    for (std::size_t b = 0, at = 0; b < shape.branches.size(); at += shape.branches[b], ++b)
      branches.push_back([&, at, len = shape.branches[b]] {
        for (std::size_t k = 0; k < len; ++k) {
          observed[at + k].invoke = event_time();
          calls_[at + k]->run_candidate();
          observed[at + k].response = event_time();
        }
      });
    executor.run(branches);
    return {};
  }

  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    YShape branches_only = shape;
    branches_only.prefix = 0;
    const ReferenceOracle oracle{&calls_, &*after_prefix_};
    return judge(y_history(branches_only, observed), oracle, consistency);
  }

  std::string violation(Consistency consistency) const override {
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the reference implementation)";
  }

  // Results as the API shows them (bindings, handles), from the calls themselves.
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>&, const std::string& verdict) const override {
    std::vector<std::string> texts, results;
    for (auto& c : prefix_) texts.push_back(c->shown_call());
    for (auto& c : calls_) texts.push_back(c->shown_call());
    record_y(trace, shape, texts, std::vector<Observed>(texts.size()), "", verdict);
    for (auto& c : prefix_) results.push_back(c->outcome_text());
    for (auto& c : calls_) results.push_back(c->outcome_text());
    trace->diagram = y_diagram(shape, texts, results);
  }

 private:
  const ApiData& d_;
  Env gen_;  // the environment calls are drawn in (the prefix runs in it)
  Part part_ = Part::prefix;
  std::vector<std::shared_ptr<ApiCall>> prefix_, calls_;
  std::optional<Env> after_prefix_;
};

CaseOutcome run_api_parallel_case(const ApiData& d, const ParallelParams& pp, Source& src, Trace* trace) {
  ApiYSteps steps(d);
  return run_y_case(steps, pp, src, trace);
}

}  // namespace

Env::Env(const Env& o) : prefixes(o.prefixes), next_var(o.next_var), max_handles(o.max_handles) {
  for (const auto& s : o.stores) stores.push_back(s->clone());
}
Env& Env::operator=(const Env& o) {
  if (this != &o) *this = Env(o);
  return *this;
}

StepOutcome step_failed(std::string message) { return {StepOutcome::Status::failed, std::move(message), {}}; }

StepOutcome failed_at(Trace* trace, const std::string& call, std::string expected, std::string explanation,
                      std::string message) {
  StepOutcome out = step_failed(std::move(message));
  Step step = api_failure_step(call, std::move(expected), std::move(explanation));
  if (trace) {
    trace->steps.push_back(std::move(step));
    trace->failed = true;
  } else {
    out.failing_step = std::move(step);
  }
  return out;
}

StepOutcome whole_mismatch(Trace* trace, const std::string& call, const std::string& reference,
                           const std::string& candidate) {
  return failed_at(trace, call, reference, "candidate finds " + candidate,
                   "candidate finds " + candidate + "; the reference finds " + reference + " (" + call + ")");
}

StepOutcome mismatch_failure(Trace* trace, const std::string& call, const Mismatch& m, bool whole_value) {
  const std::string why = "candidate finds " + m.candidate + "; the reference finds " + m.reference;
  if (whole_value) return failed_at(trace, call, m.reference, "candidate finds " + m.candidate, why + " (" + call + ")");
  return failed_at(trace, call, "", why, why + " (" + call + ")");
}

StepOutcome undeclared_throw(Trace* trace, const std::string& call, const Result& exception) {
  const std::string why =
      "candidate throws " + exception_text(exception) + " (declare the result duet::may_throw(...) if it may)";
  return failed_at(trace, call, "", why, why + " (" + call + ")");
}

void record_finished_step(Trace* trace, Env& env, const std::string& call, const std::string& text, SpecKind kind,
                          bool binds) {
  if (!trace) return;
  if (kind == SpecKind::abstract) {
    record_api_step(trace, "auto " + text + " = " + call, "", true);
  } else if (binds) {
    // A pair or tuple of variables only: a structured binding. Anything else: a named
    // result, with what it holds in the comment.
    const bool all_names = (kind == SpecKind::pair || kind == SpecKind::tuple) && is_name_list(text);
    if (all_names) record_api_step(trace, "auto [" + text.substr(1, text.size() - 2) + "] = " + call, "", true);
    else record_api_step(trace, "auto r" + std::to_string(env.next_var++) + " = " + call, text, true);
  } else {
    record_api_step(trace, call, text, false);
  }
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

detail::Property Api::parallel_property(const ParallelConfig& pc, const ApiOptions& options) const {
  detail::Property p = property(options);
  p.spec_id = detail::hash32(std::to_string(p.spec_id) + "/parallel" + detail::shape_signature(pc));
  auto data = std::make_shared<detail::ApiData>();
  data->factories = factories_;
  data->prefixes = prefixes_;
  data->ops = ops_;
  data->max_handles = options.max_handles;
  auto pp = detail::parallel_params(pc, p);
  p.run_case = [data, pp](Source& src, const detail::CaseParams&, detail::Trace* trace) {
    return detail::run_api_parallel_case(*data, *pp, src, trace);
  };
  return p;
}

static std::string parallel_unsupported(const std::vector<std::shared_ptr<const detail::OpBase>>& ops) {
  for (const auto& op : ops)
    if (!op->parallel_ok)
      return "operation " + op->name + " is nondeterministic or has no reference: not supported under threads";
  return {};
}

CheckResult Api::check_parallel(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  std::string why = detail::check_parallel_config(pc);
  if (why.empty()) why = parallel_unsupported(ops_);
  if (ops_.empty()) why = "the API declares no operation";
  if (!why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(parallel_property(pc, options), config);
}

CheckResult Api::expect_unsafe(const ParallelConfig& pc, const Config& config, const ApiOptions& options) const {
  std::string why = detail::check_parallel_config(pc);
  if (why.empty()) why = parallel_unsupported(ops_);
  if (ops_.empty()) why = "the API declares no operation";
  if (!why.empty()) return detail::parallel_config_error(name_, why);
  return detail::run_property(detail::expecting_failure(parallel_property(pc, options)), config);
}

static Config with_fuel(Config config, const ApiOptions& options) {
  if (options.fuel > 0 && !config.max_length) config.max_length = options.fuel;
  return config;
}

CheckResult Api::check(const Config& config, const ApiOptions& options) const {
  if (ops_.empty()) return detail::nothing_tested(name_, "the API declares no operation");
  return detail::run_property(property(options), with_fuel(config, options));
}

CheckResult Api::check_bytes(std::span<const std::uint8_t> bytes, const Config& config, const ApiOptions& options) const {
  return detail::run_property(property(options), with_fuel(config, options), bytes);
}

}  // namespace duet
