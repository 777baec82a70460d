// The search core's parts that do not depend on the oracle's type, compiled once (see
// include/duet/detail/search_parts.hpp).
#include "duet/detail/search_parts.hpp"
#include "duet/detail/search_turns.hpp"

#include <algorithm>
#include <numeric>

#include "duet/detail/rng.hpp"

namespace duet::detail::search {

std::size_t SlotIndex::grow(const std::vector<std::uint64_t>& hashes) {
  std::vector<std::uint32_t> grown(slots_.size() * 2, kEmpty);
  const std::size_t mask = grown.size() - 1;
  for (std::uint32_t i = 0; i < hashes.size(); ++i) {
    std::size_t t = hashes[i] & mask;
    while (grown[t] != kEmpty) t = (t + 1) & mask;
    grown[t] = i;
  }
  const std::size_t added = (grown.size() - slots_.size()) * sizeof(std::uint32_t);
  slots_.swap(grown);
  return added;
}

namespace {

struct EventKey {
  std::uint32_t phase;
  std::uint64_t time;
  std::uint8_t kind;  // 0 call, 1 return
  std::uint32_t op;
};

std::vector<EventKey> sorted_event_keys(const std::vector<TimedOp>& ops, Consistency consistency) {
  const bool sc = consistency == Consistency::sequential;
  std::vector<EventKey> keys;
  keys.reserve(2 * ops.size());
  for (std::uint32_t i = 0; i < ops.size(); ++i) {
    const TimedOp& op = ops[i];
    const bool pending = op.response == TimedOp::kPending;
    keys.push_back({op.phase, sc ? 0 : op.invoke, 0, i});
    keys.push_back({pending ? kNone : op.phase, pending || sc ? 0 : op.response, 1, i});
  }
  std::sort(keys.begin(), keys.end(), [&](const EventKey& a, const EventKey& b) {
    if (a.phase != b.phase) return a.phase < b.phase;
    if (sc && a.kind != b.kind) return a.kind < b.kind;
    if (a.time != b.time) return a.time < b.time;
    if (a.kind != b.kind) return a.kind < b.kind;
    if (a.kind == 0) return ops[a.op].invoke != ops[b.op].invoke ? ops[a.op].invoke < ops[b.op].invoke : a.op < b.op;
    return a.op < b.op;
  });
  return keys;
}

}  // namespace

EventList::EventList(const std::vector<TimedOp>& ops, Consistency consistency)
    : head_(static_cast<std::uint32_t>(2 * ops.size())),
      events_(2 * ops.size() + 1),
      call_of_(ops.size()),
      return_of_(ops.size()) {
  const std::vector<EventKey> keys = sorted_event_keys(ops, consistency);
  std::uint32_t prev = head_;
  for (std::uint32_t k = 0; k < keys.size(); ++k) {
    events_[k] = {keys[k].op, keys[k].kind == 0, prev, kNone};
    events_[prev].next = k;
    prev = k;
  }
  events_[prev].next = kNone;
  for (std::uint32_t k = 0; k < keys.size(); ++k) (events_[k].call ? call_of_ : return_of_)[events_[k].op] = k;
}

std::vector<std::uint32_t> process_predecessors(const std::vector<TimedOp>& ops) {
  const std::size_t n = ops.size();
  std::vector<std::uint32_t> before_in_process(n, kNone);
  std::vector<std::uint32_t> by_invoke(n);
  std::iota(by_invoke.begin(), by_invoke.end(), 0u);
  std::stable_sort(by_invoke.begin(), by_invoke.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return ops[a].invoke < ops[b].invoke; });
  std::unordered_map<std::uint32_t, std::uint32_t> last;
  for (std::uint32_t i : by_invoke) {
    auto it = last.find(ops[i].process);
    if (it != last.end()) before_in_process[i] = it->second;
    if (ops[i].response != TimedOp::kPending) last[ops[i].process] = i;
  }
  return before_in_process;
}

std::vector<std::uint64_t> urgency_ranks(const std::vector<TimedOp>& ops, Consistency consistency, const EventList& events) {
  const std::size_t n = ops.size();
  std::vector<std::uint64_t> urgency(n);
  // Completed operations by response (real time), or in list order (sequential consistency).
  std::vector<std::uint32_t> by_response;
  for (std::uint32_t i = 0; i < n; ++i)
    if (ops[i].response != TimedOp::kPending) by_response.push_back(i);
  if (consistency == Consistency::linearizable)
    std::stable_sort(by_response.begin(), by_response.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return ops[a].response < ops[b].response; });
  else
    std::sort(by_response.begin(), by_response.end(),
              [&](std::uint32_t a, std::uint32_t b) { return events.call_position(a) < events.call_position(b); });
  for (std::uint32_t k = 0; k < by_response.size(); ++k) urgency[by_response[k]] = k;
  for (std::uint32_t i = 0; i < n; ++i)
    if (ops[i].response == TimedOp::kPending) urgency[i] = n + std::uint64_t{events.call_position(i)};
  return urgency;
}

PlacedSet::PlacedSet(const std::vector<TimedOp>& ops) : zobrist_(ops.size()), pending_index_(ops.size(), kNone) {
  const std::size_t n = ops.size();
  for (std::size_t i = 0; i < n; ++i) zobrist_[i] = mix64(0x5eedull + i);
  for (std::uint32_t i = 0; i < n; ++i)
    if (ops[i].response == TimedOp::kPending) pending_index_[i] = static_cast<std::uint32_t>(pending_count_++);
  const std::size_t words = (n + 63) / 64;
  placed_.assign(words, 0);
  done_.assign(words, 0);
  pending_placed_.assign((pending_count_ + 63) / 64, 0);
  for (std::uint32_t i = 0; i < n; ++i)
    if (pending_index_[i] != kNone) done_[i / 64] |= std::uint64_t{1} << (i % 64);
}

namespace {

bool is_subset(const std::uint64_t* a, const std::uint64_t* b, std::size_t words) {  // a ⊆ b
  for (std::size_t w = 0; w < words; ++w)
    if ((a[w] & ~b[w]) != 0) return false;
  return true;
}

}  // namespace

bool includes_a_pending_set(const std::vector<std::uint64_t>& sets, const std::vector<std::uint64_t>& placed) {
  const std::size_t words = placed.size();
  for (std::size_t k = 0; k < sets.size(); k += words)
    if (is_subset(&sets[k], placed.data(), words)) return true;
  return false;
}

std::ptrdiff_t add_pending_set(std::vector<std::uint64_t>& sets, const std::vector<std::uint64_t>& placed) {
  const std::size_t words = placed.size();
  const std::size_t before = sets.size();
  std::size_t kept = 0;
  for (std::size_t k = 0; k < sets.size(); k += words)
    if (!is_subset(placed.data(), &sets[k], words)) {
      std::copy_n(sets.begin() + static_cast<std::ptrdiff_t>(k), words, sets.begin() + static_cast<std::ptrdiff_t>(kept));
      kept += words;
    }
  sets.resize(kept);
  sets.insert(sets.end(), placed.begin(), placed.end());
  return (static_cast<std::ptrdiff_t>(sets.size()) - static_cast<std::ptrdiff_t>(before)) * 8;
}

bool backjumping_applies(const std::vector<TimedOp>& ops, const std::vector<std::uint32_t>& predecessors,
                         const OperationTraits& traits, std::size_t pending_count, Consistency consistency,
                         bool collecting_end_states) {
  // With footprints that split the state (each operation reads and writes only its footprint's
  // part) and no operation pending, a configuration has no completion exactly when one class's
  // remaining operations have none from that class's part of the state (locality). Kept off
  // with pending operations: a memo hit may then stand for a configuration still being
  // explored, which is not a failure. Not when collecting end states: a node whose every
  // completion was collected "fails" for no class's reason.
  if (!traits.has_footprints() || pending_count != 0 || consistency != Consistency::linearizable || collecting_end_states)
    return false;
  // Locality also needs real time alone to order each process's operations: a process whose
  // next operation is invoked at the very time its previous one returned links classes
  // through program order, and then no failure belongs to one class.
  for (std::uint32_t i = 0; i < ops.size(); ++i)
    if (predecessors[i] != kNone && ops[i].invoke <= ops[predecessors[i]].response) return false;
  // And every operation in one class: one that commutes with nothing (kFootprintAll) touches
  // every class's part, so undoing it can help any class, and no failure is one class's.
  return std::none_of(traits.footprint.begin(), traits.footprint.end(),
                      [](std::uint64_t fp) { return fp == kFootprintAll; });
}

ClassPartition::ClassPartition(const OperationTraits& traits) {
  const std::size_t n = traits.footprint.size();
  std::vector<std::uint32_t> counts;
  class_of_.resize(n);
  local_of_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t fp = traits.footprint[i];
    if (fp == kFootprintAll) {  // no partition: nogoods stay off
      *this = ClassPartition();
      return;
    }
    auto [it, fresh] = class_index_.try_emplace(fp, static_cast<std::uint32_t>(class_footprint_.size()));
    if (fresh) {
      class_footprint_.push_back(fp);
      counts.push_back(0);
    }
    class_of_[i] = it->second;
    local_of_[i] = counts[it->second]++;
  }
  for (std::uint32_t c : counts) class_bits_.emplace_back((c + 63) / 64, 0);
  class_open_.assign(counts.size(), 0);
  class_high_.assign(counts.size(), 0);
  class_hash_.assign(counts.size(), 0);
}

WorkBudget::WorkBudget(const SearchBudget& budget) : budget_(budget), deadline_(budget.deadline) {
  // Beyond a few years, or not a number: no limit (and no overflow converting it).
  if (budget.max_seconds > 0 && budget.max_seconds < 1e8)
    deadline_ = std::min(deadline_,
                         std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                                std::chrono::duration<double>(budget.max_seconds)));
}

SearchStop WorkBudget::check(std::uint64_t nodes, std::chrono::nanoseconds teardown) {
  if (budget_.turns) budget_.turns->pass(turn_checks_);
  if (nodes >= budget_.max_nodes) return SearchStop::nodes;
  if (std::chrono::steady_clock::now() + teardown >= deadline_) return SearchStop::time;
  if ((budget_.cancel && budget_.cancel->load(std::memory_order_relaxed)) ||
      (budget_.group_cancel && budget_.group_cancel->load(std::memory_order_relaxed)))
    return SearchStop::cancelled;
  return SearchStop::none;
}

}  // namespace duet::detail::search
