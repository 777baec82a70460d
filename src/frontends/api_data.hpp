// What an Api check's cases share (its abstract types, operations and options), and what its
// sequential steps (api_steps.cpp) and its Y-programs (api_y_steps.cpp) both do with one call:
// draw its arguments among the live values, judge it once both sides ran (api_judge.cpp).
// Private to the front end's sources.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "duet/api.hpp"
#include "duet/parallel.hpp"

namespace duet::detail {

/// The calls of finished cases, released, for the next case to take: a case would otherwise
/// allocate one call per operation it draws. A check's cases may run on several threads at
/// once, and a case inside a case takes calls of its own.
class KeptCalls {
 public:
  using Calls = std::vector<std::unique_ptr<ApiCall>>;  // by operation, each made at its first draw
  Calls take(std::size_t ops) {
    const std::lock_guard<std::mutex> lock(mutex_);
    if (sets_.empty()) return Calls(ops);
    Calls calls = std::move(sets_.back());
    sets_.pop_back();
    return calls;
  }
  void give_back(Calls calls) {
    for (const auto& call : calls)
      if (call) call->release();
    const std::lock_guard<std::mutex> lock(mutex_);
    sets_.push_back(std::move(calls));
  }

 private:
  std::mutex mutex_;
  std::vector<Calls> sets_;
};

struct ApiData {
  std::vector<std::shared_ptr<const HandleStore>> stores;  // by abstract type id: an empty store each
  std::vector<std::string> prefixes;
  std::vector<std::shared_ptr<const OpBase>> ops;
  std::size_t max_handles = 32;
  std::vector<std::function<void(HandleStore&)>> recovers;  // by type id; crash injection when any
  std::uint64_t crash_one_in = 25;
  std::vector<std::function<std::string(const void*)>> shows;  // by type id (Api::state); empty: none
  bool shows_state() const {
    return std::any_of(shows.begin(), shows.end(), [](const auto& f) { return static_cast<bool>(f); });
  }
  std::string parallel_signature;  // what a parallel check's spec id hashes before its shape or scenario
  bool crashes() const {
    return std::any_of(recovers.begin(), recovers.end(), [](const auto& r) { return static_cast<bool>(r); });
  }
  mutable KeptCalls kept_calls;  // after ops: its calls point at them
};

/// An environment with an empty store of each abstract type: where a case starts.
Env fresh_env(const ApiData& d);

// The live values of the types Api::state prints, "a0 = ...; a1 = ...", in the order they were
// made; a printer that throws says so in the value's place.
std::string env_state(const ApiData& d, const Env& env);

// Every world's, "... or ...", as a spec's show_state shows its model's worlds.
std::string worlds_state(const ApiData& d, const PossibleWorlds<Env>& worlds);

/// Two worlds whose reference values are equal (possible worlds merge them).
bool same_references(const Env& a, const Env& b);

/// The live candidate values move from one world to another.
void take_candidates(Env& to, Env& from);

/// The call as a parallel report shows it: "auto a1 = set(a0, 0, 1)" once its result is bound.
std::string shown_call(const ApiCall& call);

/// What the candidate did, as a parallel report shows it: "7", "throws std::out_of_range", "()".
std::string outcome_text(const ApiCall& call);

enum class ArgumentsDrawn { ready, declined, spec_error };

/// Draws the call's arguments in env. Declined when a result would pass the handle limit, when
/// no live handle suits an argument or when a generator discards; a spec error (why in
/// `spec_error`) when the spec's own code (a generator, a where() predicate) throws.
ArgumentsDrawn draw_arguments(ApiCall& call, Source& src, Env& env, std::string& spec_error);

/// A sequential step's verdict once the candidate has run (and the reference, unless it judges).
StepVerdict judge_step(ApiCall& call, Env& env, Trace* trace);

/// judge_kept on env's handles. False, with why, when the reference declines or cannot judge.
bool check_reference(ApiCall& call, Env& env, std::string* why, std::string* expected = nullptr);

/// Runs only the reference on env, for its effect on the arguments (a call a crash
/// interrupted, taken effect): its result is dropped.
void apply_reference(ApiCall& call, Env& env);

/// A duet::BackOff once the draw is over (from the candidate, or from a nondet reference, which
/// judges what the candidate did): too late to decline, an error of the spec.
std::string late_back_off(const ApiCall& call);

/// One sequential case of the API (the case loop over ApiSteps).
CaseOutcome run_api_case(const ApiData& d, Source& src, const CaseParams& params, Trace* trace);
/// One parallel case: a Y-program drawn, or the scenario's `given` calls, run on threads or fibers.
CaseOutcome run_api_parallel_case(const ApiData& d, const ParallelParams& pp, Source& src, Trace* trace,
                                  const CaseParams& cp, const std::vector<Call>* given);
// Why a scenario cannot be an API's program (before any call is bound), or empty: a suffix, an
// operation the API does not declare, a call with the wrong number of arguments.
std::string api_scenario_error(const Scenario<>& scenario, const std::vector<std::shared_ptr<const OpBase>>& ops);
// A scenario's program as check_scenario names it: "op(args)", the arguments as C++.
std::shared_ptr<const GivenProgram> api_given_program(const Scenario<>& scenario);

}  // namespace duet::detail
