// duet::Lin's oracle is the candidate itself: it replays a trial's calls, one after another, on
// subjects of its own (TrialDriver::run_alone). On the calling thread a thread the candidate
// starts there is a real one: oneTBB's parallel_for starts its global workers, which never end,
// and every later fiber run of the check is then an error (threads_outside.hpp). So once a trial
// of the check has shown that the subject starts threads, the oracle runs in a fiber run of its
// own: the subject's threads are fibers, and a subject the oracle keeps for the next trial is
// destroyed in that run when its threads still run (its destructor joins them).
//
// The oracle runs on the trial's own fiber (fiber::TrialFrame; the run's one branch does
// nothing), alone but for the threads it starts, with a scheduler of its own (the trial's trace
// is the report's) and a fixed seed (the same run every time). The search is duet's own code
// there (its clock reads are real time, its budget's), the candidate the subject's
// (fiber::SubjectsCode, lin.cpp). Its calls run one after another for as long as the search
// needs, so the run has no step bound: a candidate that spins for ever there is a hang of the
// case (DUET_CASE_TIMEOUT). A run that fails (a race or a deadlock among the subject's own
// threads) is an error of the check, shown whole: the candidate failed alone.
#include <functional>
#include <limits>
#include <memory>
#include <string>

#include "duet/detail/api/erased_value.hpp"
#include "duet/executor.hpp"
#include "duet/source.hpp"
#include "execute/fibers/executor.hpp"
#include "execute/fibers/scheduler.hpp"

namespace duet::detail {

void FiberExecutor::run_alone(const std::function<void()>& body, const std::function<void(bool keep)>& finish) {
  if (fiber::current() != nullptr && scheduler_.judged()) {  // in the trial's run (judge_at_trial_end)
    {
      const OwnWork own;
      body();
    }
    finish(false);  // the process ends after the trial: no subject is kept for another
    return;
  }
  if (!subject_started_threads_) {
    TrialDriver::run_alone(body, finish);
    return;
  }
  if (!alone_) {
    fiber::SchedulerConfig c = scheduler_config(options_);
    c.max_steps = std::numeric_limits<std::size_t>::max();
    c.cpp_memory_model = false;  // the sequential behaviour the trials are judged by: no stale read
    alone_ = std::make_unique<fiber::Scheduler>(c);
  }
  const fiber::TrialFrame frame = hooked_frame(
      [&] {
        const OwnWork own;
        body();
      },
      [&] { finish(!alone_->others_alive()); });
  Source src = Source::from_seed(0);
  fiber::RandomPicker picker(src);
  const std::function<void()> idle[] = {[] {}};  // a run has a branch
  const fiber::RunResult& r = alone_->run(idle, picker, frame);
  for (const fiber::FiberResult& f : r.fibers)
    if (f.error) std::rethrow_exception(f.error);  // the search's own signals (its budget), or the oracle's
  if (r.outcome != fiber::Outcome::completed)
    throw ExecutorFailed{"the oracle (the candidate run alone, its calls one after another, on fibers because the "
                         "subject starts threads) did not complete: " +
                         fiber::describe(r, alone_->trace())};
}

}  // namespace duet::detail
