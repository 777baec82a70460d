// duet::fibers(): Y-program branches on the deterministic scheduler, with the strategies that
// choose each run's schedule.
#include "execute/fibers/executor.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <utility>

#include "duet/check_result.hpp"
#include "duet/config.hpp"
#include "duet/detail/trace.hpp"
#include "duet/detail/engine_signal.hpp"
#include "duet/source.hpp"
#include "execute/fibers/executor_totals.hpp"
#include "execute/fibers/strategies.hpp"  // ExplorerStats
#include "execute/fibers/instrumented.hpp"
#include "report/report.hpp"
#include "report/token.hpp"
#include "show/text.hpp"
#include "execute/fibers/determinism.hpp"
#include "execute/fibers/threads_outside.hpp"
#include "execute/fibers/runtime.hpp"
#include "execute/fibers/schedule_strategy.hpp"

#include "execute/fibers/sanitizers.hpp"
#include "execute/trial_process.hpp"


namespace duet {

Schedule random() { return {}; }
Schedule pct(std::size_t depth) { return {Schedule::Kind::pct, std::max<std::size_t>(depth, 1), 0}; }
Schedule exhaustive(std::size_t preemption_bound, std::size_t stale_reads) {
  return {Schedule::Kind::exhaustive, 0, preemption_bound, stale_reads};
}

std::ostream& operator<<(std::ostream& os, const Schedule& schedule) {
  switch (schedule.kind) {
    case Schedule::Kind::pct: return os << "duet::pct(" << schedule.depth << ")";
    case Schedule::Kind::exhaustive:
      if (schedule.preemption_bound == unbounded)
        return os << "duet::exhaustive(duet::unbounded, " << schedule.stale_reads << ")";
      return os << "duet::exhaustive(" << schedule.preemption_bound << ", " << schedule.stale_reads << ")";
    default: return os << "duet::random()";
  }
}

namespace detail {
FiberOptions with_environment(FiberOptions o);
}

std::shared_ptr<Executor> fibers(Schedule schedule, FiberOptions options) {
  return std::make_shared<detail::FiberExecutor>(schedule, detail::with_environment(std::move(options)));
}


namespace detail {

fiber::SchedulerConfig scheduler_config(const FiberOptions& o) {
  fiber::SchedulerConfig c;
  c.stack_size = o.stack_size;
  c.max_steps = o.max_steps;
  c.stall_seconds = o.stall_seconds;
  c.cpp_memory_model = o.memory_model == MemoryModel::cpp;
  return c;
}

// DUET_MEMORY_MODEL over the code's choice. An unknown value is an error, not a silent default.
MemoryModel memory_model_setting(MemoryModel code) {
  const char* v = std::getenv("DUET_MEMORY_MODEL");
  if (v == nullptr) return code;
  const std::string_view value = v;
  if (value == "sc") return MemoryModel::sc;
  if (value == "cpp") return MemoryModel::cpp;
  throw std::invalid_argument("duet: DUET_MEMORY_MODEL=" + excerpt(value) + " is neither sc nor cpp");
}

TrialProcesses trial_processes_setting(TrialProcesses code) {
  const char* v = std::getenv("DUET_TRIAL_PROCESSES");
  if (v == nullptr) return code;
  const std::string_view value = v;
  if (value == "automatic") return TrialProcesses::automatic;
  if (value == "always") return TrialProcesses::always;
  if (value == "never") return TrialProcesses::never;
  throw std::invalid_argument("duet: DUET_TRIAL_PROCESSES=" + excerpt(value) + " is none of automatic, always, never");
}

FiberOptions with_environment(FiberOptions o) {
  o.memory_model = memory_model_setting(o.memory_model);
  o.trial_processes = trial_processes_setting(o.trial_processes);
  return o;
}

namespace {
// A deadlock of fibers that each wait for a lock (duet's, so another fiber holds it) is the
// program's whatever else runs; one where a fiber waits for anything else (a condition, a
// futex, a join) may be waiting for a thread outside the run.
bool lock_cycle(const fiber::RunResult& r) {
  return !r.blocked.empty() && std::all_of(r.blocked.begin(), r.blocked.end(), [](const fiber::BlockedFiber& b) {
    return b.op.op == fiber::Op::lock || b.op.op == fiber::Op::lock_shared;
  });
}

// What a pass or a failure says of the libraries its runs called that were not instrumented;
// a data race or a stall also names the inline-assembly atomics compiled into the process, which
// the instrumentation cannot see (a process-wide fact: said where it may explain the failure).
std::string uninstrumented_note(const std::vector<const char*>& libraries, bool assembly_too = false) {
  auto list = [](const std::vector<const char*>& items) {
    std::string names;
    for (std::size_t i = 0; i < items.size(); ++i)
      names += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + std::string(items[i]);
    return names;
  };
  std::string note;
  if (!libraries.empty())
    note = "calls into " + list(libraries) +
           " ran uninstrumented: each call was a black box that synchronises with every other such call (its "
           "entry and its return one step each, `library#` in traces), and what it does inside was neither "
           "interleaved nor checked for races (docs/real-libraries.md)";
  if (const std::vector<const char*> assembly = assembly_too ? fiber::inline_assembly_noted() : std::vector<const char*>{};
      !assembly.empty())
    note += std::string(note.empty() ? "" : "; ") + "this process's instrumented code uses atomics in inline assembly (" +
            list(assembly) +
            "), which the instrumentation cannot see: they are no steps and order nothing, so what they "
            "publish may be reported as racing (docs/real-libraries.md)";
  return note;
}
}  // namespace

std::string schedule_text(std::span<const std::uint64_t> picks) {
  std::size_t n = picks.size();
  while (n > 0 && picks[n - 1] == 0) --n;
  std::string s;
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) s += '.';
    s += std::to_string(picks[i]);
  }
  return s;
}

std::vector<std::uint64_t> parse_schedule(std::string_view text) {
  std::vector<std::uint64_t> picks;
  auto bad = [&](const std::string& why) {
    return std::invalid_argument("duet::run_fibers: bad schedule " + excerpt(text) + ": " + why +
                                 " (a schedule is numbers separated by dots, like \"1.0.0.1\", as a draft test gives it)");
  };
  std::size_t i = 0;
  while (i < text.size()) {
    std::uint64_t v = 0;
    const std::size_t start = i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      v = v * 10 + static_cast<std::uint64_t>(text[i] - '0');
      if (v > fiber::kMaxFibers * 1024) throw bad("pick " + std::to_string(picks.size() + 1) + " is too large");
    }
    if (i == start) throw bad("expected a number at character " + std::to_string(i + 1));
    picks.push_back(v);
    if (i < text.size()) {
      if (text[i] != '.') throw bad("expected a dot between numbers at character " + std::to_string(i + 1));
      if (i + 1 == text.size())
        throw bad("it ends in a dot (character " + std::to_string(i + 1) + "): a number must follow it");
      ++i;
    }
  }
  return picks;
}

// The branches with FiberOptions::on_fiber_start / on_fiber_stop around each, or the branches
// themselves when there are no hooks (`storage` holds the wrapped ones).
const std::vector<std::function<void()>>& with_fiber_hooks(const std::vector<std::function<void()>>& branches,
                                                           const FiberOptions& options,
                                                           std::vector<std::function<void()>>& storage) {
  if (!options.on_fiber_start && !options.on_fiber_stop) return branches;
  storage.clear();
  for (const auto& branch : branches)
    storage.push_back([&branch, &options] {
      if (options.on_fiber_start) options.on_fiber_start();
      try {
        branch();
      } catch (...) {
        if (options.on_fiber_stop) options.on_fiber_stop();
        throw;
      }
      if (options.on_fiber_stop) options.on_fiber_stop();
    });
  return storage;
}

FiberExecutor::FiberExecutor(Schedule schedule, FiberOptions options)
    : schedule_(schedule),
      options_(std::move(options)),
      scheduler_(scheduler_config(options_)),
      strategy_(make_schedule_strategy(schedule, scheduler_)) {}

FiberExecutor::~FiberExecutor() = default;

std::size_t FiberExecutor::begin_program(std::span<const std::size_t> branch_lengths, std::size_t configured,
                                         const Source& src) {
  if (options_.trial_processes == TrialProcesses::always && schedule_.kind == Schedule::Kind::exhaustive)
    throw EngineError("FiberOptions::trial_processes = always: an exhaustive search keeps what it explored across "
                      "the trials of a program, in the process that runs them; it runs its trials there "
                      "(TrialProcesses::automatic or never)");
  if (options_.trial_processes == TrialProcesses::always && !forked_processes_start_threads())
    throw EngineError("FiberOptions::trial_processes = always: on this system a child process cannot start a "
                      "thread (an emulator, qemu-user 7.2, aborts it), and a trial's process starts the stall "
                      "watchdog's; the trials run in the check's process (TrialProcesses::automatic or never)");
  strategy_->begin_program(branch_lengths);
  return src.mode() == Source::Mode::random ? strategy_->trials(configured) : 1;
}

void FiberExecutor::begin_trial(Source& src) {
  trial_source_ = &src;
  before_error_ = fiber::begin_trial(options_.before_each_run);
}

void FiberExecutor::check_starts() {
  operations_at_check_start_ = operations_;
  subject_started_threads_ = false;
  first_trial_back_ = false;
  threads_left_to_process_ = false;
  taken_ = false;
  left_elsewhere_.clear();
  // A pass speaks of its own check's programs: an executor that another check used before (a
  // ParallelConfig shared by tests) starts its exhaustive search's totals afresh.
  strategy_ = make_schedule_strategy(schedule_, scheduler_);
}

void FiberExecutor::check_ends() { fiber::end_trial(); }

bool FiberExecutor::program_complete() const {
  const fiber::ExplorerStats* stats = strategy_->search_stats();
  return stats && stats->complete;
}

bool FiberExecutor::trial_passed(Source& src, std::size_t trial_start) {
  if (src.mode() == Source::Mode::random) src.truncate(trial_start);
  return strategy_->more();
}

std::string FiberExecutor::progress_unsupported(const Progress& p) const {
  if (fiber::ProgressMonitor::needs_episodes(p) && schedule_.kind == Schedule::Kind::exhaustive)
    return "obstruction- and lock-freedom are checked with duet::random() or duet::pct(depth) schedules, whose "
           "suspensions are drawn at random; an exhaustive search would not explore them (exhaustive checks "
           "wait-freedom alone)";
  auto bad = [](std::size_t bound) { return bound == 0; };
  bool zero = p.kind != Progress::Kind::none && bad(p.bound);
  for (const Progress::Override& o : p.ops) zero = zero || (o.kind != Progress::Kind::none && bad(o.bound));
  return zero ? "a progress guarantee's bound must be at least 1 step" : std::string();
}

void FiberExecutor::expect_progress(const Progress& p) {
  progress_.configure(p, schedule_.kind != Schedule::Kind::exhaustive);
  progress_on_ = p.stated();
  scheduler_.set_progress(progress_on_ ? &progress_ : nullptr);
}

void FiberExecutor::annotate(Trace& trace, std::span<const std::uint64_t> trial_choices) const {
  trace.interleaving = interleaving();
  trace.interleaving_columns = interleaving_columns();
  trace.interleaving_steps = fiber::interleaving_steps(scheduler_.trace());
  trace.clock_reads = scheduler_.clock_reads();
  trace.schedule = strategy_name();
  trace.fiber_schedule = schedule_text(trial_choices);
  trace.fiber_options = draft_options();
  const fiber::Outcome outcome = scheduler_.result().outcome;
  if (outcome == fiber::Outcome::progress)
    trace.no_draft = "duet::run_fibers does not suspend fibers as the progress check did: the replay token reproduces it";
  // A draft runs the prefix and suffix outside duet::run_fibers: it cannot replay a run with
  // steps of the trial's own fiber or of threads the subject started.
  const std::uint32_t main = scheduler_.result().trial_fiber;
  const auto& steps = scheduler_.trace();
  if (main != fiber::kNoFiber &&
      std::any_of(steps.begin(), steps.end(), [main](const fiber::TraceEvent& e) { return e.fiber >= main; }))
    trace.no_draft = "the run has steps of threads the subject started, or of its construction, prefix or suffix "
                     "among them, which duet::run_fibers does not replay: the replay token reproduces it";
  trace.uninstrumented = uninstrumented_note(scheduler_.result().libraries,
                                             outcome == fiber::Outcome::data_race || outcome == fiber::Outcome::limit);
}

void FiberExecutor::run(const std::vector<std::function<void()>>& branches) { run_on_fibers(branches, nullptr); }

// The parts around the branches run on the trial's own fiber (fiber::TrialFrame): the subject
// is made, used and destroyed within the run, and so are the threads it starts. It is kept
// for the next trial only when no fiber it started is left (those end with the run).
void FiberExecutor::run_whole_trial(Executor& executor, const std::vector<std::function<void()>>& branches,
                                    const TrialParts& parts) {
  if (&executor != this) {
    TrialDriver::run_whole_trial(executor, branches, parts);
    return;
  }
  const fiber::TrialFrame frame = hooked_frame(parts.setup, [&] {
    parts.suffix();
    parts.finish(!scheduler_.others_alive());
    if (judge_at_end_) judge_in_run();
  });
  run_on_fibers(branches, &frame);
}

void FiberExecutor::judge_in_run() {
  judge_source_ = Source::from_seed(0);
  judge_picker_.emplace(judge_source_, kSpuriousOneIn);
  scheduler_.begin_judging(*judge_picker_);
  judge_at_end_();
}

// The trial's fiber is a thread of the run too: FiberOptions' per-thread hooks around it.
fiber::TrialFrame FiberExecutor::hooked_frame(std::function<void()> setup, std::function<void()> teardown) const {
  return {[this, setup = std::move(setup)] {
            if (options_.on_fiber_start) options_.on_fiber_start();
            setup();
          },
          std::move(teardown), options_.on_fiber_stop};
}

void FiberExecutor::run_on_fibers(const std::vector<std::function<void()>>& branches, const fiber::TrialFrame* frame) {
  // Code run directly on the executor (not by the Y-program runner) still gets reproducible
  // schedules: run k of this executor draws from seed k.
  Source own = Source::from_seed(own_runs_++);
  Source& src = trial_source_ ? *trial_source_ : own;
  // A run of its own is a trial of its own, from the same state as every other.
  const bool own_trial = trial_source_ == nullptr;
  if (own_trial) before_error_ = fiber::begin_trial(options_.before_each_run);
  const struct EndOwnTrial {
    bool own;
    ~EndOwnTrial() {
      if (own) fiber::end_trial();
    }
  } end_own_trial{own_trial};
  trial_source_ = nullptr;
  if (!before_error_.empty()) throw ExecutorFailed{std::exchange(before_error_, {})};
  if (std::string outside = fiber::outside_threads_error(); !outside.empty()) throw ExecutorFailed{std::move(outside)};
  if (std::string earlier = fiber::earlier_outlived_error(); !earlier.empty()) throw ExecutorFailed{std::move(earlier)};
  std::vector<std::function<void()>> hooked;
  if (progress_on_) progress_.begin_run(src);
  fiber::Picker& picker = *strategy_->picker(src);
  scheduler_.set_harness_fences(strategy_->harness_fences());
  const auto& hooked_branches = with_fiber_hooks(branches, options_, hooked);
  const fiber::RunResult& r =
      frame != nullptr ? scheduler_.run(hooked_branches, picker, *frame) : scheduler_.run(hooked_branches, picker);
  strategy_->finish(r);
  if (r.fibers.size() > branches.size() + (frame != nullptr ? 1 : 0)) subject_started_threads_ = true;
  for (const char* library : r.libraries) add_library(library);
  left_with_process_ += r.left_with_process;
  // Every event but each fiber's start and (if it finished) its exit is an operation: counted
  // from the result, not by walking the trace.
  std::size_t bookends = 0;
  for (std::uint32_t i = 0; i < r.fibers.size(); ++i)
    if (i != r.trial_fiber) bookends += r.fibers[i].finished ? 2 : 1;  // the trial's fiber has none
  bool unfinished = false;  // threads left to a trial's process are not calls left unfinished
  for (const fiber::FiberResult& f : r.fibers) unfinished = unfinished || (!f.finished && r.left_with_process == 0);
  if (unfinished) ++left_unfinished_;
  operations_ += r.steps > bookends ? r.steps - bookends : 0;
  if (r.weak_order_used && !r.cpp_memory_model && !weak_order_noted_) {
    // Said once per executor (one per check as usually written), passing or not: a pass on
    // fibers says nothing about the reorderings a weaker order allows on real hardware.
    weak_order_noted_ = true;
    std::fprintf(stderr,
                 "duet: note: a memory order weaker than seq_cst was used (first at %s); with "
                 "MemoryModel::sc fiber runs execute every atomic operation as seq_cst, so the reorderings it "
                 "allows are not explored\n",
                 fiber::location(r.weak_order_loc).c_str());
  }
  if (scheduler_.judged() && r.outcome != fiber::Outcome::completed)
    throw ExecutorFailed{"the oracle (the candidate run alone, its calls one after another, in the trial's run "
                         "beside the threads the trial left) did not complete: " +
                         fiber::describe(r, scheduler_.trace())};
  if ((r.outcome == fiber::Outcome::deadlock && !lock_cycle(r)) || r.outcome == fiber::Outcome::livelock)
    if (std::string note = fiber::foreign_threads_note(); !note.empty())
      throw ScheduleFailed{fiber::describe(r, scheduler_.trace()) + "\n  " + note, true};
  if (r.outcome != fiber::Outcome::completed)
    throw ScheduleFailed{fiber::describe(r, scheduler_.trace()), r.outcome == fiber::Outcome::limit};
  // Branch functions given by the Y-program runner capture their calls' exceptions; one that
  // escapes anyway (user code run directly) is rethrown as on threads.
  for (const fiber::FiberResult& f : r.fibers)
    if (f.error) std::rethrow_exception(f.error);
}

std::string FiberExecutor::coverage() const {
  std::string c = strategy_->coverage();
  if (const std::string p = progress_.coverage(); !p.empty()) c = c.empty() ? p : c + "; " + p;
  const std::string note = uninstrumented_note(libraries_);
  if (note.empty()) return c;
  return c.empty() ? note : c + "; " + note;
}

std::string FiberExecutor::save_totals() const {
  return encode(CheckTotals{strategy_->save_totals(), progress_.totals(),
                            std::vector<std::string>(libraries_.begin(), libraries_.end()),
                            operations_ - operations_at_check_start_, left_unfinished_, first_trial_back_,
                            threads_left_to_process_, weak_order_noted_, threads_left()});
}

void FiberExecutor::add_totals(const std::string& saved) {
  CheckTotals t = decode<CheckTotals>(saved);
  strategy_->add_totals(t.strategy);
  progress_.add_totals(t.progress);
  for (std::string& library : t.libraries) add_library(named_elsewhere_.emplace_back(std::move(library)).c_str());
  operations_ += t.operations;
  left_unfinished_ += t.left_unfinished;
  first_trial_back_ = t.first_trial_back || first_trial_back_;
  threads_left_to_process_ = t.threads_left_to_process || threads_left_to_process_;
  weak_order_noted_ = t.weak_order_noted || weak_order_noted_;
  if (!t.threads_left.empty()) left_elsewhere_ = std::move(t.threads_left);
  // The other process ran the library, not this one: a failure found there needs the clean
  // child as if it had run here (engine/clean_child.hpp).
  if (!t.libraries.empty()) fiber::count_run_in_libraries();
}

void FiberExecutor::add_library(const char* library) {
  const auto same = [&](const char* known) { return std::string_view(library) == known; };
  if (std::find_if(libraries_.begin(), libraries_.end(), same) == libraries_.end()) libraries_.push_back(library);
}

std::string FiberExecutor::unexercised(std::uint64_t operations_before) const {
  if (operations_ > operations_before) return progress_on_ ? progress_.unexercised() : std::string();
  return "the fibers met no switch point in any run: the code under test has no operation the scheduler "
         "sees, so nothing was interleaved. Write it with duet/sync.hpp's types, or compile it with "
         "duet_instrument(<target>) (docs/instrumented.md)";
}

std::vector<std::string> FiberExecutor::interleaving() const { return fiber::format_trace(scheduler_.trace()); }

std::vector<std::string> FiberExecutor::interleaving_columns() const {
  const fiber::RunResult& r = scheduler_.result();
  // The trial's own fiber gets a column only when it has steps (format_trace_columns widens).
  return fiber::format_trace_columns(scheduler_.trace(), r.trial_fiber != fiber::kNoFiber ? r.trial_fiber : r.fibers.size(),
                                     100, r.trial_fiber);
}

std::string FiberExecutor::draft_options() const {
  const MemoryModel used = cpp_memory_model() ? MemoryModel::cpp : MemoryModel::sc;
  if (used == FiberOptions{}.memory_model) return {};
  return used == MemoryModel::cpp ? "{.memory_model = duet::MemoryModel::cpp}" : "{.memory_model = duet::MemoryModel::sc}";
}

std::string FiberExecutor::strategy_name() const { return schedule_name(schedule_); }

std::string FiberExecutor::execution() const {
  // The C++ model adds nothing: the tag, and so every token and regression directory of a
  // default fiber check, reads as it did before the model was recorded.
  return "fibers:" + strategy_name() + (cpp_memory_model() ? std::string() : std::string(kMemoryModelTag) + "sc");
}

void abandon(const void* p) noexcept {
#ifdef DUET_LSAN
  if (p) __lsan_ignore_object(p);
#else
  (void)p;
#endif
}

}  // namespace detail

FiberRun run_fibers(const std::vector<std::function<void()>>& branches, std::string_view schedule,
                    const FiberOptions& options) {
  if (detail::fiber::current() != nullptr) throw std::logic_error("duet::run_fibers: called from inside a fiber run");
  if (branches.empty() || branches.size() > detail::fiber::kMaxFibers)
    throw std::invalid_argument("duet::run_fibers: 1 to " + std::to_string(detail::fiber::kMaxFibers) + " branches (got " +
                                std::to_string(branches.size()) + ")");
  Source src = Source::replay(detail::parse_schedule(schedule));
  // The run starts from the state every trial of a check starts from.
  const std::string before_error = detail::fiber::begin_trial(options.before_each_run);
  const struct EndTrial {
    ~EndTrial() { detail::fiber::end_trial(); }
  } end_trial;
  if (!before_error.empty()) {
    FiberRun failed;
    failed.failure = before_error;
    return failed;
  }
  detail::fiber::Scheduler sched(detail::scheduler_config(options));
  detail::fiber::RandomPicker picker(src, detail::kSpuriousOneIn);
  std::vector<std::function<void()>> hooked;
  const detail::fiber::RunResult& r = sched.run(detail::with_fiber_hooks(branches, options, hooked), picker);
  FiberRun run;
  run.completed = r.outcome == detail::fiber::Outcome::completed;
  run.interleaving = detail::fiber::format_trace(sched.trace());
  if (!run.completed) {
    run.failure = detail::fiber::describe(r, sched.trace());
    return run;
  }
  for (const detail::fiber::FiberResult& f : r.fibers)
    if (f.error) std::rethrow_exception(f.error);
  return run;
}

}  // namespace duet
