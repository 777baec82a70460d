// What a parallel property's cases share (parallel_params): the executor and its execution, the
// branches' roles, noise, the hooks of a walk over every program and of a fiber twin; and what
// its replay tokens must match (shape_signature, scenario_signature).
#include <algorithm>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "duet/parallel.hpp"
#include "execute/named_executor.hpp"
#include "execute/threads.hpp"
#include "generate/enumeration.hpp"

namespace duet::detail {

namespace {
// A token of a progress check replays only with the same guarantees (its choices include the
// episodes'); nothing when none is stated, so other tokens read as before.
std::string progress_signature(const Progress& p) {
  if (!p.stated()) return {};
  auto one = [](Progress::Kind k, std::size_t bound) {
    return std::to_string(static_cast<int>(k)) + "." + std::to_string(bound);
  };
  std::string s = "/progress:" + one(p.kind, p.bound);
  for (const Progress::Override& o : p.ops) s += "," + o.op + "=" + one(o.kind, o.bound);
  return s;
}

// A token found on fibers replays its schedule only on fibers with the same strategy; any
// executor on threads ("threads") replays any other's. Empty on threads.
std::string execution_signature(const ParallelConfig& pc) {
  const std::string execution = pc.executor ? pc.executor->trial_driver().execution() : "threads";
  return execution == "threads" ? std::string() : "/" + execution;
}

std::string roles_signature(const ParallelConfig& pc) {
  std::string roles;
  for (const Role& r : pc.roles) {
    roles += "/role:" + r.name + "*" + std::to_string(r.count);
    for (const std::string& op : r.ops) roles += "," + op;
  }
  return roles;
}
}  // namespace

std::string shape_signature(const ParallelConfig& given) {
  const ParallelConfig pc = on_named_executor(given);
  const bool deterministic = pc.executor && pc.executor->trial_driver().deterministic();
  return execution_signature(pc) + "/b" + std::to_string(branch_count(pc)) + "/l" + std::to_string(pc.branch_length) + "/p" +
         std::to_string(pc.prefix_length) + "/s" + std::to_string(pc.suffix_length) + "/t" + std::to_string(pc.trials) +
         (pc.consistency == Consistency::linearizable ? "/lin" : "/sc") +
         (pc.noise.value_or(false) && !deterministic ? "/noise" : "") + roles_signature(pc) +
         progress_signature(pc.progress);
}

std::string scenario_signature(const ParallelConfig& given_pc, const GivenProgram& given) {
  const ParallelConfig pc = on_named_executor(given_pc);
  std::string program = "/scenario/p" + std::to_string(given.shape.prefix);
  for (std::size_t b : given.shape.branches) program += "/b" + std::to_string(b);
  program += "/s" + std::to_string(given.shape.suffix);
  for (const std::string& call : given.calls) program += "/" + call;
  return program + execution_signature(pc) + (pc.consistency == Consistency::linearizable ? "/lin" : "/sc") +
         roles_signature(pc) + progress_signature(pc.progress);
}

namespace {

// A parallel check's cases run on its executor, as the executor's trial driver says.
class ParallelExecution final : public Execution {
 public:
  ParallelExecution(std::shared_ptr<ParallelParams> pp, bool isolated_as_written)
      : pp_(std::move(pp)), isolated_as_written_(isolated_as_written) {}
  std::string name() const override { return driver().execution(); }
  int replay_attempts() const override { return driver().deterministic() ? 1 : kParallelReplayAttempts; }
  bool exact_replay() const override { return driver().deterministic(); }
  // A hand-written program with calls in fewer than two branches (a draft of a failure that
  // needs no concurrency) cannot overlap: its trials say nothing less for it.
  bool needs_overlap() const override {
    if (pp_->given) {
      const auto& branches = pp_->given->shape.branches;
      if (std::count_if(branches.begin(), branches.end(), [](std::size_t n) { return n > 0; }) < 2) return false;
    }
    return driver().needs_overlap();
  }
  std::string unexercised() const override { return driver().unexercised(); }
  bool may_leave_calls_unfinished() const override { return driver().may_leave_calls_unfinished(); }
  std::uint64_t trials_left_unfinished() const override { return driver().trials_left_unfinished(); }
  std::string trial_processes() const override { return driver().trial_processes_reason(); }
  bool take_trial_processes() override { return driver().take_trial_processes(); }
  bool trial_processes_taken() const override { return driver().trial_processes_taken(); }
  std::string threads_left() const override { return driver().threads_left(); }
  bool searches_in_clean_child() const override { return driver().searches_in_clean_child(); }
  // A hang or a crash on threads takes the process down, unrecoverably: in a child it is a
  // shrunk failure instead (docs/isolation.md has the cost). A check DUET_EXECUTOR moved off
  // threads keeps the child its test was written for: a crash there is a trial's failure that
  // the test may expect (a negative test whose race ends in a crash), not the end of the binary.
  bool isolate_by_default() const override { return driver().isolate_by_default() || isolated_as_written_; }
  void in_child() override { pp_->executor = driver().for_child_process(pp_->executor); }
  void after_check() override { driver().check_ends(); }

 private:
  TrialDriver& driver() const { return pp_->executor->trial_driver(); }
  std::shared_ptr<ParallelParams> pp_;
  bool isolated_as_written_;
};

// Whether the check as written (before DUET_EXECUTOR moved it) ran in a child process by default.
bool isolated_as_written(const ParallelConfig& given, const std::string& executor_note) {
  if (executor_note.empty()) return false;  // not moved: its executor decides
  return given.executor ? given.executor->trial_driver().isolate_by_default() : threads_restart_in_child();
}

// Every program of the scope, one a case, until the walk ends; no time budget unless given (the
// walk is the budget), and a pass only when it ended.
// "2 branches × up to 3 calls after a prefix of up to 1 call", as the walk's pass names its scope.
std::string scope_text(const ParallelConfig& pc) {
  auto calls = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " call" : " calls"); };
  std::string text = std::to_string(branch_count(pc)) + " branches";
  if (!pc.roles.empty()) {
    text += " (";
    for (std::size_t r = 0; r < pc.roles.size(); ++r)
      text +=
          (r == 0 ? "" : ", ") + pc.roles[r].name + (pc.roles[r].count == 1 ? "" : " ×" + std::to_string(pc.roles[r].count));
    text += ")";
  }
  text += " × up to " + calls(pc.branch_length);
  if (pc.prefix_length > 0) text += " after a prefix of up to " + calls(pc.prefix_length);
  if (pc.suffix_length > 0)
    text += std::string(pc.prefix_length > 0 ? " and" : "") + " before a suffix of up to " + calls(pc.suffix_length);
  return text;
}

void walk_every_program(Property& p, const std::shared_ptr<ParallelParams>& pp, const EveryProgram& scope) {
  pp->every = std::make_shared<EveryProgramWalk>();
  pp->every->values = scope.values;
  pp->every->symmetric_values = scope.symmetric_values;
  pp->every->scope = scope_text(pp->config);
  p.covered = [every = pp->every] { return every->walk && every->walk->done(); };
  p.unfinished = [every = pp->every] { return every->unfinished(); };
  p.certificate = [every = pp->every] { return every->certificate(); };
  p.planned_cases = [every = pp->every] { return every->planned(); };
  p.coverage = [pp] {
    const std::string runs = pp->executor->trial_driver().coverage();
    return pp->every->coverage() + (runs.empty() ? "" : "; " + runs);
  };
  p.default_time = 0;
  // A walk on fibers may be split over processes (Config::jobs): its trials need no CPU of
  // their own, and run the same in any process.
  if (!pp->executor->trial_driver().deterministic()) return;
  p.walk_progress = [every = pp->every] { return every->progress(); };
  p.adopt_walk = [every = pp->every](const WalkProgress& w) { every->adopt(w); };
}

}  // namespace

std::shared_ptr<ParallelParams> parallel_params(const ParallelConfig& given_pc, Property& p,
                                                std::shared_ptr<const GivenProgram> given) {
  const ParallelConfig pc = on_named_executor(given_pc, &p.executor_note);
  auto pp = std::make_shared<ParallelParams>();
  pp->config = pc;
  pp->given = std::move(given);
  pp->executor = pc.executor ? pc.executor : std::shared_ptr<Executor>(make_thread_pool(pc.pin_threads, pc.thread_hooks));
  TrialDriver& driver = pp->executor->trial_driver();
  // Timing noise means nothing where a trial is deterministic (fibers).
  pp->noise = pc.noise.value_or(false) && !driver.deterministic();
  pp->noise_yields = !pc.pin_threads || usable_cpus() < branch_count(pc);
  for (std::size_t r = 0; r < pc.roles.size(); ++r) {
    const Role& role = pc.roles[r];
    for (std::size_t k = 0; k < role.count; ++k) {
      pp->branch_role.push_back(r);
      pp->branch_labels.push_back(role.count == 1 ? role.name : role.name + " " + std::to_string(k + 1));
    }
  }
  p.cheap_trace = true;
  p.execution = std::make_shared<ParallelExecution>(pp, isolated_as_written(given_pc, p.executor_note));
  driver.expect_progress(pc.progress);
  driver.check_starts();
  // pp->executor: the child's own in a child process (in_child), where the branches ran.
  p.coverage = [pp] { return pp->executor->trial_driver().coverage(); };
  // What another process's runs counted (a walk's workers, the clean child's searching worker).
  p.save_totals = [pp] { return pp->executor->trial_driver().save_totals(); };
  p.add_totals = [pp](const std::string& saved) { pp->executor->trial_driver().add_totals(saved); };
  // One program: once an exhaustive search has explored its schedules, another case would only
  // repeat it.
  if (pp->given) p.covered = [pp] { return pp->executor->trial_driver().program_exhausted(); };
  if (pc.every_program && !pp->given) walk_every_program(p, pp, *pc.every_program);
  return pp;
}

void offer_fiber_twin(Property& p, const ParallelConfig& pc, std::function<Property(const ParallelConfig&)> build) {
  if (runs_on_fibers(pc) || !fibers_unsupported(pc).empty()) return;
  p.fiber_twin = [pc, build = std::move(build)](const Schedule& schedule) {
    const FibersOverNamedExecutor here;
    ParallelConfig on_fibers = pc;
    on_fibers.executor = fibers(schedule);
    Property twin = build(on_fibers);
    // The strategies' defaults are what DUET_EXECUTOR names, so its tokens replay under it.
    static constexpr const char* kNamed[] = {"fibers:random", "fibers:pct", "fibers:exhaustive"};
    twin.replay_setting = std::string("DUET_EXECUTOR=") + kNamed[static_cast<int>(schedule.kind)];
    return twin;
  };
}

bool runs_on_fibers(const ParallelConfig& given) {
  const ParallelConfig pc = on_named_executor(given);
  return pc.executor && pc.executor->trial_driver().deterministic();
}

}  // namespace duet::detail
