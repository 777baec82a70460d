// The Api's sequential steps for the case loop: a drawn call (DrawnCall) is the loop's value
// between draw and step; the possible worlds after an injected crash.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/case_loop.hpp"
#include "frontends/api_data.hpp"

namespace duet::detail {
namespace {

/// A call drawn for a step: what the draw leaves for the step, held by the case loop between
/// the two (ApiSteps keeps nothing of one draw for the next).
struct DrawnCall {
  ApiCall* call = nullptr;
  bool alone = true;           // drawn in one world: a reference that runs first ran in the draw, and
                               // the call is judged in that world alone (else by every world's reference)
  bool faults_on = false;      // crash injection armed around the call's runs
  bool traces_async = false;   // the schedules of duet::run traced during them
  bool crashed = false;        // a crash struck (the reference's, in the draw, or the candidate's)
  FaultPlan plan;              // armed around both sides' runs
  std::string async_trace;     // what duet::run traced during them
  std::optional<Env> untaken;  // one world, crash injection: that world as the call would leave it
                               // if it crashed before taking effect

  void start(ApiCall& drawn, bool one_world, bool faults, bool traced, Source& src, std::uint64_t crash_one_in) {
    call = &drawn;
    alone = one_world;
    faults_on = faults;
    traces_async = traced;
    crashed = false;
    plan = FaultPlan{};
    if (faults) {
      plan.src = &src;
      plan.one_in = crash_one_in;
    }
    async_trace.clear();
    untaken.reset();
  }
};

/// The fault plan and the async trace sink, armed around a drawn call's runs. A plan that has
/// injected its crash stays disarmed for the rest of the call.
class ArmedCalls {
 public:
  explicit ArmedCalls(DrawnCall& drawn) {
    if (drawn.faults_on && drawn.plan.where.empty()) faults_.emplace(drawn.plan);
    if (drawn.traces_async) traced_.emplace(&drawn.async_trace);
  }

 private:
  std::optional<FaultScope> faults_;
  std::optional<AsyncTraceScope> traced_;
};

/// Drops a sequential call's arguments and results when its step ends.
class ReleasedAtEnd {
 public:
  explicit ReleasedAtEnd(ApiCall& call) : call_(call) {}
  ~ReleasedAtEnd() { call_.release(); }
  ReleasedAtEnd(const ReleasedAtEnd&) = delete;
  ReleasedAtEnd& operator=(const ReleasedAtEnd&) = delete;

 private:
  ApiCall& call_;
};

// The API's steps for the case loop: draw picks an operation and its arguments, step runs the
// candidate and judges the call. An operation whose reference runs first (neither nondet nor
// without a reference) also runs its reference in draw: a reference declines (duet::BackOff)
// only by running, and a declined draw is drawn again, before the loop counts a command.
//
// With crash injection (Api::recover), the reference may be in several possible worlds after
// a crash: worlds_[0] holds the live candidate values (and one world's reference values), the
// others are copies whose candidate values are stale. One world is the common case of many:
// every step draws, runs the candidate once and forks the worlds on a crash alike; only the
// judging differs, the one world's reference having run first (and a copy kept, the world a
// crash leaves without the call), the many worlds' each judging the candidate's outcome.
class ApiSteps final : public CaseSteps {
 public:
  using Command = DrawnCall;

  explicit ApiSteps(const ApiData& d) : d_(d), crashes_on_(d.crashes()), calls_(d.kept_calls.take(d.ops.size())) {}
  ~ApiSteps() override { d_.kept_calls.give_back(std::move(calls_)); }
  ApiSteps(const ApiSteps&) = delete;
  ApiSteps& operator=(const ApiSteps&) = delete;

  StepVerdict start(Trace* trace) {
    trace_ = trace;
    worlds_ = Worlds(fresh_env(d_));
    return {};
  }

  Drawn draw(Source& src, DrawnCall& drawn, StepVerdict& failure) {
    const auto k = static_cast<std::size_t>(src.draw(d_.ops.size() - 1));
    if (!calls_[k]) calls_[k] = d_.ops[k]->new_call();
    const bool faults_on = crashes_on_ && calls_[k]->op->crash_ok;
    const bool alone = worlds_.size() == 1;
    drawn.start(*calls_[k], alone, faults_on, trace_ && (faults_on || !alone), src, d_.crash_one_in);
    const Drawn result = draw_call(src, drawn, failure);
    if (result != Drawn::command) drawn.call->release();
    return result;
  }

  StepVerdict step(DrawnCall& drawn, Trace*) {
    const ReleasedAtEnd released(*drawn.call);
    StepVerdict v = run_and_judge(drawn);
    // With Api::state, a traced step records the live values it left.
    if (trace_ && v.ok() && d_.shows_state() && !trace_->steps.empty())
      trace_->steps.back().state = worlds_state(d_, worlds_);
    return v;
  }

  // Well-formedness of every live value, not only of those this step touched: a candidate
  // that shares structure between values may corrupt one through another. After a crash, the
  // check passes if it passes in one of the possible worlds.
  StepVerdict after_step(Trace* trace) {
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
  using Worlds = PossibleWorlds<Env>;

  static std::optional<IllFormed> check_all(const Env& env) {
    for (const auto& store : env.stores)
      if (auto broken = store->check_all()) return broken;
    return std::nullopt;
  }

  static StepVerdict swallowed(const FaultPlan& plan) {
    return StepVerdict::fail("the candidate caught duet::crash (injected at " + plan.where + " (" + plan.location +
                             ")) and went on: a crash must end the operation (let duet::crash through any catch (...))");
  }

  // The arguments, drawn against the live values; in one world, then the reference when it
  // runs first, under the fault plan (which may crash it too). After a crash, an operation
  // whose judging needs its own outcome (nondet, or without a reference) waits until the
  // worlds agree again: each world's reference judges the candidate's outcome in step.
  Drawn draw_call(Source& src, DrawnCall& drawn, StepVerdict& failure) {
    ApiCall& call = *drawn.call;
    if (!drawn.alone && !call.op->parallel_ok) return Drawn::rejected;
    if (drawn.alone && drawn.faults_on && !keep_untaken(drawn, failure)) return Drawn::failed;
    std::string spec_error;
    switch (draw_arguments(call, src, worlds_[0], spec_error)) {
      case ArgumentsDrawn::declined: return Drawn::rejected;
      case ArgumentsDrawn::spec_error: failure = StepVerdict::error(std::move(spec_error)); return Drawn::failed;
      case ArgumentsDrawn::ready: break;
    }
    announce_call(trace_, call.text);
    if (!drawn.alone || !call.op->shape.reference_first()) return Drawn::command;
    const ArmedCalls armed(drawn);
    try {
      call.run_reference();
    } catch (const BackOff&) {
      return Drawn::rejected;
    } catch (const Unimplemented&) {
      failure = StepVerdict::abandoned(call.op->name + " is not implemented by the candidate");
      return Drawn::failed;
    } catch (const duet::crash&) {
      drawn.crashed = true;
    }
    return Drawn::command;
  }

  // The world a crash would leave without the call: a copy of every live value, taken before
  // the reference runs.
  bool keep_untaken(DrawnCall& drawn, StepVerdict& failure) const {
    try {
      drawn.untaken.emplace(worlds_[0]);
      return true;
    } catch (const std::logic_error&) {
      failure = StepVerdict::error(
          "crash injection in duet::Api keeps a copy of every live value for each world a crash may leave: "
          "every abstract type's reference and candidate types must be copyable");
      return false;
    }
  }

  // The candidate runs once, under the fault plan still; a crash in either side forks the
  // worlds. In one world the call is judged at once, under the plan too (a nondet reference
  // judges what the candidate did); after a crash, by every world's reference.
  StepVerdict run_and_judge(DrawnCall& drawn) {
    ApiCall& call = *drawn.call;
    StepVerdict verdict;
    if (!drawn.crashed) {
      const ArmedCalls armed(drawn);
      try {
        call.run_candidate();
        if (drawn.alone) verdict = judge_step(call, worlds_[0], trace_);
      } catch (const BackOff&) {
        return StepVerdict::error(late_back_off(call));
      } catch (const Unimplemented&) {
        return StepVerdict::abandoned(call.op->name + " is not implemented by the candidate");
      } catch (const duet::crash&) {
        drawn.crashed = true;
      }
    }
    if (drawn.crashed) return crashed(drawn);
    if (!drawn.plan.where.empty()) return swallowed(drawn.plan);
    if (!drawn.alone) verdict = judge_in_worlds(call);
    if (!verdict.ok() && trace_ && !trace_->steps.empty()) trace_->steps.back().async_trace = std::move(drawn.async_trace);
    return verdict;
  }

  // Every world goes on with and without the call. In one world the reference ran first: the
  // world with the call is the live one, and the copy taken before it the world without (first,
  // as failures list them, with the live candidate). Then the step's line in the report, the
  // candidate rebuilt by the spec's recover functions, and equal worlds merged.
  StepVerdict crashed(DrawnCall& drawn) {
    if (drawn.untaken) {
      take_candidates(*drawn.untaken, worlds_[0]);
      worlds_.add_first(std::move(*drawn.untaken));
    } else {
      worlds_.fork([&](Env& taken) { apply_reference(*drawn.call, taken); });
    }
    ++crashes_;
    const std::string where = drawn.plan.where + " (" + drawn.plan.location + ")";
    if (trace_) {
      record_api_step(trace_, drawn.call->text, "");
      trace_->steps.back().crash = where;
      trace_->steps.back().async_trace = std::move(drawn.async_trace);
      trace_->no_draft = "a crash was injected; the replay token reproduces it";
    }
    fire_crash_listeners(*drawn.plan.src);
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

  // The worlds that cannot explain the candidate's outcome are dropped; none left is a failure,
  // listing what the worlds' references found instead.
  StepVerdict judge_in_worlds(ApiCall& call) {
    std::vector<bool> explains;
    std::vector<std::string> allowed;
    std::string why;
    for (std::size_t i = 0; i < worlds_.size(); ++i) {
      std::string world_why, expected;
      explains.push_back(check_reference(call, worlds_[i], &world_why, &expected));
      if (explains.back()) continue;
      if (why.empty()) why = world_why;
      if (!expected.empty() && std::find(allowed.begin(), allowed.end(), expected) == allowed.end())
        allowed.push_back(expected);
    }
    const auto first_kept = static_cast<std::size_t>(std::find(explains.begin(), explains.end(), true) - explains.begin());
    if (first_kept == explains.size()) return unexplained(call, allowed, why);
    // The live candidate values go with the first world that explains them.
    if (first_kept != 0) take_candidates(worlds_[first_kept], worlds_[0]);
    worlds_.keep_at(explains);
    worlds_.merge(same_references);
    if (trace_) record_api_step(trace_, shown_call(call), outcome_text(call));
    return {};
  }

  // No world explains the candidate's outcome: the failure lists what the references found.
  StepVerdict unexplained(const ApiCall& call, const std::vector<std::string>& allowed, const std::string& why) {
    std::string listed;
    for (std::size_t i = 0; i < allowed.size(); ++i)
      listed += (i == 0 ? "" : i + 1 == allowed.size() ? " or " : ", ") + allowed[i];
    const std::string found = outcome_text(call);
    std::string explanation = "candidate finds " + (found.empty() ? std::string("a result no world allows") : found) +
                              "; after the crash" + (crashes_ > 1 ? "es" : "") + " the reference finds " +
                              (listed.empty() ? why : listed) + Worlds::interrupted(crashes_, "call");
    if (trace_) record_api_failure(trace_, shown_call(call), "", explanation);
    return StepVerdict::fail(explanation + " (" + call.text + ")");
  }

  const ApiData& d_;
  const bool crashes_on_;
  std::vector<std::unique_ptr<ApiCall>> calls_;  // by operation, each made at its first draw
  Worlds worlds_;                                // one, except after crashes; [0] holds the live candidate values
  Trace* trace_ = nullptr;
  std::size_t crashes_ = 0;
};

}  // namespace

CaseOutcome run_api_case(const ApiData& d, Source& src, const CaseParams& params, Trace* trace) {
  ApiSteps steps(d);
  return run_case_loop(steps, src, params, trace);
}

}  // namespace duet::detail
