// The in-process backend: a case runs here, its escapes turned into outcomes; and the search
// loop, the engine's hot path.
#include <new>
#include <optional>
#include <span>

#include "duet/faults.hpp"
#include "duet/show.hpp"
#include "engine/backend.hpp"
#include "engine/search.hpp"
#include "engine/shrinking.hpp"

namespace duet::detail {
namespace {

// The request's choices are moved into the Source; its bytes must outlive it.
Source source_of(RunRequest& request) {
  if (request.bytes)
    return Source::from_bytes(
        std::span(reinterpret_cast<const std::uint8_t*>(request.bytes->data()), request.bytes->size()));
  if (request.seed) return Source::from_seed(*request.seed);
  return Source::replay(std::move(request.choices));
}

// Counts one case of the search.
void count_case(SearchCounts& counts, const CaseOutcome& o) {
  counts.commands += o.commands;
  counts.trials += o.trials;
  counts.overlapped += o.overlapped;
  counts.cpus = std::max(counts.cpus, o.cpus);
  counts.attempts += o.attempts;
  counts.rejected += o.rejected;
  counts.overruns += o.kind == CaseOutcome::Kind::overrun;
  counts.busy += o.commands > 0;
}

}  // namespace

CaseOutcome InProcessBackend::run_guarded(Source& src, Trace* trace) {
  CaseOutcome o;
  try {
    const CaseScope scope(src);  // duet::run and fault points draw from this case's stream
    return context_.property.run_case(src, context_.params, trace);
  } catch (const Overrun&) {
    o.kind = CaseOutcome::Kind::overrun;
  } catch (const EngineError& e) {  // duet's own limit: not the code's failure
    o.kind = CaseOutcome::Kind::error;
    o.message = e.what();
  } catch (const std::bad_alloc&) {
    // Memory ran out where the front end could not capture it as a result (its own handling
    // needs memory too): the case failed, and shrinks like any failure. The reserve frees
    // room to report it.
    reserve_.reset();
    o.kind = CaseOutcome::Kind::fail;
    o.message = "out of memory: std::bad_alloc was thrown after the steps shown, where it could not be captured as a result";
  } catch (...) {
    o.kind = CaseOutcome::Kind::error;
    o.message = "an exception escaped the case outside any command: " + describe_current_exception();
  }
  return o;
}

CaseRun InProcessBackend::run_case(RunRequest request) {
  CaseRun run;
  Source src = source_of(request);
  run.trace.record_pass = request.record_pass;
  if (in_child_ && request.traced) run.trace.observer = IsolatedChild::observer();  // a death still has its trace
  if (in_child_) IsolatedChild::begin_case(src);
  run.outcome = run_guarded(src, request.traced ? &run.trace : nullptr);
  if (in_child_) IsolatedChild::end_case(src);
  run.trace.observer = nullptr;
  run.concurrent_start = src.concurrent_start();
  src.take_record(run.choices, run.spans);  // the Source ends here: its record is the run's
  return run;
}

CaseOutcome InProcessBackend::run_seeded(Source& src, Trace* trace, std::uint64_t index, std::uint64_t seed) {
  const MonitorScope watched(context_.monitor, index, seed);
  if (in_child_) IsolatedChild::begin_case(src);
  CaseOutcome o = run_guarded(src, trace);
  if (in_child_) IsolatedChild::end_case(src);
  return o;
}

SearchEnd InProcessBackend::search_cases(SearchCounts& counts, Clock::time_point start, Progress* progress,
                                         const std::function<void(const SearchCounts&)>& after_case) {
  const Settings& settings = context_.settings;
  const Property& property = context_.property;
  SearchEnd end;
  Source src = Source::from_seed(0);
  Trace scratch;  // reset per case only when the property traces cheaply (a Trace is large)
  // In isolation's child a traced case mirrors its program to the parent before its trials, so a
  // case whose crash no replay repeats (thread timing) still shows the program that crashed.
  CaseObserver* const observer = in_child_ && property.cheap_trace ? IsolatedChild::observer() : nullptr;
  // A case of many trials (an exhaustive search of one program) has progress lines of its own;
  // the clock is read every 64th trial, not on each (the trial loop is hot).
  Clock::time_point case_start = Clock::now();
  std::optional<TrialProgressScope> in_case;
  if (progress)
    in_case.emplace([&](const TrialProgress& p) {
      if (p.trials <= 1) case_start = Clock::now();
      else if (p.trials % 64 == 0 && progress->due()) print_case_progress(*progress, counts, p, since(case_start));
    });
  for (std::uint64_t i = counts.cases;; ++i) {
    if (i >= settings.count) break;
    if (settings.time > 0 && coarse_since(start) >= settings.time) break;
    if (!settings.budget_given && property.max_overlapped_trials > 0 && counts.overlapped >= property.max_overlapped_trials)
      break;
    const std::uint64_t seed = case_seed(settings, i);
    src.restart(seed);
    counts.cases = i + 1;
    if (property.cheap_trace) {
      scratch = Trace();
      scratch.observer = observer;
    }
    CaseOutcome o = run_seeded(src, property.cheap_trace ? &scratch : nullptr, i, seed);
    if (o.nothing_left) {  // a walk over every program has ended: not a case
      counts.cases = i;
      break;
    }
    count_case(counts, o);
    if (after_case) after_case(counts);
    if (o.kind == CaseOutcome::Kind::abandoned) {
      ++counts.abandoned;
      if (end.abandon_reason.empty()) end.abandon_reason = o.message;
    }
    if (o.kind == CaseOutcome::Kind::fail || o.kind == CaseOutcome::Kind::error) {
      end.failed = true;
      end.case_seed = seed;
      end.run.outcome = std::move(o);
      end.run.choices = src.choices();
      end.run.spans = src.spans();
      end.run.concurrent_start = src.concurrent_start();
      end.run.trace = std::move(scratch);
      end.run.trace.observer = nullptr;
      return end;
    }
    if (counts.commands == 0 && counts.rejected >= 1000) {
      end.nothing_generated = true;
      return end;
    }
    if (property.covered && property.covered()) break;
    if (progress && progress->due()) print_search_progress(context_, *progress, counts, where());
  }
  return end;
}

SearchAnswer InProcessBackend::search_for_parent(const SearchRequest& request, bool totals) {
  const Property& property = context_.property;
  context_.settings.count = request.count;
  SearchAnswer answer;
  // The parent reads the counts as the child counts them, after each case (a case that kills
  // the child is the one after the last counted).
  SearchCounts counts;
  answer.end = search_cases(counts, request.start, nullptr, &IsolatedChild::count_search);
  IsolatedChild::count_search(counts);
  answer.end.coverage = property.coverage ? property.coverage() : std::string();
  answer.end.unfinished = property.unfinished ? property.unfinished() : std::string();
  answer.end.certificate = property.certificate ? property.certificate() : std::string();
  answer.end.unexercised = unexercised();
  if (totals && property.save_totals) answer.totals = property.save_totals();
  return answer;
}

ShrinkOutcome InProcessBackend::shrink(const ShrinkStart& failing, const ShrinkBudget& budget, Progress& progress,
                                       const std::string& token) {
  return shrink_here(*this, context_, failing, budget, progress, token);
}

}  // namespace duet::detail
