// duet::run's engine half (duet/async.hpp): a scheduler run per root task, its outcome as the
// exception duet::run throws, its trace for a report, and coroutine frames a failed run leaves.
#include <optional>
#include <span>
#include <string>

#include "async/run_search.hpp"
#include "async/schedules.hpp"
#include "duet/async.hpp"
#include "duet/faults.hpp"
#include "execute/fibers/executor.hpp"
#include "execute/fibers/runtime.hpp"

#include "execute/fibers/sanitizers.hpp"
#ifdef DUET_LSAN
#include <unordered_set>
#endif

namespace duet::detail::async {

namespace {

fiber::SchedulerConfig scheduler_config(const AsyncOptions& o) {
  fiber::SchedulerConfig c;
  c.stack_size = o.stack_size;
  c.max_steps = o.max_steps;
  c.own_thread_locals = false;  // the async runtime's state is this thread's (t_scheduler...)
  c.cpp_memory_model = memory_model_setting(o.memory_model) == MemoryModel::cpp;
  return c;
}

// One scheduler per thread, kept: its stacks are reused run after run.
struct ThreadScheduler {
  std::unique_ptr<fiber::Scheduler> scheduler;
  std::size_t stack_size = 0, max_steps = 0;
  bool cpp_memory_model = false;
};
thread_local ThreadScheduler t_scheduler;

fiber::Scheduler& scheduler_for(const AsyncOptions& o) {
  ThreadScheduler& t = t_scheduler;
  const fiber::SchedulerConfig c = scheduler_config(o);
  if (!t.scheduler || t.stack_size != o.stack_size || t.max_steps != o.max_steps ||
      t.cpp_memory_model != c.cpp_memory_model) {
    t.scheduler = std::make_unique<fiber::Scheduler>(c);
    t.stack_size = o.stack_size;
    t.max_steps = o.max_steps;
    t.cpp_memory_model = c.cpp_memory_model;
  }
  return *t.scheduler;
}

// check_async's scheduler and strategy for the case under way (SchedulesScope), or null.
thread_local CheckSchedules* t_check_schedules = nullptr;

// The strategy of a run outside check_async, kept for the runs of one case: PCT learns the run
// length from the case's earlier runs, and starts over with the next case (the same seed gives
// the same schedules, whatever ran before on this thread).
struct RunStrategy {
  std::uint64_t case_serial = 0;
  Schedule schedule;
  std::unique_ptr<ScheduleStrategy> strategy;  // random or PCT: neither keeps the scheduler
};
thread_local RunStrategy t_run_strategy;

ScheduleStrategy& strategy_for(const AsyncOptions& o, const fiber::Scheduler& sched) {
  Schedule schedule = o.schedule;
  if (schedule.kind == Schedule::Kind::exhaustive) {
    if (!run_search_active())
      throw EngineError("duet::run: duet::exhaustive() searches every schedule of a run from the state before it, "
                        "which needs a check to execute again: duet::check_async, or a spec's commands in "
                        "check_sequential or Api::check; a duet::run outside them takes duet::random() or duet::pct()");
    schedule = random();  // a case search's other runs (searched_run gave the one it searches)
  }
  RunStrategy& t = t_run_strategy;
  const bool same_case = case_source() != nullptr && t.case_serial == case_serial();
  if (!t.strategy || !same_case || t.schedule.kind != schedule.kind || t.schedule.depth != schedule.depth) {
    t.strategy = make_schedule_strategy(schedule, sched);
    t.case_serial = case_serial();
    t.schedule = schedule;
  }
  return *t.strategy;
}

#ifdef DUET_LSAN
// Live coroutine frames: a run that ends without finishing leaves some on fibers that never
// resume; LeakSanitizer is told they are abandoned on purpose (and what they point to with them).
thread_local std::unordered_set<void*>* t_frames = nullptr;
std::unordered_set<void*>& frames() {
  if (!t_frames) t_frames = new std::unordered_set<void*>();  // lives as long as the thread's frames may
  return *t_frames;
}
#endif

void abandon_frames() noexcept {
#ifdef DUET_LSAN
  if (!t_frames) return;
  for (void* p : *t_frames) __lsan_ignore_object(p);
  t_frames->clear();
#endif
}

std::string waits_text(const fiber::RunResult& r) {
  std::string s;
  for (const fiber::BlockedFiber& b : r.blocked) {
    s += "\n  fiber " + std::to_string(b.fiber) + " waits in " + fiber::op_name(b.op.op);
    if (b.op.object != fiber::kNoObject)
      s += std::string(" ") + fiber::kind_name(b.op.kind) + "#" + std::to_string(b.op.object);
    s += " at " + fiber::location(b.op.loc);
  }
  return s;
}

void record_trace(const fiber::Scheduler& sched, duet::source_location loc, std::string& sink) {
  const fiber::RunResult& r = sched.result();
  sink += "duet::run at " + fiber::location(loc) + ": " + std::to_string(r.fibers.size()) +
          (r.fibers.size() == 1 ? " fiber, " : " fibers, ") + std::to_string(r.steps) + " steps";
  if (r.end_ns != r.start_ns)
    sink += ", virtual time " + fiber::duration_text(r.start_ns) + " to " + fiber::duration_text(r.end_ns);
  sink += '\n';
  for (const std::string& line : fiber::format_trace(sched.trace())) sink += "  " + line + "\n";
}

}  // namespace

CheckSchedules::CheckSchedules(const AsyncOptions& options)
    : scheduler(std::make_unique<fiber::Scheduler>(scheduler_config(options))),
      strategy(make_schedule_strategy(options.schedule, *scheduler)) {}

SchedulesScope::SchedulesScope(CheckSchedules& schedules) noexcept : previous_(t_check_schedules) {
  t_check_schedules = &schedules;
}
SchedulesScope::~SchedulesScope() { t_check_schedules = previous_; }

void* frame_alloc(std::size_t size) {
  void* p = ::operator new(size);
#ifdef DUET_LSAN
  frames().insert(p);
#endif
  return p;
}

void frame_free(void* p, std::size_t size) noexcept {
#ifdef DUET_LSAN
  if (t_frames) t_frames->erase(p);
#endif
#if defined(__cpp_sized_deallocation)
  ::operator delete(p, size);
#else  // Clang without -fsized-deallocation
  (void)size;
  ::operator delete(p);
#endif
}

fiber::Runtime& runtime_for(const char* what) {
  fiber::Runtime* rt = fiber::current();
  if (!rt) throw std::logic_error(std::string(what) + ": called outside duet::run (no scheduler runs this code)");
  return *rt;
}

std::exception_ptr run_root(std::function<void()>& root, const AsyncOptions& options, duet::source_location loc) {
  Source* src = case_source();
  std::optional<Source> own;
  if (!src) {
    own.emplace(Source::from_seed(options.seed));
    src = &*own;
  }
  CheckSchedules* check = t_check_schedules;
  if (!check && options.schedule.kind == Schedule::Kind::exhaustive) check = searched_run(options);
  fiber::Scheduler& sched = check ? *check->scheduler : scheduler_for(options);
  const fiber::RunResult* r = nullptr;
  try {
    ScheduleStrategy& strategy = check ? *check->strategy : strategy_for(options, sched);
    r = &sched.run(std::span<const std::function<void()>>(&root, 1), *strategy.picker(*src));
    strategy.finish(*r);
  } catch (...) {  // the choice stream ran out (byte input), or a schedule no run takes: no run
    abandon_frames();
    return std::current_exception();
  }
  if (std::string* sink = async_trace_sink()) record_trace(sched, loc, *sink);
  if (r->outcome == fiber::Outcome::completed) return nullptr;
  abandon_frames();
  switch (r->outcome) {
    case fiber::Outcome::crashed:
      return std::make_exception_ptr(crash(r->crash + " (" + fiber::location(r->crash_loc) + ")"));
    case fiber::Outcome::limit:
      return std::make_exception_ptr(
          fiber_limit("duet::run at " + fiber::location(loc) + " stopped at duet's limit: " + r->limit));
    case fiber::Outcome::deadlock:
      return std::make_exception_ptr(starved(
          "duet::run starved: every fiber waits and nothing in the run can wake it (no timer is due)" + waits_text(*r)));
    default: return std::make_exception_ptr(async_failure("duet::run failed: " + fiber::describe(*r, sched.trace())));
  }
}

}  // namespace duet::detail::async
