// The forked backend: each request is a message to isolation's child, which answers it with an
// in-process backend of its own; a case that kills the child is a failure, from what it left.
#include <algorithm>
#include <chrono>
#include <map>

#include "engine/backend.hpp"
#include "engine/failure_report.hpp"
#include "engine/search.hpp"
#include "engine/shrinking.hpp"
#include "execute/fibers/threads_outside.hpp"

namespace duet::detail {

ForkedBackend::ForkedBackend(RunContext& context) : context_(context), child_side_(context, true) {
  isolation_ = std::make_unique<Isolation>([this](const std::string& request) { return serve(request); },
                                           [execution = context.property.execution] { execution->in_child(); },
                                           context.settings.case_timeout, context.settings.time_scale);
}

CaseRun ForkedBackend::run_case(RunRequest request) {
  const bool traced = request.traced;
  std::optional<std::string> answer = isolation_->call(encode_request(std::move(request)));
  if (!answer) return died(traced);
  return decode<RunAnswer>(*answer).run;
}

/// What the child left: its choices, and for a traced run the steps done and the call that was
/// running.
CaseRun ForkedBackend::died(bool traced) const {
  const Remains& rm = isolation_->remains();
  CaseRun r;
  r.death = rm.death;
  if (!rm.in_case) {
    r.outcome.kind = CaseOutcome::Kind::error;
    r.outcome.message = "isolation: the child process died outside any case (" + rm.death.what() + ")";
    return r;
  }
  r.outcome.kind = CaseOutcome::Kind::fail;
  r.outcome.message = death_message(rm.death);
  // A forked child has none of this process's other threads: a library whose background thread
  // an earlier use started (leveldb's) still counts on it there, and waits for ever.
  if (const std::string threads = fiber::foreign_threads(); rm.death.kind == Death::Kind::hang && !threads.empty()) {
    r.outcome.kind = CaseOutcome::Kind::error;
    // On fibers the check's process is no better place: such a thread is not the run's there.
    const bool on_fibers = context_.property.execution->searches_in_clean_child();
    r.outcome.message += "; no verdict: this process has " + threads +
                         ", which the child process forked to run the case does not have, so a library waiting "
                         "there for its own background thread hangs whatever the code under test does. " +
                         (on_fibers ? "Start the library within the check (open it in the subject), so that its "
                                      "threads start in the trials, or check it on threads"
                                    : "Run the check in process (DUET_FORK=0), or start the library's threads "
                                      "within the check");
  }
  if (!rm.choices_complete) r.outcome.message += " (after more choices than isolation keeps: the replay may differ)";
  r.choices = rm.choices;
  r.spans = rm.spans;
  r.concurrent_start = rm.concurrent_start;
  r.outcome.trials = rm.trials;
  r.outcome.overlapped = rm.overlapped;
  r.outcome.cpus = rm.cpus;
  if (!traced) return r;
  if (rm.trace) r.trace = *rm.trace;
  if (!r.trace.diagram.empty()) {
    // A Y-program: the process died in one of its trials.
    r.trace.failed = true;
    r.trace.verdict = r.outcome.message + ", in a trial of this program";
    r.trace.no_draft = "the process died running the program";
    r.outcome.commands = y_calls(r.trace);
  } else if (!rm.calling.empty()) {
    Step step;
    step.code = rm.calling;
    step.explanation = death_comment(rm.death);
    step.died = rm.death.what();
    r.trace.steps.push_back(std::move(step));
    r.trace.failed = true;
    r.outcome.commands = r.trace.steps.size();
  } else {
    r.outcome.commands = r.trace.steps.size();
  }
  return r;
}

/// The search in the child: the parent shows progress and watches for hangs meanwhile.
SearchEnd ForkedBackend::search(SearchCounts& counts, Clock::time_point start, Progress& progress) {
  isolation_->reset_counts();
  std::optional<std::string> answer = isolation_->call(encode_request(SearchRequest{start, context_.settings.count}), [&] {
    if (progress.due()) print_search_progress(context_, progress, isolation_->counts(), where());
  });
  counts = isolation_->counts();
  if (answer) {
    SearchAnswer searched = decode<SearchAnswer>(*answer);
    unexercised_ = searched.end.unexercised;
    // A worker's search is this check's own, as if run here: what its trials left, the
    // libraries they ran (engine/search.cpp reads them from the execution).
    if (!searched.totals.empty() && context_.property.add_totals) context_.property.add_totals(searched.totals);
    return std::move(searched.end);
  }
  SearchEnd end;  // the child died in a case (or between two)
  end.failed = true;
  // The child counts a case once it ends: it died in the next (or between two).
  end.case_seed = case_seed(context_.settings, counts.cases);
  ++counts.cases;
  end.run = died(context_.property.cheap_trace);  // the search traced its cases as cheaply
  // The case it died in ran trials too (the counters count a case once it ends).
  counts.trials += end.run.outcome.trials;
  counts.overlapped += end.run.outcome.overlapped;
  counts.cpus = std::max(counts.cpus, end.run.outcome.cpus);
  return end;
}

/// Shrinking under isolation: the child runs the shrinker itself (no round trip per
/// candidate), recording each case it keeps in shared memory. A candidate that kills the child
/// is a failing case like any other: the shrink goes on in a new child from the smaller of it
/// and the last case kept, within what is left of the budget. (`token`: the child is watched by
/// the isolation, not by a monitor.)
ShrinkOutcome ForkedBackend::shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                                    const std::string& /*token*/) {
  ShrinkOutcome total;
  // What the candidates that killed a child did, by candidate: a new child's shrinker, which
  // starts its passes over, gets the same answer for them without running them again.
  std::map<std::vector<std::uint64_t>, KnownDeath, ChoicesLess> deaths;
  const auto deadline = Clock::now() + budget.max_time;
  ShrinkStart best = failing;
  const std::size_t original = best.choices.size();
  const auto print_progress = [&] {
    if (!progress.due()) return;
    const ShrinkProgress sp = isolation_->shrink_progress();
    progress.print("shrinking", std::to_string(total.tried + sp.tried) + " replays, smallest failing case " +
                                    std::to_string(sp.accepted ? sp.choices.size() : best.choices.size()) +
                                    " choices (from " + std::to_string(original) + "), " +
                                    progress.elapsed(context_.settings.shrink_time) + where());
  };
  for (;;) {
    const auto left = deadline - Clock::now();
    if (total.tried >= budget.max_tries || left <= Clock::duration::zero()) {
      total.stop = total.tried >= budget.max_tries ? ShrinkStop::step_budget : ShrinkStop::time_budget;
      break;
    }
    ShrinkRequest request{best.choices,
                          best.spans,
                          best.concurrent_start,
                          budget.max_tries - total.tried,
                          std::chrono::duration_cast<std::chrono::nanoseconds>(left),
                          {}};
    for (const auto& [candidate, death] : deaths) request.deaths.push_back(death);
    isolation_->reset_shrink_progress();
    if (std::optional<std::string> answer = isolation_->call(encode_request(request), print_progress)) {
      ShrinkAnswer shrunk = decode<ShrinkAnswer>(*answer);
      total.choices = std::move(shrunk.choices);
      total.accepted += shrunk.accepted;
      total.tried += shrunk.tried;
      total.stop = shrunk.stop;
      if (shrunk.failure)
        context_.failures.remember(total.choices, std::move(shrunk.failure->trace), shrunk.failure->outcome);
      return total;
    }
    if (!after_shrink_death(best, total, deaths)) break;
  }
  total.choices = std::move(best.choices);
  return total;
}

bool ForkedBackend::after_shrink_death(ShrinkStart& best, ShrinkOutcome& total,
                                       std::map<std::vector<std::uint64_t>, KnownDeath, ChoicesLess>& deaths) {
  const ShrinkProgress sp = isolation_->shrink_progress();
  total.tried += sp.tried;
  total.accepted += sp.kept;
  if (sp.accepted) best = ShrinkStart{sp.choices, sp.spans, sp.mark};
  CaseRun dead = died(context_.property.cheap_trace);
  if (dead.outcome.kind != CaseOutcome::Kind::fail) return false;
  deaths[sp.candidate] = KnownDeath{sp.candidate, dead.choices, dead.spans, dead.concurrent_start};
  if (shrink_smaller(dead.choices, dead.concurrent_start, best.choices, best.concurrent_start)) {
    context_.failures.remember(dead.choices, std::move(dead.trace), dead.outcome, dead.death);
    best = ShrinkStart{std::move(dead.choices), std::move(dead.spans), dead.concurrent_start};
    ++total.accepted;
  }
  return true;
}

bool ForkedBackend::take_trial_processes() {
  if (!context_.property.execution->take_trial_processes()) return false;
  std::optional<std::string> answer = isolation_->call(encode_request(TrialProcessesRequest{}));
  return answer && decode<TrialProcessesAnswer>(*answer).taken;
}

std::string ForkedBackend::serve(const std::string& bytes) {
  Request request = decode_request(bytes);
  if (std::holds_alternative<TrialProcessesRequest>(request))
    return encode(TrialProcessesAnswer{case_runner().take_trial_processes()});
  if (auto* run = std::get_if<RunRequest>(&request)) return encode(RunAnswer{case_runner().run_case(std::move(*run))});
  if (const auto* shrink = std::get_if<ShrinkRequest>(&request)) return serve_shrink(*shrink);
  const SearchRequest& search = std::get<SearchRequest>(request);
  // The clean child keeps itself as it was forked: its workers search.
  if (fresh_per_case_) return encode(fresh_.search_in_worker(search));
  return encode(child_side_.search_for_parent(search, false));
}

std::string ForkedBackend::serve_shrink(const ShrinkRequest& request) {
  std::map<std::vector<std::uint64_t>, Replayed, ChoicesLess> deaths;  // candidates that killed an earlier child
  for (const KnownDeath& death : request.deaths)
    deaths[death.candidate] = Replayed{true, death.choices, death.spans, death.concurrent_start, 0};
  const ShrinkBudget budget{request.max_tries, std::chrono::duration_cast<Clock::duration>(request.max_time)};
  const ShrinkOutcome so = detail::shrink(
      request.choices, request.spans,
      [&](const std::vector<std::uint64_t>& candidate) {
        if (auto known = deaths.find(candidate); known != deaths.end()) return known->second;
        IsolatedChild::shrink_tried(candidate);
        return replay_choices(case_runner(), context_, candidate);
      },
      budget, request.concurrent_start,
      [](const std::vector<std::uint64_t>& choices, const std::vector<Source::Span>& spans, std::size_t mark) {
        IsolatedChild::shrink_kept(choices, spans, mark);
      });
  ShrinkAnswer answer{so.choices, so.accepted, so.tried, so.stop, std::nullopt};
  if (const FailureMemory::Seen* seen = context_.failures.find(so.choices)) {
    FailureRecord failure;
    failure.trace = seen->trace;
    failure.outcome.kind = CaseOutcome::Kind::fail;
    failure.outcome.message = seen->message;
    failure.outcome.failing_step = seen->failing_step;
    failure.outcome.commands = seen->commands;
    answer.failure = std::move(failure);
  }
  return encode(answer);
}

}  // namespace duet::detail
