// The orders of the check's fences a run's execution allows (fence_orders.hpp).
#include "execute/fibers/dpor/fence_orders.hpp"

#include <algorithm>
#include <limits>

namespace duet::detail::fiber::dpor {
namespace {

constexpr std::int64_t kNone = -1;

// An atomic access as coherence sees it: the position in its object's modification order of
// the store it wrote (0 is the value from before the run) and of the store it read.
struct Access {
  std::uint32_t object = 0;  // dense
  std::int64_t wrote = kNone, read = kNone;
};

bool reads_newest(Op op) { return op == Op::cas_fail || op == Op::wait || op == Op::rmw || op == Op::cas; }
bool writes(Op op) { return op == Op::store || op == Op::rmw || op == Op::cas; }

// Per trace event, its access (or none), and the number of objects. The run executes stores in
// modification order (memory_model.hpp), so a store's position is the count of its object's
// stores before it; a load that read an older store says which newer one it did not see
// (TraceEvent::unseen_step).
std::vector<std::pair<bool, Access>> accesses_of(std::span<const TraceEvent> trace, std::size_t& objects) {
  std::vector<std::pair<bool, Access>> out(trace.size());
  // Objects are numbered by first appearance in the run: per number, 1 + its dense index.
  std::vector<std::uint32_t> dense;
  std::vector<std::int64_t> stores;  // per dense object: stores so far
  for (std::size_t i = 0; i < trace.size(); ++i) {
    const Event& e = trace[i].event;
    const bool atomic = e.kind == ObjectKind::atomic && e.object != kNoObject;
    const bool known = e.object < dense.size() && dense[e.object] != 0;
    // A plain write over an atomic's memory (its constructor in the run) starts its history again.
    if (!atomic && !(e.op == Op::write && known)) continue;
    if (!known) {
      if (e.object >= dense.size()) dense.resize(std::size_t{e.object} + 1, 0);
      stores.push_back(0);
      dense[e.object] = static_cast<std::uint32_t>(stores.size());
    }
    Access a{.object = dense[e.object] - 1};
    std::int64_t& before = stores[a.object];
    if (e.op == Op::load) {
      const std::uint32_t unseen = trace[i].unseen_step;
      if (trace[i].stale == 0) a.read = before;
      else if (unseen < i && out[unseen].first && out[unseen].second.wrote != kNone) a.read = out[unseen].second.wrote - 1;
    } else if (reads_newest(e.op) && atomic) {
      a.read = before;
    }
    if (writes(e.op) || e.op == Op::write) a.wrote = ++before;
    out[i] = {a.read != kNone || a.wrote != kNone, a};
  }
  objects = stores.size();
  return out;
}

// Per object, the extreme positions a fiber's accesses on one side of a read wrote and read:
// the latest before it, the earliest after it.
struct Extremes {
  std::int64_t wrote, read;
};
constexpr std::int64_t kNever = std::numeric_limits<std::int64_t>::max();

void keep(Extremes& into, const Access& a, bool latest) {
  auto one = [&](std::int64_t& to, std::int64_t v) {
    if (v != kNone) to = latest ? std::max(to, v) : std::min(to, v);
  };
  one(into.wrote, a.wrote);
  one(into.read, a.read);
}

// Whether some access after (earliest positions `a`) is coherence-ordered before some access
// before (latest positions `b`) on one object: C++20 [intro.races]/13's four cases.
bool coherence_before(const Extremes& a, const Extremes& b) {
  const bool aw = a.wrote != kNever, ar = a.read != kNever, bw = b.wrote != kNone, br = b.read != kNone;
  return (aw && bw && a.wrote < b.wrote) || (aw && br && a.wrote <= b.read) || (ar && bw && a.read < b.wrote) ||
         (ar && br && a.read < b.read);
}

// Per read, per object: its fiber's latest positions before it (`before`) and earliest after it
// (`after`), as rows of `objects` entries. One sweep of the trace each way per fiber, its reads
// taken in the order of their positions.
void extremes_at_reads(std::span<const TraceEvent> trace, const std::vector<std::pair<bool, Access>>& acc,
                       std::span<const ClockRead> reads, std::size_t objects, std::vector<Extremes>& before,
                       std::vector<Extremes>& after) {
  before.assign(reads.size() * objects, Extremes{kNone, kNone});
  after.assign(reads.size() * objects, Extremes{kNever, kNever});
  std::vector<std::size_t> by_position(reads.size());
  for (std::size_t r = 0; r < reads.size(); ++r) by_position[r] = r;
  std::stable_sort(by_position.begin(), by_position.end(),
                   [&](std::size_t a, std::size_t b) { return reads[a].steps < reads[b].steps; });
  const auto at = [&](std::size_t r) { return std::min<std::size_t>(reads[r].steps, trace.size()); };
  const auto row = [&](std::vector<Extremes>& v, std::size_t r) {
    return v.begin() + static_cast<std::ptrdiff_t>(r * objects);
  };
  std::vector<Extremes> running;
  std::vector<std::uint32_t> fibers;
  for (const ClockRead& r : reads)
    if (std::find(fibers.begin(), fibers.end(), r.fiber) == fibers.end()) fibers.push_back(r.fiber);
  for (const std::uint32_t f : fibers) {
    const auto take = [&](std::size_t i, bool latest) {
      if (acc[i].first && trace[i].fiber == f) keep(running[acc[i].second.object], acc[i].second, latest);
    };
    running.assign(objects, Extremes{kNone, kNone});
    std::size_t i = 0;
    for (const std::size_t r : by_position) {
      if (reads[r].fiber != f) continue;
      for (; i < at(r); ++i) take(i, true);
      std::copy(running.begin(), running.end(), row(before, r));
    }
    running.assign(objects, Extremes{kNever, kNever});
    i = trace.size();
    for (auto it = by_position.rbegin(); it != by_position.rend(); ++it) {
      if (reads[*it].fiber != f) continue;
      for (; i > at(*it); --i) take(i - 1, false);
      std::copy(running.begin(), running.end(), row(after, *it));
    }
  }
}

}  // namespace

std::vector<std::uint64_t> fence_conflicts(std::span<const TraceEvent> trace, std::span<const ClockRead> reads) {
  std::vector<std::uint64_t> not_after(reads.size(), 0);
  if (reads.size() > 64) return not_after;
  std::size_t objects = 0;
  const auto acc = accesses_of(trace, objects);
  std::vector<Extremes> before, after;
  extremes_at_reads(trace, acc, reads, objects, before, after);
  // p before q puts p's fence before q's in S: nothing q's fiber does after q may then be
  // coherence-ordered before what p's fiber did before p. Only the objects q's fiber accesses
  // after q can be.
  std::vector<std::uint32_t> touched;
  for (std::size_t q = 0; q < reads.size(); ++q) {
    touched.clear();
    for (std::size_t o = 0; o < objects; ++o) {
      const Extremes& a = after[q * objects + o];
      if (a.wrote != kNever || a.read != kNever) touched.push_back(static_cast<std::uint32_t>(o));
    }
    for (std::size_t p = 0; p < reads.size(); ++p) {
      if (reads[p].fiber == reads[q].fiber) continue;
      for (const std::uint32_t o : touched)
        if (coherence_before(after[q * objects + o], before[p * objects + o])) {
          not_after[q] |= std::uint64_t{1} << p;
          break;
        }
    }
  }
  return not_after;
}

}  // namespace duet::detail::fiber::dpor
