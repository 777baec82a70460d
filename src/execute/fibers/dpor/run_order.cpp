// The happens-before order of a run, its races, and the sequences that reverse them
// (run_order.hpp).
#include "execute/fibers/dpor/run_order.hpp"

#include <algorithm>
#include <array>

#include "execute/fibers/strategies.hpp"

namespace duet::detail::fiber::dpor {

Step step_of(const TraceEvent& e) {
  Step s{.fiber = e.fiber, .event = e.event};
  if (e.event.op == Op::spawn && e.written.type == ValueType::fiber) s.spawned = static_cast<std::uint32_t>(e.written.bits);
  return s;
}

Step attempted(Step s) {
  if (s.event.op == Op::cas_fail) s.event.op = Op::cas;
  if (s.event.op == Op::block) s.event.op = Op::lock;
  return s;
}

std::vector<Step> steps_of(std::span<const TraceEvent> trace) {
  std::vector<Step> steps;
  steps.reserve(trace.size());
  for (const TraceEvent& e : trace) steps.push_back(step_of(e));
  return steps;
}

namespace {
// What only looks at an object: a load, and an attempt to lock that found the mutex held (it
// blocks, changing nothing). Two of them on one object commute.
bool observes(Op op) { return op == Op::load || op == Op::read || op == Op::cas_fail || op == Op::block; }
}  // namespace

bool steps_dependent(const Step& a, const Step& b) noexcept {
  // A wake-up is the fiber resuming; what woke it (the unlock, the notify) is the dependent step.
  if (a.event.op == Op::wake || b.event.op == Op::wake) return false;
  if (a.event.object == b.event.object && observes(a.event.op) && observes(b.event.op)) return false;
  return dependent(a.event, b.event);
}

void StepSet::reset(std::size_t size) { words_.assign((size + 63) / 64, 0); }

void StepSet::merge(const StepSet& other) {
  for (std::size_t w = 0; w < words_.size() && w < other.words_.size(); ++w) words_[w] |= other.words_[w];
}

// Each step's predecessors: its fiber's previous step, the spawn of its fiber (for its first
// step), and the last dependent step of every other fiber, each with what happens before it.
// A race is a last dependent step that happens before no other direct predecessor: earlier
// dependent steps of the same fiber happen before the last one, so they never race.
void RunOrder::assign(std::span<const Step> steps) {
  steps_ = steps;
  const std::size_t n = steps.size();
  preds_.assign(n, StepSet{});
  races_.clear();
  std::array<std::size_t, kMaxFibers> last{};   // per fiber: 1 + its latest step so far (0: none)
  std::array<std::size_t, kMaxFibers> spawn{};  // per fiber: 1 + the step that spawned it
  std::vector<std::size_t> direct;
  StepSet through;  // what happens before the direct predecessors
  for (std::size_t j = 0; j < n; ++j) {
    const Step& s = steps[j];
    preds_[j].reset(n);
    through.reset(n);
    direct.clear();
    if (last[s.fiber] != 0) direct.push_back(last[s.fiber] - 1);
    else if (spawn[s.fiber] != 0) direct.push_back(spawn[s.fiber] - 1);
    const std::size_t own = direct.size();
    for (std::uint32_t f = 0; f < kMaxFibers; ++f) {
      if (f == s.fiber || last[f] == 0) continue;
      for (std::size_t i = last[f]; i-- > 0;) {  // f's latest step dependent on s
        if (steps[i].fiber != f || !steps_dependent(steps[i], s)) continue;
        direct.push_back(i);
        break;
      }
    }
    for (std::size_t k : direct) {
      preds_[j].merge(preds_[k]);
      preds_[j].insert(k);
      through.merge(preds_[k]);
    }
    for (std::size_t d = own; d < direct.size(); ++d)
      if (!through.contains(direct[d])) races_.push_back({direct[d], j});
    last[s.fiber] = j + 1;
    if (s.spawned != kNoFiber && s.spawned < kMaxFibers) spawn[s.spawned] = j + 1;
  }
  std::sort(races_.begin(), races_.end(),
            [](const Race& a, const Race& b) { return a.second != b.second ? a.second < b.second : a.first < b.first; });
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

bool weak_initial(std::uint32_t p, std::span<const Step> w, const Event* next) {
  for (std::size_t m = 0; m < w.size(); ++m) {
    if (w[m].fiber != p) continue;
    for (std::size_t k = 0; k < m; ++k)
      if (w[k].spawned == p || steps_dependent(w[k], w[m])) return false;
    return true;
  }
  if (next == nullptr) return false;
  const Step alone{.fiber = p, .event = *next};
  return std::none_of(w.begin(), w.end(), [&](const Step& s) { return steps_dependent(s, alone); });
}

std::vector<Step> without_first_of(std::uint32_t p, std::span<const Step> w) {
  std::vector<Step> rest(w.begin(), w.end());
  const auto it = std::find_if(rest.begin(), rest.end(), [p](const Step& s) { return s.fiber == p; });
  if (it != rest.end()) rest.erase(it);
  return rest;
}

}  // namespace duet::detail::fiber::dpor
