// duet::fibers(): Y-program branches on the deterministic scheduler.
#include "execute/fibers/executor.hpp"

#include <string>

namespace duet {

Schedule random() { return {}; }
Schedule pct(std::size_t depth) { return {Schedule::Kind::pct, depth, 0}; }
Schedule exhaustive(std::size_t preemption_bound) { return {Schedule::Kind::exhaustive, 0, preemption_bound}; }

std::shared_ptr<Executor> fibers(Schedule schedule, FiberOptions options) {
  return std::make_shared<detail::FiberExecutor>(schedule, options);
}

namespace detail {

// The picker of one run, by strategy. Every pick is recorded in the run's choice stream.
struct FiberExecutor::Strategy {
  virtual ~Strategy() = default;
  virtual fiber::Picker& picker(Source& src) = 0;
  virtual bool more() const { return true; }
};

namespace {

struct RandomStrategy final : FiberExecutor::Strategy {
  std::unique_ptr<fiber::RandomPicker> p;
  fiber::Picker& picker(Source& src) override {
    p = std::make_unique<fiber::RandomPicker>(src);
    return *p;
  }
};

std::unique_ptr<FiberExecutor::Strategy> make_strategy(const Schedule& s) {
  switch (s.kind) {
    default:
      return std::make_unique<RandomStrategy>();
  }
}

fiber::SchedulerConfig scheduler_config(const FiberOptions& o) {
  fiber::SchedulerConfig c;
  c.stack_size = o.stack_size;
  c.max_steps = o.max_steps;
  return c;
}

}  // namespace

FiberExecutor::FiberExecutor(Schedule schedule, FiberOptions options)
    : schedule_(schedule), scheduler_(scheduler_config(options)), strategy_(make_strategy(schedule)) {}

FiberExecutor::~FiberExecutor() = default;

void FiberExecutor::begin_trial(Source& src) { trial_source_ = &src; }

bool FiberExecutor::more_trials() const { return strategy_->more(); }

void FiberExecutor::run(const std::vector<std::function<void()>>& branches) {
  // Code run directly on the executor (not by the Y-program runner) still gets reproducible
  // schedules: run k of this executor draws from seed k.
  Source own = Source::from_seed(own_runs_++);
  Source& src = trial_source_ ? *trial_source_ : own;
  trial_source_ = nullptr;
  const fiber::RunResult& r = scheduler_.run(branches, strategy_->picker(src));
  if (r.outcome != fiber::Outcome::completed) throw ScheduleFailed{fiber::describe(r, scheduler_.trace())};
  // Branch functions given by the Y-program runner capture their calls' exceptions; one that
  // escapes anyway (user code run directly) is rethrown as on threads.
  for (const fiber::FiberResult& f : r.fibers)
    if (f.error) std::rethrow_exception(f.error);
}

std::vector<std::string> FiberExecutor::interleaving() const { return fiber::format_trace(scheduler_.trace()); }

std::string FiberExecutor::strategy_name() const {
  switch (schedule_.kind) {
    case Schedule::Kind::pct:
      return "pct(" + std::to_string(schedule_.depth) + ")";
    case Schedule::Kind::exhaustive:
      return "exhaustive(" + std::to_string(schedule_.preemption_bound) + ")";
    default:
      return "random";
  }
}

FiberExecutor* fiber_executor(Executor* executor) { return dynamic_cast<FiberExecutor*>(executor); }

}  // namespace detail
}  // namespace duet
