// A state-machine spec under threads: the model (or, for a relaxed spec, the set of states it
// may be in) as the search core's oracle, the spec's Y-programs (ModelYSteps: drawn from the
// model's states, every interleaving checked against the preconditions), the operations its
// generator draws (for roles), and the parallel property.
// Included by duet/parallel.hpp after the vocabulary it uses (duet/state_machine.hpp's, Result,
// duet/hash.hpp's hash_value); not a public header.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "duet/detail/declarations.hpp"
#include "duet/detail/erased_oracle.hpp"
#include "duet/detail/lin_description.hpp"
#include "duet/detail/rng.hpp"
#include "duet/detail/scenario_args.hpp"
#include "duet/detail/scenario_cpp.hpp"
#include "duet/detail/y_program.hpp"

namespace duet {
namespace detail {

/// The state-machine model as the search core's oracle.
template <class Spec>
struct ModelOracle {
  using State = typename Spec::State;
  using Cmd = typename Spec::Cmd;
  static constexpr bool memo = EqualityComparable<State>;
  const std::vector<Cmd>* cmds;
  const std::vector<Observed>* observed;
  State initial() const { return initial_state<Spec>(); }
  bool apply(State& s, std::size_t i) const {
    const Cmd& c = (*cmds)[i];
    const Result& got = (*observed)[i].result;
    if constexpr (HasPrecondition<Spec>)
      if (!Spec::precondition(c, s)) return false;
    if constexpr (HasExpected<Spec>)
      if (!(Spec::expected(c, s) == got)) return false;
    if constexpr (HasPostcondition<Spec>)
      if (!Spec::postcondition(c, s, got).ok) return false;
    apply_next<Spec>(c, s);
    return true;
  }
  std::uint64_t hash(const State& s) const { return hash_value(s); }
  bool equal(const State& a, const State& b) const {
    if constexpr (memo) return a == b;
    else return false;
  }
};

/// A relaxed spec (next_states) as the search core's oracle: its state is the set of states the
/// model may be in, each call's observed result taking every one of them to the states it
/// allows. Deciding on sets keeps the search exact (an order fits if some choice of states fits
/// it all the way), and memoises on the set: two prefixes that leave the same set are one.
template <class Spec>
struct RelaxedModelOracle {
  using ModelState = typename Spec::State;
  using State = std::vector<ModelState>;
  using Cmd = typename Spec::Cmd;
  static constexpr bool memo = EqualityComparable<ModelState>;
  const std::vector<Cmd>* cmds;
  const std::vector<Observed>* observed;
  const std::vector<Caller>* callers = nullptr;  // each call's thread (null: all the main thread's)
  State initial() const { return {initial_state<Spec>()}; }
  bool apply(State& states, std::size_t i) const {
    const Cmd& c = (*cmds)[i];
    const Result& got = (*observed)[i].result;
    State next;
    for (const ModelState& s : states) {
      if constexpr (HasPrecondition<Spec>)
        if (!Spec::precondition(c, s)) continue;
      for (ModelState& t : next_states_of<Spec>(c, s, got, callers ? (*callers)[i] : Caller{})) {
        if constexpr (memo)
          if (std::find(next.begin(), next.end(), t) != next.end()) continue;
        next.push_back(std::move(t));
      }
    }
    states = std::move(next);
    return !states.empty();
  }
  // Order-independent: a set's hash does not depend on the order its states were reached in.
  std::uint64_t hash(const State& states) const {
    std::uint64_t h = states.size();
    for (const ModelState& s : states) h += mix64(hash_value(s));
    return h;
  }
  bool equal(const State& a, const State& b) const {
    if constexpr (memo) {
      if (a.size() != b.size()) return false;
      for (const ModelState& x : a)
        if (std::find(b.begin(), b.end(), x) == b.end()) return false;
      return true;
    } else {
      return false;
    }
  }
};

/// The oracle of a state-machine spec: relaxed or not.
template <class Spec>
using SpecOracle = std::conditional_t<HasNextStates<Spec>, RelaxedModelOracle<Spec>, ModelOracle<Spec>>;

/// The spec-independent half of a state-machine spec's Y-programs, compiled once in the library
/// (src/frontends/model_parallel.cpp): a trial on the executor, the failing trial's record and
/// verdict line. ModelYSteps<Spec> supplies the calls into the spec.
class ModelYStepsBase : public YSteps {
 public:
  ~ModelYStepsBase() override;  // out of line: a test file compiles none of its members' destruction
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) final;
  std::string violation(Consistency consistency) const final;
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
              const std::string& verdict) const final;
  /// The calls drawn so far, and how the i-th prints ("q.push(3)").
  virtual std::size_t calls() const = 0;
  virtual std::string shown(std::size_t i) const = 0;

 protected:
  /// A fresh candidate, its type erased (the one the trial's calls cast back).
  virtual std::unique_ptr<LinSubject> make_subject() const = 0;
  /// Spec::run of the i-th call on the candidate `subject` (make_subject's object).
  virtual Result call(std::size_t i, void* subject) const = 0;
  virtual const char* subject_maker() const = 0;
  virtual std::string setup() const = 0;
  virtual std::string draft_setup() const = 0;
  /// Spec::show_sut on the candidate `subject`; empty when the spec has none (shows_sut false).
  virtual std::string show_sut(const void* subject) const = 0;
  virtual bool shows_sut() const = 0;
  std::string printed_sut(const LinSubject& subject) const;

  // With Spec::show_state, after a trial no order explains: the closest sequential witness and
  // the model's states along it (Trace::y_witness). With Spec::show_sut: the last trial's
  // candidate as its run left it (ended_ holds it when the run completed; an abandoned one is
  // never freed).
  std::vector<std::size_t> witness_;
  std::vector<std::string> witness_states_;
  const LinSubject* last_made_ = nullptr;
  std::unique_ptr<LinSubject> ended_;
};

/// Makes a spec's Y-program steps (ModelYSteps<Spec>): one function per spec, or per scenario.
using MakeModelYSteps = std::function<std::unique_ptr<ModelYStepsBase>()>;

/// A state-machine spec's Y-programs: the prefix drawn from the initial state, each branch from
/// the state after the prefix, the suffix after the prefix and all branches in order; the
/// model is the oracle.
template <class Spec>
class ModelYSteps final : public ModelYStepsBase {
  using Cmd = typename Spec::Cmd;
  using State = typename Spec::State;

 public:
  /// `given`: a scenario's commands in report order (ModelYSteps::take_call), or null.
  explicit ModelYSteps(std::shared_ptr<const std::vector<Cmd>> given = nullptr)
      : state_(initial_state<Spec>()), given_(std::move(given)) {}

  void begin_part(Part part, std::size_t branch, const std::vector<std::string>* ops) override {
    ops_ = ops;
    if (part == Part::prefix) {
      drawing_ = &state_;
    } else if (part == Part::branch) {
      // States are copied by construction (emplace): a State's assignment would be one more
      // function of the spec's types compiled into the test file.
      if (branch == 0) {
        after_prefix_.emplace(state_);
        prefix_ = cmds_.size();
      }
      branch_state_.emplace(*after_prefix_);
      drawing_ = &*branch_state_;
    } else {
      // The suffix is drawn from the state after the branches run one after another: one of
      // the orders the search may pick. accept() checks its preconditions in every order.
      after_branches_.emplace(*after_prefix_);
      for (std::size_t i = prefix_; i < cmds_.size(); ++i) apply_next<Spec>(cmds_[i], *after_branches_);
      drawing_ = &*after_branches_;
    }
  }

  CaseSteps::Drawn draw_call(Source& src, Trace*, StepVerdict& failure) override {
    std::optional<Cmd> c;
    CaseSteps::Drawn drawn = CaseSteps::Drawn::none;
    // Another role's operation is drawn again here, not counted as a discard: the spec's
    // generator does not know roles, so its draws for a role are not its waste.
    for (int again = 0;; ++again) {
      drawn = draw_command<Spec>(src, *drawing_, std::span(drawing_, 1), c, failure);
      if (!ops_ || drawn != CaseSteps::Drawn::command || op_allowed(ops_, op_name(show_command<Spec>(*c)))) break;
      // An enumeration draws another role's operation no further: that path gives no program.
      if (again == kDrawAttempts || src.enumerated_values() != 0) return CaseSteps::Drawn::rejected;
    }
    if (drawn != CaseSteps::Drawn::command) return drawn;
    apply_next<Spec>(*c, *drawing_);
    cmds_.push_back(std::move(*c));
    return drawn;
  }

  // A scenario's command: the prefix's must satisfy the preconditions in turn (the branches' and
  // the suffix's are checked in every order by accept()).
  StepVerdict take_call(std::size_t i) override {
    const Cmd& c = (*given_)[i];
    if constexpr (HasPrecondition<Spec>) {
      bool ok = true;
      try {
        ok = drawing_ != &state_ || Spec::precondition(c, *drawing_);
      } catch (const EngineSignal&) {
        throw;
      } catch (...) {
        return StepVerdict::error(threw("the spec's `precondition`"));
      }
      if (!ok)
        return StepVerdict::error("the scenario's prefix calls " + show_command<Spec>(c) +
                                  " where the spec's precondition does not allow it");
    }
    apply_next<Spec>(c, *drawing_);
    cmds_.push_back(c);
    return {};
  }

  // Every interleaving of the branches must satisfy every precondition (qcheck-stm's
  // all_interleavings_ok), or a correct candidate could be blamed for the spec's partiality.
  bool accept(const YShape& shape, StepVerdict& failure) override {
    if constexpr (HasPrecondition<Spec>) {
      std::uint64_t budget = 20000;
      std::vector<std::size_t> pos(shape.branches.size(), 0);
      std::vector<std::size_t> start(shape.branches.size());
      for (std::size_t b = 0, at = shape.prefix; b < shape.branches.size(); at += shape.branches[b], ++b) start[b] = at;
      const std::size_t suffix_at = shape.size() - shape.suffix;
      std::function<bool(const State&)> all_ok = [&](const State& s) -> bool {
        if (budget-- == 0) return false;
        bool any = false;
        for (std::size_t b = 0; b < pos.size(); ++b) {
          if (pos[b] == shape.branches[b]) continue;
          any = true;
          const Cmd& c = cmds_[start[b] + pos[b]];
          if (!Spec::precondition(c, s)) return false;
          State t = s;
          apply_next<Spec>(c, t);
          ++pos[b];
          const bool ok = all_ok(t);
          --pos[b];
          if (!ok) return false;
        }
        if (!any) {
          State t = s;
          for (std::size_t k = 0; k < shape.suffix; ++k) {
            if (!Spec::precondition(cmds_[suffix_at + k], t)) return false;
            apply_next<Spec>(cmds_[suffix_at + k], t);
          }
        }
        return true;
      };
      try {
        if (after_prefix_ && !all_ok(*after_prefix_)) return false;
      } catch (const EngineSignal&) {
        throw;
      } catch (...) {
        failure = StepVerdict::error(threw("the spec's `precondition`"));
        return false;
      }
    } else {
      (void)shape;
      (void)failure;
    }
    return true;
  }

  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    SpecOracle<Spec> oracle{&cmds_, &observed};
    std::vector<Caller> callers;
    if constexpr (NextStatesOfCaller<Spec>) {
      callers = callers_of(shape);
      oracle.callers = &callers;
    }
    const bool explained = judge(y_history(shape, observed), oracle, consistency);
    if constexpr (HasShowState<Spec>)
      if (!explained) keep_witness(oracle, judge.order);
    return explained;
  }

  std::size_t calls() const override { return cmds_.size(); }
  std::string shown(std::size_t i) const override { return show_command<Spec>(cmds_[i]); }

  // The commands as values (`Push{3}`), when each has a C++ spelling (scenario_cpp.hpp).
  bool scenario_draft(Trace::ScenarioDraft& draft, std::string& signature, std::vector<std::string>&) const override {
    for (const Cmd& c : cmds_) {
      std::optional<std::string> text = command_cpp(c);
      if (!text) return false;
      draft.calls.push_back(std::move(*text));
    }
    const std::string spec = type_name<Spec>();
    draft.type = "duet::Scenario<" + spec + "::Cmd>";
    draft.check = "duet::check_scenario<" + spec + ">(scenario";
    signature = spec + "/parallel";
    return true;
  }

 private:
  std::unique_ptr<LinSubject> make_subject() const override {
    return std::make_unique<LinSubjectHeld<typename Spec::Sut>>(make_sut<Spec>());
  }
  Result call(std::size_t i, void* subject) const override {
    return Spec::run(cmds_[i], *static_cast<typename Spec::Sut*>(subject));
  }
  const char* subject_maker() const override { return sut_maker<Spec>(); }
  std::string setup() const override { return setup_cpp<Spec>(); }
  std::string draft_setup() const override { return draft_setup_cpp<Spec>(); }
  std::string show_sut(const void* subject) const override {
    if constexpr (HasShowSut<Spec>) return Spec::show_sut(*static_cast<const typename Spec::Sut*>(subject));
    else return (void)subject, std::string();
  }
  bool shows_sut() const override { return HasShowSut<Spec>; }

  // The model's states along the search's longest order, replayed through the oracle (which
  // accepted each of its calls); none when the model's code throws.
  void keep_witness(const SpecOracle<Spec>& oracle, const std::vector<std::size_t>& order) {
    witness_.clear();
    witness_states_.clear();
    auto shown = [](const auto& s) {
      if constexpr (HasNextStates<Spec>) return show_states<Spec>(s);
      else return show_states<Spec>(std::span(&s, 1));
    };
    try {
      auto s = oracle.initial();
      witness_states_.push_back(shown(s));
      for (std::size_t i : order) {
        oracle.apply(s, i);
        witness_states_.push_back(shown(s));
      }
      witness_ = order;
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      witness_states_.clear();
    }
  }

  std::vector<Cmd> cmds_;
  State state_;  // the prefix's, as it is drawn
  std::optional<State> after_prefix_, after_branches_, branch_state_;
  State* drawing_ = &state_;
  std::size_t prefix_ = 0;
  const std::vector<std::string>* ops_ = nullptr;
  std::shared_ptr<const std::vector<Cmd>> given_;
};

template <class Spec>
std::unique_ptr<ModelYStepsBase> make_model_y_steps() {
  return std::make_unique<ModelYSteps<Spec>>();
}

/// The names of the operations a state-machine spec's generator draws, as calls print them,
/// found by random walks from the initial state (a fixed seed: the same names every run). Roles
/// that name an operation not among them are refused before the check runs.
std::vector<std::string> sampled_op_names(const MakeModelYSteps& make, std::size_t draws = 2000);

/// One parallel case of the spec whose steps `make` makes.
CaseOutcome run_model_parallel_case(const MakeModelYSteps& make, const ParallelParams& pp, Source& src, Trace* trace,
                                    const CaseParams& cp);

/// A state-machine spec as its parallel checks need it; the checks themselves are compiled once
/// in the library (src/frontends/model_parallel.cpp).
struct ModelParallelSpec {
  std::string name;    // the spec's type
  std::string domain;  // Spec::domain(), or empty
  MakeModelYSteps make = nullptr;
};

template <class Spec>
ModelParallelSpec model_parallel_spec() {
  // The spec is checked as check_sequential checks it, at compile time only.
  check_state_machine_spec<Spec>();
  return {type_name<Spec>(), spec_domain<Spec>(), &make_model_y_steps<Spec>};
}

/// A state-machine spec's scenario: its program (each command as reports print it) and the
/// spec's steps taking its commands.
struct ModelScenario {
  ModelParallelSpec spec;
  std::shared_ptr<const GivenProgram> given;
};

template <class Spec>
ModelScenario model_scenario(const Scenario<typename Spec::Cmd>& scenario) {
  ModelScenario m{model_parallel_spec<Spec>(), nullptr};
  auto cmds = std::make_shared<const std::vector<typename Spec::Cmd>>(scenario_calls(scenario));
  auto given = std::make_shared<GivenProgram>();
  given->shape = scenario_shape(scenario);
  for (const auto& c : *cmds) given->calls.push_back(show_command<Spec>(c));
  m.given = std::move(given);
  m.spec.make = [cmds]() -> std::unique_ptr<ModelYStepsBase> { return std::make_unique<ModelYSteps<Spec>>(cmds); };
  return m;
}

/// check_scenario over a state-machine spec: the scenario and the settings validated, then its
/// program run as a generated one is (see duet/parallel.hpp).
CheckResult check_model_scenario(const ModelScenario& scenario, const ParallelConfig& pc, const Config& config);

/// check_parallel, check_parallel_bytes and expect_unsafe over a state-machine spec: the shape
/// and the roles validated, then the Y-programs run (see duet/parallel.hpp).
CheckResult check_model_parallel(const ModelParallelSpec& spec, const ParallelConfig& pc, const Config& config);
CheckResult check_model_parallel_bytes(const ModelParallelSpec& spec, std::span<const std::uint8_t> bytes,
                                       const ParallelConfig& pc, const Config& config);
CheckResult expect_model_unsafe(const ModelParallelSpec& spec, const ParallelConfig& pc, const Config& config);
/// The same under the default settings (the test file then builds none of its own).
CheckResult check_model_parallel(const ModelParallelSpec& spec);
CheckResult expect_model_unsafe(const ModelParallelSpec& spec);

}  // namespace detail
}  // namespace duet
