#include "engine/fiber_bridge.hpp"

#include <algorithm>
#include <exception>
#include <utility>
#include <vector>

#include "duet/executor.hpp"
#include "engine/run.hpp"
#include "report/report.hpp"
#include "report/token.hpp"
#include "show/text.hpp"

namespace duet::detail {
namespace {

// Each case of the twin draws the program that failed on threads, then its schedules at random
// (a shrink candidate or a replay reads its own recorded choices instead).
Property drawing_program(Property twin, std::vector<std::uint64_t> program) {
  twin.run_case = [run = std::move(twin.run_case), program = std::move(program)](Source& src, const CaseParams& cp,
                                                                                 Trace* trace) {
    if (src.mode() == Source::Mode::random && src.position() == 0) src.replay_program(program);
    return run(src, cp, trace);
  };
  return twin;
}

// The check's own settings, but for the search's budget (one strategy's share; one case for the
// exhaustive search, which explores all of a program's schedules in its case), its name (the
// draft file), and nothing read from a replay or written as a regression.
Settings twin_settings(const Settings& s, double seconds, bool one_case) {
  Settings t = s;
  t.name = s.name + " on fibers";
  t.time = seconds;
  t.count = one_case ? 1 : ~std::uint64_t{0};
  t.budget_given = true;
  t.replay.clear();
  t.replay_file.clear();
  t.regressions.clear();
  t.shards = 1;
  t.shard_index = 0;
  t.verbose = -1;
  // A search of a program's schedules is not a hang: the limit of a case run in process.
  t.case_timeout = std::max(s.case_timeout, 60.0 * s.time_scale);
  return t;
}

std::string indented(const std::string& text, const std::string& by) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    out += (line.empty() ? "" : by + line) + "\n";
    start = end + 1;
  }
  return out;
}

// The reason of an error report ("duet: NAME: error: WHY\n  nothing was tested", or "no verdict: ..."): WHY.
std::string error_reason(const CheckResult& r) {
  const std::string marker = ": error: ";
  const std::size_t at = r.report.find(marker);
  if (at == std::string::npos) return r.report.substr(0, r.report.find('\n'));
  const std::size_t from = at + marker.size();
  return r.report.substr(from, r.report.find('\n', from) - from);
}

std::string budget_text(double seconds) { return printf_string("%g s", seconds) + ", DUET_FIBER_SEARCH"; }

// What each strategy ran without reproducing the failure, for the closing line.
struct Tried {
  std::vector<std::string> parts;
  void add(const Property& twin, const CheckResult& r) {
    parts.push_back(!r.coverage.empty() ? r.coverage
                                        : plural(r.trials, "schedule", "schedules") + " of " + twin.execution->name());
  }
};

std::string reproduced(const Property& twin, const CheckResult& r, const CheckResult& failure, double budget) {
  const std::string further = r.failing_length < failure.failing_length ? " The fibers shrank the program further, to " +
                                                                              plural(r.failing_length, "call", "calls") + "."
                                                                        : std::string();
  return "\n  on fibers:  the same program fails on the fiber scheduler, with " + twin.execution->name() +
         " schedules (a search of up to " + budget_text(budget) +
         "); the replay line below runs that interleaving again, step for step." + further + "\n\n" +
         indented(r.report, "    ");
}

std::string not_reproduced(const Tried& tried, double budget) {
  std::string list;
  for (std::size_t i = 0; i < tried.parts.size(); ++i)
    list += (i == 0 ? "" : i + 1 == tried.parts.size() ? "; and " : "; ") + tried.parts[i];
  return "\n  on fibers:  not reproduced in a search of " + budget_text(budget) + ": " + list +
         ". The failure may need what the fiber scheduler does not explore: more preemptions, reorderings the "
         "C++ model allows beyond its stale reads (load buffering), or real timing (docs/parallel.md).\n";
}

}  // namespace

std::string search_on_fibers(const Property& checked, const Settings& settings, const CheckResult& failure,
                             bool replay_isolated) {
  if (!checked.fiber_twin || checked.expect_failure || settings.fiber_search <= 0 ||
      failure.status != CheckResult::Status::failed || failure.replay_token.empty())
    return {};
  ReplayRecord record;
  try {
    record = decode_token(failure.replay_token);
  } catch (const std::exception& e) {
    return "\n  on fibers:  not searched: the failing case's token could not be read back (" + std::string(e.what()) + ")\n";
  }
  // A case known by its seed alone was not recorded (it hung before its choices were kept).
  if (record.case_seed)
    return "\n  on fibers:  not searched: the failing program was not recorded (its case ended before its choices "
           "were kept)\n";
  const std::vector<std::uint64_t>& program = record.choices;  // none for a hand-written scenario
  const double share = settings.fiber_search / 3;
  Tried tried;
  for (const Schedule& schedule : {random(), pct(), exhaustive()}) {
    const Property twin = drawing_program(checked.fiber_twin(schedule), program);
    RunContext context(twin);
    context.settings = twin_settings(settings, share, schedule.kind == Schedule::Kind::exhaustive);
    context.replay_isolated = replay_isolated;
    const CheckResult r = run_resolved(context, std::nullopt);
    if (r.status == CheckResult::Status::failed) return reproduced(twin, r, failure, settings.fiber_search);
    if (r.status == CheckResult::Status::error) return "\n  on fibers:  cannot show it: " + error_reason(r) + "\n";
    tried.add(twin, r);
  }
  return not_reproduced(tried, settings.fiber_search);
}

}  // namespace duet::detail
