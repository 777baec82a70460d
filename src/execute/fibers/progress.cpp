// Progress guarantees on fibers: the episodes that suspend fibers mid-call, the count of each
// call's own steps, and the verdicts (progress.hpp says what each checks).
//
// A verdict needs the bound to tell a wait from a long operation. When the bound runs out and
// the fibers that ran changed nothing over its second half (loads, failed CASes, exchanges that
// wrote what was there, yields), they wait for a value only a suspended fiber can change: that
// is a violation. When they were still writing, the bound may simply be too small: the run ends
// as inconclusive (duet's limit, an error of the check), never as a pass.
#include "execute/fibers/progress.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "execute/fibers/runtime.hpp"
#include "report/report.hpp"

namespace duet::detail {
std::string op_name(std::string_view call);  // parallel_config_check.cpp
}

namespace duet::detail::fiber {

namespace {

using Kind = Progress::Kind;

const char* guarantee_name(Kind k) {
  switch (k) {
    case Kind::obstruction_free: return "obstruction-freedom";
    case Kind::lock_free: return "lock-freedom";
    case Kind::wait_free: return "wait-freedom";
    default: return "no guarantee";
  }
}

// Whether an event can change what another fiber reads: a spin's loads, failed CASes and
// exchanges that wrote the value already there cannot.
bool changes_state(const TraceEvent& e) {
  switch (e.event.op) {
    case Op::start:
    case Op::load:
    case Op::cas_fail:
    case Op::read:
    case Op::try_lock_fail:
    case Op::try_lock_shared_fail:
    case Op::yield:
    case Op::pause:
    case Op::fence:
    case Op::block:
    case Op::wake: return false;
    case Op::rmw:
    case Op::cas: return !(e.read.type != ValueType::none && e.read == e.written);
    default: return true;
  }
}

std::string quoted(const std::string& s) { return "`" + s + "`"; }

}  // namespace

void ProgressMonitor::configure(const Progress& p, bool episodes) {
  *this = ProgressMonitor{};
  progress_ = p;
  auto note = [&](Kind k) {
    max_kind_ = std::max(max_kind_, k);
    if (k >= Kind::lock_free) episode_kinds_ |= 1;  // a suspended fiber also starves a wait-free call
    if (k >= Kind::obstruction_free) episode_kinds_ |= 2;
  };
  note(p.kind);
  for (const Progress::Override& o : p.ops) note(o.kind);
  if (!episodes) episode_kinds_ = 0;
}

bool ProgressMonitor::needs_episodes(const Progress& p) {
  auto needs = [](Kind k) { return k == Kind::obstruction_free || k == Kind::lock_free; };
  bool any = needs(p.kind);
  for (const Progress::Override& o : p.ops) any = any || needs(o.kind);
  return any;
}

void ProgressMonitor::branch_calls(const std::vector<std::vector<std::string>>& calls) { calls_ = calls; }

Progress::Override ProgressMonitor::promise_of(std::uint32_t fiber, std::size_t index) const {
  if (fiber < calls_.size() && index < calls_[fiber].size()) return progress_.of(detail::op_name(calls_[fiber][index]));
  return {"", progress_.kind, progress_.bound};
}

std::string ProgressMonitor::call_text(std::uint32_t fiber) const {
  const std::size_t index = call_[fiber].index;
  if (fiber < calls_.size() && index < calls_[fiber].size()) return quoted(calls_[fiber][index]);
  return "its call " + std::to_string(index + 1);
}

void ProgressMonitor::begin_run(Source& src) {
  call_.fill({});
  suspended_.fill(false);
  responses_.clear();
  at_step_ = 0;
  planned_ = episode_ = Episode::none;
  episode_done_ = false;
  target_ = kNoFiber;
  ++runs_;
  // Where the episode starts: a place inside one fiber's call (its `at_step_`-th own step, in
  // call `at_call_` of fiber `target_`), so that deleting another fiber's call, or a later one of
  // this fiber, leaves it where it was (an absolute switch point would move); then its kind
  // when both are stated. The step is drawn below a drawn ceiling (0: no episode in this run,
  // the choice the shrinker moves toward), so that short calls' steps are drawn as often as the
  // longest call's, whose retried CAS sets the range. A replay reads the ceiling back whatever
  // was learnt: its bound is wide there.
  if (!episodes() || calls_.empty()) return;
  const std::size_t ceiling = src.draw(src.mode() == Source::Mode::random ? learnt_steps_ : std::size_t{1} << 32);
  if (ceiling == 0) return;
  at_step_ = 1 + src.draw(ceiling - 1);
  target_ = static_cast<std::uint32_t>(src.draw(calls_.size() - 1));
  at_call_ = calls_[target_].empty() ? 0 : src.draw(calls_[target_].size() - 1);
  if (episode_kinds_ == 3) planned_ = src.draw(1) == 0 ? Episode::lock : Episode::solo;
  else planned_ = episode_kinds_ == 1 ? Episode::lock : Episode::solo;
}

std::size_t ProgressMonitor::lock_bound(std::size_t fibers) const {
  // A wait-free call finishes within its bound of its own steps, so with the others' steps
  // interleaved some call finishes within that many steps of each.
  std::size_t bound = 0;
  auto take = [&](Kind k, std::size_t b) {
    if (k == Kind::lock_free) bound = std::max(bound, b);
    if (k == Kind::wait_free) bound = std::max(bound, b * std::max<std::size_t>(fibers, 2));
  };
  take(progress_.kind, progress_.bound);
  for (const Progress::Override& o : progress_.ops) take(o.kind, o.bound);
  return bound == 0 ? kProgressBound : bound;
}

void ProgressMonitor::begin_episode(Runtime& rt) {
  // A solo episode runs a call that promises obstruction-freedom at least; a lock episode may
  // suspend any call (an exempt one too: the others' promises do not depend on it).
  if (planned_ == Episode::solo && call_[target_].promise.kind < Kind::obstruction_free) {
    episode_done_ = true;
    return;
  }
  episode_ = planned_;
  episode_trace_ = rt.trace.size();
  episode_steps_ = uncounted_steps_ = 0;
  // The trial's own fiber runs no call while the branches run: not one of the fibers counted.
  const std::size_t fibers = rt.n_ - (rt.trial_fiber_ != kNoFiber ? 1 : 0);
  bound_ = episode_ == Episode::lock ? lock_bound(fibers) : call_[target_].promise.bound;
  for (std::uint32_t j = 0; j < rt.n_; ++j) suspended_[j] = episode_ == Episode::lock ? j == target_ : j != target_;
}

void ProgressMonitor::end_episode(bool held) {
  suspended_.fill(false);
  if (held) ++(episode_ == Episode::lock ? lock_held_ : solo_held_);
  else ++others_done_;
  episode_ = Episode::none;
  episode_done_ = true;
}

void ProgressMonitor::at_switch_point(Runtime& rt) {
  const std::uint32_t c = rt.current;
  Call& call = call_[c];
  if (call.pending && ++call.own_steps > call.promise.bound && call.promise.kind == Kind::wait_free)
    violated(rt, wait_free_text(rt, c));
  if (episode_ == Episode::none && !episode_done_ && planned_ != Episode::none && c == target_ && call.pending &&
      call.index == at_call_ && call.own_steps == at_step_ && !rt.fair_phase())
    begin_episode(rt);
  if (episode_ == Episode::none) return;
  if (rt.fair_phase()) {  // past max_steps the run is judged for a livelock, every fiber running
    end_episode(false);
    return;
  }
  const bool counted = episode_ == Episode::lock ? c != target_ && call.pending && call.promise.kind >= Kind::lock_free
                                                 : c == target_ && call.pending;
  if (counted && ++episode_steps_ > bound_) judge(rt);
  if (!counted && c != target_ && ++uncounted_steps_ > bound_) {  // only exempt calls ran: nothing to judge
    end_episode(false);
    return;
  }
  bool any = false;
  for (std::uint32_t j = 0; j < rt.n_ && !any; ++j) any = rt.can_run(j);
  if (!any && idle(rt) == Idle::violated) rt.stop_run();
}

void ProgressMonitor::call_boundary(Runtime& rt) {
  const std::uint32_t c = rt.current;
  Call& call = call_[c];
  if (!call.pending) {  // its invoke
    call.pending = true;
    call.own_steps = 0;
    call.responses_before = responses_.size();
    call.promise = promise_of(c, call.index);
    return;
  }
  call.pending = false;
  if (call.promise.kind == Kind::wait_free) ++wait_free_calls_;
  // The calls' own lengths, before any episode made one wait: where an episode may start.
  if (episode_ == Episode::none && !episode_done_) learnt_steps_ = std::max(learnt_steps_, call.own_steps);
  responses_.push_back({c, call_text(c)});
  ++call.index;
  if ((episode_ == Episode::lock && c != target_) || (episode_ == Episode::solo && c == target_)) end_episode(true);
}

ProgressMonitor::Idle ProgressMonitor::idle(Runtime& rt) {
  if (episode_ == Episode::none) return Idle::none;
  // Every fiber that may run is blocked or finished. One blocked inside a call the episode
  // counts waits for a suspended fiber: no step of its own can end the wait.
  for (std::uint32_t j = 0; j < rt.n_; ++j) {
    if (suspended_[j] || rt.views_[j].state != FiberState::blocked || !call_[j].pending) continue;
    const bool counted = episode_ == Episode::lock ? call_[j].promise.kind >= Kind::lock_free : j == target_;
    if (!counted) continue;
    rt.result.outcome = Outcome::progress;
    rt.result.progress = guarantee_text() + suspended_text(rt) + others_text(rt, true);
    return Idle::violated;
  }
  end_episode(false);  // nothing left that the episode could judge
  return Idle::resumed;
}

void ProgressMonitor::judge(Runtime& rt) {
  const std::size_t from = episode_trace_ + (rt.trace.size() - episode_trace_) / 2;
  for (std::size_t i = rt.trace.size(); i-- > from;) {
    const TraceEvent& e = rt.trace[i];
    if (suspended_[e.fiber] || !changes_state(e)) continue;
    const std::string raise = episode_ == Episode::lock ? "duet::lock_free(" : "duet::obstruction_free(";
    inconclusive(rt, guarantee_text() + suspended_text(rt) +
                         "; no call finished within the bound, but the fibers that "
                         "ran were still changing shared state (step " +
                         std::to_string(e.step) + ": " + event_phrase(e) +
                         "), so the bound may be too small to tell a wait from a long operation: raise it (" + raise +
                         std::to_string(bound_ * 4) + ")) to decide");
  }
  violated(rt, guarantee_text() + suspended_text(rt) + others_text(rt, false));
}

void ProgressMonitor::violated(Runtime& rt, std::string what) {
  rt.result.outcome = Outcome::progress;
  rt.result.progress = std::move(what);
  rt.stop_run();
}

void ProgressMonitor::inconclusive(Runtime& rt, std::string what) {
  rt.result.outcome = Outcome::limit;
  rt.result.limit = "inconclusive progress check: " + std::move(what);
  rt.stop_run();
}

std::string ProgressMonitor::guarantee_text() const {
  const Kind k = episode_ == Episode::lock ? Kind::lock_free : Kind::obstruction_free;
  return std::string(guarantee_name(k)) + " (bound " + plural(bound_, "step", "steps") + "): ";
}

namespace {
// The last event of `fiber` before `end`, or null.
const TraceEvent* last_step(std::span<const TraceEvent> trace, std::uint32_t fiber, std::size_t end) {
  for (std::size_t i = std::min(end, trace.size()); i-- > 0;)
    if (trace[i].fiber == fiber && trace[i].event.op != Op::start) return &trace[i];
  return nullptr;
}
// Where a stopped fiber stands: after its last step, before its pending operation.
std::string stopped_at(std::span<const TraceEvent> trace, std::uint32_t fiber, const FiberView& view, std::size_t end) {
  std::string s;
  if (const TraceEvent* last = last_step(trace, fiber, end)) s += " after " + quoted(event_phrase(*last)) + ",";
  TraceEvent next;
  next.fiber = fiber;
  next.event = view.pending;
  return s + " before " + quoted(event_phrase(next));
}
}  // namespace

std::string ProgressMonitor::suspended_text(Runtime& rt) const {
  const std::span<const TraceEvent> trace = rt.trace;
  if (episode_ == Episode::lock)
    return "fiber " + std::to_string(target_) + " was suspended in " + call_text(target_) + "," +
           stopped_at(trace, target_, rt.views_[target_], episode_trace_) + " (step " + std::to_string(episode_trace_) + ")";
  std::string s = "fiber " + std::to_string(target_) + "'s call " + call_text(target_) + " ran alone from step " +
                  std::to_string(episode_trace_) + ", every other fiber suspended where it stopped";
  for (std::uint32_t j = 0; j < rt.n_; ++j)
    if (j != target_ && rt.views_[j].state != FiberState::finished && !rt.waits_in_frame(j))
      s += "; fiber " + std::to_string(j) + (call_[j].pending ? " in " + call_text(j) + "," : std::string()) +
           stopped_at(trace, j, rt.views_[j], rt.trace.size());
  return s;
}

std::string ProgressMonitor::others_text(Runtime& rt, bool blocked) const {
  std::string s = episode_ == Episode::lock
                      ? blocked ? "; then the other fibers could not go on:"
                                : "; then the other fibers ran " + plural(bound_, "step", "steps") +
                                      " and no call finished, re-reading values only a suspended fiber can change:"
                  : blocked ? "; it could not go on:"
                            : "; it did not finish within " + plural(bound_, "step", "steps") +
                                  " of its own, re-reading values only a suspended fiber can change:";
  bool first = true;
  for (std::uint32_t j = 0; j < rt.n_; ++j) {
    if (suspended_[j] || rt.views_[j].state == FiberState::finished || rt.waits_in_frame(j)) continue;
    s += first ? " " : "; ";
    first = false;
    s += "fiber " + std::to_string(j) + (call_[j].pending ? " in " + call_text(j) : std::string());
    if (rt.views_[j].state == FiberState::blocked) {
      TraceEvent wait;
      wait.fiber = j;
      wait.event = rt.views_[j].pending;
      s += " waits in " + quoted(event_phrase(wait)) + ", for a suspended fiber";
    } else if (const TraceEvent* last = last_step(rt.trace, j, rt.trace.size())) {
      s += ", its last step " + quoted(event_phrase(*last));
    }
  }
  return s;
}

std::string ProgressMonitor::wait_free_text(Runtime& rt, std::uint32_t fiber) const {
  const Call& call = call_[fiber];
  std::string s = "wait-freedom (bound " + plural(call.promise.bound, "step", "steps") + "): fiber " +
                  std::to_string(fiber) + "'s call " + call_text(fiber) + " did not finish within " +
                  plural(call.promise.bound, "step", "steps") + " of its own: it stopped" +
                  stopped_at(rt.trace, fiber, rt.views_[fiber], rt.trace.size());
  const std::size_t others = responses_.size() - call.responses_before;
  if (others == 0) return s + "; no other call finished meanwhile (it is not starved: the call itself runs long)";
  s += "; meanwhile the other fibers finished " + plural(others, "call", "calls") + ":";
  for (std::size_t i = call.responses_before; i < responses_.size(); ++i)
    s += (i == call.responses_before ? " " : ", ") + std::string("fiber ") + std::to_string(responses_[i].fiber) + " " +
         responses_[i].call;
  return s + " (a starving call: each of theirs made it retry)";
}

std::string ProgressMonitor::coverage() const {
  if (!progress_.stated()) return {};
  std::string s = "progress: ";
  std::string sep;
  if (episode_kinds_ & 1) {
    s += "lock-freedom held in " + plural(lock_held_, "state", "states") +
         " where a fiber was suspended mid-call (some other call finished within the bound)";
    sep = "; ";
  }
  if (episode_kinds_ & 2) {
    s += sep + "obstruction-freedom held in " + plural(solo_held_, "state", "states") +
         " where a pending call ran alone (it finished within its bound)";
    sep = "; ";
  }
  if (max_kind_ == Kind::wait_free)
    s += sep + "wait-freedom held for " + plural(wait_free_calls_, "call", "calls") +
         " (each within its bound of its own steps)";
  s += "; over " + plural(runs_, "run", "runs");
  if (others_done_ > 0)
    s += " (" + plural(others_done_, "episode", "episodes") + " ended with nothing left to run, and proved nothing)";
  return s;
}

std::vector<std::uint64_t> ProgressMonitor::totals() const {
  return {episode_kinds_, runs_, lock_held_, solo_held_, others_done_, wait_free_calls_};
}

void ProgressMonitor::add_totals(std::span<const std::uint64_t> saved) {
  if (saved.size() != 6) throw std::runtime_error("a walk's share sent progress totals of another shape");
  episode_kinds_ |= static_cast<unsigned>(saved[0]);
  runs_ += saved[1];
  lock_held_ += saved[2];
  solo_held_ += saved[3];
  others_done_ += saved[4];
  wait_free_calls_ += saved[5];
}

std::string ProgressMonitor::unexercised() const {
  if (!progress_.stated()) return {};
  if (max_kind_ == Kind::wait_free && wait_free_calls_ == 0)  // counted per call: no suspension needed
    return "the progress check tested no call for wait-freedom: no call of an operation that promises it ran on a "
           "fiber (programs too short, or too few runs: raise the budget or branch_length)";
  const char* untested = nullptr;
  if (max_kind_ == Kind::lock_free && lock_held_ == 0) untested = "lock-freedom";
  else if (max_kind_ == Kind::obstruction_free && solo_held_ == 0) untested = "obstruction-freedom";
  if (untested == nullptr) return {};
  return std::string("the progress check tested no state for ") + untested +
         ": no run suspended a fiber with a call pending and saw it held (programs too short, or too few runs: "
         "raise the budget or branch_length)";
}

}  // namespace duet::detail::fiber
