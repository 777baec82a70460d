// Optimal DPOR on the fiber scheduler (optimal_explorer.hpp): the run's states as nodes, the
// prefix replayed, races reversed into wakeup trees, the deepest branch left taken next.
#include "execute/fibers/dpor/optimal_explorer.hpp"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "execute/fibers/runtime.hpp"
#include "execute/fibers/search_share.hpp"

namespace duet::detail::fiber::dpor {

OptimalExplorer::OptimalExplorer(const Scheduler& sched, Source& src, OptimalConfig config)
    : sched_(sched), src_(src), config_(config), model_(sched.config().cpp_memory_model) {}

bool OptimalExplorer::next(Picker*& picker) {
  if (src_.mode() != Source::Mode::random)
    throw std::logic_error("duet: the exhaustive search records its picks: its Source must be in random mode");
  if (finished_ || stats_.runs >= config_.max_schedules) {
    stats_.complete = finished_ && unreachable_ == 0 && outside_.empty();
    return false;
  }
  seen_ = 0;
  blocked_at_ = std::numeric_limits<std::size_t>::max();
  redundant_ = false;
  diverged_ = false;
  diverged_at_ = 0;
  preemptions_ = 0;
  choices_ = 0;
  store_pos_ = 0;
  stale_ = 0;
  // What the run replays: the nodes before the last one, whose step (or store) changes.
  order_.truncate(replay_ == 0 ? 0 : replay_ - 1);
  ordered_ = 0;
  picker = &picker_;
  return true;
}

std::string OptimalExplorer::outside_scope() const {
  if (!outside_.empty() || unreachable_ == 0) return outside_;
  return "the scheduler did not offer a fiber the reduction asked to run";
}

std::uint64_t OptimalExplorer::record(std::uint64_t max, std::uint64_t decided) {
  ++choices_;
  return src_.draw_decided(max, decided);
}

// The state after the last node's step: the fibers asleep there (and those explored from there
// before) stay asleep unless the step depends on their next one; every fiber but the one that
// moved keeps its next step; the tree is what the step's branch had below it.
OptimalExplorer::Node OptimalExplorer::arrival() {
  Node n;
  n.seen_in = stats_.runs;
  if (nodes_.empty()) return n;
  const std::size_t at = nodes_.size();
  reserve_next(at);
  const Node& prev = nodes_.back();
  const std::uint32_t moved = prev.step.fiber;
  const Fibers asleep = (prev.sleep | prev.done) & prev.known;
  for (std::uint32_t q = 0; q < width_; ++q) {
    if (asleep.test(q) && q != moved && !steps_dependent(next_of(at - 1, q), prev.step)) n.sleep.set(q);
    if (prev.known.test(q)) next_of(at, q) = next_of(at - 1, q);
  }
  n.known = prev.known;
  n.known.reset(moved);
  n.seen_in = stats_.runs;
  return n;
}

// Branches starting with a fiber the scheduler did not offer at n. A fiber that could run but
// was not offered had spun (re-read values it had seen, SchedulerConfig::spin_threshold) and
// must let another run first: the branch would only repeat what it saw, so nothing is lost.
// Where the scheduler had one candidate (no pick), the others were spinning too, or finished,
// or blocked; a blocked fiber puts the program outside the reduction's scope (outside_), and a
// finished one takes no step in a branch. Anything else is a branch the search could not take.
void OptimalExplorer::not_offered(const Node& n, std::uint32_t fiber, std::size_t branches) {
  const bool spun = !n.pick || n.spinning.test(fiber);
  (spun ? yielded_ : unreachable_) += branches;
}

std::uint32_t OptimalExplorer::choose(Node& n) {
  if (!n.wakeup.empty()) {
    const std::uint32_t wanted = n.wakeup.first().step.fiber;
    if (n.candidates.test(wanted)) return wanted;
    not_offered(n, wanted, n.wakeup.size());
    n.wakeup.clear();
  }
  for (std::uint32_t q = 0; q < width_; ++q)
    if (n.candidates.test(q) && !n.sleep.test(q)) return q;
  return kNoFiber;
}

void OptimalExplorer::take(Node& n) {
  if (!n.wakeup.empty() && n.wakeup.first().step.fiber == n.fiber) seed_ = n.wakeup.take_first().children;
  else seed_.clear();
}

// Objects are numbered by first appearance in each run, so what a node knows of the fibers'
// next steps is taken afresh in every run that reaches it, never compared across runs.
void OptimalExplorer::see(std::size_t at, Node& n, const PickContext& ctx) {
  n.known.reset();
  n.spinning.reset();
  widen(ctx.fibers.size());
  reserve_next(at);
  for (std::size_t f = 0; f < ctx.fibers.size() && f < kMaxFibers; ++f) {
    next_of(at, static_cast<std::uint32_t>(f)) =
        pending_step(static_cast<std::uint32_t>(f), ctx.fibers[f].pending, weak_, config_.order_calls);
    if (ctx.fibers[f].state != FiberState::finished) n.known.set(f);
    if (ctx.fibers[f].state == FiberState::runnable) n.spinning.set(f);
  }
  for (std::uint32_t c : ctx.candidates) n.spinning.reset(c);  // runnable, yet not offered
  n.seen_in = stats_.runs;
}

std::size_t OptimalExplorer::pick(const PickContext& ctx) {
  advance();
  const std::size_t at = ctx.step;
  std::uint32_t fiber = kNoFiber;
  if (diverged_ || redundant_) {
  } else if (at < nodes_.size()) {  // the prefix, or the branch taken
    see(at, nodes_[at], ctx);
    fiber = nodes_[at].fiber;
    if (std::find(ctx.candidates.begin(), ctx.candidates.end(), fiber) == ctx.candidates.end()) {
      diverged_ = true;
      diverged_at_ = at;
      fiber = kNoFiber;
    }
  } else {
    Node n = arrival();
    n.pick = true;
    n.wakeup.assign(std::move(seed_));
    for (std::uint32_t c : ctx.candidates) n.candidates.set(c);
    see(nodes_.size(), n, ctx);
    if (ctx.current_continues && !n.sleep.test(ctx.current) && n.wakeup.empty()) fiber = ctx.current;
    else fiber = choose(n);
    if (fiber == kNoFiber) {
      redundant_ = true;  // every candidate asleep: what follows repeats an explored schedule
      blocked_at_ = at;
    } else {
      n.fiber = fiber;
      take(n);
      nodes_.push_back(std::move(n));
    }
  }
  std::size_t index = 0;
  if (fiber != kNoFiber)
    index =
        static_cast<std::size_t>(std::find(ctx.candidates.begin(), ctx.candidates.end(), fiber) - ctx.candidates.begin());
  if (ctx.current_continues && index != 0) ++preemptions_;
  return static_cast<std::size_t>(record(ctx.candidates.size() - 1, index));
}

// Every step the run took since the last look: a replayed one must be the fiber the node says;
// a new one without a pick (the scheduler had one candidate) becomes a node of its own.
void OptimalExplorer::advance() {
  const std::vector<TraceEvent>& trace = sched_.trace();
  for (; seen_ < trace.size(); ++seen_) {
    const TraceEvent& e = trace[seen_];
    const Step step = step_of(e, weak_, config_.order_calls);
    widen(std::size_t{e.fiber} + 1);
    if (e.event.op == Op::block && outside_.empty())
      outside_ = std::string("a fiber blocked on a ") + kind_name(e.event.kind) + " (" + location(e.event.loc) +
                 "): blocking is not part of the reduction";
    if (diverged_ || redundant_) continue;
    if (seen_ < nodes_.size()) {
      Node& n = nodes_[seen_];
      // The prefix repeats step for step (the branch's own step is new).
      const bool repeated =
          seen_ + 1 >= replay_ || (n.step.event.op == step.event.op && n.step.event.object == step.event.object);
      if (n.fiber != e.fiber || !repeated) {
        diverged_ = true;
        diverged_at_ = seen_;
        continue;
      }
      n.step = step;
      continue;
    }
    Node n = arrival();
    n.wakeup.assign(std::move(seed_));
    n.candidates.set(e.fiber);
    n.fiber = e.fiber;
    n.step = step;
    if (n.sleep.test(e.fiber)) {  // the only fiber that could run was asleep
      redundant_ = true;
      blocked_at_ = seen_;
      continue;
    }
    if (!n.wakeup.empty() && n.wakeup.first().step.fiber != e.fiber) {
      not_offered(n, n.wakeup.first().step.fiber, n.wakeup.size());
      n.wakeup.clear();
    }
    take(n);
    nodes_.push_back(std::move(n));
  }
}

bool OptimalExplorer::spurious() {
  const std::uint64_t one_in = config_.spurious_one_in;
  if (one_in == 0) return false;
  const std::uint64_t yes = one_in - 1;
  const bool take = yes == 0;  // one_in == 1: always spurious, as RandomPicker
  record(yes, take ? yes : 0);
  return take;
}

std::size_t OptimalExplorer::waiter(std::span<const std::uint32_t> waiters) {
  if (outside_.empty()) outside_ = "notify_one chose among " + std::to_string(waiters.size()) + " waiters";
  return static_cast<std::size_t>(record(waiters.size() - 1, 0));
}

// A load's store: the prefix's choice where the run replays it, else the newest first, with the
// older ones to explore while the schedule's stale reads are within the bound. Recorded with
// RandomPicker's bounds (random_store draws the index in [0, stores-1]).
std::size_t OptimalExplorer::store(std::uint32_t fiber, const Event& load, std::size_t stores) {
  const std::size_t at = sched_.trace().size();  // the load's event comes next
  std::size_t index = 0;
  if (diverged_ || redundant_) {
  } else if (store_pos_ < stores_.size()) {
    const StoreChoice& c = stores_[store_pos_++];
    if (c.at != at || c.stores != stores) {
      diverged_ = true;
      diverged_at_ = at;
    } else {
      index = c.chosen;
    }
  } else {
    const std::size_t allowed = stale_ < config_.stale_read_bound ? stores : 1;
    stores_.push_back(
        {.at = at, .stores = stores, .older = allowed > 1 ? first_older(fiber, load, stores) : 1, .allowed = allowed});
    ++store_pos_;
  }
  if (index != 0) ++stale_;
  return static_cast<std::size_t>(record(stores - 1, index));
}

// Each node's next step of every fiber, from the run itself: a fiber's next step after a state
// is the first one it takes at or after it.
void OptimalExplorer::fill_next(std::span<const Step> steps) {
  const std::size_t end = std::min(nodes_.size(), steps.size());
  // Each fiber's next step, as it may be at an earlier state (it may succeed there).
  attempts_.resize(steps.size());
  std::array<const Step*, kMaxFibers> upcoming{};
  for (std::size_t s = steps.size(); s-- > 0;) {
    attempts_[s] = attempted(steps[s]);
    upcoming[steps[s].fiber] = &attempts_[s];
    if (s >= end) continue;
    Node& n = nodes_[s];
    if (n.seen_in != stats_.runs) n.known.reset();  // known from an earlier run: other numbers
    for (std::uint32_t q = 0; q < width_; ++q)
      if (upcoming[q] != nullptr) {
        next_of(s, q) = *upcoming[q];
        n.known.set(q);
      }
  }
}

void OptimalExplorer::finish(const RunResult& result) {
  advance();
  if (!diverged_ && !redundant_ && nodes_.size() < replay_) {
    diverged_ = true;  // the run ended before the prefix did
    diverged_at_ = nodes_.size();
  }
  if (diverged_)
    throw std::runtime_error("duet: exhaustive search: the run did not repeat the schedule prefix it was given (step " +
                             std::to_string(diverged_at_) +
                             " differs): the program is nondeterministic, or its state was not reset between schedules");
  ++stats_.runs;
  if (model_ && result.weak_order_used && !weak_) {
    start_weak();
    return;
  }
  sync_order();
  fill_next(order_.steps());
  ++(redundant_ ? stats_.redundant : stats_.schedules);
  stats_.max_choices = std::max(stats_.max_choices, choices_);
  reverse_races();
  backtrack();
  stats_.runs_in_all = finished_ ? static_cast<double>(stats_.runs) : runs_in_all();
}

void OptimalExplorer::widen(std::size_t fibers) {
  fibers = std::min(fibers, kMaxFibers);
  width_ = std::max(width_, fibers);
  if (fibers <= stride_) return;
  const std::size_t stride = std::min(kMaxFibers, std::max<std::size_t>(4, std::bit_ceil(fibers)));
  std::vector<Step> wider(next_.size() / std::max<std::size_t>(stride_, 1) * stride);
  for (std::size_t row = 0; stride_ != 0 && row < next_.size() / stride_; ++row)
    std::copy_n(next_.begin() + static_cast<std::ptrdiff_t>(row * stride_), stride_,
                wider.begin() + static_cast<std::ptrdiff_t>(row * stride));
  next_ = std::move(wider);
  stride_ = stride;
}

void OptimalExplorer::reserve_next(std::size_t at) {
  if (stride_ == 0) widen(1);
  if (next_.size() < (at + 1) * stride_) next_.resize(std::max((at + 1) * stride_, 2 * next_.size()));
}

// The prefix replayed keeps its order; from the first step that differs on, the steps are new.
void OptimalExplorer::sync_order() {
  const std::vector<TraceEvent>& trace = sched_.trace();
  order_.set_trial_fiber(sched_.result().trial_fiber);
  ordered_ = std::min(ordered_, order_.size());  // a new trial fiber empties the order
  for (; ordered_ < trace.size(); ++ordered_) {
    const Step s = step_of(trace[ordered_], weak_, config_.order_calls);
    if (ordered_ < order_.size() && same_step(order_.steps()[ordered_], s)) continue;
    order_.truncate(ordered_);
    order_.push(s);
  }
  order_.truncate(trace.size());
}

// Each level of the path the next run takes: a pick node's fibers explored from it, the one
// taken and its wakeup tree's branches left; below it, a load's stores read, the one read and
// those left to read. Branches a later run's races add are not known yet.
double OptimalExplorer::runs_in_all() const {
  fiber::SearchShare share;
  std::size_t store = 0;
  for (std::size_t at = 0; at < nodes_.size(); ++at) {
    const Node& n = nodes_[at];
    if (n.pick) share.level(n.done.count(), n.done.count() + 1 + n.wakeup.size());
    for (; store < stores_.size() && stores_[store].at <= at; ++store) {
      const StoreChoice& c = stores_[store];
      const std::size_t read = c.chosen == 0 ? 0 : 1 + c.chosen - c.older;
      share.level(read, 1 + (c.allowed > c.older ? c.allowed - c.older : 0));
    }
  }
  return share.runs_in_all(stats_.runs);
}

// Under the C++ memory model, a search starts with the dependences of sequential consistency
// (seq_cst operations only: fences then order nothing more). The first run with a weaker order
// starts it again with the model's, that run counted among the runs and not as a schedule.
void OptimalExplorer::start_weak() {
  weak_ = true;
  redundant_ = true;  // the run is not one of the search's schedules
  nodes_.clear();
  seed_.clear();
  stores_.clear();
  replay_ = 0;
  stats_.schedules = 0;
  stats_.redundant = 0;
  unreachable_ = yielded_ = reversed_ = covered_ = 0;
  order_.truncate(0);  // the run's steps with the model's dependences
  ordered_ = 0;
  sync_order();
}

void OptimalExplorer::reverse_races() {
  const std::size_t limit = std::min(nodes_.size(), blocked_at_);
  for (const Race& r : order_.races()) {
    if (r.second >= limit) break;
    std::vector<Step> v = order_.reversal(r);
    const Node& n = nodes_[r.first];
    const Fibers asleep = (n.sleep | n.done) & n.known;
    bool covered = false;
    for (std::uint32_t q = 0; q < width_ && !covered; ++q)
      covered = asleep.test(q) && weak_initial(q, v, &next_of(r.first, q));
    if (covered) ++covered_;
    else insert(r.first, std::move(v));
  }
}

// Inserts w at node `at`, following the run under way first: where the step taken from a node
// can start what is left of w, the schedule under way is that branch, and w goes on below it.
void OptimalExplorer::insert(std::size_t at, std::vector<Step> w) {
  std::size_t s = at;
  while (!w.empty() && s < nodes_.size()) {
    const Node& n = nodes_[s];
    if (!weak_initial(n.fiber, w, n.known.test(n.fiber) ? &next_of(s, n.fiber) : nullptr)) break;
    w = without_first_of(n.fiber, w);
    ++s;
  }
  if (w.empty() || s >= nodes_.size()) {
    ++covered_;
    return;
  }
  Node& n = nodes_[s];
  const Fibers asleep = (n.sleep | n.done) & n.known;
  for (std::uint32_t q = 0; q < width_; ++q)
    if (asleep.test(q) && weak_initial(q, w, &next_of(s, q))) {  // explored from here already
      ++covered_;
      return;
    }
  // Start w with a fiber the scheduler offers here, if one of its first steps can go first.
  if (n.pick && !n.candidates.test(w.front().fiber))
    for (std::size_t k = 1; k < w.size(); ++k) {
      const std::uint32_t q = w[k].fiber;
      if (!n.candidates.test(q) || !weak_initial(q, w, nullptr)) continue;
      const auto first = std::find_if(w.begin(), w.end(), [q](const Step& x) { return x.fiber == q; });
      std::rotate(w.begin(), first, first + 1);
      break;
    }
  const auto next = [&](std::uint32_t q) -> const Step* { return n.known.test(q) ? &next_of(s, q) : nullptr; };
  if (n.wakeup.insert(w, next) == WakeupTree::Inserted::covered) {
    ++covered_;
    return;
  }
  ++reversed_;
}

// The first store older than the newest that the load must read here to make an execution no
// other schedule makes: reading an older one, with every newer store one the load could have run
// before, is the execution where it ran before them (explored in that order, where that store is
// the newest). Only where candidate k is the k-th newest write of the run (the model's history
// of the object holds them all): a load that is not seq_cst, of an atomic.
std::size_t OptimalExplorer::first_older(std::uint32_t fiber, const Event& load, std::size_t stores) {
  if (load.op != Op::load || load.kind != ObjectKind::atomic || load.order == std::memory_order_seq_cst) return 1;
  // The run's order so far (with the search's dependences: before the first weak order, a run
  // the search does not count, whose choices of store it does not keep).
  sync_order();
  const std::span<const Step> steps = order_.steps();
  if (!history_holds_every_store(steps, load.object)) return 1;
  const std::vector<std::size_t> writes = writes_of(steps, load.object);
  const Step pending = pending_step(fiber, load, model_, config_.order_calls);
  std::size_t k = 1;
  while (k < stores && k <= writes.size() && order_.could_precede(pending, std::span(writes).last(k))) ++k;
  return k;
}

// The load at `at` reads the next store it may read, if any is left to explore.
bool OptimalExplorer::other_store(std::size_t at) {
  if (stores_.empty() || stores_.back().at != at) return false;
  StoreChoice& c = stores_.back();
  const std::size_t next = c.chosen == 0 ? c.older : c.chosen + 1;
  if (next < c.allowed) {
    c.chosen = next;
    return true;
  }
  stores_.pop_back();
  return false;
}

void OptimalExplorer::drop_stores_from(std::size_t at) {
  while (!stores_.empty() && stores_.back().at >= at) stores_.pop_back();
}

// The deepest node with a branch left takes it (another store for its load first, then another
// fiber); the nodes below it go.
void OptimalExplorer::backtrack() {
  const std::size_t end = std::min(nodes_.size(), blocked_at_);
  nodes_.resize(end);
  drop_stores_from(end);
  while (!nodes_.empty()) {
    if (other_store(nodes_.size() - 1)) {
      seed_.clear();
      replay_ = nodes_.size();
      return;
    }
    Node& n = nodes_.back();
    n.done.set(n.fiber);
    while (!n.wakeup.empty()) {
      WakeupTree::Node branch = n.wakeup.take_first();
      const std::uint32_t f = branch.step.fiber;
      if (n.done.test(f)) continue;  // explored from here already
      if (!n.pick || !n.candidates.test(f)) {
        not_offered(n, f, 1);
        continue;
      }
      n.fiber = f;
      seed_ = std::move(branch.children);
      replay_ = nodes_.size();
      drop_stores_from(nodes_.size() - 1);
      return;
    }
    nodes_.pop_back();
  }
  finished_ = true;
  stats_.complete = unreachable_ == 0 && outside_.empty();
}

}  // namespace duet::detail::fiber::dpor
