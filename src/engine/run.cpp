// The engine's entry: a check's settings resolved, its cases put on a backend (in process, or
// in isolation's child), then a replay, a fuzzer's input, the regression cases or a search,
// and the verdict.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <memory>
#include <stdexcept>

#include "certify/certificate.hpp"
#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/property.hpp"
#include "duet/source.hpp"
#include "engine/backend.hpp"
#include "engine/clean_child.hpp"
#include "engine/fiber_bridge.hpp"
#include "engine/run.hpp"
#include "engine/case_files.hpp"
#include "engine/monitor.hpp"
#include "engine/replay.hpp"
#include "engine/run_context.hpp"
#include "engine/search.hpp"
#include "engine/verdicts.hpp"
#include "engine/walk_jobs.hpp"
#include "execute/fibers/sanitizers.hpp"  // DUET_FIBER_TSAN
#include "report/report.hpp"
#include "report/token.hpp"

namespace duet::detail {
namespace {

std::atomic<AssertionCaptureFactory> capture_factory{nullptr};

// ThreadSanitizer ends a child of a multi-threaded process that starts a thread (a worker's
// watchdog does).
#ifdef DUET_FIBER_TSAN
constexpr bool kThreadSanitizer = true;
#else
constexpr bool kThreadSanitizer = false;
#endif

// Why a check runs in one process when Config::jobs asks for more: only a walk over every
// program on fibers is split, and only in this process.
std::string jobs_not_used(const RunContext& context, std::uint32_t jobs) {
  const std::string asked = "jobs: 1 process, not " + std::to_string(jobs) + ": ";
  if (kThreadSanitizer) return asked + "under ThreadSanitizer a forked worker may not start the threads it needs";
  if (!context.property.walk_progress)
    return asked + "only a walk over every program on fibers (ParallelConfig::every_program) runs in several";
  return asked + "a walk runs in several only in process, not isolated (DUET_FORK)";
}

// Whatever way the check ends, what it changed for its run is put back (the caller's CPU
// affinity, say).
struct AfterCheck {
  const Property& property;
  ~AfterCheck() { property.execution->after_check(); }
};

// What the check does: a fuzzer's input, a replay, or the regression cases and a search.
// `found`: true when the result is a new failure (from a search or a fuzzer's input).
CheckResult run_check(RunContext& context, std::optional<std::span<const std::uint8_t>> bytes, bool& found) {
  const Settings& s = context.settings;
  found = false;
  if (bytes) {
    found = true;
    return bytes_case(context, *bytes);
  }
  if (!s.replay.empty()) return replay_token(context, s.replay, "DUET_REPLAY or --duet_replay", "DUET_REPLAY");
  if (!s.replay_file.empty()) return replay_file(context);
  std::optional<CheckResult> regression = s.regressions.empty() ? std::nullopt : replay_regressions(context);
  found = !regression;
  return regression ? std::move(*regression) : run_search(context);
}

// A new failure becomes a regression case.
void save_as_regression(const RunContext& context, CheckResult& r) {
  const Settings& s = context.settings;
  if (s.regressions.empty() || r.status != CheckResult::Status::failed || r.replay_token.empty()) return;
  try {
    r.report +=
        "  saved:      " + save_regression(s.regressions, s.name, context.property.execution->name(), r.replay_token) +
        " (a regression case: commit it)\n";
  } catch (const std::exception& e) {
    r.report += "  saved:      no: " + std::string(e.what()) + "\n";
  }
}

CheckResult run_on_backend(RunContext& context, std::optional<std::span<const std::uint8_t>> bytes) {
  const AfterCheck after_check{context.property};
  CheckResult r;
  try {
    bool found = false;
    r = run_check(context, bytes, found);
    if (found) save_as_regression(context, r);
  } catch (const std::runtime_error& e) {  // isolation could not make or reach its child
    return nothing_tested(context.settings.name, e.what());
  }
  const Settings& s = context.settings;
  const Property& p = context.property;
  r.seed = r.seed ? r.seed : s.seed;
  if (p.expect_failure && r.status != CheckResult::Status::error) r = expected_failure_verdict(std::move(r), context);
  return r;
}

}  // namespace

CheckResult run_resolved(RunContext& context, std::optional<std::span<const std::uint8_t>> bytes) {
  const Settings& s = context.settings;
  context.params.max_length = s.max_length;
  context.params.continue_odds = static_cast<std::uint64_t>(std::llround(s.mean_length));
  context.params.search_seconds = s.case_timeout / 2;
  context.params.shards = s.shards;
  context.params.shard_index = s.shard_index;
  std::unique_ptr<AssertionCapture> capture;
  if (auto factory = assertion_capture()) capture = factory();
  context.params.capture = capture.get();
  // No watchdog thread where it has nothing to watch: a fuzzer watches its inputs for hangs itself
  // (-timeout), and under isolation the parent runs no case. There a thread of the parent starting
  // up while the child is forked would also leave the child a lock it can never take (glibc's
  // thread-stack cache, a sanitizer's registry): its own first thread would wait forever.
  // The fiber stall watchdog reads the scale on this thread (and in isolation's child, a copy of it).
  const TimeScaleScope scale(s.time_scale);
  // Forked before the monitor's thread starts, which the child would otherwise copy mid-way.
  std::optional<CleanChild> clean_child;
  if (!bytes) clean_child.emplace(context);
  context.clean_child = clean_child ? &*clean_child : nullptr;
  Monitor monitor(s.name, bytes || s.isolate ? 0.0 : s.case_timeout, s.time_scale);
  monitor.crash.set_header(context.record(0, 0, {}, std::nullopt));
  monitor.watchdog.seed_token = [&context](std::uint64_t case_seed, std::uint64_t index) {
    return encode_token(context.record(index + 1, 0, {}, case_seed));
  };
  std::unique_ptr<CaseBackend> backend;
  std::unique_ptr<InProcessBackend> in_process;  // what a walk's workers run
  const std::uint32_t jobs = jobs_to_run(s.jobs);
  const bool split = jobs > 1 && context.property.walk_progress && !s.isolate && !bytes && !kThreadSanitizer;
  if (jobs > 1 && !split) context.jobs_note = jobs_not_used(context, jobs);
  if (s.isolate && !bytes) {
    // The parent runs no case: the child does, watched by Isolation instead of the monitor.
    try {
      backend = std::make_unique<ForkedBackend>(context);
    } catch (const std::exception& e) {
      return nothing_tested(s.name, e.what());
    }
  } else {
    context.monitor = &monitor;
    in_process = std::make_unique<InProcessBackend>(context, false);
    if (split) backend = std::make_unique<WalkJobsBackend>(context, *in_process, jobs);
    else backend = std::move(in_process);
  }
  context.backend = backend.get();
  // Trials that may leave what no later check of this process could run beside (a library's
  // thread, abandoned with its trial): the search runs in the clean child's workers.
  if (!split && !s.isolate && clean_child && context.property.execution->searches_in_clean_child())
    clean_child->hand_over(context);
  return run_on_backend(context, bytes);
}

namespace {

// At DUET_VERBOSE=0 a pass prints its line and a report goes only into the result: a check that
// did not pass prints one line too, so that a result nobody reads is still seen (verbose 1
// prints the whole report instead, -1 nothing).
CheckResult seen(CheckResult r, int verbose) {
  if (verbose == 0 && r.status != CheckResult::Status::passed) std::fprintf(stderr, "%s\n", verdict_line(r).c_str());
  return r;
}

}  // namespace

void set_assertion_capture(AssertionCaptureFactory factory) { capture_factory.store(factory); }
AssertionCaptureFactory assertion_capture() { return capture_factory.load(); }

CheckResult run_property(const Property& p, const Config& config, std::optional<std::span<const std::uint8_t>> bytes) {
  RunContext context(p);
  try {
    context.settings = resolve(config, p.name, p.default_time, p.execution->isolate_by_default());
    context.replay_isolated = config.isolate.value_or(p.execution->isolate_by_default());
  } catch (const std::invalid_argument& e) {
    return seen(nothing_tested(config.name ? *config.name : p.name, std::string("bad setting: ") + e.what()),
                config.verbose.value_or(0));
  }
  CheckResult r = run_resolved(context, bytes);
  // After the check's backend is gone: the fiber search forks children of its own.
  if (!bytes) r.report += search_on_fibers(p, context.settings, r, context.replay_isolated);
  leave_certificate(context, r);  // a walk over every program: what its shard proved, for merging
  const Settings& s = context.settings;
  if ((r.status != CheckResult::Status::passed || p.expect_failure) && s.verbose >= 1) std::fputs(r.report.c_str(), stderr);
  return seen(std::move(r), s.verbose);
}

}  // namespace duet::detail
