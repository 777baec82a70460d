// A signature-only description (duet::Lin) under threads: the candidate replayed sequentially
// as the search core's oracle (CandidateOracle), the description's Y-programs (LinYSteps), and
// the parallel property, with the oracle or (stress) none.
// Included by duet/parallel.hpp; not a public header.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "duet/detail/lin_description.hpp"
#include "duet/detail/y_program.hpp"

namespace duet {
namespace detail {

/// The candidate as its own oracle (qcheck-lin): the calls placed so far are replayed on a
/// fresh subject, and each call's result there must equal the observed one. Replaying, rather
/// than copying the subject, is what stays true to the candidate: a copy need not behave like
/// the original (a copied vector has a different capacity), nor == mean "behaves the same".
///
/// The subject of the last replay is kept with the calls it has run: the search goes deeper
/// from the state it just reached, so most calls run on it directly, and a replay from scratch
/// (after backtracking) resets it when the spec gives Lin::reset, else makes a fresh one.
template <class T>
struct CandidateOracle {
  static constexpr bool memo = false;
  using State = std::vector<std::size_t>;
  const LinDescription<T>* lin;
  const std::vector<LinCall<T>>* calls;
  const std::vector<Observed>* observed;
  mutable std::unique_ptr<T> kept = nullptr;  // a subject that has run exactly the calls of kept_calls
  mutable State kept_calls = {};
  mutable bool kept_used = false;  // kept has run other calls (a trial's subject, given to reset)

  State initial() const { return {}; }
  static Result run_call(const LinCall<T>& call, T& t) {
    try {
      return call.run(t);
    } catch (...) {
      return Result::current_exception();
    }
  }
  bool apply(State& s, std::size_t i) const {
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

enum class LinMode { oracle, stress };

/// A signature-only description's Y-programs: calls drawn independently of any state; the
/// candidate run sequentially is the oracle (or, for stress, no oracle: undeclared exceptions
/// fail).
template <class T>
class LinYSteps final : public YSteps {
  using Call = LinCall<T>;

 public:
  LinYSteps(const LinDescription<T>& lin, LinMode mode) : lin_(lin), mode_(mode), names_(lin.op_names()) {}
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
  StepVerdict trial(const YShape& shape, Executor& executor, const Noise& noise, std::vector<Observed>& observed) override {
    TrialRunner<T> runner{[this] { return fresh_subject(); }, [this](std::size_t i, T& t) { return calls_[i].run(t); }};
    if (lin_.resets()) runner.recycle = [this](std::unique_ptr<T> t) { spare_ = std::move(t); };
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
    CandidateOracle<T> oracle{&lin_, &calls_, &observed};
    oracle.kept = std::move(spare_);
    oracle.kept_used = true;
    const bool explained = judge(y_history(shape, observed), oracle, consistency);
    if (lin_.resets()) spare_ = std::move(oracle.kept);
    return explained;
  }
  std::string violation(Consistency consistency) const override {
    if (mode_ == LinMode::stress) return why_;
    return "no " + consistency_name(consistency) +
           " order of the calls explains the results (the oracle: the candidate run sequentially)";
  }
  void record(Trace* trace, const YShape& shape, const std::vector<Observed>& observed,
              const std::string& verdict) const override {
    std::vector<std::string> texts;
    for (const Call& c : calls_) texts.push_back(c.text);
    record_y(trace, shape, texts, observed, lin_.setup, verdict);
  }

 private:
  // The previous trial's or search's subject, reset (Lin::reset), or a new one.
  std::unique_ptr<T> fresh_subject() {
    if (spare_ && lin_.reset_subject(*spare_)) return std::move(spare_);
    return lin_.make_subject();
  }

  const LinDescription<T>& lin_;
  LinMode mode_;
  std::vector<Call> calls_;
  std::string why_;
  std::vector<std::string> names_;
  std::vector<std::size_t> among_;  // the current part's operations (empty: all)
  std::unique_ptr<T> spare_;        // with Lin::reset: a used subject, to reset
};

template <class T>
CaseOutcome run_lin_parallel_case(const LinDescription<T>& lin, LinMode mode, const ParallelParams& pp, Source& src,
                                  Trace* trace, const CaseParams& cp) {
  LinYSteps<T> steps(lin, mode);
  return run_y_case(steps, pp, src, trace, cp);
}

template <class T>
Property lin_parallel_property(const Lin<T>& lin, LinMode mode, const ParallelConfig& pc) {
  std::shared_ptr<const LinDescription<T>> description = LinAccess::description(lin);
  Property p;
  p.name = description->name;
  p.spec_id =
      hash32(description->signature() + (mode == LinMode::stress ? "/stress-parallel" : "/parallel") + shape_signature(pc));
  auto pp = parallel_params(pc, p);
  p.run_case = [description, mode, pp](Source& src, const CaseParams& cp, Trace* trace) {
    return run_lin_parallel_case(*description, mode, *pp, src, trace, cp);
  };
  return p;
}

/// Validates the shape, and the roles against the description's operations.
template <class T>
std::string lin_parallel_error(const Lin<T>& lin, const ParallelConfig& pc) {
  std::string why = check_parallel_config(pc);
  if (why.empty()) why = roles_error(pc, LinAccess::description(lin)->op_names());
  return why;
}

}  // namespace detail
}  // namespace duet
