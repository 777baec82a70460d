// The signature-only front end (duet::Lin), compiled once for every subject type: the
// description's calls, the sequential stress check (StressSteps) and the parallel runner's
// steps with the candidate as its own oracle (LinYSteps, CandidateOracle). The subject's type
// is erased (LinSubject); the operations Lin<T> bound cast it back.
#include <cstddef>
#include <exception>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "duet/parallel.hpp"
#include "engine/case_loop.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "show/text.hpp"

namespace duet::detail {

LinDescription::LinDescription(std::string name, std::string var, std::string subject_type)
    : name(std::move(name)), var(std::move(var)), subject_type(std::move(subject_type)) {
  setup = this->subject_type + " " + this->var + ";";
}

std::shared_ptr<LinDescription> new_lin_description(std::string name, std::string var, std::string subject_type) {
  return std::make_shared<LinDescription>(std::move(name), std::move(var), std::move(subject_type));
}

void LinDescription::add_op(LinOp op) { ops.push_back(std::move(op)); }

CaseSteps::Drawn LinDescription::draw_call(Source& src, LinCall& call, StepVerdict& failure,
                                           std::span<const std::size_t> among) const {
  using Drawn = CaseSteps::Drawn;
  const std::size_t k = among.empty() ? static_cast<std::size_t>(src.draw(ops.size() - 1))
                                      : among[static_cast<std::size_t>(src.draw(among.size() - 1))];
  try {
    call = ops[k].generate(src);
  } catch (const Discard&) {
    return Drawn::rejected;
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    failure = StepVerdict::error(threw("the spec's argument generator for " + ops[k].name));
    return Drawn::failed;
  }
  call.op = k;
  return Drawn::command;
}

std::string LinDescription::bind_call(const Call& given, LinCall& call) const {
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].name != given.op) continue;
    if (std::string why = ops[k].bind(given.args, call); !why.empty()) return why;
    call.op = k;
    return {};
  }
  std::string names;
  for (const LinOp& op : ops) names += (names.empty() ? "" : ", ") + op.name;
  return "the scenario calls `" + given.op + "`, which " + name + " does not declare (its operations: " + names + ")";
}

std::vector<std::string> LinDescription::op_names() const {
  std::vector<std::string> names;
  for (const LinOp& op : ops) names.push_back(op.name);
  return names;
}

bool LinDescription::reset_subject(LinSubject& t) const {
  if (!reset) return false;
  try {
    reset(t.object);
  } catch (const std::exception& e) {  // named, wherever it surfaces (a trial, the search)
    throw std::runtime_error(std::string("the spec's `reset` threw: ") + e.what());
  } catch (...) {
    throw std::runtime_error("the spec's `reset` threw");
  }
  return true;
}

std::string LinDescription::printed_state(const LinSubject& t) const {
  try {
    return show_state(t.object);
  } catch (const EngineSignal&) {
    throw;
  } catch (...) {
    return "(" + threw("the spec's `state` printer") + ")";
  }
}

const char* LinDescription::maker() const {
  if (reset) return custom_init ? "the spec's `init` or `reset`" : "the subject's default constructor or the spec's `reset`";
  return custom_init ? "the spec's `init`" : "the subject's default constructor";
}

namespace {

// Why `text` cannot name an operation or the subject in a report (empty, or a control character
// such as a newline, which would break the report's lines), or empty.
std::string unprintable_name(const std::string& text) {
  if (text.empty()) return "is empty";
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      std::string why = "\"";  // appended piece by piece: "\"" + ... trips GCC 12's -Wrestrict
      why += excerpt(text);
      why += "\" has a control character (reports print it in every call)";
      return why;
    }
  return {};
}

}  // namespace

std::string LinDescription::spec_error() const {
  if (ops.empty()) return "no operation declared";
  if (!make) return "the subject type is not default-constructible: give duet::Lin::init(make, setup)";
  if (std::string why = unprintable_name(var); !why.empty()) return "the subject's variable name " + why;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const std::string which = "operation " + std::to_string(k + 1);
    if (std::string why = unprintable_name(ops[k].name); !why.empty()) return "the name of " + which + " " + why;
    for (std::size_t j = 0; j < k; ++j)
      if (ops[j].name == ops[k].name)
        return "operations " + std::to_string(j + 1) + " and " + std::to_string(k + 1) + " are both named \"" + ops[k].name +
               "\": give each its own name (reports and replay tokens tell them apart by it)";
  }
  return {};
}

std::string LinDescription::signature() const {
  std::string s = name + "/lin";
  for (const LinOp& op : ops) s += "/" + op.name;
  return s;
}

namespace {

/// Sequential stress for the case loop: calls drawn from the operations, run on one subject;
/// an undeclared exception, an assertion or a broken invariant fails the call.
class StressSteps final : public CaseSteps {
 public:
  using Command = LinCall;
  explicit StressSteps(const LinDescription& d) : d_(d) { no_after_step_checks(); }
  StepVerdict start(Trace* trace) {
    if (trace) trace->setup = d_.setup;
    try {
      subject_ = d_.make();
    } catch (const EngineError& e) {  // Lin::init made nothing (null_subject)
      return StepVerdict::error(e.what());
    } catch (...) {
      return StepVerdict::error(threw(d_.maker()));
    }
    if (trace && d_.show_state) trace->initial_state = d_.printed_state(*subject_);
    return {};
  }
  Drawn draw(Source& src, LinCall& call, StepVerdict& failure) const { return d_.draw_call(src, call, failure); }
  // A traced step of a subject with a printer records the state the call left.
  StepVerdict step(const LinCall& call, Trace* trace) {
    last_ = &call;
    StepVerdict v = judged_step(trace);
    if (trace && d_.show_state && v.ok() && !trace->steps.empty()) trace->steps.back().state = d_.printed_state(*subject_);
    return v;
  }
  StepVerdict after_step(Trace*) { return {}; }  // never called: the invariant is the step's, naming its call
  StepVerdict assertion_failed(Trace* trace, std::string why) override {
    if (ran_) return fail_here(trace, std::move(why));
    if (trace) record_failure(trace, nullptr, why);
    return StepVerdict::fail(std::move(why));
  }

 private:
  StepVerdict judged_step(Trace* trace) {
    announce_call(trace, last_->text);
    try {
      got_ = last_->run(subject_->object);
    } catch (...) {
      got_ = Result::current_exception();
    }
    ran_ = true;
    if (trace) record_step(trace, last_->text, got_);
    if (got_.is_exception() && !d_.ops[last_->op].may_throw) return undeclared_exception(trace);
    if (assertion_raised()) return assertion_failed(trace, assertion_message());
    if (d_.invariant) return check_invariant(trace);
    return {};
  }

  // An exception from an operation not declared may_throw.
  StepVerdict undeclared_exception(Trace* trace) const {
    std::string why = "threw " + got_.exception_type();
    if (!got_.exception_message().empty()) {  // appended piece by piece: "(" + ... trips GCC 12's -Wrestrict
      why += '(';
      why += duet::show(got_.exception_message());
      why += ')';
    }
    why += " (declare the operation .may_throw() if it may)";
    return fail_here(trace, std::move(why));
  }

  // The invariant after the call; the draft test re-runs the check after the call, instead of
  // failing unconditionally.
  StepVerdict check_invariant(Trace* trace) const {
    Verdict v(true);
    try {
      v = d_.invariant(subject_->object);
    } catch (...) {
      v = Verdict::fail(threw("it"));
    }
    if (v.ok) return {};
    Step check;
    check.check = d_.invariant_cpp.empty() ? "duet_invariant(" + d_.var + ")" : d_.invariant_cpp;
    if (d_.invariant_cpp.empty())
      check.check_declaration = "bool duet_invariant(const " + d_.subject_type + "& " + d_.var + ");";
    return fail_here(trace, "the invariant fails" + (v.why.empty() ? std::string() : ": " + v.why), &check);
  }

  // why: what the failing step's comment says; the one-line message adds the call.
  // check: the check that failed after the call, for the draft (Step::check).
  StepVerdict fail_here(Trace* trace, std::string why, const Step* check = nullptr) const {
    std::string message = last_->text + ": " + why;
    auto with_check = [check](Step& step) {
      if (!check) return;
      step.check = check->check;
      step.check_declaration = check->check_declaration;
    };
    if (trace) {
      record_failure(trace, nullptr, std::move(why));
      if (!trace->steps.empty()) with_check(trace->steps.back());
      return StepVerdict::fail(std::move(message));
    }
    Step step = failing_step(last_->text, got_, nullptr, std::move(why));
    with_check(step);
    return StepVerdict::fail(std::move(message), std::move(step));
  }

  const LinDescription& d_;
  std::unique_ptr<LinSubject> subject_;
  const LinCall* last_ = nullptr;  // the call the last step ran (the loop holds it until the next draw)
  Result got_;                     // what it returned
  bool ran_ = false;
};

/// The candidate as its own oracle (qcheck-lin): the calls placed so far are replayed on a
/// fresh subject, and each call's result there must equal the observed one. Replaying, rather
/// than copying the subject, is what stays true to the candidate: a copy need not behave like
/// the original (a copied vector has a different capacity), nor == mean "behaves the same".
///
/// The subject of the last replay is kept with the calls it has run: the search goes deeper
/// from the state it just reached, so most calls run on it directly, and a replay from scratch
/// (after backtracking) resets it when the spec gives Lin::reset, else makes a fresh one.
struct CandidateOracle {
  static constexpr bool memo = false;
  using State = std::vector<std::size_t>;
  const LinDescription* lin;
  const std::vector<LinCall>* calls;
  const std::vector<Observed>* observed;
  mutable std::unique_ptr<LinSubject> kept = nullptr;  // a subject that has run exactly the calls of kept_calls
  mutable State kept_calls = {};
  mutable bool kept_used = false;  // kept has run other calls (a trial's subject, given to reset)

  // The subject's code runs as the subject's (fiber::SubjectsCode) where the search runs as
  // duet's own, in the oracle's own fiber run (TrialDriver::run_alone): its clock reads and
  // locks are the search's budget and bookkeeping, not steps of the run.
  ~CandidateOracle() {
    const fiber::SubjectsCode subject;
    kept.reset();
  }
  CandidateOracle(const LinDescription* l, const std::vector<LinCall>* c, const std::vector<Observed>* o)
      : lin(l), calls(c), observed(o) {}
  CandidateOracle(const CandidateOracle&) = delete;
  CandidateOracle& operator=(const CandidateOracle&) = delete;

  State initial() const { return {}; }
  static Result run_call(const LinCall& call, LinSubject& t) {
    try {
      return call.run(t.object);
    } catch (...) {
      return Result::current_exception();
    }
  }
  bool apply(State& s, std::size_t i) const {
    const fiber::SubjectsCode subject;
    if (!kept || kept_used || kept_calls != s) {
      if (!kept || !lin->reset_subject(*kept)) kept = lin->make_subject();
      kept_used = false;
      kept_calls.clear();
      for (std::size_t k : s) {
        run_call((*calls)[k], *kept);
        kept_calls.push_back(k);
      }
    }
    kept_calls.push_back(i);
    if (!(run_call((*calls)[i], *kept) == (*observed)[i].result)) return false;
    s.push_back(i);
    return true;
  }
  std::uint64_t hash(const State&) const { return 0; }
  bool equal(const State&, const State&) const { return false; }
};


/// A signature-only description's Y-programs: calls drawn independently of any state; the
/// candidate run sequentially is the oracle (or, for stress, no oracle: undeclared exceptions
/// fail).
class LinYSteps final : public YSteps {
  using Call = LinCall;

 public:
  /// `given`: a scenario's calls, bound, in report order (take_call), or null.
  LinYSteps(const LinDescription& lin, LinMode mode, const std::vector<LinCall>* given = nullptr)
      : lin_(lin), mode_(mode), names_(lin.op_names()), given_(given) {}
  void begin_part(Part, std::size_t, const std::vector<std::string>* ops) override {
    among_.clear();
    if (!ops) return;
    for (std::size_t k = 0; k < names_.size(); ++k)
      if (op_allowed(ops, names_[k])) among_.push_back(k);
  }
  CaseSteps::Drawn draw_call(Source& src, Trace*, StepVerdict& failure) override {
    Call call;
    const CaseSteps::Drawn drawn = lin_.draw_call(src, call, failure, among_);
    if (drawn == CaseSteps::Drawn::command) calls_.push_back(std::move(call));
    return drawn;
  }
  StepVerdict take_call(std::size_t i) override {
    calls_.push_back((*given_)[i]);
    return {};
  }
  // With Lin::state, the trial's subject stays as the run left it (abandoned, or kept in ended_)
  // until the next trial, for the report to print.
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) override {
    last_made_ = nullptr;
    TrialRunner<LinSubject> runner{[this] {
                                     std::unique_ptr<LinSubject> t = fresh_subject();
                                     last_made_ = t.get();
                                     return t;
                                   },
                                   [this](std::size_t i, LinSubject& t) { return calls_[i].run(t.object); }};
    if (lin_.show_state) runner.recycle = [this](std::unique_ptr<LinSubject> t) { ended_ = std::move(t); };
    else if (lin_.resets()) runner.recycle = [this](std::unique_ptr<LinSubject> t) { spare_ = std::move(t); };
    runner.destroyed = [this] { last_made_ = nullptr; };  // its threads were still running
    return run_trial_verdict(runner, shape, executor, noise, observed, lin_.maker());
  }
  bool explained(const YShape& shape, const std::vector<Observed>& observed, TrialJudge& judge,
                 Consistency consistency) override {
    if (mode_ == LinMode::stress) {
      for (std::size_t i = 0; i < observed.size(); ++i)
        if (observed[i].result.is_exception() && !lin_.op_may_throw(calls_[i].op)) {
          why_ = calls_[i].text + " threw " + observed[i].result.exception_type() + " (declare it .may_throw() if it may)";
          return false;
        }
      return true;
    }
    // With Lin::reset, one subject serves the trials and the searches in turn.
    CandidateOracle oracle{&lin_, &calls_, &observed};
    oracle.kept = std::move(spare_);
    oracle.kept_used = true;
    const bool explained = judge(y_history(shape, observed), oracle, consistency);
    // A subject whose threads still run (it ran on this thread, outside any fiber run) is not
    // kept for a fiber trial: it is destroyed here, which joins them.
    if (lin_.resets() && !fiber::outside_threads_alive()) spare_ = std::move(oracle.kept);
    if (!explained && lin_.show_state) keep_witness(judge.order);
    return explained;
  }
  // The oracle is the candidate: where the trials run on fibers and the subject starts threads,
  // its replays run on fibers too (TrialDriver::run_alone), and a kept subject whose threads
  // still run there is destroyed there, which joins them.
  bool oracle_runs_candidate() const override { return mode_ == LinMode::oracle; }
  void oracle_done(bool keep) override {
    const fiber::SubjectsCode subject;
    if (!keep) spare_.reset();
  }
  std::string violation(Consistency consistency) const override {
    if (mode_ == LinMode::stress) return why_;
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the candidate run sequentially)";
  }
  // Each call as duet::call("op", args...), from its text "var.op(args)", when the operation's
  // arguments are literals; the draft calls duet_lin(), which the user defines.
  bool scenario_draft(Trace::ScenarioDraft& draft, std::string& signature, std::vector<std::string>&) const override {
    if (mode_ != LinMode::oracle) return false;
    for (const Call& c : calls_) {
      const LinOp& op = lin_.ops[c.op];
      if (!op.literal_args) return false;
      const std::size_t open = lin_.var.size() + 1 + op.name.size();
      const std::string args = c.text.substr(open + 1, c.text.size() - open - 2);
      draft.calls.push_back("duet::call(" + show_string(op.name) + (args.empty() ? "" : ", " + args) + ")");
    }
    draft.declarations = "// The duet::Lin description of the test that found this: define duet_lin() to return it.\n"
                         "duet::Lin<" +
                         lin_.subject_type + "> duet_lin();\n";
    draft.type = "duet::Scenario<>";
    draft.check = "duet::check_scenario(duet_lin(), scenario";
    signature = lin_.signature() + "/parallel";
    return true;
  }
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
              const std::string& verdict) const override {
    std::vector<std::string> texts;
    for (const Call& c : calls_) texts.push_back(c.text);
    record_y(trace, shape, texts, observed, lin_.setup, verdict);
    if (!trace || !lin_.show_state) return;
    trace->y_witness = witness_;
    trace->y_witness_states = witness_states_;
    if (last_made_) trace->y_subject_state = lin_.printed_state(*last_made_);
  }

 private:
  // The closest sequential witness (the search's longest order) with the subject's state along
  // it: its calls replayed on a fresh subject, as the oracle ran them. None when that throws.
  void keep_witness(const std::vector<std::size_t>& order) {
    witness_.clear();
    witness_states_.clear();
    const fiber::SubjectsCode subject;
    try {
      const std::unique_ptr<LinSubject> t = lin_.make_subject();
      witness_states_.push_back(lin_.printed_state(*t));
      for (std::size_t i : order) {
        CandidateOracle::run_call(calls_[i], *t);
        witness_states_.push_back(lin_.printed_state(*t));
      }
      witness_ = order;
    } catch (const EngineSignal&) {
      throw;
    } catch (...) {
      witness_states_.clear();
    }
  }

  // The previous trial's or search's subject, reset (Lin::reset), or a new one.
  std::unique_ptr<LinSubject> fresh_subject() {
    if (!spare_ && ended_ && lin_.resets()) spare_ = std::move(ended_);
    if (spare_ && lin_.reset_subject(*spare_)) return std::move(spare_);
    return lin_.make_subject();
  }

  const LinDescription& lin_;
  LinMode mode_;
  std::vector<Call> calls_;
  std::string why_;
  std::vector<std::string> names_;
  std::vector<std::size_t> among_;     // the current part's operations (empty: all)
  std::unique_ptr<LinSubject> spare_;  // with Lin::reset: a used subject, to reset
  // With Lin::state: the last trial's subject as its run left it (ended_ holds it when the run
  // completed; an abandoned one is never freed), the witness and the states along it.
  const LinSubject* last_made_ = nullptr;
  std::unique_ptr<LinSubject> ended_;
  std::vector<std::size_t> witness_;
  std::vector<std::string> witness_states_;
  const std::vector<LinCall>* given_;  // a scenario's calls, or null
};

// A scenario's calls bound to the description's operations, and its program as reports print it.
struct LinScenario {
  std::vector<LinCall> calls;
  std::shared_ptr<const GivenProgram> program;
};

}  // namespace

CheckResult check_lin_stress(std::shared_ptr<const LinDescription> description, const Config& config) {
  if (std::string why = description->spec_error(); !why.empty()) return nothing_tested(description->name, why);
  Property p;
  p.name = description->name;
  p.spec_id = hash32(description->signature());
  p.run_case = [description = std::move(description)](Source& src, const CaseParams& params, Trace* trace) {
    StressSteps steps(*description);
    return run_case_loop(steps, src, params, trace);
  };
  return run_property(p, config);
}

namespace {
Property lin_property(std::shared_ptr<const LinDescription> description, LinMode mode, const ParallelConfig& pc,
                      const std::shared_ptr<const LinScenario>& given) {
  Property p;
  offer_fiber_twin(
      p, pc, [description, mode, given](const ParallelConfig& on) { return lin_property(description, mode, on, given); });
  p.name = description->name;
  p.spec_id = hash32(description->signature() + (mode == LinMode::stress ? "/stress-parallel" : "/parallel") +
                     (given ? scenario_signature(pc, *given->program) : shape_signature(pc)));
  auto pp = parallel_params(pc, p, given ? given->program : nullptr);
  p.run_case = [description = std::move(description), mode, pp, given](Source& src, const CaseParams& cp, Trace* trace) {
    LinYSteps steps(*description, mode, given ? &given->calls : nullptr);
    return run_y_case(steps, *pp, src, trace, cp,
                      [&] { return std::make_unique<LinYSteps>(*description, mode, given ? &given->calls : nullptr); });
  };
  return p;
}

// The scenario's calls bound in report order; why one cannot be (which call, and why), or empty.
std::string bind_scenario(const LinDescription& description, const Scenario<>& scenario, LinScenario& out) {
  auto program = std::make_shared<GivenProgram>();
  program->shape = scenario_shape(scenario);
  for (const Call& given : scenario_calls(scenario)) {
    LinCall call;
    if (std::string why = description.bind_call(given, call); !why.empty())
      return "call " + std::to_string(out.calls.size() + 1) + " of the scenario: " + why;
    program->calls.push_back(call.text);
    out.calls.push_back(std::move(call));
  }
  out.program = std::move(program);
  return {};
}
}  // namespace

Property lin_parallel_property(std::shared_ptr<const LinDescription> description, LinMode mode, const ParallelConfig& pc) {
  return lin_property(std::move(description), mode, pc, nullptr);
}

CheckResult check_lin_parallel(std::shared_ptr<const LinDescription> description, LinCheck check, const ParallelConfig& pc,
                               const Config& config) {
  if (std::string why = lin_parallel_error(*description, pc); !why.empty()) return nothing_tested(description->name, why);
  const LinMode mode = check == LinCheck::stress ? LinMode::stress : LinMode::oracle;
  if (check != LinCheck::unsafe) return run_property(lin_parallel_property(std::move(description), mode, pc), config);
  return run_property(expecting_failure(lin_parallel_property(std::move(description), mode, unsafe_config(pc))), config);
}

CheckResult check_lin_parallel(std::shared_ptr<const LinDescription> description, LinCheck check) {
  return check_lin_parallel(std::move(description), check, {}, {});
}

CheckResult check_lin_scenario(std::shared_ptr<const LinDescription> description, const Scenario<>& scenario) {
  return check_lin_scenario(std::move(description), scenario, {}, {});
}

CheckResult check_lin_scenario(std::shared_ptr<const LinDescription> description, const Scenario<>& scenario,
                               const ParallelConfig& pc, const Config& config) {
  if (std::string why = lin_parallel_error(*description, pc); !why.empty()) return nothing_tested(description->name, why);
  auto given = std::make_shared<LinScenario>();
  std::string why = bind_scenario(*description, scenario, *given);
  if (why.empty()) why = given_program_error(pc, *given->program);
  if (!why.empty()) return nothing_tested(description->name, why);
  return run_property(lin_property(std::move(description), LinMode::oracle, pc, std::move(given)), config);
}

std::string lin_parallel_error(const LinDescription& description, const ParallelConfig& pc) {
  if (std::string why = description.spec_error(); !why.empty()) return why;
  std::string why = check_parallel_config(pc);
  if (why.empty()) why = op_names_error(pc, description.op_names());
  return why.empty() ? why : "bad ParallelConfig: " + why;
}

}  // namespace duet::detail
