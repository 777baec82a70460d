// DUET_EXECUTOR: the executor a binary's parallel checks run on, over each check's own.
#include "execute/named_executor.hpp"

#include <stdexcept>

#include "engine/settings_table.hpp"
#include "execute/fibers/executor.hpp"
#include "execute/threads.hpp"
#include "show/text.hpp"

namespace duet::detail {
namespace {

// Set while a check is rebuilt on fibers for a failure on threads (FibersOverNamedExecutor):
// the property built then runs where it is told, whatever DUET_EXECUTOR says.
thread_local bool named_executor_ignored = false;

// A malformed value is the settings' error (every check reports it); here it names nothing.
std::optional<NamedExecutor> named_or_none() {
  if (named_executor_ignored) return std::nullopt;
  try {
    return named_executor();
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

const FiberExecutor* fiber_executor(const ParallelConfig& pc) {
  return dynamic_cast<const FiberExecutor*>(pc.executor.get());
}

bool same(const Schedule& a, const Schedule& b) {
  return a.kind == b.kind && a.depth == b.depth && a.preemption_bound == b.preemption_bound &&
         a.stale_reads == b.stale_reads;
}

std::string execution_of(const ParallelConfig& pc) {
  return pc.executor ? pc.executor->trial_driver().execution() : std::string("threads");
}

}  // namespace

std::optional<NamedExecutor> named_executor() {
  const auto raw = setting_text("executor");
  if (!raw) return std::nullopt;
  NamedExecutor n{.fibers = false, .schedule = std::nullopt, .text = raw->first, .where = raw->second};
  const std::string& t = raw->first;
  if (t == "threads") return n;
  n.fibers = true;
  if (t == "fibers:random") n.schedule = random();
  else if (t == "fibers:pct") n.schedule = pct();
  else if (t == "fibers:exhaustive") n.schedule = exhaustive();
  else if (t != "fibers") throw std::invalid_argument(raw->second + "=" + excerpt(t) + ": expected " + kExecutorForms);
  return n;
}

std::string fibers_unsupported(const ParallelConfig& pc) {
  // Fibers all run on the calling thread: per-thread setup would run once for all of them.
  if (pc.thread_hooks.start || pc.thread_hooks.stop)
    return "its thread_hooks set up each thread that runs calls, and fibers share one thread (give it "
           "FiberOptions::on_fiber_start / on_fiber_stop in a check of its own on fibers, or run it on threads)";
  if (pc.executor && !fiber_executor(pc) && !plain_threads(*pc.executor))
    return "it runs on an executor object of its own (ParallelConfig::executor) that is not one of duet's "
           "thread executors without ThreadHooks, and duet cannot carry what it does to fibers";
  return {};
}

FibersOverNamedExecutor::FibersOverNamedExecutor() : was_(named_executor_ignored) { named_executor_ignored = true; }
FibersOverNamedExecutor::~FibersOverNamedExecutor() { named_executor_ignored = was_; }

std::string named_executor_error(const ParallelConfig& pc) {
  const std::optional<NamedExecutor> n = named_or_none();
  if (!n) return {};
  const std::string asked = " (" + n->where + "=" + n->text + ")";
  const FiberExecutor* own_fibers = fiber_executor(pc);
  if (n->fibers) {
    const std::string why = fibers_unsupported(pc);
    return why.empty() ? why : "this check cannot run on fibers" + asked + ": " + why;
  }
  if (own_fibers) {
    const FiberOptions& o = own_fibers->options();
    if (o.on_fiber_start || o.on_fiber_stop || o.before_each_run)
      return "this check cannot run on threads" + asked +
             ": its fiber executor has FiberOptions hooks (on_fiber_start, on_fiber_stop or before_each_run), "
             "which threads do not run";
  }
  return {};
}

ParallelConfig on_named_executor(const ParallelConfig& pc, std::string* note) {
  if (note) note->clear();
  const std::optional<NamedExecutor> n = named_or_none();
  if (!n || !named_executor_error(pc).empty()) return pc;
  const FiberExecutor* own = fiber_executor(pc);
  ParallelConfig out = pc;
  if (!n->fibers) {
    if (!own) return pc;     // on threads already
    out.executor = nullptr;  // the thread pool a check makes
  } else {
    if (own && (!n->schedule || same(*n->schedule, own->schedule()))) return pc;
    // A fiber check keeps its options (memory model, hooks) under another strategy.
    out.executor =
        fibers(n->schedule ? *n->schedule : (own ? own->schedule() : random()), own ? own->options() : FiberOptions{});
  }
  if (note)
    *note = "on " + execution_of(out) + " (" + n->where + "=" + n->text + ", over the check's own " + execution_of(pc) + ")";
  return out;
}

}  // namespace duet::detail
