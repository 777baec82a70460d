// The happens-before order of a run, its races, and the sequences that reverse them
// (run_order.hpp).
#include "execute/fibers/dpor/run_order.hpp"

#include <algorithm>
#include <array>
#include <bitset>

#include "execute/fibers/memory_model.hpp"
#include "execute/fibers/strategies.hpp"

namespace duet::detail::fiber::dpor {

Step step_of(const TraceEvent& e, bool model, bool calls) {
  Step s{.fiber = e.fiber,
         .event = e.event,
         .model = model,
         .fenced = e.fenced,
         .invokes = calls && e.invokes,
         .responds = calls && e.responds,
         .calls = calls,
         .read_from = e.read_step};
  if (e.event.op == Op::spawn && e.written.type == ValueType::fiber) s.spawned = static_cast<std::uint32_t>(e.written.bits);
  return s;
}

Step pending_step(std::uint32_t fiber, const Event& e, bool model, bool calls) {
  // The check's fences are in the run only where the search orders the calls by running.
  return Step{.fiber = fiber,
              .event = e,
              .model = model,
              .fenced = model && calls,
              .invokes = calls,
              .responds = calls,
              .calls = calls};
}

Step attempted(Step s) {
  if (s.event.op == Op::cas_fail) s.event.op = Op::cas;
  if (s.event.op == Op::block) s.event.op = Op::lock;
  s.read_from = kNoStep;
  // It may end a call where it did not: both sides, and under the model the check's fence.
  s.invokes = s.responds = s.calls;
  s.fenced = s.model && s.calls;
  return s;
}

bool same_step(const Step& a, const Step& b) noexcept {
  const Event& x = a.event;
  const Event& y = b.event;
  return a.fiber == b.fiber && a.spawned == b.spawned && a.model == b.model && a.fenced == b.fenced &&
         a.invokes == b.invokes && a.responds == b.responds && a.calls == b.calls && a.read_from == b.read_from &&
         x.op == y.op && x.kind == y.kind && x.order == y.order && x.object == y.object &&
         x.loc.file_name() == y.loc.file_name() && x.loc.line() == y.loc.line() && x.loc.column() == y.loc.column();
}

std::vector<Step> steps_of(std::span<const TraceEvent> trace, bool model, bool calls) {
  std::vector<Step> steps;
  steps.reserve(trace.size());
  for (const TraceEvent& e : trace) steps.push_back(step_of(e, model, calls));
  return steps;
}

namespace {
// What only looks at an object: a load, and an attempt to lock that found the mutex held (it
// blocks, changing nothing). Two of them on one object commute.
bool observes(Op op) { return op == Op::load || op == Op::read || op == Op::cas_fail || op == Op::block; }
bool fence_orders(const Step& fenced, const Step& other) {
  return fenced.fenced && orders_every_fence(other.event, other.fenced);
}
}  // namespace

bool steps_dependent(const Step& a, const Step& b) noexcept {
  if (a.fiber != b.fiber && ((a.responds && b.invokes) || (a.invokes && b.responds))) return true;
  // A wake-up is the fiber resuming; what woke it (the unlock, the notify) is the dependent step.
  if (a.event.op == Op::wake || b.event.op == Op::wake) return false;
  const bool model = a.model || b.model;
  if (model && (fence_orders(a, b) || fence_orders(b, a))) return true;
  if (a.event.object == b.event.object && observes(a.event.op) && observes(b.event.op))
    return model && a.event.op == Op::load && b.event.op == Op::load && dependent(a.event, b.event, true);
  return dependent(a.event, b.event, model);
}

namespace {
bool atomic_write(Op op) { return op == Op::store || op == Op::rmw || op == Op::cas; }
bool atomic_access(Op op) { return atomic_write(op) || op == Op::load || op == Op::cas_fail; }
}  // namespace

std::vector<std::size_t> writes_of(std::span<const Step> steps, std::uint32_t object) {
  std::vector<std::size_t> writes;
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].event.object == object && atomic_write(steps[i].event.op)) writes.push_back(i);
  return writes;
}

bool history_holds_every_store(std::span<const Step> steps, std::uint32_t object) {
  std::size_t stores = 1;  // the value before the run is one of the kept stores
  for (const Step& s : steps) {
    if (s.event.object != object) continue;
    if (s.event.kind != ObjectKind::atomic || !atomic_access(s.event.op)) return false;
    stores += atomic_write(s.event.op);
  }
  return stores < AtomicsModel::kHistory;
}

void RunOrder::assign(std::span<const Step> steps) {
  truncate(0);
  steps_.reserve(steps.size());
  for (const Step& s : steps) push(s);
}

void RunOrder::truncate(std::size_t n) {
  if (n >= steps_.size()) return;
  steps_.resize(n);
  previous_.resize(n);
  words_.resize(offset_[n]);
  offset_.resize(n + 1);
  while (!races_.empty() && races_.back().second >= n) races_.pop_back();
  recount_fibers();
}

void RunOrder::recount_fibers() {
  last_.fill(0);
  spawn_.fill(0);
  fibers_ = 0;
  for (std::size_t j = 0; j < steps_.size(); ++j) {
    const Step& s = steps_[j];
    last_[s.fiber] = j + 1;
    fibers_ = std::max<std::size_t>(fibers_, s.fiber + 1);
    if (s.spawned == kNoFiber || s.spawned >= kMaxFibers) continue;
    spawn_[s.spawned] = j + 1;
    fibers_ = std::max<std::size_t>(fibers_, s.spawned + 1);
  }
}

void RunOrder::merge_row(std::uint64_t* into, std::size_t k) const {
  const std::uint64_t* from = words_.data() + offset_[k];
  for (std::size_t w = 0; w < (k + 63) / 64; ++w) into[w] |= from[w];
}

// A step's predecessors: its fiber's previous step, the spawn of its fiber (for its first step),
// and the last dependent step of every other fiber, each with what happens before it. A race is
// a last dependent step that happens before no other direct predecessor: earlier dependent steps
// of the same fiber happen before the last one, so they never race.
void RunOrder::push(const Step& s) {
  const std::size_t j = steps_.size();
  direct_.clear();
  if (last_[s.fiber] != 0) direct_.push_back(last_[s.fiber] - 1);
  else if (spawn_[s.fiber] != 0) direct_.push_back(spawn_[s.fiber] - 1);
  frame_predecessors(s.fiber, direct_);
  const std::size_t own = direct_.size();
  for (std::uint32_t f = 0; f < fibers_; ++f) {
    if (f == s.fiber) continue;
    for (std::size_t i = last_[f]; i != 0; i = previous_[i - 1])  // f's latest step dependent on s
      if (steps_dependent(steps_[i - 1], s)) {
        direct_.push_back(i - 1);
        break;
      }
  }
  const std::size_t width = (j + 63) / 64;
  through_.assign(width, 0);
  words_.resize(offset_[j] + width, 0);
  for (std::size_t k : direct_) {
    merge_row(words_.data() + offset_[j], k);
    words_[offset_[j] + k / 64] |= std::uint64_t{1} << (k % 64);
    merge_row(through_.data(), k);
  }
  offset_.push_back(words_.size());
  const std::size_t first_race = races_.size();
  // (Not one of the own predecessors either: the trial's frame orders steps of other fibers.)
  for (std::size_t d = own; d < direct_.size(); ++d)
    if (((through_[direct_[d] / 64] >> (direct_[d] % 64)) & 1u) == 0 &&
        std::find(direct_.begin(), direct_.begin() + static_cast<std::ptrdiff_t>(own), direct_[d]) ==
            direct_.begin() + static_cast<std::ptrdiff_t>(own))
      races_.push_back({direct_[d], j});
  std::sort(races_.begin() + static_cast<std::ptrdiff_t>(first_race), races_.end(),
            [](const Race& a, const Race& b) { return a.first < b.first; });
  steps_.push_back(s);
  previous_.push_back(last_[s.fiber]);
  last_[s.fiber] = j + 1;
  fibers_ = std::max<std::size_t>(fibers_, s.fiber + 1);
  if (s.spawned != kNoFiber && s.spawned < kMaxFibers) {
    spawn_[s.spawned] = j + 1;
    fibers_ = std::max<std::size_t>(fibers_, s.spawned + 1);
  }
}

void RunOrder::frame_predecessors(std::uint32_t fiber, std::vector<std::size_t>& out) const {
  if (trial_fiber_ == kNoFiber || trial_fiber_ >= kMaxFibers) return;
  if (fiber < trial_fiber_) {  // a branch's first step: after the setup's last (none between)
    if (last_[fiber] == 0 && last_[trial_fiber_] != 0) out.push_back(last_[trial_fiber_] - 1);
    return;
  }
  if (fiber != trial_fiber_) return;
  for (std::uint32_t b = 0; b < trial_fiber_; ++b)  // a teardown step: after every branch
    if (last_[b] != 0) out.push_back(last_[b] - 1);
}

std::vector<Step> RunOrder::reversal(const Race& r) const {
  std::vector<Step> v;
  for (std::size_t k = r.first + 1; k < r.second; ++k)
    if (!before(r.first, k)) v.push_back(steps_[k]);
  // The second step now runs before the first: a compare-exchange that failed because of the
  // first may succeed, so it goes in as the write it may be. (A failed compare-exchange in the
  // rest of v still follows every write that made it fail.)
  v.push_back(attempted(steps_[r.second]));
  return v;
}

// The load's past without its conflicts with the writes in `later`: its fiber's previous step
// (or its spawn), and each other fiber's last step it depends on otherwise, with what happens
// before them. A fence a write and the load order stays (swapping them changes the fences' order).
bool RunOrder::could_precede(const Step& load, std::span<const std::size_t> later) const {
  const std::size_t n = steps_.size();
  std::vector<std::uint64_t> past((n + 63) / 64, 0);
  const auto take = [&](std::size_t d) {
    merge_row(past.data(), d);
    past[d / 64] |= std::uint64_t{1} << (d % 64);
  };
  const auto moved = [&](std::size_t i) { return std::find(later.begin(), later.end(), i) != later.end(); };
  std::bitset<kMaxFibers> found;  // fibers whose last such step is taken
  found.set(load.fiber);
  std::vector<std::size_t> framed;
  frame_predecessors(load.fiber, framed);
  for (std::size_t d : framed) take(d);
  bool own = false;
  for (std::size_t i = n; i-- > 0;) {
    const Step& s = steps_[i];
    if ((s.fiber == load.fiber || s.spawned == load.fiber) && !own) {
      take(i);
      own = true;
    }
    if (s.fiber >= kMaxFibers || found.test(s.fiber)) continue;
    if (moved(i) ? fence_orders(s, load) || fence_orders(load, s) : steps_dependent(s, load)) {
      take(i);
      found.set(s.fiber);
    }
  }
  return std::none_of(later.begin(), later.end(), [&](std::size_t i) { return ((past[i / 64] >> (i % 64)) & 1u) != 0; });
}

bool weak_initial(std::uint32_t p, std::span<const Step> w, const Step* next) {
  for (std::size_t m = 0; m < w.size(); ++m) {
    if (w[m].fiber != p) continue;
    for (std::size_t k = 0; k < m; ++k)
      if (w[k].spawned == p || steps_dependent(w[k], w[m])) return false;
    return true;
  }
  if (next == nullptr) return false;
  return std::none_of(w.begin(), w.end(), [&](const Step& s) { return steps_dependent(s, *next); });
}

std::vector<Step> without_first_of(std::uint32_t p, std::span<const Step> w) {
  std::vector<Step> rest(w.begin(), w.end());
  const auto it = std::find_if(rest.begin(), rest.end(), [p](const Step& s) { return s.fiber == p; });
  if (it != rest.end()) rest.erase(it);
  return rest;
}

}  // namespace duet::detail::fiber::dpor
