// PCT and the exhaustive search (strategies.hpp). Both only decide: every decision goes into the
// choice stream through Source::draw_decided, with the bounds RandomPicker draws it with.
#include "execute/fibers/strategies.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "execute/fibers/search_share.hpp"

namespace duet::detail::fiber {

namespace {
constexpr std::uint32_t bit(std::size_t i) { return std::uint32_t{1} << i; }
}  // namespace

// ---- PCT ----

PctPicker::PctPicker(Source& src, std::size_t depth, std::size_t steps, std::uint64_t spurious_one_in)
    : src_(src), depth_(depth), fixed_steps_(steps), spurious_one_in_(spurious_one_in) {
  if (std::string why = depth_error(depth); !why.empty()) throw std::invalid_argument("duet: " + why);
  changes_.reserve(depth);
}

std::string PctPicker::depth_error(std::size_t depth) {
  if (depth == 0) return "PCT needs a depth of at least 1";
  if (depth > 64) return "PCT depth above 64";
  return {};
}

void PctPicker::begin_run(std::size_t fibers) {
  k_ = fixed_steps_ != 0 ? fixed_steps_ : seen_steps_;
  // Priorities d .. d+n-1 in a uniformly random order (Fisher-Yates).
  std::array<std::uint32_t, kMaxFibers> order{};
  std::iota(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(fibers), 0u);
  for (std::size_t i = fibers; i > 1; --i) std::swap(order[i - 1], order[src_.draw_unrecorded(i - 1)]);
  for (std::size_t i = 0; i < fibers; ++i) priority_[order[i]] = static_cast<std::uint32_t>(depth_ + i);
  ranked_.fill(false);
  std::fill(ranked_.begin(), ranked_.begin() + static_cast<std::ptrdiff_t>(fibers), true);
  ranked_count_ = fibers;
  // d-1 distinct change points in [1, k]; change point j lowers the running fiber to d-j. In
  // replay and bytes modes the picks are read back, so none are drawn (and draw_unrecorded
  // answers 0 there, which could not give distinct points).
  changes_.clear();
  next_change_ = 0;
  const std::size_t count = src_.mode() == Source::Mode::random ? std::min(depth_ - 1, k_) : 0;
  for (std::size_t j = 1; j <= count; ++j) {
    std::size_t c = 0;
    bool taken = true;
    while (taken) {
      c = 1 + static_cast<std::size_t>(src_.draw_unrecorded(k_ - 1));
      taken = std::any_of(changes_.begin(), changes_.end(), [&](const Change& x) { return x.step == c; });
    }
    changes_.push_back({c, static_cast<std::uint32_t>(depth_ - j)});
  }
  std::sort(changes_.begin(), changes_.end(), [](const Change& a, const Change& b) { return a.step < b.step; });
}

void PctPicker::rank_new_fiber(std::uint32_t fiber) {
  // A rank among the ranked fibers' d .. d+n-1, chosen uniformly; those at or above it move up.
  // Fibers a change point lowered (below d) stay where they are.
  const auto rank = static_cast<std::uint32_t>(depth_ + src_.draw_unrecorded(ranked_count_));
  for (std::size_t f = 0; f < kMaxFibers; ++f)
    if (ranked_[f] && priority_[f] >= rank) ++priority_[f];
  priority_[fiber] = rank;
  ranked_[fiber] = true;
  ++ranked_count_;
}

std::size_t PctPicker::pick(const PickContext& ctx) {
  seen_steps_ = std::max(seen_steps_, ctx.step);
  for (std::uint32_t f : ctx.candidates)
    if (!ranked_[f]) rank_new_fiber(f);
  while (next_change_ < changes_.size() && changes_[next_change_].step <= ctx.step) {
    const std::uint32_t running = ctx.current != kNoFiber ? ctx.current : ctx.candidates[0];
    priority_[running] = changes_[next_change_++].priority;
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i < ctx.candidates.size(); ++i)
    if (priority_[ctx.candidates[i]] > priority_[ctx.candidates[best]]) best = i;
  return static_cast<std::size_t>(src_.draw_decided(ctx.candidates.size() - 1, best));
}

bool PctPicker::spurious_wakeup(std::uint32_t, const Event&) {
  return spurious_one_in_ > 0 && src_.chance(1, spurious_one_in_);
}

std::size_t PctPicker::pick_waiter(std::uint32_t, std::span<const std::uint32_t> waiters) {
  return static_cast<std::size_t>(src_.draw(waiters.size() - 1));
}

double PctPicker::bound(std::size_t fibers, std::size_t steps, std::size_t depth) {
  return 1.0 / (static_cast<double>(fibers) * std::pow(static_cast<double>(steps), static_cast<double>(depth - 1)));
}

std::size_t random_store(Source& src, std::size_t stores) {
  std::uint64_t decided = 0;
  if (src.draw_unrecorded(1) == 1) decided = 1 + src.draw_unrecorded(stores - 2);
  return static_cast<std::size_t>(src.draw_decided(stores - 1, decided));
}

// ---- dependence ----

namespace {
bool reads_only(Op op) { return op == Op::load || op == Op::read || op == Op::cas_fail; }
bool cv_wait(const Event& e) { return e.kind == ObjectKind::condition_variable && e.op == Op::wait; }
}  // namespace

namespace {
bool sc_fence(const Event& e) { return e.op == Op::fence && e.order == std::memory_order_seq_cst; }
bool seq_cst_atomic(const Event& e) { return e.kind == ObjectKind::atomic && e.order == std::memory_order_seq_cst; }
}  // namespace

bool orders_every_fence(const Event& e, bool fenced) noexcept { return fenced || sc_fence(e) || seq_cst_atomic(e); }

bool orders_every_fence(const TraceEvent& executed) noexcept { return orders_every_fence(executed.event, executed.fenced); }

bool dependent(const Event& pending, const Event& executed, bool memory_model) noexcept {
  if (memory_model) {
    if (sc_fence(pending) || sc_fence(executed))
      return (sc_fence(pending) || seq_cst_atomic(pending)) && (sc_fence(executed) || seq_cst_atomic(executed));
    if (pending.object != kNoObject && pending.object == executed.object && pending.op == Op::load &&
        executed.op == Op::load && seq_cst_atomic(pending) && seq_cst_atomic(executed))
      return true;
  }
  if (pending.object == kNoObject || executed.object == kNoObject) return false;
  if (cv_wait(pending) || cv_wait(executed)) return true;
  if (pending.object != executed.object) return false;
  return !(reads_only(pending.op) && reads_only(executed.op));
}

// ---- the exhaustive search ----

Explorer::Explorer(const Scheduler& sched, Source& src, ExplorerConfig config) : sched_(sched), src_(src), config_(config) {}

bool Explorer::next(Picker*& picker) {
  if (src_.mode() != Source::Mode::random)
    throw std::logic_error("duet: the exhaustive search records its picks: its Source must be in random mode");
  if (finished_ || stats_.runs >= config_.max_schedules) {
    stats_.complete = finished_;
    return false;
  }
  pos_ = 0;
  seen_step_ = 0;
  asleep_ = 0;
  preemptions_ = 0;
  spurious_ = 0;
  stale_ = 0;
  choices_ = 0;
  redundant_ = false;
  diverged_ = false;
  diverged_at_ = 0;
  waiting_for_.fill(0);
  picker = &picker_;
  return true;
}

std::uint64_t Explorer::record(std::uint64_t max, std::uint64_t decided) {
  ++choices_;
  return src_.draw_decided(max, decided);
}

// The events executed since the last choice: fairness (a fiber that ran no longer holds back
// the fibers that yielded to it) and the sleep set (a sleeping fiber wakes when something
// dependent on its pending operation ran; if it ran itself, which only a forced move can do,
// the rest of the run repeats an explored schedule).
void Explorer::advance() {
  const std::vector<TraceEvent>& trace = sched_.trace();
  for (; seen_step_ < trace.size(); ++seen_step_) {
    const TraceEvent& e = trace[seen_step_];
    const std::uint32_t b = bit(e.fiber);
    if (config_.fair)
      for (std::uint32_t& w : waiting_for_) w &= ~b;
    if (asleep_ == 0 || redundant_) continue;
    if (asleep_ & b) {
      redundant_ = true;
      asleep_ = 0;
      continue;
    }
    for (std::uint32_t rest = asleep_; rest != 0; rest &= rest - 1) {
      const auto f = static_cast<std::size_t>(std::countr_zero(rest));
      // A pending step may invoke or return from a call, and e may have (TraceEvent::invokes):
      // their order is the calls' real-time order.
      if (dependent(pending_[f], e.event, config_.memory_model) || (config_.order_calls && (e.invokes || e.responds)) ||
          (config_.memory_model && orders_every_fence(e)))
        asleep_ &= ~bit(f);
    }
  }
}

// The sleep set after taking n.chosen: what was asleep on arrival, plus the alternatives
// explored before this one (with a preemption bound, only "keep running the current fiber":
// see the class comment), less the fiber about to run.
void Explorer::after_pick(const Node& n) {
  if (!config_.sleep_sets) return;
  std::uint32_t z = n.sleep;
  const bool bounded = config_.preemption_bound != ExplorerConfig::kUnbounded;
  for (std::size_t i = 0; i < n.options; ++i)
    if ((n.done & bit(i)) && (!bounded || (n.continues && i == 0))) z |= bit(n.fibers[i]);
  asleep_ = z & ~bit(n.fibers[n.chosen]);
}

std::size_t Explorer::pick(const PickContext& ctx) {
  advance();
  const std::size_t k = ctx.candidates.size();
  std::uint32_t runnable = 0;
  for (std::size_t f = 0; f < ctx.fibers.size(); ++f) {
    pending_[f] = ctx.fibers[f].pending;
    if (ctx.fibers[f].state == FiberState::runnable) runnable |= bit(f);
  }
  if (config_.fair) {
    for (std::uint32_t& w : waiting_for_) w &= runnable;  // who cannot run holds nobody back
    if (ctx.current != kNoFiber && !ctx.current_continues && ctx.fibers[ctx.current].state == FiberState::runnable) {
      std::uint32_t others = 0;  // the current fiber yields: all of these run before it again
      for (std::uint32_t c : ctx.candidates) others |= bit(c);
      waiting_for_[ctx.current] = others;
    }
  }
  // What the search may pick here: within the preemption bound, and fair.
  std::uint32_t in_bound = 0, allowed = 0;
  for (std::size_t i = 0; i < k; ++i) {
    if (ctx.current_continues && i != 0 && preemptions_ >= config_.preemption_bound) continue;
    in_bound |= bit(i);
    if (!config_.fair || (waiting_for_[ctx.candidates[i]] & runnable) == 0) allowed |= bit(i);
  }
  if (allowed == 0) allowed = in_bound;  // fairness must not leave nobody to run

  std::size_t index = static_cast<std::size_t>(std::countr_zero(allowed));  // the default
  if (diverged_) {
  } else if (pos_ < stack_.size()) {
    Node& n = stack_[pos_];
    bool same = n.kind == Node::Kind::pick && n.options == k && n.continues == ctx.current_continues;
    for (std::size_t i = 0; same && i < k; ++i) same = n.fibers[i] == ctx.candidates[i];
    if (!same) {
      diverged_ = true;
      diverged_at_ = pos_;
    } else {
      index = n.chosen;
      after_pick(n);
      ++pos_;
    }
  } else if (!redundant_) {
    Node n;
    n.kind = Node::Kind::pick;
    n.options = static_cast<std::uint8_t>(k);
    n.allowed = allowed;
    n.continues = ctx.current_continues;
    n.sleep = asleep_;
    n.step = ctx.step;
    std::uint32_t sleeping_options = 0;
    for (std::size_t i = 0; i < k; ++i) {
      n.fibers[i] = static_cast<std::uint8_t>(ctx.candidates[i]);
      if (asleep_ & bit(ctx.candidates[i])) sleeping_options |= bit(i);
    }
    stats_.bound_pruned += k - static_cast<std::size_t>(std::popcount(in_bound));
    stats_.sleep_pruned += static_cast<std::size_t>(std::popcount(allowed & sleeping_options));
    const std::uint32_t explorable = allowed & ~sleeping_options;
    if (explorable == 0) {
      redundant_ = true;  // every allowed pick is asleep: all that follows was explored
      asleep_ = 0;
    } else {
      n.chosen = static_cast<std::uint8_t>(std::countr_zero(explorable));
      index = n.chosen;
      stack_.push_back(n);
      after_pick(stack_.back());
      ++pos_;
    }
  }
  if (ctx.current_continues && index != 0) ++preemptions_;
  return static_cast<std::size_t>(record(k - 1, index));
}

// A choice that is not a pick (a waiter, a spurious wake-up): a node of the search when it has
// alternatives, replayed from the prefix when the prefix reaches it. Returns the option taken.
std::size_t Explorer::choice(Node::Kind kind, std::size_t options, std::uint32_t allowed) {
  if (diverged_ || redundant_) return 0;
  if (pos_ < stack_.size()) {
    const Node& n = stack_[pos_];
    if (n.kind != kind || n.options != options) {
      diverged_ = true;
      diverged_at_ = pos_;
      return 0;
    }
    ++pos_;
    return n.chosen;
  }
  Node n;
  n.kind = kind;
  n.options = static_cast<std::uint8_t>(options);
  n.allowed = allowed;
  n.chosen = 0;
  stack_.push_back(n);
  ++pos_;
  return 0;
}

bool Explorer::spurious(std::uint32_t) {
  const std::uint64_t one_in = config_.spurious_one_in;
  if (one_in == 0) return false;         // RandomPicker draws nothing either
  const std::uint64_t yes = one_in - 1;  // chance(1, one_in) is true for this draw only
  bool take = yes == 0;                  // one_in == 1: always spurious
  if (!take && spurious_ < config_.spurious_bound) take = choice(Node::Kind::spurious, 2, 0b11) == 1;
  if (take) ++spurious_;
  record(yes, take ? yes : 0);
  return take;
}

std::size_t Explorer::waiter(std::span<const std::uint32_t> waiters) {
  const std::size_t k = waiters.size();
  const std::size_t index = choice(Node::Kind::waiter, k, static_cast<std::uint32_t>(bit(k) - 1));
  return static_cast<std::size_t>(record(k - 1, index));
}

// A load's store: the newest first, older ones while the schedule's stale reads are within the
// bound. Recorded with RandomPicker's bounds (random_store draws the index in [0, stores-1]).
std::size_t Explorer::store(std::size_t stores) {
  const std::uint32_t allowed =
      stale_ < config_.stale_read_bound ? static_cast<std::uint32_t>(bit(stores) - 1) : std::uint32_t{1};
  const std::size_t index = choice(Node::Kind::store, stores, allowed);
  if (index != 0) ++stale_;
  return static_cast<std::size_t>(record(stores - 1, index));
}

bool Explorer::next_option(Node& n) const {
  for (std::size_t o = n.chosen + 1u; o < n.options; ++o) {
    if (!(n.allowed & bit(o)) || (n.done & bit(o))) continue;
    if (n.kind == Node::Kind::pick && (n.sleep & bit(n.fibers[o]))) continue;
    n.chosen = static_cast<std::uint8_t>(o);
    return true;
  }
  return false;
}

const dpor::RunOrder& Explorer::run_order() const {
  last_order_.assign(dpor::steps_of(sched_.trace(), config_.memory_model, config_.order_calls));
  return last_order_;
}

void Explorer::finish(const RunResult&) {
  if (!diverged_ && pos_ < stack_.size()) {
    diverged_ = true;  // the run ended before reaching the prefix's last choice
    diverged_at_ = pos_;
  }
  if (diverged_)
    throw std::runtime_error("duet: exhaustive search: the run did not repeat the schedule prefix it was given (choice " +
                             std::to_string(diverged_at_) +
                             " differs): the program is nondeterministic, or its state was not reset between schedules");
  advance();  // the events after the last choice
  ++stats_.runs;
  ++(redundant_ ? stats_.redundant : stats_.schedules);
  stats_.max_choices = std::max(stats_.max_choices, choices_);
  // Backtrack: the deepest choice point with an alternative left takes it; the rest goes.
  while (!stack_.empty()) {
    Node& n = stack_.back();
    n.done |= bit(n.chosen);
    if (next_option(n)) break;
    stack_.pop_back();
  }
  if (stack_.empty()) {
    finished_ = true;
    stats_.complete = true;
  }
  stats_.runs_in_all = finished_ ? static_cast<double>(stats_.runs) : runs_in_all();
}

// Each choice point of the path the next run takes: its options explored, the one taken, and
// those it may still take (allowed, not done, not asleep: known on arrival).
double Explorer::runs_in_all() const {
  SearchShare share;
  for (const Node& n : stack_) {
    std::size_t left = 0;
    for (std::size_t o = n.chosen + 1u; o < n.options; ++o)
      left += (n.allowed & bit(o)) && !(n.done & bit(o)) && !(n.kind == Node::Kind::pick && (n.sleep & bit(n.fibers[o])));
    const auto explored = static_cast<std::size_t>(std::popcount(n.done));
    share.level(explored, explored + 1 + left);
  }
  return share.runs_in_all(stats_.runs);
}

}  // namespace duet::detail::fiber
