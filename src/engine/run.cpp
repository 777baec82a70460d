// The engine loop: cases from the choice stream until a budget runs out; the first failure
// is shrunk and reported.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <new>
#include <stdexcept>
#include <span>
#include <thread>

#include "engine/case_files.hpp"
#include "engine/crash.hpp"
#include "engine/isolate.hpp"
#include "engine/wire.hpp"
#include "duet/detail/engine.hpp"
#include "duet/faults.hpp"
#include "report/report.hpp"
#include "duet/detail/rng.hpp"
#include "duet/show.hpp"
#include "shrink/shrink.hpp"
#include "report/token.hpp"
#include "show/text.hpp"

namespace duet::detail {


namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

std::atomic<AssertionCaptureFactory> capture_factory{nullptr};

// Under 1% of the trials with calls of different branches running at once: the branches
// essentially ran one after the other.
bool too_little_overlap(std::uint64_t trials, std::uint64_t overlapped) {
  return trials > 0 && overlapped * 100 < trials;
}

/// A parallel check whose branches never ran at once: an error that says why and what to do.
CheckResult inconclusive(CheckResult r, const std::string& overlap) {
  r.status = CheckResult::Status::error;
  r.report = "duet: " + r.name + ": inconclusive: the branches' calls (almost) never overlapped in time (" + overlap +
             "), so a race could not have shown up; this is not a pass.\n" +
             (r.coverage.empty() ? std::string() : "  " + r.coverage + ".\n") +
             "  Give the check at least as many free CPUs as branches (check the process's CPU affinity and\n"
             "  the machine's load; ParallelConfig::pin_threads is on by default), run it longer (DUET_TIME),\n"
             "  or run it on duet::fibers() for code written with duet/sync.hpp.\n";
  return r;
}

/// Case seeds: disjoint streams per shard, independent of how many cases ran before.
std::uint64_t case_seed(const Settings& s, std::uint64_t index) {
  return mix64(s.seed ^ mix64(index * s.shards + s.shard_index));
}

// Kills a process whose case runs past the case timeout: a hang cannot be recovered from in
// process, but it must not look like a pass or a silent CI timeout. It prints how to
// reproduce the case first.
class Watchdog {
 public:
  Watchdog(std::string name, double timeout) : name_(std::move(name)), timeout_(timeout) {
    if (timeout_ > 0) thread_ = std::thread([this] { watch(); });
  }
  ~Watchdog() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  /// A case starts; `token` reproduces it.
  void start(std::string token) {
    std::lock_guard lock(mutex_);
    token_ = std::move(token);
    started_ = Clock::now();
    running_ = true;
  }
  /// Hot loop: a case from a seed; its token is made only if it hangs.
  void start_seeded(std::uint64_t case_seed, std::uint64_t index) {
    std::lock_guard lock(mutex_);
    token_.clear();
    case_seed_ = case_seed;
    index_ = index;
    started_ = Clock::now();
    running_ = true;
  }
  std::function<std::string(std::uint64_t case_seed, std::uint64_t index)> seed_token;
  void stop() {
    std::lock_guard lock(mutex_);
    running_ = false;
  }

 private:
  void watch() {
    std::unique_lock lock(mutex_);
    while (!done_) {
      cv_.wait_for(lock, std::chrono::milliseconds(100));
      if (running_ && since(started_) > timeout_) {
        std::string token = token_.empty() && seed_token ? seed_token(case_seed_, index_) : token_;
        std::fprintf(stderr,
                     "\nduet: %s: error: a case has run for more than %.1f s: the candidate (or the spec) hangs.\n"
                     "  replay:     DUET_REPLAY=%s\n  (raise the limit with DUET_CASE_TIMEOUT; with DUET_FORK=1 the case runs in a child\n"
                     "  process, and a hang is shrunk and shown)\n",
                     name_.c_str(), timeout_, token.c_str());
        std::fflush(stderr);
        std::_Exit(3);
      }
    }
  }
  std::string name_;
  double timeout_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool done_ = false, running_ = false;
  Clock::time_point started_;
  std::string token_;
  std::uint64_t case_seed_ = 0, index_ = 0;
  std::thread thread_;
};

// Watches the running case: for hangs (Watchdog) and for crashes (CrashGuard).
struct Monitor {
  Monitor(const std::string& name, double timeout) : watchdog(name, timeout), crash(name) {}
  void start_seeded(std::uint64_t index, std::uint64_t case_seed) {
    watchdog.start_seeded(case_seed, index);
    crash.seeded_case(index, case_seed);
  }
  void start(const std::string& token) {
    watchdog.start(token);
    crash.token_case(token);
  }
  void stop() {
    watchdog.stop();
    crash.idle();
  }
  Watchdog watchdog;
  CrashGuard crash;
};

// One progress line for every mode and stage, on stderr: silent for the first two seconds
// (a unit-test run takes about one), then one line a second, so a long search or shrink is
// never mistaken for a hang.
//   duet: Queue: searching: 1234 cases, 2.0 s of 10 s, 617 cases/s
//   duet: Queue: shrinking: 40 shrink steps in 812 replays, smallest failing case 17 choices (from 96), 2.0 s of 30 s
class Progress {
 public:
  Progress(const std::string& name, int verbose) : name_(name), quiet_(verbose < 0) { restart(); }
  void restart() {
    start_ = Clock::now();
    next_ = start_ + std::chrono::seconds(2);
  }
  bool due() const { return !quiet_ && Clock::now() >= next_; }
  // "2.0 s of 10 s", or "2.0 s" with no time budget.
  std::string elapsed(double budget) const {
    if (budget > 0) return printf_string("%.1f s of %g s", since(start_), budget);
    return printf_string("%.1f s", since(start_));
  }
  double seconds() const { return since(start_); }
  void print(const std::string& stage, const std::string& what) {
    std::fprintf(stderr, "duet: %s: %s: %s\n", name_.c_str(), stage.c_str(), what.c_str());
    next_ = Clock::now() + std::chrono::seconds(1);
  }

 private:
  std::string name_;
  bool quiet_;
  Clock::time_point start_, next_;
};

std::size_t y_calls(const Trace& t) {
  std::size_t n = t.y_prefix.size() + t.y_suffix.size();
  for (const auto& b : t.y_branches) n += b.size();
  return n;
}

/// Pass, ran out of input, or abandoned (an unimplemented operation): nothing went wrong.
bool uneventful(const CaseOutcome& o) {
  return o.kind == CaseOutcome::Kind::pass || o.kind == CaseOutcome::Kind::overrun ||
         o.kind == CaseOutcome::Kind::abandoned;
}


// "f1  load  atomic#0  = 0  x.hpp:21" with its step number and runs of spaces dropped.
std::string trace_line_text(const std::string& line) {
  std::string s;
  std::size_t i = line.find_first_not_of(' ');
  i = i == std::string::npos ? line.size() : line.find(' ', i);  // the step number
  for (; i < line.size(); ++i)
    if (line[i] != ' ' || (!s.empty() && s.back() != ' ')) s += line[i];
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

// Where a replay that should have been exact (the fiber scheduler) first differs from the
// failing run it replays: in the interleaving, then in the calls or their results, then in the
// verdict. Empty when it reproduced the run.
std::string divergence(const Trace& first, const std::string& first_message, const Trace& replay, const CaseOutcome& o) {
  if (o.kind == CaseOutcome::Kind::error) return "the replay ended in an error instead: " + o.message;
  if (o.kind == CaseOutcome::Kind::overrun) return "the replay ran out of recorded choices: it drew more than the failing run";
  const auto& a = first.interleaving;
  const auto& b = replay.interleaving;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()); ++i) {
    if (i < a.size() && i < b.size() && a[i] == b[i]) continue;
    return "the replay diverged at step " + std::to_string(i) + " (expected `" +
           (i < a.size() ? trace_line_text(a[i]) : std::string("the end of the run")) + "`, got `" +
           (i < b.size() ? trace_line_text(b[i]) : std::string("the end of the run")) + "`)";
  }
  auto calls = [](const Trace& t) {
    std::vector<std::pair<std::string, std::string>> c;  // call, where
    for (std::size_t k = 0; k < t.y_prefix.size(); ++k) c.emplace_back(t.y_prefix[k], "prefix call " + std::to_string(k + 1));
    for (std::size_t b = 0; b < t.y_branches.size(); ++b)
      for (std::size_t k = 0; k < t.y_branches[b].size(); ++k)
        c.emplace_back(t.y_branches[b][k], "branch " + std::to_string(b) + ", call " + std::to_string(k + 1));
    for (std::size_t k = 0; k < t.y_suffix.size(); ++k) c.emplace_back(t.y_suffix[k], "suffix call " + std::to_string(k + 1));
    return c;
  };
  const auto ca = calls(first), cb = calls(replay);
  if (ca != cb) return "the replay drew a different program from the same choices (the spec's generators read something besides the choice stream)";
  for (std::size_t k = 0; k < ca.size() && k < first.y_results.size() && k < replay.y_results.size(); ++k)
    if (first.y_results[k] != replay.y_results[k])
      return "the replay diverged at the result of `" + ca[k].first + "`, " + ca[k].second + " (expected " +
             first.y_results[k] + ", got " + replay.y_results[k] + ")";
  if (o.kind != CaseOutcome::Kind::fail)
    return "the replay ran the same interleaving with the same results and passed: the oracle (the model or the spec's checks) is nondeterministic";
  if (o.message != first_message)
    return "the replay ran the same interleaving with the same results but failed differently (first: " + first_message +
           "; replay: " + o.message + ")";
  return {};
}

// The one-line message of a case whose process died (isolation mode).
std::string death_message(const Death& d) {
  switch (d.kind) {
    case Death::Kind::signal: return "the process died of " + d.what() + " while running the case";
    case Death::Kind::exit_call: return "the case ended the process with " + d.what() + ": it must not end the process";
    case Death::Kind::exit_status: return "the process died while running the case: " + d.what();
    case Death::Kind::hang:
      return d.what() + ": the case was still running at the time limit (DUET_CASE_TIMEOUT)";
  }
  return d.what();
}

// The failing step's comment for the call a case died in.
std::string death_comment(const Death& d) {
  switch (d.kind) {
    case Death::Kind::signal: return "the process died here: " + d.what();
    case Death::Kind::exit_call: return d.what() + " ended the process here";
    case Death::Kind::exit_status: return "the process died here: " + d.what();
    case Death::Kind::hang: return "still running here: " + d.what();
  }
  return d.what();
}

/// One run of one case, in this process or in isolation's child.
struct CaseRun {
  CaseOutcome outcome;
  std::vector<std::uint64_t> choices;
  std::vector<Source::Span> spans;
  std::size_t concurrent_start = Source::kNoMark;
  Trace trace;
  std::optional<Death> death;  // the child died running it
};

/// How a search ended.
struct SearchEnd {
  bool failed = false;  // a case failed or erred: `run` holds it
  std::uint64_t case_seed = 0;
  CaseRun run;
  std::string abandon_reason;
  bool nothing_generated = false;  // every attempt so far rejected (see search_loop)
  std::string coverage;  // isolated: Property::coverage as the child saw it (where its branches ran)
};

struct Runner {
  explicit Runner(const Property& property) : p(property) {}
  const Property& p;
  Settings s{};
  CaseParams params;
  Monitor* monitor = nullptr;
  // Cases run isolated without DUET_FORK=1 in the environment: Config::isolate says so, or the
  // check's default does (parallel checks on threads). Then a replay line needs no DUET_FORK=1.
  bool replay_isolated = false;
  std::unique_ptr<Isolation> iso;  // isolation mode: cases run in its child process
  /// A replay's outcome in words ("replayed DUET_REPLAY: failed as recorded, on its 3rd
  /// trial"), for a negative test's verdict; empty when the check searched.
  std::string replay_summary;

  CaseOutcome run(Source& src, Trace* trace) const {
    CaseOutcome o;
    try {
      const CaseScope scope(src);  // duet::run and fault points draw from this case's stream
      return p.run_case(src, params, trace);
    } catch (const Overrun&) {
      o.kind = CaseOutcome::Kind::overrun;
    } catch (const EngineError& e) {  // duet's own limit: not the code's failure
      o.kind = CaseOutcome::Kind::error;
      o.message = e.what();
    } catch (const std::bad_alloc&) {
      // Memory ran out where the front end could not capture it as a result (its own handling
      // needs memory too): the case failed, and shrinks like any failure. The reserve frees
      // room to report it.
      reserve.reset();
      o.kind = CaseOutcome::Kind::fail;
      o.message = "out of memory: std::bad_alloc was thrown after the steps shown, where it could not be captured as a result";
    } catch (...) {
      o.kind = CaseOutcome::Kind::error;
      o.message = "an exception escaped the case outside any command: " + describe_current_exception();
    }
    return o;
  }
  // Freed when memory runs out, so that the report can still be made.
  // Not zeroed: untouched, the pages cost nothing (a fuzzer runs a check per input).
  mutable std::unique_ptr<char[]> reserve = std::make_unique_for_overwrite<char[]>(4 << 20);

  /// A token's contents for a case of this run.
  ReplayRecord record(std::uint64_t cases, std::uint64_t shrink_steps, std::vector<std::uint64_t> choices,
                      std::optional<std::uint64_t> case_seed) const {
    ReplayRecord r;
    r.spec_id = p.spec_id;
    r.seed = s.seed;
    r.cases = cases;
    r.shrink_steps = shrink_steps;
    r.max_length = params.max_length;
    r.continue_odds = params.continue_odds;
    r.choices = std::move(choices);
    r.case_seed = case_seed;
    if (const std::string where = p.execution->name(); where != "sequential") r.executor = where;
    return r;
  }

  // One case under the hang and crash monitor; `token` is what the monitor prints if it dies.
  CaseOutcome run_monitored(Source& src, const std::string& token) const {
    if (monitor) monitor->start(token);
    CaseOutcome o = run(src, nullptr);
    if (monitor) monitor->stop();
    return o;
  }

  // ---- One case, here or in the child ----

  /// Runs the case of `seed` (or of `choices`), tracing it if asked.
  /// With `bytes`, the case those bytes describe (a fuzzer's input) instead.
  CaseRun run_one(std::optional<std::uint64_t> seed, const std::vector<std::uint64_t>& choices, bool traced,
                  bool record_pass, const std::string* bytes = nullptr) const {
    // In process; or, in isolation's child, the child's own runs (a shrink it runs itself).
    if (!iso || Isolation::in_child()) {
      CaseRun r;
      Source src = bytes ? Source::from_bytes(std::span(reinterpret_cast<const std::uint8_t*>(bytes->data()), bytes->size()))
                   : seed ? Source::from_seed(*seed)
                          : Source::replay(choices);
      r.trace.record_pass = record_pass;
      if (iso && traced) r.trace.observer = Isolation::observer();  // a death still has its trace
      if (iso) Isolation::begin_case(src);
      r.outcome = run(src, traced ? &r.trace : nullptr);
      if (iso) Isolation::end_case();
      r.trace.observer = nullptr;
      r.choices = src.choices();
      r.spans = src.spans();
      r.concurrent_start = src.concurrent_start();
      return r;
    }
    WireWriter w;
    w.u64('R');
    w.boolean(seed.has_value());
    w.u64(seed.value_or(0));
    w.u64s(choices);
    w.boolean(traced);
    w.boolean(record_pass);
    w.boolean(bytes != nullptr);
    w.str(bytes ? *bytes : std::string());
    std::optional<std::string> answer = iso->call(w.bytes());
    if (!answer) return died(traced);
    WireReader r(*answer);
    return read_run(r, traced);
  }

  static void write_run(WireWriter& w, const CaseRun& r, bool traced) {
    write_outcome(w, r.outcome);
    w.u64s(r.choices);
    write_spans(w, r.spans);
    w.u64(r.concurrent_start);
    if (traced) write_trace(w, r.trace);
  }
  static CaseRun read_run(WireReader& r, bool traced) {
    CaseRun run;
    run.outcome = read_outcome(r);
    run.choices = r.u64s();
    run.spans = read_spans(r);
    run.concurrent_start = static_cast<std::size_t>(r.u64());
    if (traced) run.trace = read_trace(r);
    return run;
  }

  /// The case the child died running: a failure, with what the child left (its choices, and
  /// for a traced run the steps done and the call that was running).
  CaseRun died(bool traced) const {
    const Remains& rm = iso->remains();
    CaseRun r;
    r.death = rm.death;
    if (!rm.in_case) {
      r.outcome.kind = CaseOutcome::Kind::error;
      r.outcome.message = "isolation: the child process died outside any case (" + rm.death.what() + ")";
      return r;
    }
    r.outcome.kind = CaseOutcome::Kind::fail;
    r.outcome.message = death_message(rm.death);
    if (!rm.choices_complete) r.outcome.message += " (after more choices than isolation keeps: the replay may differ)";
    r.choices = rm.choices;
    r.spans = rm.spans;
    r.concurrent_start = rm.concurrent_start;
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

  /// Shrinking under isolation: the child runs the shrinker itself (no round trip per
  /// candidate), recording each case it keeps in shared memory. A candidate that kills the child
  /// is a failing case like any other: the shrink goes on in a new child from the smaller of it
  /// and the last case kept, within what is left of the budget.
  ShrinkOutcome isolated_shrink(std::vector<std::uint64_t> best, std::vector<Source::Span> spans, std::size_t mark,
                                const ShrinkBudget& budget, Progress& progress) const {
    ShrinkOutcome total;
    // What the candidates that killed a child did, by candidate: a new child's shrinker, which
    // starts its passes over, gets the same answer for them without running them again.
    std::map<std::vector<std::uint64_t>, CaseRun, ChoicesLess> deaths;
    const auto deadline = Clock::now() + budget.max_time;
    const std::size_t original = best.size();
    for (;;) {
      const auto left = deadline - Clock::now();
      if (total.tried >= budget.max_tries || left <= Clock::duration::zero()) {
        total.stop = total.tried >= budget.max_tries ? ShrinkStop::step_budget : ShrinkStop::time_budget;
        break;
      }
      WireWriter w;
      w.u64('K');
      w.u64s(best);
      write_spans(w, spans);
      w.u64(mark);
      w.u64(budget.max_tries - total.tried);
      w.u64(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(left).count()));
      w.u64(deaths.size());
      for (const auto& [candidate, run] : deaths) {
        w.u64s(candidate);
        w.u64s(run.choices);
        write_spans(w, run.spans);
        w.u64(run.concurrent_start);
      }
      iso->reset_shrink_progress();
      std::optional<std::string> answer = iso->call(w.bytes(), [&] {
        if (!progress.due()) return;
        const ShrinkProgress sp = iso->shrink_progress();
        progress.print("shrinking", std::to_string(total.tried + sp.tried) + " replays, smallest failing case " +
                                        std::to_string(sp.accepted ? sp.choices.size() : best.size()) + " choices (from " +
                                        std::to_string(original) + "), " + progress.elapsed(s.shrink_time) +
                                        ", in a child process");
      });
      if (answer) {
        WireReader r(*answer);
        total.choices = r.u64s();
        total.accepted += r.u64();
        total.tried += r.u64();
        total.stop = static_cast<ShrinkStop>(r.u64());
        if (r.boolean()) {  // the child's record of the failing run of those choices (thread timing)
          Trace trace = read_trace(r);
          CaseOutcome o = read_outcome(r);
          remember_failure(total.choices, std::move(trace), o);
        }
        return total;
      }
      // The child died on a candidate: that candidate failed. Go on from the smaller of it and
      // the last case the child kept.
      const ShrinkProgress sp = iso->shrink_progress();
      total.tried += sp.tried;
      total.accepted += sp.kept;
      if (sp.accepted) {
        best = sp.choices;
        spans = sp.spans;
        mark = sp.mark;
      }
      CaseRun dead = died(p.cheap_trace);
      if (dead.outcome.kind != CaseOutcome::Kind::fail) break;  // died outside the case: keep what we have
      deaths[sp.candidate] = dead;
      if (shrink_smaller(dead.choices, dead.concurrent_start, best, mark)) {
        remember_failure(dead.choices, std::move(dead.trace), dead.outcome, dead.death);
        best = std::move(dead.choices);
        spans = std::move(dead.spans);
        mark = dead.concurrent_start;
        ++total.accepted;
      }
    }
    total.choices = std::move(best);
    return total;
  }

  /// The child's side of run_one and of the search.
  std::string serve(const std::string& request) const {
    WireReader r(request);
    WireWriter w;
    const std::uint64_t kind = r.u64();
    if (kind == 'R') {
      const bool has_seed = r.boolean();
      const std::uint64_t seed = r.u64();
      std::vector<std::uint64_t> choices = r.u64s();
      const bool traced = r.boolean();
      const bool record_pass = r.boolean();
      const bool has_bytes = r.boolean();
      const std::string bytes = r.str();
      CaseRun run;
      Source src = has_bytes ? Source::from_bytes(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()))
                   : has_seed ? Source::from_seed(seed)
                              : Source::replay(std::move(choices));
      run.trace.record_pass = record_pass;
      if (traced) run.trace.observer = Isolation::observer();
      Isolation::begin_case(src);
      run.outcome = this->run(src, traced ? &run.trace : nullptr);
      Isolation::end_case();
      run.trace.observer = nullptr;
      run.choices = src.choices();
      run.spans = src.spans();
      run.concurrent_start = src.concurrent_start();
      write_run(w, run, traced);
    } else if (kind == 'K') {  // a shrink (isolated_shrink)
      std::vector<std::uint64_t> choices = r.u64s();
      std::vector<Source::Span> spans = read_spans(r);
      const std::size_t mark = static_cast<std::size_t>(r.u64());
      ShrinkBudget budget;
      budget.max_tries = r.u64();
      budget.max_time = std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(r.u64()));
      std::map<std::vector<std::uint64_t>, Replayed, ChoicesLess> deaths;  // candidates that killed an earlier child
      for (std::uint64_t n = r.u64(); n > 0; --n) {
        std::vector<std::uint64_t> candidate = r.u64s();
        Replayed dead;
        dead.fails = true;
        dead.consumed = r.u64s();
        dead.spans = read_spans(r);
        dead.concurrent_start = static_cast<std::size_t>(r.u64());
        deaths[std::move(candidate)] = std::move(dead);
      }
      const ShrinkOutcome so = shrink(
          std::move(choices), std::move(spans),
          [&](const std::vector<std::uint64_t>& c) {
            if (auto it = deaths.find(c); it != deaths.end()) return it->second;
            Isolation::shrink_tried(c);
            return replay(c);
          },
          budget, mark,
          [](const std::vector<std::uint64_t>& c, const std::vector<Source::Span>& sp, std::size_t m) {
            Isolation::shrink_kept(c, sp, m);
          });
      w.u64s(so.choices);
      w.u64(so.accepted);
      w.u64(so.tried);
      w.u64(static_cast<std::uint64_t>(so.stop));
      const auto seen = seen_failures.find(so.choices);
      w.boolean(seen != seen_failures.end());
      if (seen != seen_failures.end()) {
        write_trace(w, seen->second.trace);
        CaseOutcome o;
        o.kind = CaseOutcome::Kind::fail;
        o.message = seen->second.message;
        o.failing_step = seen->second.failing_step;
        o.commands = seen->second.commands;
        write_outcome(w, o);
      }
    } else {  // 'S': the search
      const std::int64_t start_ns = static_cast<std::int64_t>(r.u64());
      const Clock::time_point start{std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(start_ns))};
      const SearchEnd end = search_loop(Isolation::child_counts(), start, nullptr);
      w.boolean(end.failed);
      w.u64(end.case_seed);
      w.str(end.abandon_reason);
      w.boolean(end.nothing_generated);
      w.str(p.coverage ? p.coverage() : std::string());
      if (end.failed) write_run(w, end.run, p.cheap_trace);
    }
    return w.take();
  }

  CheckResult single_case_passed(const CaseOutcome& o, Clock::time_point start) const {
    CheckResult r;
    r.status = CheckResult::Status::passed;
    r.name = s.name;
    r.cases = 1;
    r.commands = o.commands;
    r.trials = o.trials;
    r.overlapped_trials = o.overlapped;
    r.cpus = o.cpus;
    r.seconds = since(start);
    return r;
  }

  // A failure that depends on thread timing may need several tries to come back.
  Replayed replay(const std::vector<std::uint64_t>& choices) const {
    Replayed r;
    std::uint64_t trials = 0;
    for (int attempt = 0; attempt < std::max(1, p.execution->replay_attempts()); ++attempt) {
      CaseRun run = run_one(std::nullopt, choices, p.cheap_trace, false);
      trials += run.outcome.trials;
      r = {run.outcome.kind == CaseOutcome::Kind::fail, std::move(run.choices), std::move(run.spans), run.concurrent_start, trials};
      if (r.fails) {
        remember_failure(r.consumed, std::move(run.trace), run.outcome);
        break;
      }
    }
    return r;
  }

  // Failing runs' traces by their choices, for failures that may not come back when replayed
  // once more (thread timing). Keyed by choices: the shrinker may reject a failing candidate
  // (not smaller), which must not replace the trace of the case it kept.
  struct SeenFailure {
    Trace trace;  // front ends with cheap traces only
    std::string message;
    std::optional<Step> failing_step;
    std::uint64_t commands = 0;
    std::string death_output;  // isolation: what the dead child wrote last (a sanitizer's report)
  };
  void remember_failure(const std::vector<std::uint64_t>& choices, Trace trace, const CaseOutcome& o,
                        const std::optional<Death>& death = std::nullopt) const {
    if (seen_failures.size() >= 1024) seen_failures.clear();
    seen_failures[choices] =
        SeenFailure{std::move(trace), o.message, o.failing_step, o.commands, death ? death->output : std::string()};
  }
  mutable std::map<std::vector<std::uint64_t>, SeenFailure, ChoicesLess> seen_failures;

  // Fills the trace and the report text for a failing or erroring case.
  CheckResult finish(ReportData data, const std::vector<std::uint64_t>& choices, std::optional<std::uint64_t> seed_of_case,
                     std::uint64_t commands) const {
    ReplayRecord rec = record(data.cases, data.shrink_steps, choices, seed_of_case);
    rec.seed = data.seed;
    rec.trials = data.trials;  // the search's, so that the token's replay reads the same
    rec.overlapped = data.overlapped;
    rec.cpus = data.cpus;
    data.token = encode_token(rec);
    // Re-run for the trace. A failure that does not come back is reported as such.
    Trace trace;
    CaseOutcome o;
    for (int attempt = 0; attempt < std::max(1, p.execution->replay_attempts()); ++attempt) {
      if (monitor) monitor->start(data.token);
      CaseRun run = run_one(seed_of_case, choices, true, p.execution->exact_replay());
      if (monitor) monitor->stop();
      o = std::move(run.outcome);
      trace = std::move(run.trace);
      data.death_output = run.death ? run.death->output : std::string();
      data.died = run.death.has_value();
      data.replay_isolated = replay_isolated;
      if (!uneventful(o)) break;
    }
    const auto seen = seed_of_case ? seen_failures.end() : seen_failures.find(choices);
    if (p.execution->exact_replay() && seen != seen_failures.end() && !data.error) {
      // The replay must run exactly as the failing run did; where it did not, the test is
      // nondeterministic and the failure is no counterexample: say where, show it as seen.
      data.divergence = divergence(seen->second.trace, seen->second.message, trace, o);
      if (!data.divergence.empty()) {
        data.error = true;
        data.nondeterministic = true;
        data.message = seen->second.message;
        data.trace = seen->second.trace;
        return finish_result(std::move(data), commands);
      }
    }
    // A death no replay repeated still shows its last words (a sanitizer's report).
    if (uneventful(o) && seen != seen_failures.end() && data.death_output.empty())
      data.death_output = seen->second.death_output;
    if (uneventful(o) && p.cheap_trace && seen != seen_failures.end()) {
      // Thread timing: show the failing run seen for these very choices (the replay token
      // re-runs the program).
      trace = seen->second.trace;
      o.kind = CaseOutcome::Kind::fail;
      o.message = seen->second.message;
    }
    if (uneventful(o)) {
      data.nondeterministic = true;
      if (seen != seen_failures.end()) {
        // Show the failure as first seen: the steps before it as replayed (they agreed with
        // the model both times), then the failing step as it was observed.
        data.message = seen->second.message;
        if (seen->second.failing_step && seen->second.commands > 0) {
          trace.steps.resize(std::min<std::size_t>(trace.steps.size(), seen->second.commands - 1));
          trace.steps.push_back(*seen->second.failing_step);
          trace.failed = true;
          data.first_seen = true;
        }
      }
    } else {
      data.message = o.message;
    }
    data.trace = std::move(trace);
    if (!data.error && data.trace.no_draft.empty()) {
      try {
        data.draft_path = write_draft_test(data, s.output_dir);
      } catch (const std::exception& e) {
        data.draft_error = e.what();
      }
    }
    return finish_result(std::move(data), commands);
  }

  CheckResult finish_result(ReportData data, std::uint64_t commands) const {
    CheckResult r;
    r.status = data.error ? CheckResult::Status::error : CheckResult::Status::failed;
    r.name = data.name;
    r.seed = data.seed;
    r.cases = data.cases;
    r.discarded = data.rejected;
    r.commands = commands;
    r.shrink_steps = data.shrink_steps;
    r.shrink_tries = data.shrink_tries;
    r.shrink_end = data.shrink_end;
    r.failing_length = data.trace.diagram.empty() ? data.trace.steps.size() : y_calls(data.trace);
    r.replay_token = data.token;
    r.draft_path = data.draft_path;
    r.report = format_report(data);
    return r;
  }

  /// Why a token cannot be replayed by this check (empty: it can). `from`: where it came from.
  std::string refusal(const ReplayRecord& rec, const std::string& from, bool regression) const {
    if (rec.spec_id == p.spec_id) return {};
    // Tokens of parallel checks name their executor (sequential ones, and older tokens, none).
    std::string by = "another test";
    if (!rec.executor.empty()) by = (rec.executor != p.execution->name() ? "a check on " : "another test on ") + rec.executor;
    return "the token in " + from + " was recorded by " + by + ", not by " + s.name +
           (p.execution->name() == "sequential" ? std::string() : " on " + p.execution->name()) +
           (regression ? " (move the file to that test's directory, or delete it)" : " (run only that test, e.g. with --gtest_filter)");
  }

  /// Replays a token. `from`: where it came from, for errors ("DUET_REPLAY or --duet_replay", a
  /// file); `label`: what the one line of its outcome calls it ("DUET_REPLAY"). A regression
  /// case that passes prints nothing (the caller sums them up).
  CheckResult replay_token(const std::string& token, const std::string& from, const std::string& label,
                           bool regression = false) {
    ReplayRecord rec;
    try {
      rec = decode_token(token);
    } catch (const std::invalid_argument& e) {
      return nothing_tested(s.name, std::string(e.what()) + " (from " + from + ")");
    }
    if (std::string why = refusal(rec, from, regression); !why.empty()) return nothing_tested(s.name, why);
    // Generate under the settings the case was recorded with, whatever the current ones; the
    // random cases after a regression case go back to the run's own.
    const CaseParams before = params;
    struct Restore {
      CaseParams& params;
      CaseParams before;
      ~Restore() { params = before; }
    } restore{params, before};
    params.max_length = static_cast<std::size_t>(rec.max_length);
    params.continue_odds = rec.continue_odds;
    if (monitor) monitor->crash.set_header(record(0, 0, {}, std::nullopt));
    const auto start = Clock::now();
    ReplayRuns runs = replay_runs(rec, token);
    const CaseOutcome& o = runs.last.outcome;
    if (uneventful(o)) {
      replay_summary = "replayed " + label + ": passed, the failure did not come back in " + runs.text();
      if (!regression && s.verbose >= 0 && !p.expect_failure)
        std::fprintf(stdout, "duet: %s: %s (fixed, or the test is nondeterministic)\n", s.name.c_str(), replay_summary.c_str());
      return runs.counted(single_case_passed(o, start));
    }
    if (o.kind == CaseOutcome::Kind::fail) remember_failure(runs.last.choices, std::move(runs.last.trace), o);
    replay_summary = "replayed " + label + ": " +
                     (o.kind == CaseOutcome::Kind::error ? std::string("ended in an error") : std::string("failed as recorded")) +
                     (runs.trials > 0 ? ", on its " + ordinal(runs.trials) + " trial" : std::string()) +
                     (runs.attempts > 1 ? ", in " + plural(runs.attempts, "replay", "replays") : std::string());
    ReportData data;
    data.name = s.name;
    data.error = o.kind == CaseOutcome::Kind::error;
    data.seed = rec.seed;
    data.cases = rec.cases;
    data.shrink_steps = rec.shrink_steps;
    // The header reads as the recorded run's; tokens that did not record its trials (sequential
    // ones, older ones) show the replay's. The replay's own counts are on the line "replayed:".
    const bool recorded = !rec.executor.empty();
    data.trials = recorded ? rec.trials : runs.trials;
    data.overlapped = recorded ? rec.overlapped : runs.overlapped;
    data.cpus = recorded ? rec.cpus : runs.cpus;
    data.replayed = true;
    data.replay_outcome = replay_summary;
    data.from_bytes = rec.cases == 0;  // a search fails after 1 case or more: 0 marks a fuzzer's input
    data.search_seconds = since(start);
    CheckResult r = finish(std::move(data), rec.choices, rec.case_seed, o.commands);
    r.seconds = since(start);
    return runs.counted(std::move(r));
  }

  /// The runs of a replayed token: on threads a failure may take several runs of the program to
  /// come back, as in shrinking.
  struct ReplayRuns {
    CaseRun last;
    std::uint64_t attempts = 0, trials = 0, overlapped = 0, cpus = 0;
    // "1 replay", "20 replays, 4000 trials, 61% with overlapping branches, branches on 2 CPUs"
    std::string text() const {
      return plural(attempts, "replay", "replays") + (trials == 0 ? std::string()
                                                      : cpus > 0  ? ", " + overlap_text(trials, overlapped, cpus)
                                                                  : ", " + plural(trials, "trial", "trials"));
    }
    // A replay's result counts the replay's own runs, not the recorded search's.
    CheckResult counted(CheckResult r) const {
      r.cases = attempts;
      r.trials = trials;
      r.overlapped_trials = overlapped;
      r.cpus = cpus;
      return r;
    }
  };
  ReplayRuns replay_runs(const ReplayRecord& rec, const std::string& token) const {
    ReplayRuns runs;
    while (runs.attempts < static_cast<std::uint64_t>(std::max(1, p.execution->replay_attempts()))) {
      if (monitor) monitor->start(token);
      runs.last = run_one(rec.case_seed, rec.choices, p.cheap_trace, false);
      if (monitor) monitor->stop();
      ++runs.attempts;
      runs.trials += runs.last.outcome.trials;
      runs.overlapped += runs.last.outcome.overlapped;
      runs.cpus = std::max(runs.cpus, runs.last.outcome.cpus);
      if (!uneventful(runs.last.outcome)) break;
    }
    return runs;
  }

  // The first failure of a run: shrink it (unless the spec could not run at all) and report.
  CheckResult shrink_and_report(ReportData data, const CaseRun& failed_case, std::optional<std::uint64_t> seed_of_case,
                                std::uint64_t commands, Clock::time_point start) const {
    data.search_seconds = since(start);
    const std::vector<std::uint64_t>& original = failed_case.choices;
    if (data.error) return finish(std::move(data), seed_of_case ? std::vector<std::uint64_t>{} : original, seed_of_case, commands);
    const auto shrink_start = Clock::now();
    const std::string original_token = encode_token(record(data.cases, 0, original, std::nullopt));
    ShrinkBudget budget;
    budget.max_tries = s.shrink_steps;
    budget.max_time = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s.shrink_time));
    // The case must fail again on replay before shrinking means anything; finish() reports a
    // failure that does not come back as nondeterministic.
    std::vector<std::uint64_t> best = original;
    if (monitor) monitor->start(original_token);
    const Replayed first_replay = replay(original);
    const bool reproduces = first_replay.fails;
    data.replay_trials = first_replay.trials;
    if (monitor) monitor->stop();
    data.shrink_time_budget = s.shrink_time;
    data.shrink_step_budget = s.shrink_steps;
    data.replays_tried = std::max(1, p.execution->replay_attempts());
    data.shrink_end = CheckResult::ShrinkEnd::not_reproduced;
    if (reproduces) {
      Progress progress(s.name, s.verbose);
      std::uint64_t replays = 0, failing = 0;
      std::size_t smallest = original.size();
      // Each replay is watched as a case of its own: a shrink may take longer than one case may.
      ShrinkOutcome so = iso ? isolated_shrink(original, failed_case.spans, failed_case.concurrent_start, budget, progress)
                             : shrink(
          original, failed_case.spans,
          [&](const auto& c) {
            if (monitor) monitor->start(original_token);
            Replayed r = replay(c);
            if (monitor) monitor->stop();
            ++replays;
            if (r.fails) {
              ++failing;
              smallest = std::min(smallest, r.consumed.size());
            }
            if (progress.due())
              progress.print("shrinking", std::to_string(replays) + " replays (" + std::to_string(failing) +
                                              " still failing), smallest failing case " + std::to_string(smallest) +
                                              " choices (from " + std::to_string(original.size()) + "), " +
                                              progress.elapsed(s.shrink_time));
            return r;
          },
          budget, failed_case.concurrent_start);
      best = std::move(so.choices);
      data.shrink_steps = so.accepted;
      data.shrink_tries = so.tried;
      data.shrink_end = so.stop == ShrinkStop::fixed_point  ? CheckResult::ShrinkEnd::fixed_point
                        : so.stop == ShrinkStop::step_budget ? CheckResult::ShrinkEnd::step_budget
                                                             : CheckResult::ShrinkEnd::time_budget;
    }
    data.shrink_seconds = since(shrink_start);
    CheckResult r = finish(std::move(data), best, {}, commands);
    r.seconds = since(start);
    return r;
  }

  // One case from raw bytes (a fuzzer's input). Running out of bytes is not a failure.
  // `replayed`: what a file's bytes replayed (DUET_REPLAY_FILE, a regression case) are called
  // in the one line of their outcome; such bytes are no valid input when they checked nothing.
  CheckResult bytes_case(std::span<const std::uint8_t> bytes, const std::string* replayed = nullptr, bool quiet = false) {
    const auto start = Clock::now();
    const std::string input(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    if (monitor) monitor->start("(the fuzzer's current input)");
    CaseRun run = run_one(std::nullopt, {}, p.cheap_trace, false, &input);
    if (monitor) monitor->stop();
    const CaseOutcome& o = run.outcome;
    const std::string what =
        replayed ? "replayed " + *replayed + " (" + plural(bytes.size(), "byte", "bytes") + ", a fuzzer's input)" : std::string();
    if (replayed && uneventful(o) && (o.kind != CaseOutcome::Kind::pass || o.commands == 0)) {
      const std::string why = o.kind == CaseOutcome::Kind::overrun     ? "its bytes ran out before the case ended"
                              : o.kind == CaseOutcome::Kind::abandoned ? "the case was abandoned (" + o.message + ")"
                                                                       : "it gives no command";
      return nothing_tested(s.name, what + ": not a valid input for this check: " + why);
    }
    if (uneventful(o)) {
      if (replayed) replay_summary = what + ": passed, " + plural(o.commands, "command", "commands") + " checked";
      if (replayed && !quiet && s.verbose >= 0 && !p.expect_failure)
        std::fprintf(stdout, "duet: %s: %s\n", s.name.c_str(), replay_summary.c_str());
      return single_case_passed(o, start);
    }
    if (o.kind == CaseOutcome::Kind::fail) remember_failure(run.choices, std::move(run.trace), o);
    ReportData data;
    data.name = s.name;
    data.from_bytes = true;
    data.cases = 0;  // no seeded case: its token says so (0 cases), and so does its replay's report
    data.attempts = o.attempts;
    data.rejected = o.rejected;
    data.trials = o.trials;
    data.overlapped = o.overlapped;
    data.cpus = o.cpus;
    data.error = o.kind == CaseOutcome::Kind::error;
    if (replayed) {
      replay_summary = what + ": " + (data.error ? "ended in an error" : "failed");
      data.replay_outcome = replay_summary;
    }
    return shrink_and_report(std::move(data), run, std::nullopt, o.commands, start);
  }

  /// Why a fuzzer's input in `path` cannot be replayed by this check (empty: it can).
  std::string bytes_refusal(const std::string& path) const {
    if (p.execution->name() != "threads") return {};
    return path + " holds a fuzzer's input (raw bytes), and " + s.name +
           " runs on threads, where the outcome follows the timing, not the bytes: a fuzzer's input replays on "
           "sequential checks and on fibers only";
  }

  /// DUET_REPLAY_FILE: a token, or a fuzzer's input run as the choice stream.
  CheckResult replay_file() {
    CaseFile f;
    try {
      f = read_case_file(s.replay_file);
    } catch (const std::invalid_argument& e) {
      return nothing_tested(s.name, std::string("DUET_REPLAY_FILE: ") + e.what());
    }
    const std::string label = "DUET_REPLAY_FILE=" + s.replay_file;
    if (f.is_token) return replay_token(f.token, s.replay_file, label);
    if (std::string why = bytes_refusal(s.replay_file); !why.empty()) return nothing_tested(s.name, "DUET_REPLAY_FILE: " + why);
    return bytes_case(std::span(reinterpret_cast<const std::uint8_t*>(f.bytes.data()), f.bytes.size()), &label);
  }

  /// One regression case; nullopt when it is not this check's: another executor's, in the
  /// directory the older layout shared between executors.
  std::optional<CheckResult> regression_case(const RegressionFile& file, const CaseFile& f) {
    const std::string label = "the regression case " + file.path;
    if (f.is_token) {
      if (file.shared) {
        try {
          if (!refusal(decode_token(f.token), file.path, true).empty()) return std::nullopt;
        } catch (const std::invalid_argument&) {
          // replay_token says what is wrong with it
        }
      }
      return replay_token(f.token, "regression case " + file.path, label, true);
    }
    if (std::string why = bytes_refusal(file.path); !why.empty()) {
      if (file.shared) return std::nullopt;
      return nothing_tested(s.name, "regression case " + why);
    }
    CheckResult r = bytes_case(std::span(reinterpret_cast<const std::uint8_t*>(f.bytes.data()), f.bytes.size()), &label, true);
    // A fuzzer's input in the shared directory may be another executor's (its bytes mean another program).
    if (file.shared && r.status == CheckResult::Status::error && r.replay_token.empty()) return std::nullopt;
    return r;
  }

  /// The regression cases under DUET_REGRESSIONS, before any random case: the first that fails
  /// (or cannot be read) is the check's result; none: nullopt, and the search goes on, after a
  /// line saying how many passed.
  std::optional<CheckResult> regressions() {
    std::vector<RegressionFile> files;
    try {
      files = regression_files(s.regressions, s.name, p.execution->name());
    } catch (const std::invalid_argument& e) {
      return nothing_tested(s.name, e.what());
    }
    std::uint64_t passed = 0, skipped = 0;
    for (const RegressionFile& file : files) {
      CaseFile f;
      try {
        f = read_case_file(file.path);
      } catch (const std::invalid_argument& e) {
        return nothing_tested(s.name, std::string("regression case: ") + e.what());
      }
      std::optional<CheckResult> r = regression_case(file, f);
      if (!r) {
        ++skipped;
        continue;
      }
      if (r->status == CheckResult::Status::passed) {
        ++passed;
        continue;
      }
      r->report = "duet: " + s.name + ": the regression case " + file.path + " " +
                  (r->status == CheckResult::Status::failed ? "fails again" : "cannot run") + ":\n" + r->report;
      return r;
    }
    replay_summary.clear();  // the search decides the check
    if (!files.empty() && s.verbose >= 0)
      std::fprintf(stdout, "duet: %s: %s passed%s\n", s.name.c_str(), plural(passed, "regression case", "regression cases").c_str(),
                   skipped == 0 ? ""
                                : (", " + std::to_string(skipped) + " of the shared directory skipped (another executor's)").c_str());
    return std::nullopt;
  }

  /// The search: cases from the run's seed until a budget runs out or one fails. Counts go
  /// to `c` (in shared memory under isolation, where this runs in the child).
  SearchEnd search_loop(SearchCounts& c, Clock::time_point start, Progress* progress) const {
    SearchEnd end;
    Source src = Source::from_seed(0);
    const bool in_child = Isolation::in_child();
    for (std::uint64_t i = c.cases;; ++i) {
      if (i >= s.count) break;
      if (s.time > 0 && since(start) >= s.time) break;
      if (!s.budget_given && p.max_overlapped_trials > 0 && c.overlapped >= p.max_overlapped_trials) break;
      const std::uint64_t seed = case_seed(s, i);
      src.restart(seed);
      c.cases = i + 1;
      if (monitor) monitor->start_seeded(i, seed);
      if (in_child) Isolation::begin_case(src);
      Trace scratch;
      CaseOutcome o = run(src, p.cheap_trace ? &scratch : nullptr);
      if (in_child) Isolation::end_case();
      if (monitor) monitor->stop();
      c.commands += o.commands;
      c.trials += o.trials;
      c.overlapped += o.overlapped;
      c.cpus = std::max(c.cpus, o.cpus);
      c.attempts += o.attempts;
      c.rejected += o.rejected;
      c.overruns += o.kind == CaseOutcome::Kind::overrun;
      c.busy += o.commands > 0;
      if (o.kind == CaseOutcome::Kind::abandoned) {
        ++c.abandoned;
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
        return end;
      }
      if (c.commands == 0 && c.rejected >= 1000) {
        end.nothing_generated = true;
        return end;
      }
      if (p.covered && p.covered()) break;
      if (progress && progress->due()) print_progress(*progress, c);
    }
    return end;
  }

  void print_progress(Progress& progress, const SearchCounts& c) const {
    // Parallel runs count programs and the trials that ran them; sequential ones, cases.
    const double t = std::max(progress.seconds(), 1e-9);
    const std::string rate = printf_string("%.0f %s/s", static_cast<double>(c.trials > 0 ? c.trials : c.cases) / t,
                                           c.trials > 0 ? "trials" : "cases");
    std::string what = std::to_string(c.cases) + (c.trials > 0 ? " programs, " + std::to_string(c.trials) + " trials" : " cases");
    if (s.count != ~std::uint64_t{0}) what += " of " + std::to_string(s.count);
    progress.print("searching", what + ", " + progress.elapsed(s.time) + ", " + rate + (iso ? ", in a child process" : ""));
  }

  /// The search in the child: the parent shows progress and watches for hangs meanwhile.
  SearchEnd isolated_search(Clock::time_point start, Progress& progress) const {
    iso->reset_counts();
    WireWriter w;
    w.u64('S');
    w.u64(static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(start.time_since_epoch()).count()));
    std::optional<std::string> answer = iso->call(w.bytes(), [&] {
      if (progress.due()) print_progress(progress, iso->counts());
    });
    SearchEnd end;
    if (!answer) {  // the child died in a case (or between two)
      end.failed = true;
      end.case_seed = case_seed(s, iso->counts().cases - 1);
      end.run = died(false);
      return end;
    }
    WireReader r(*answer);
    end.failed = r.boolean();
    end.case_seed = r.u64();
    end.abandon_reason = r.str();
    end.nothing_generated = r.boolean();
    end.coverage = r.str();
    if (end.failed) end.run = read_run(r, p.cheap_trace);
    return end;
  }

  CheckResult search() const {
    const auto start = Clock::now();
    Progress progress(s.name, s.verbose);
    SearchCounts local;
    SearchEnd end = iso ? isolated_search(start, progress) : search_loop(local, start, &progress);
    const SearchCounts c = iso ? iso->counts() : local;
    const std::string& abandon_reason = end.abandon_reason;
    if (end.failed) {
      CaseRun& failing = end.run;
      if (failing.outcome.kind == CaseOutcome::Kind::fail)
        remember_failure(failing.choices, std::move(failing.trace), failing.outcome, failing.death);
      ReportData data;
      data.name = s.name;
      data.seed = s.seed;
      data.cases = c.cases;
      data.attempts = c.attempts;
      data.rejected = c.rejected;
      data.error = failing.outcome.kind == CaseOutcome::Kind::error;
      data.trials = c.trials;
      data.overlapped = c.overlapped;
      data.cpus = c.cpus;
      if (data.error && failing.death)  // the child died outside any case: nothing to replay
        return nothing_tested(s.name, failing.outcome.message + (failing.death->output.empty() ? "" : "\n" + failing.death->output));
      // A case the child died in is shrunk from its recorded choices: its seed cannot be replayed
      // here without running it in this process.
      CheckResult r = shrink_and_report(std::move(data), failing, failing.death ? std::nullopt : std::optional(end.case_seed),
                                        c.commands, start);
      r.trials = c.trials;
      r.overlapped_trials = c.overlapped;
      r.cpus = c.cpus;
      return r;
    }
    if (end.nothing_generated)
      return nothing_tested(s.name, "the spec cannot generate any command: all " + std::to_string(c.rejected) +
                                      " attempts so far were rejected by its precondition or a filter");
    const double t = since(start);
    const std::uint64_t i = c.cases;
    if (c.abandoned > 0 && c.abandoned == c.busy)
      return nothing_tested(s.name, "every scenario was abandoned (" + abandon_reason + "); nothing was checked");
    if (i > 0 && c.overruns == i)
      return nothing_tested(s.name, "every case ran out of input bytes before finishing; nothing was checked");
    if (c.commands == 0 && (c.rejected > 0 || i >= 50))
      return nothing_tested(s.name, "the spec generated no command in " + std::to_string(i) + " cases (" +
                                      std::to_string(c.rejected) + " attempts rejected)");
    if (i == 0) return nothing_tested(s.name, "no case ran (DUET_COUNT=0 or DUET_TIME too small)");
    CheckResult r;
    r.status = CheckResult::Status::passed;
    r.name = s.name;
    r.seed = s.seed;
    r.cases = i;
    r.commands = c.commands;
    r.trials = c.trials;
    r.overlapped_trials = c.overlapped;
    r.cpus = c.cpus;
    r.discarded = c.rejected;
    r.seconds = t;
    if (iso) r.coverage = end.coverage;
    else if (p.coverage) r.coverage = p.coverage();
    if (!p.domain.empty()) r.coverage += (r.coverage.empty() ? "" : "; ") + ("the calls drew " + p.domain);
    if (!iso && !p.expect_failure)
      if (std::string why = p.execution->unexercised(); !why.empty()) return nothing_tested(s.name, why);
    // A parallel check on threads whose branches (almost) never ran at once could not have
    // seen a race: not a pass.
    if (p.execution->needs_overlap() && !p.expect_failure && too_little_overlap(c.trials, c.overlapped))
      return inconclusive(r, overlap_text(c.trials, c.overlapped, c.cpus));
    if (s.verbose >= 0 && !p.expect_failure) {  // a negative test says its own verdict
      std::string abandoned_text;
      if (c.abandoned > 0) abandoned_text = ", " + std::to_string(c.abandoned) + " abandoned (" + abandon_reason + ")";
      if (c.trials > 0) abandoned_text += ", " + overlap_text(c.trials, c.overlapped, c.cpus);
      if (iso) abandoned_text += ", in a child process";
      std::fprintf(stdout, "duet: %s: %s passed, %s, %.1f%% discarded%s, %.2f s (seed 0x%016llx)\n", s.name.c_str(),
                   (c.trials > 0 ? plural(i, "program", "programs") : plural(i, "case", "cases")).c_str(),
                   plural(c.commands, "command", "commands").c_str(),
                   c.attempts ? 100.0 * static_cast<double>(c.rejected) / static_cast<double>(c.attempts) : 0.0,
                   abandoned_text.c_str(), t, static_cast<unsigned long long>(s.seed));
      if (!r.coverage.empty()) std::fprintf(stdout, "duet: %s: %s\n", s.name.c_str(), r.coverage.c_str());
    }
    return r;
  }
};

// A negative test's verdict: the counterexample is the pass (its report kept as information,
// and a pass line like any other check's), none found is the failure.
// `replayed`: the replay's outcome in words, when the check replayed a case instead of searching.
CheckResult expected_failure_verdict(CheckResult r, const Settings& s, const Property& p, const std::string& replayed) {
  if (!replayed.empty() && r.status == CheckResult::Status::passed) {
    r.status = CheckResult::Status::failed;
    r.report = "duet: " + r.name + ": expected a counterexample (unsafe under concurrency): " + replayed +
               " (fixed, or the test is nondeterministic)\n";
    return r;
  }
  if (r.status == CheckResult::Status::failed) {
    r.status = CheckResult::Status::passed;
    const std::string found = "duet: " + r.name + ": unsafe, as expected: " +
                              (!replayed.empty() ? replayed
                                                 : "a counterexample after " + plural(r.cases, "program", "programs") + ", " +
                                                       overlap_text(r.trials, r.overlapped_trials, r.cpus));
    r.report = found + "\n" + r.report;
    if (s.verbose >= 0) std::fprintf(stdout, "%s (%zu calls; the report is in CheckResult::report, or DUET_VERBOSE=1)\n", found.c_str(), r.failing_length);
  } else if (r.status == CheckResult::Status::passed) {
    r.status = CheckResult::Status::failed;
    char seed[32];
    std::snprintf(seed, sizeof seed, "0x%016llx", static_cast<unsigned long long>(r.seed));
    r.report = "duet: " + r.name + ": expected a counterexample (unsafe under concurrency), found none in " +
               plural(r.cases, "program", "programs") + ", " + overlap_text(r.trials, r.overlapped_trials, r.cpus) +
               " (seed " + seed + ")" +
               (!s.budget_given && p.max_overlapped_trials > 0 && r.overlapped_trials >= p.max_overlapped_trials
                    ? "; the default budget ends after " + plural(p.max_overlapped_trials, "trial", "trials") +
                          " with overlapping branches: give it a time (DUET_TIME) to go on\n"
                    : "; give it more time (DUET_TIME) or more trials\n");
    if (r.trials > 0 && too_little_overlap(r.trials, r.overlapped_trials))
      r.report += "  The branches (almost) never ran at once: give the check at least as many free CPUs as branches.\n";
    if (!p.domain.empty()) r.report += "  The calls drew " + p.domain + ".\n";
  }
  return r;
}

}  // namespace

CheckResult nothing_tested(const std::string& name, const std::string& why) {
  CheckResult r;
  r.status = CheckResult::Status::error;
  r.name = name;
  r.report = "duet: " + name + ": error: " + why + "\n  nothing was tested\n";
  return r;
}

void set_assertion_capture(AssertionCaptureFactory factory) { capture_factory.store(factory); }
AssertionCaptureFactory assertion_capture() { return capture_factory.load(); }

CheckResult run_property(const Property& p, const Config& config, std::optional<std::span<const std::uint8_t>> bytes) {
  Runner runner(p);
  try {
    runner.s = resolve(config, p.name, p.default_time, p.execution->isolate_by_default());
    runner.replay_isolated = config.isolate.value_or(p.execution->isolate_by_default());
  } catch (const std::invalid_argument& e) {
    return nothing_tested(config.name ? *config.name : p.name, std::string("bad setting: ") + e.what());
  }
  const Settings& s = runner.s;
  runner.params.max_length = s.max_length;
  runner.params.continue_odds = static_cast<std::uint64_t>(s.mean_length + 0.5);
  runner.params.search_seconds = s.case_timeout / 2;
  std::unique_ptr<AssertionCapture> capture;
  if (auto factory = assertion_capture()) capture = factory();
  runner.params.capture = capture.get();
  // No watchdog thread where it has nothing to watch: a fuzzer watches its inputs for hangs itself
  // (-timeout), and under isolation the parent runs no case. There a thread of the parent starting
  // up while the child is forked would also leave the child a lock it can never take (glibc's
  // thread-stack cache, a sanitizer's registry): its own first thread would wait forever.
  Monitor monitor(s.name, bytes || s.isolate ? 0.0 : s.case_timeout);
  monitor.crash.set_header(runner.record(0, 0, {}, std::nullopt));
  monitor.watchdog.seed_token = [&runner](std::uint64_t case_seed, std::uint64_t index) {
    return encode_token(runner.record(index + 1, 0, {}, case_seed));
  };
  runner.monitor = &monitor;
  if (s.isolate && !bytes) {
    // The parent runs no case: the child does, watched by Isolation instead of the monitor.
    runner.monitor = nullptr;
    try {
      runner.iso = std::make_unique<Isolation>([&runner](const std::string& request) { return runner.serve(request); },
                                               [execution = p.execution] { execution->in_child(); }, s.case_timeout);
    } catch (const std::exception& e) {
      return nothing_tested(s.name, e.what());
    }
  }
  // Whatever way the check ends, what it changed for its run is put back (the caller's CPU
  // affinity, say).
  struct AfterCheck {
    const Property& p;
    ~AfterCheck() {
      p.execution->after_check();
    }
  } after_check{p};
  CheckResult r;
  try {
    bool found = false;  // a new failure, from a search or a fuzzer's input
    if (bytes) {
      r = runner.bytes_case(*bytes);
      found = true;
    } else if (!s.replay.empty()) {
      r = runner.replay_token(s.replay, "DUET_REPLAY or --duet_replay", "DUET_REPLAY");
    } else if (!s.replay_file.empty()) {
      r = runner.replay_file();
    } else {
      std::optional<CheckResult> regression = s.regressions.empty() ? std::nullopt : runner.regressions();
      found = !regression;
      r = regression ? std::move(*regression) : runner.search();
    }
    // A new failure becomes a regression case.
    if (found && !s.regressions.empty() && r.status == CheckResult::Status::failed && !r.replay_token.empty()) {
      try {
        r.report += "  saved:      " + save_regression(s.regressions, s.name, p.execution->name(), r.replay_token) + " (a regression case: commit it)\n";
      } catch (const std::exception& e) {
        r.report += "  saved:      no: " + std::string(e.what()) + "\n";
      }
    }
  } catch (const std::runtime_error& e) {  // isolation could not make or reach its child
    return nothing_tested(s.name, e.what());
  }
  r.seed = r.seed ? r.seed : s.seed;
  if (p.expect_failure && r.status != CheckResult::Status::error)
    r = expected_failure_verdict(std::move(r), s, p, runner.replay_summary);
  if ((r.status != CheckResult::Status::passed || p.expect_failure) && s.verbose >= 1) std::fputs(r.report.c_str(), stderr);
  return r;
}

}  // namespace duet::detail
