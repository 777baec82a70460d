// The Api's Y-programs: a prefix run on both sides, branches run together on the candidate,
// the reference as the search's oracle.
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frontends/api_data.hpp"

namespace duet::detail {
namespace {

// The search's oracle for an API's branches: the reference, from the state after the prefix.
struct ReferenceOracle {
  using State = Env;
  static constexpr bool memo = false;
  const std::vector<std::unique_ptr<ApiCall>>* calls;
  const Env* start;
  State initial() const { return *start; }
  bool apply(State& env, std::size_t i) const { return check_reference(*(*calls)[i], env, nullptr); }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};

// The API's Y-programs: the prefix drawn and run on both sides (it must agree), the branches
// drawn from the handles the prefix made; in each trial the prefix runs again on both sides,
// the branches at once on the candidate, and the reference is the search's oracle. No suffix.
class ApiYSteps final : public YSteps {
 public:
  /// `given`: a scenario's calls in report order (take_call), or null.
  explicit ApiYSteps(const ApiData& d, const std::vector<Call>* given = nullptr)
      : d_(d), gen_(fresh_env(d)), given_(given) {}

  ApiYSteps(const ApiYSteps&) = delete;
  ApiYSteps& operator=(const ApiYSteps&) = delete;

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
    std::unique_ptr<ApiCall> call = d_.ops[k]->new_call();
    switch (draw_arguments(*call, src, gen_, spec_error)) {
      case ArgumentsDrawn::declined: return CaseSteps::Drawn::rejected;
      case ArgumentsDrawn::spec_error: failure = StepVerdict::error(std::move(spec_error)); return CaseSteps::Drawn::failed;
      case ArgumentsDrawn::ready: break;
    }
    return place(std::move(call), trace, failure);
  }

  // A scenario's call: its arguments bound among the live values the prefix made so far (the
  // operation and the arity were checked before the check ran).
  StepVerdict take_call(std::size_t i) override {
    const Call& given = (*given_)[i];
    const auto op = std::find_if(d_.ops.begin(), d_.ops.end(), [&](const auto& o) { return o->name == given.op; });
    std::unique_ptr<ApiCall> call = (*op)->new_call();
    for (std::size_t id : (*op)->result_ids)
      if (gen_.stores[id]->size() >= gen_.max_handles)
        return StepVerdict::error("the scenario makes more live values of a type than ApiOptions::max_handles");
    std::string why;
    try {
      why = call->give_arguments(given.args, gen_);
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      why = threw("the spec's where() precondition");
    }
    if (!why.empty()) return StepVerdict::error("call " + std::to_string(i + 1) + " of the scenario: " + why);
    StepVerdict failure;
    if (place(std::move(call), nullptr, failure) == CaseSteps::Drawn::failed) return failure;
    return {};
  }

  // Each call as duet::call("op", args...), a live value by its name; the draft calls
  // duet_api(), which the user defines. `keys`: the calls as check_scenario names them.
  bool scenario_draft(Trace::ScenarioDraft& draft, std::string& signature, std::vector<std::string>& keys) const override {
    auto add = [&](const ApiCall& c) {
      std::string args;
      for (std::size_t k = 0; k < c.op->arity; ++k) {
        const ArgSlot& slot = c.arguments[k];
        args += (k == 0 ? "" : ", ") + (slot.handle != ArgSlot::none ? show_string(slot.text) : slot.text);
      }
      draft.calls.push_back("duet::call(" + show_string(c.op->name) + (args.empty() ? "" : ", " + args) + ")");
      keys.push_back(c.op->name + "(" + args + ")");
    };
    for (const auto& c : prefix_) add(*c);
    for (const auto& c : calls_) add(*c);
    draft.declarations =
        "#include <duet/api.hpp>\n\n// The duet::Api of the test that found this: define duet_api() to return "
        "it.\nduet::Api duet_api();\n";
    draft.type = "duet::Scenario<>";
    draft.check = "duet_api().check_scenario(scenario";
    signature = d_.parallel_signature;
    return true;
  }

 private:
  // A drawn or given call: a branch's is kept for the trials; the prefix's runs on both sides
  // now, and the program fails if they disagree.
  CaseSteps::Drawn place(std::unique_ptr<ApiCall> call, Trace* trace, StepVerdict& failure) {
    if (part_ == Part::branch) {
      calls_.push_back(std::move(call));
      return CaseSteps::Drawn::command;
    }
    ApiCall& prefix_call = *prefix_.emplace_back(std::move(call));
    prefix_call.run_candidate();
    std::string why;
    if (check_reference(prefix_call, gen_, &why)) return CaseSteps::Drawn::command;
    failure = StepVerdict::fail("in the sequential prefix: " + prefix_call.text + ": " +
                                (why.empty() ? "candidate finds " + outcome_text(prefix_call) : why));
    if (trace) {  // the prefix ran like a sequential scenario: report it as one
      for (std::size_t i = 0; i + 1 < prefix_.size(); ++i)
        record_api_step(trace, shown_call(*prefix_[i]), outcome_text(*prefix_[i]));
      record_api_failure(trace, shown_call(prefix_call), "", failure.message);
    }
    return CaseSteps::Drawn::failed;
  }

 public:
  bool runnable(const YShape&) const override { return !calls_.empty(); }

  // `observed` holds the branch calls only: the prefix is checked on both sides as it runs.
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) override {
    Env env = fresh_env(d_);
    std::string why;
    for (auto& c : prefix_) {
      c->rebind(env);
      c->run_candidate();
      if (!check_reference(*c, env, &why))
        return StepVerdict::fail("in the sequential prefix (a trial): " + c->text + ": " +
                                 (why.empty() ? "candidate finds " + outcome_text(*c) : why));
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
          observed[at + k].invoke = event_time(CallEdge::invoke);
          calls_[at + k]->run_candidate();
          observed[at + k].response = event_time(CallEdge::response);
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
    const bool explained = judge(y_history(branches_only, observed), oracle, consistency);
    if (!explained && d_.shows_state()) keep_witness(oracle, judge.order);
    return explained;
  }

  std::string violation(Consistency consistency) const override {
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the reference implementation)";
  }

  // Results as the API shows them (bindings, handles), from the calls themselves.
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>&, const std::string& verdict) const override {
    std::vector<std::string> texts, results;
    texts.reserve(prefix_.size() + calls_.size());
    results.reserve(texts.capacity());
    for (const auto& c : prefix_) texts.push_back(shown_call(*c));
    for (const auto& c : calls_) texts.push_back(shown_call(*c));
    record_y(trace, shape, texts, std::vector<Observed>(texts.size()), "", verdict);
    for (const auto& c : prefix_) results.push_back(outcome_text(*c));
    for (const auto& c : calls_) results.push_back(outcome_text(*c));
    trace->diagram = y_diagram(shape, texts, results);
    // The witness orders the branch calls, which come after the prefix in the trace's numbering.
    trace->y_witness.clear();
    for (std::size_t i : witness_) trace->y_witness.push_back(prefix_.size() + i);
    trace->y_witness_states = witness_states_;
    trace->y_witness_after_prefix = true;
    trace->y_shown_results = results;
  }

 private:
  // The closest sequential witness with the live values along it: the reference replayed from
  // the values the prefix left, as the search ran it. None when that throws.
  void keep_witness(const ReferenceOracle& oracle, const std::vector<std::size_t>& order) {
    witness_.clear();
    witness_states_.clear();
    try {
      Env env = oracle.initial();
      witness_states_.push_back(env_state(d_, env));
      for (std::size_t i : order) {
        oracle.apply(env, i);
        witness_states_.push_back(env_state(d_, env));
      }
      witness_ = order;
    } catch (...) {
      witness_states_.clear();
    }
  }


  const ApiData& d_;
  Env gen_;  // the environment calls are drawn in (the prefix runs in it)
  Part part_ = Part::prefix;
  std::vector<std::size_t> among_;  // the current part's operations (ParallelConfig::roles; empty: all)
  std::vector<std::unique_ptr<ApiCall>> prefix_, calls_;
  std::optional<Env> after_prefix_;
  std::vector<std::size_t> witness_;  // with Api::state, when no order explained the trial
  std::vector<std::string> witness_states_;
  const std::vector<Call>* given_;  // a scenario's calls, or null
};

}  // namespace

CaseOutcome run_api_parallel_case(const ApiData& d, const ParallelParams& pp, Source& src, Trace* trace,
                                  const CaseParams& cp, const std::vector<Call>* given) {
  ApiYSteps steps(d, given);
  return run_y_case(steps, pp, src, trace, cp, [&] { return std::make_unique<ApiYSteps>(d, given); });
}

std::string api_scenario_error(const Scenario<>& scenario, const std::vector<std::shared_ptr<const OpBase>>& ops) {
  if (!scenario.suffix.empty()) return "the scenario has a suffix, and a duet::Api program has none";
  const std::vector<Call> calls = scenario_calls(scenario);
  for (std::size_t i = 0; i < calls.size(); ++i) {
    const auto op = std::find_if(ops.begin(), ops.end(), [&](const auto& o) { return o->name == calls[i].op; });
    std::string why;
    if (op == ops.end()) {
      std::string names;
      for (const auto& o : ops) names += (names.empty() ? "" : ", ") + o->name;
      why = "the scenario calls `" + calls[i].op + "`, which the API does not declare (its operations: " + names + ")";
    } else {
      why = scenario_arity_error(calls[i].op, calls[i].args.size(), (*op)->arity);
    }
    if (!why.empty()) return "call " + std::to_string(i + 1) + " of the scenario: " + why;
  }
  return {};
}

std::shared_ptr<const GivenProgram> api_given_program(const Scenario<>& scenario) {
  auto program = std::make_shared<GivenProgram>();
  program->shape = scenario_shape(scenario);
  for (const Call& c : scenario_calls(scenario)) {
    std::string text = c.op + "(";
    for (std::size_t k = 0; k < c.args.size(); ++k) text += (k == 0 ? "" : ", ") + scenario_arg_cpp(c.args[k]);
    program->calls.push_back(text + ")");
  }
  return program;
}

}  // namespace duet::detail
