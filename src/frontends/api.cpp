// The reference-vs-candidate front end's scenario loop: the engine sees it as a Property.
#include <algorithm>
#include <cctype>
#include <stdexcept>
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
  std::vector<std::function<void(HandleStoreBase&)>> recovers;  // by type id; crash injection when any
  std::uint64_t crash_one_in = 25;
  bool crashes() const {
    return std::any_of(recovers.begin(), recovers.end(), [](const auto& r) { return static_cast<bool>(r); });
  }
};

Env fresh_env(const ApiData& d) {
  Env env;
  env.prefixes = &d.prefixes;
  env.max_handles = d.max_handles;
  for (const auto& make : d.factories) env.stores.push_back(make());
  return env;
}

bool same_references(const Env& a, const Env& b) {
  for (std::size_t i = 0; i < a.stores.size(); ++i)
    if (!a.stores[i]->same_references(*b.stores[i])) return false;
  return true;
}

void take_candidates(Env& to, Env& from) {
  for (std::size_t i = 0; i < to.stores.size(); ++i) to.stores[i]->take_candidates(*from.stores[i]);
}

// The API's steps for the case loop. Drawing an operation's arguments and running it are
// one step of the operation (its arguments may depend on what earlier ones returned), so
// draw() runs it and step() gives its verdict.
//
// With crash injection (Api::recover), the reference may be in several possible worlds after
// a crash: worlds_[0] holds the live candidate values (and one world's reference values), the
// others are copies whose candidate values are stale. Until a crash, every step runs as
// without crashes, on a copy taken first (the world where a crash leaves the call without
// effect); after one, the candidate runs once and each world's reference judges its result.
class ApiSteps final : public CaseSteps {
 public:
  explicit ApiSteps(const ApiData& d) : d_(d), crashes_on_(d.crashes()) {}
  StepVerdict start(Trace* trace) override {
    trace_ = trace;
    worlds_ = Worlds(fresh_env(d_));
    return {};
  }
  // Chooses an operation that can run here: one whose arguments can be built from the live
  // handles, and which the reference does not decline.
  Drawn draw(Source& src, StepVerdict& failure) override {
    const OpBase& op = *d_.ops[static_cast<std::size_t>(src.draw(d_.ops.size() - 1))];
    verdict_ = {};
    if (worlds_.size() > 1) return step_in_worlds(op, src, failure);
    const bool faults_on = crashes_on_ && op.crash_ok;
    std::optional<Env> untaken;
    if (faults_on) {
      try {
        untaken.emplace(worlds_[0]);
      } catch (const std::logic_error&) {
        verdict_ = StepVerdict::error(
            "crash injection in duet::Api keeps a copy of every live value for each world a crash may leave: "
            "every abstract type's reference and candidate types must be copyable");
        return Drawn::command;
      }
    }
    FaultPlan plan;
    std::string async_trace;
    {
      std::optional<FaultScope> faults;
      std::optional<AsyncTraceScope> traced;
      if (faults_on) {
        plan.src = &src;
        plan.one_in = d_.crash_one_in;
        faults.emplace(plan);
        if (trace_) traced.emplace(&async_trace);
      }
      outcome_ = op.step(src, worlds_[0], trace_);
    }
    if (outcome_.status == StepOutcome::Status::declined) return Drawn::rejected;
    if (outcome_.status == StepOutcome::Status::crashed) {
      // worlds_[0]'s reference ran before the candidate crashed: the call took effect there.
      // The world without it comes first (as failures list them), with the live candidate.
      take_candidates(*untaken, worlds_[0]);
      worlds_.add_first(std::move(*untaken));
      verdict_ = after_crash(src, outcome_.message, plan, std::move(async_trace));
      return Drawn::command;
    }
    if (!plan.where.empty()) verdict_ = swallowed(plan);
    else if (outcome_.status != StepOutcome::Status::done && trace_ && !trace_->steps.empty())
      trace_->steps.back().async_trace = std::move(async_trace);
    return Drawn::command;
  }
  StepVerdict step(Trace*) override {
    if (!verdict_.ok()) return std::move(verdict_);
    switch (outcome_.status) {
      case StepOutcome::Status::failed:
        return StepVerdict::fail(std::move(outcome_.message), std::move(outcome_.failing_step));
      case StepOutcome::Status::abandoned: return StepVerdict::abandoned(std::move(outcome_.message));
      case StepOutcome::Status::spec_error: return StepVerdict::error(std::move(outcome_.message));
      default: return {};
    }
  }
  // Well-formedness of every live value, not only of those this step touched: a candidate
  // that shares structure between values may corrupt one through another. After a crash, the
  // check passes if it passes in one of the possible worlds.
  StepVerdict after_step(Trace* trace) override {
    std::optional<IllFormed> broken = check_all(worlds_[0]);
    for (std::size_t w = 1; broken && w < worlds_.size(); ++w) {
      take_candidates(worlds_[w], worlds_[0]);
      if (!check_all(worlds_[w])) broken.reset();
      take_candidates(worlds_[0], worlds_[w]);
    }
    if (broken) {
      if (trace) {
        record_failure(trace, nullptr, broken->message);
        // The draft test re-runs the check on that value, through a function the user defines
        // (duet holds the check as a lambda, not as C++ it can print).
        if (!trace->steps.empty()) {
          Step& step = trace->steps.back();
          step.check = "duet_well_formed(" + broken->var + ")";
          step.check_declaration = "bool duet_well_formed(const " + broken->type + "& value);";
        }
      }
      return StepVerdict::fail(broken->message);
    }
    return {};
  }
  StepVerdict assertion_failed(Trace* trace, std::string why) override {
    if (trace) record_failure(trace, nullptr, why);
    return StepVerdict::fail(std::move(why));
  }

 private:
  static std::optional<IllFormed> check_all(const Env& env) {
    for (const auto& store : env.stores)
      if (auto broken = store->check_all()) return broken;
    return std::nullopt;
  }

  static StepVerdict swallowed(const FaultPlan& plan) {
    return StepVerdict::fail("the candidate caught duet::crash (injected at " + plan.where + " (" + plan.location +
                             ")) and went on: a crash must end the operation (let duet::crash through any catch (...))");
  }

  // After a crash: the step's line in the report, the candidate rebuilt by the spec's recover
  // functions, and equal worlds merged (worlds_ holds every world the call may have left).
  StepVerdict after_crash(Source& src, const std::string& call, const FaultPlan& plan, std::string async_trace) {
    ++crashes_;
    const std::string where = plan.where + " (" + plan.location + ")";
    if (trace_) {
      record_api_step(trace_, call, "");
      trace_->steps.back().crash = where;
      trace_->steps.back().async_trace = std::move(async_trace);
      trace_->no_draft = "a crash was injected; the replay token reproduces it";
    }
    fire_crash_listeners(src);
    for (std::size_t id = 0; id < d_.recovers.size(); ++id) {
      if (!d_.recovers[id]) continue;
      try {
        d_.recovers[id](*worlds_[0].stores[id]);
      } catch (...) {
        const std::string why = threw("the spec's recover function after the crash at " + where);
        if (trace_) record_failure(trace_, nullptr, why);
        return StepVerdict::fail(why);
      }
    }
    worlds_.merge(same_references);  // worlds_[0], with the live candidate, always stays
    if (worlds_.over_limit()) return StepVerdict::error(worlds_.limit_message("give the reference types an operator=="));
    return {};
  }

  // A step after a crash: the candidate runs once, then every world's reference judges its
  // outcome; the worlds that cannot explain it are dropped, and none left is a failure.
  Drawn step_in_worlds(const OpBase& op, Source& src, StepVerdict& failure) {
    // Judging a kept outcome needs a reference that does not depend on it: nondeterministic
    // operations and those without a reference wait until the worlds agree again.
    if (!op.parallel_ok) return Drawn::rejected;
    std::string spec_error;
    std::shared_ptr<ApiCall> call = op.draw(src, worlds_[0], spec_error);
    if (!spec_error.empty()) {
      failure = StepVerdict::error(std::move(spec_error));
      return Drawn::failed;
    }
    if (!call) return Drawn::rejected;
    FaultPlan plan;
    std::string async_trace;
    bool crashed = false;
    {
      std::optional<FaultScope> faults;
      if (op.crash_ok) {
        plan.src = &src;
        plan.one_in = d_.crash_one_in;
        faults.emplace(plan);
      }
      const AsyncTraceScope traced(trace_ ? &async_trace : nullptr);
      try {
        call->run_candidate();
      } catch (const duet::crash&) {
        crashed = true;
      } catch (const Unimplemented&) {
        outcome_ = {StepOutcome::Status::abandoned, op.name + " is not implemented by the candidate", {}};
        return Drawn::command;
      }
    }
    if (crashed) {
      worlds_.fork([&](Env& taken) { call->apply_reference(taken); });
      verdict_ = after_crash(src, call->text, plan, std::move(async_trace));
      return Drawn::command;
    }
    if (!plan.where.empty()) {
      verdict_ = swallowed(plan);
      return Drawn::command;
    }
    std::vector<bool> explains;
    std::vector<std::string> allowed;
    std::string why;
    for (std::size_t i = 0; i < worlds_.size(); ++i) {
      std::string w_why, expected;
      explains.push_back(call->check_reference(worlds_[i], &w_why, &expected));
      if (explains.back()) continue;
      if (why.empty()) why = w_why;
      if (!expected.empty() && std::find(allowed.begin(), allowed.end(), expected) == allowed.end())
        allowed.push_back(expected);
    }
    const std::size_t first_kept =
        static_cast<std::size_t>(std::find(explains.begin(), explains.end(), true) - explains.begin());
    if (first_kept == explains.size()) {
      std::string listed;
      for (std::size_t i = 0; i < allowed.size(); ++i)
        listed += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
      const std::string found = call->outcome_text();
      std::string explanation = "candidate finds " + (found.empty() ? std::string("a result no world allows") : found) +
                                "; after the crash" + (crashes_ > 1 ? "es" : "") + " the reference finds " +
                                (listed.empty() ? why : listed) + Worlds::interrupted(crashes_, "call");
      if (trace_) {
        record_api_failure(trace_, call->shown_call(), "", explanation);
        trace_->steps.back().async_trace = std::move(async_trace);
      }
      verdict_ = StepVerdict::fail(explanation + " (" + call->text + ")");
      return Drawn::command;
    }
    // The live candidate values go with the first world that explains them.
    if (first_kept != 0) take_candidates(worlds_[first_kept], worlds_[0]);
    worlds_.keep_at(explains);
    worlds_.merge(same_references);
    if (trace_) record_api_step(trace_, call->shown_call(), call->outcome_text());
    outcome_ = {};
    return Drawn::command;
  }

  using Worlds = PossibleWorlds<Env>;
  const ApiData& d_;
  const bool crashes_on_;
  Worlds worlds_;  // one, except after crashes; [0] holds the live candidate values
  Trace* trace_ = nullptr;
  StepOutcome outcome_;
  StepVerdict verdict_;  // a verdict decided while drawing (a crash, a swallowed crash)
  std::size_t crashes_ = 0;
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

// The API's Y-programs: the prefix drawn and run on both sides (it must agree), the branches
// drawn from the handles the prefix made; in each trial the prefix runs again on both sides,
// the branches at once on the candidate, and the reference is the search's oracle. No suffix.
class ApiYSteps final : public YSteps {
 public:
  explicit ApiYSteps(const ApiData& d) : d_(d), gen_(fresh_env(d)) {}

  void begin_part(Part part, std::size_t, const std::vector<std::string>* ops) override {
    part_ = part;
    among_.clear();
    if (!ops) return;
    for (std::size_t k = 0; k < d_.ops.size(); ++k)
      if (op_allowed(ops, d_.ops[k]->name)) among_.push_back(k);
  }

  CaseSteps::Drawn draw_call(Source& src, Trace* trace, StepVerdict& failure) override {
    if (part_ == Part::suffix) return CaseSteps::Drawn::none;
    std::string spec_error;
    const std::size_t k = among_.empty() ? static_cast<std::size_t>(src.draw(d_.ops.size() - 1))
                                         : among_[static_cast<std::size_t>(src.draw(among_.size() - 1))];
    std::shared_ptr<ApiCall> call = d_.ops[k]->draw(src, gen_, spec_error);
    if (!spec_error.empty()) {
      failure = StepVerdict::error(std::move(spec_error));
      return CaseSteps::Drawn::failed;
    }
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
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) override {
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
          noise.before_call(at + k);
          observed[at + k].cpu = current_cpu();
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
  std::vector<std::size_t> among_;  // the current part's operations (ParallelConfig::roles; empty: all)
  std::vector<std::shared_ptr<ApiCall>> prefix_, calls_;
  std::optional<Env> after_prefix_;
};

CaseOutcome run_api_parallel_case(const ApiData& d, const ParallelParams& pp, Source& src, Trace* trace,
                                  const CaseParams& cp) {
  ApiYSteps steps(d);
  return run_y_case(steps, pp, src, trace, cp);
}

}  // namespace

std::string Env::fresh(std::size_t type_id) { return (*prefixes)[type_id] + std::to_string(next_var++); }

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
  data->recovers = recovers_;
  data->crash_one_in = options.crash_one_in;
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
  p.run_case = [data, pp](Source& src, const detail::CaseParams& cp, detail::Trace* trace) {
    return detail::run_api_parallel_case(*data, *pp, src, trace, cp);
  };
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
    for (const auto& op : ops) names.push_back(op->name);
    why = detail::roles_error(pc, names);
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
