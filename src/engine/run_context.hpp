// What one check's run shares between its parts (search, shrink driving, replay, reports and the
// backend its cases run on): the property, the resolved settings, the failures seen so far.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/detail/rng.hpp"
#include "duet/source.hpp"
#include "engine/isolation/death.hpp"
#include "engine/monitor.hpp"
#include "report/token.hpp"
#include "shrink/shrink.hpp"

namespace duet::detail {

class CaseBackend;
class CleanChild;

/// Failing runs' traces by their choices, for failures that may not come back when replayed
/// once more (thread timing). Keyed by choices: the shrinker may reject a failing candidate
/// (not smaller), which must not replace the trace of the case it kept.
class FailureMemory {
 public:
  struct Seen {
    Trace trace;  // front ends with cheap traces only
    std::string message;
    std::optional<Step> failing_step;
    std::uint64_t commands = 0;
    std::string death_output;           // isolation: what the dead child wrote last (a sanitizer's report)
    bool died = false;                  // isolation: the case ended its process (its replay must be isolated too)
    std::vector<std::uintptr_t> stack;  // isolation: the stack of the fiber it crashed on (Death::stack)
  };
  void remember(const std::vector<std::uint64_t>& choices, Trace trace, const CaseOutcome& outcome,
                const std::optional<Death>& death = std::nullopt) {
    if (seen_.size() >= 1024) seen_.clear();
    seen_[choices] = Seen{std::move(trace),
                          outcome.message,
                          outcome.failing_step,
                          outcome.commands,
                          death ? death->output : std::string(),
                          death.has_value(),
                          death ? death->stack : std::vector<std::uintptr_t>{}};
  }
  /// The failure seen for these choices, or null.
  const Seen* find(const std::vector<std::uint64_t>& choices) const {
    const auto seen = seen_.find(choices);
    return seen == seen_.end() ? nullptr : &seen->second;
  }

 private:
  std::map<std::vector<std::uint64_t>, Seen, ChoicesLess> seen_;
};

struct RunContext {
  explicit RunContext(const Property& checked) : property(checked) {}
  const Property& property;
  Settings settings{};
  CaseParams params;
  Monitor* monitor = nullptr;  // null where this process runs no case (isolation's parent)
  // Cases run isolated without DUET_FORK=1 in the environment: Config::isolate says so, or the
  // check's default does (parallel checks on threads). Then a replay line needs no DUET_FORK=1.
  bool replay_isolated = false;
  CaseBackend* backend = nullptr;  // where the cases run
  /// A child forked before the first case, for the rest of a check whose failing run left calls
  /// unfinished in this process (clean_child.hpp); null where there is none.
  CleanChild* clean_child = nullptr;
  FailureMemory failures;
  /// A replay's outcome in words ("replayed DUET_REPLAY: failed as recorded, on its 3rd
  /// trial"), for a negative test's verdict; empty when the check searched.
  std::string replay_summary;
  /// The program of the last failure reported shows concurrency (shows_concurrency: calls on
  /// two branches or more, or a spurious wake-up): a negative test's counterexample proves the
  /// subject unsafe only then.
  bool failure_shows_concurrency = false;
  /// The last failure reported did not replay as it was met (ReportData::nondeterministic).
  bool failure_nondeterministic = false;
  /// A walk over every program that searched: what its certificate records of the walk, as the
  /// process that walked saw it (Property::certificate); empty for other checks.
  std::string walk_certificate;
  /// For the pass line: why Config::jobs asked for more processes than the check ran in
  /// ("jobs: 1 process, not 2: ..."), or empty.
  std::string jobs_note;

  /// How many runs a failure may need to come back (thread timing): at least one.
  int replay_attempts() const { return std::max(1, property.execution->replay_attempts()); }

  /// A token's contents for a case of this run.
  ReplayRecord record(std::uint64_t cases, std::uint64_t shrink_steps, std::vector<std::uint64_t> choices,
                      std::optional<std::uint64_t> case_seed) const {
    ReplayRecord r;
    r.spec_id = property.spec_id;
    r.seed = settings.seed;
    r.cases = cases;
    r.shrink_steps = shrink_steps;
    r.max_length = params.max_length;
    r.continue_odds = params.continue_odds;
    r.choices = std::move(choices);
    r.case_seed = case_seed;
    if (const std::string where = property.execution->name(); where != "sequential") r.executor = where;
    if (property.execution->trial_processes_taken()) r.executor += kTrialProcessesTag;
    return r;
  }
};

/// Case seeds: disjoint streams per shard, independent of how many cases ran before.
inline std::uint64_t case_seed(const Settings& settings, std::uint64_t index) {
  return mix64(settings.seed ^ mix64(index * settings.shards + settings.shard_index));
}

/// Pass, ran out of input, or abandoned (an unimplemented operation): nothing went wrong.
inline bool uneventful(const CaseOutcome& o) {
  return o.kind == CaseOutcome::Kind::pass || o.kind == CaseOutcome::Kind::overrun || o.kind == CaseOutcome::Kind::abandoned;
}

}  // namespace duet::detail
