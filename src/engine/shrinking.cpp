#include "engine/shrinking.hpp"

#include <algorithm>

#include "engine/failure_report.hpp"
#include "report/token.hpp"

namespace duet::detail {
namespace {

CheckResult::ShrinkEnd shrink_end(ShrinkStop stop) {
  switch (stop) {
    case ShrinkStop::fixed_point: return CheckResult::ShrinkEnd::fixed_point;
    case ShrinkStop::step_budget: return CheckResult::ShrinkEnd::step_budget;
    case ShrinkStop::time_budget: break;
  }
  return CheckResult::ShrinkEnd::time_budget;
}

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.0, s)));
}

// What is left of the shrink time once the failure has come back.
ShrinkBudget shrink_budget(const Settings& settings, double spent) {
  ShrinkBudget budget;
  budget.max_tries = settings.shrink_steps;
  budget.max_time = seconds(settings.shrink_time - spent);
  return budget;
}

// How long a failure that depends on thread timing is replayed before it is called one that
// does not come back: twice what the search took to meet it (at least a second, scaled), within
// the shrink time. A fixed number of replays gave up on failures the search had met in a second.
Clock::time_point confirmation_deadline(const Settings& settings, double search_seconds) {
  const double wanted = std::max(settings.time_scale, 2 * search_seconds);
  return Clock::now() + seconds(std::min(settings.shrink_time, wanted));
}

}  // namespace

Replayed replay_choices(CaseBackend& backend, RunContext& context, const std::vector<std::uint64_t>& choices,
                        std::optional<Clock::time_point> keep_trying_until) {
  Replayed r;
  std::uint64_t trials = 0;
  const int attempts = context.replay_attempts();
  const bool by_chance = attempts > 1 && keep_trying_until;
  for (int attempt = 0; attempt < attempts || (by_chance && Clock::now() < *keep_trying_until); ++attempt) {
    CaseRun run = backend.run_case(RunRequest{std::nullopt, choices, std::nullopt, context.property.cheap_trace, false});
    trials += run.outcome.trials;
    r = {run.outcome.kind == CaseOutcome::Kind::fail,
         std::move(run.choices),
         std::move(run.spans),
         run.concurrent_start,
         trials,
         attempt + 1};
    if (r.fails) {
      context.failures.remember(r.consumed, std::move(run.trace), run.outcome);
      break;
    }
  }
  return r;
}

ShrinkOutcome shrink_here(CaseBackend& backend, RunContext& context, const ShrinkStart& failing, const ShrinkBudget& budget,
                          Progress& progress, const std::string& token) {
  std::uint64_t replays = 0, still_failing = 0;
  std::size_t smallest = failing.choices.size();
  const auto replay = [&](const std::vector<std::uint64_t>& candidate) {
    Replayed r;
    {
      const MonitorScope watched(context.monitor, token);
      r = replay_choices(backend, context, candidate);
    }
    ++replays;
    if (r.fails) {
      ++still_failing;
      smallest = std::min(smallest, r.consumed.size());
    }
    if (progress.due())
      progress.print("shrinking", std::to_string(replays) + " replays (" + std::to_string(still_failing) +
                                      " still failing), smallest failing case " + std::to_string(smallest) +
                                      " choices (from " + std::to_string(failing.choices.size()) + "), " +
                                      progress.elapsed(context.settings.shrink_time));
    return r;
  };
  return shrink(failing.choices, failing.spans, replay, budget, failing.concurrent_start);
}

CheckResult shrink_and_report(RunContext& context, ReportData data, const CaseRun& failed_case,
                              std::optional<std::uint64_t> seed_of_case, std::uint64_t commands, Clock::time_point start) {
  const Settings& settings = context.settings;
  data.search_seconds = since(start);
  const std::vector<std::uint64_t>& original = failed_case.choices;
  if (data.error)
    return report_failure(context, std::move(data), seed_of_case ? std::vector<std::uint64_t>{} : original, seed_of_case,
                          commands);
  const auto shrink_start = Clock::now();
  const std::string original_token = encode_token(context.record(data.cases, 0, original, std::nullopt));
  // The case must fail again on replay before shrinking means anything; report_failure reports a
  // failure that does not come back as nondeterministic.
  std::vector<std::uint64_t> best = original;
  Replayed first_replay;
  {
    const MonitorScope watched(context.monitor, original_token);
    first_replay = replay_choices(*context.backend, context, original, confirmation_deadline(settings, data.search_seconds));
  }
  data.replay_trials = first_replay.trials;
  data.shrink_time_budget = settings.shrink_time;
  data.time_scale = settings.time_scale;
  data.shrink_step_budget = settings.shrink_steps;
  data.replays_tried = first_replay.attempts;
  data.replay_seconds = since(shrink_start);
  data.shrink_end = CheckResult::ShrinkEnd::not_reproduced;
  if (first_replay.fails) {
    Progress progress(settings.name, settings.verbose);
    ShrinkOutcome so = context.backend->shrink(ShrinkStart{original, failed_case.spans, failed_case.concurrent_start},
                                               shrink_budget(settings, since(shrink_start)), progress, original_token);
    best = std::move(so.choices);
    data.shrink_steps = so.accepted;
    data.shrink_tries = so.tried;
    data.shrink_end = shrink_end(so.stop);
  }
  data.shrink_seconds = since(shrink_start);
  CheckResult r = report_failure(context, std::move(data), best, {}, commands);
  // On fibers a failure whose replay passed did not replay as it was met, whatever the report's
  // own rerun then did (engine/search.cpp searches again).
  if (!first_replay.fails && context.property.execution->exact_replay()) context.failure_nondeterministic = true;
  r.seconds = since(start);
  return r;
}

}  // namespace duet::detail
