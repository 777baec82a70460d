// A FIFO queue history whose values are each enqueued at most once decides without a search.
//
// The values dequeued leave in the order they came in, so one order of those values serves
// both their enqueues and their dequeues; values never dequeued come in after all of them. Real
// time orders x before y when x's enqueue returned before y's began, or x's dequeue before y's
// (or before y's enqueue began, which puts x ahead of y as well);
// if no two values must each come first (Henzinger et al.'s VOrd pattern), that relation has no
// cycle (two interval orders whose union has a cycle have a cycle of two), so an order exists:
// taken here greedily, the available value whose enqueue returns first. Enqueues and dequeues in
// that order are then merged (earliest response first, dequeues of an empty queue whenever the
// queue is empty, failed operations wherever real time allows), the whole order replayed on the
// queue and checked against the history before "linearizable" is said. Where the construction
// does not go through, a violation is claimed only on one of the patterns that cannot be
// linearized (a value dequeued twice or never enqueued, dequeued before it was enqueued, values
// dequeued against their enqueue order, a dequeue that found the queue empty while a value was
// certainly in it); otherwise the search decides.
#include "check/queue_decision.hpp"

#include <algorithm>
#include <queue>
#include <utility>

namespace duet::history::detail {

namespace queue_decision {

Step<QueueValues> gather_values(const QueueHistory& history) {
  QueueValues values;
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const QueueOp& op = history.ops[i];
    if (op.mode == Mode::fail) {
      if (!history.pending(i)) values.failed.push_back(i);
      continue;
    }
    if (op.enqueue && !values.enqueue_of.emplace(op.value, i).second) return Stop::undecided();  // enqueued twice
    if (!op.enqueue && op.mode != Mode::ok) return Stop::undecided();  // removed something, or nothing: a search
  }
  for (std::uint32_t i = 0; i < history.size(); ++i) {
    const QueueOp& op = history.ops[i];
    if (op.enqueue || op.mode != Mode::ok) continue;
    if (op.value == 0) {
      values.empties.push_back(i);
      continue;
    }
    auto e = values.enqueue_of.find(op.value);
    if (e == values.enqueue_of.end()) return Stop::violation({i});  // never enqueued
    if (auto [d, fresh] = values.dequeue_of.emplace(op.value, i); !fresh)
      return Stop::violation({d->second, i, e->second});                                          // twice
    if (history.response(i) < history.invoke(e->second)) return Stop::violation({e->second, i});  // before its enqueue began
  }
  for (const auto& [value, e] : values.enqueue_of) {
    if (values.dequeue_of.count(value)) values.dequeued.push_back(value);
    else if (!history.pending(e)) values.stayed.push_back(value);
  }
  return values;
}

std::optional<std::vector<std::uint32_t>> find_pattern(const QueueHistory& history, const QueueValues& values) {
  auto enq = [&](std::uint32_t value) { return values.enqueue(value); };
  auto deq = [&](std::uint32_t value) { return values.dequeue(value); };
  auto before = [&](std::uint32_t a, std::uint32_t b) {
    return history.response(a) < history.invoke(b);
  };  // a returned before b began
  for (std::uint32_t y : values.dequeued) {
    for (std::uint32_t x : values.stayed)  // x came in before y, and y left while x never did
      if (before(enq(x), enq(y))) return std::vector<std::uint32_t>{enq(x), enq(y), deq(y)};
    for (std::uint32_t x : values.dequeued)  // x came in before y, y left before x did
      if (x != y && before(enq(x), enq(y)) && before(deq(y), deq(x)))
        return std::vector<std::uint32_t>{enq(x), enq(y), deq(y), deq(x)};
  }
  for (std::uint32_t d : values.empties) {  // the queue held x all through d
    for (std::uint32_t x : values.stayed)
      if (before(enq(x), d)) return std::vector<std::uint32_t>{enq(x), d};
    for (std::uint32_t x : values.dequeued)
      if (before(enq(x), d) && before(d, deq(x))) return std::vector<std::uint32_t>{enq(x), d, deq(x)};
  }
  return std::nullopt;
}

std::optional<std::vector<std::uint32_t>> dequeue_order(const QueueHistory& history, const QueueValues& values) {
  auto enq_response = [&](std::uint32_t value) { return history.response(values.enqueue(value)); };
  auto deq_response = [&](std::uint32_t value) { return history.response(values.dequeue(value)); };
  std::vector<std::uint32_t> by_enqueue = values.dequeued, by_dequeue = values.dequeued;
  std::sort(by_enqueue.begin(), by_enqueue.end(),
            [&](std::uint32_t a, std::uint32_t b) { return enq_response(a) < enq_response(b); });
  std::sort(by_dequeue.begin(), by_dequeue.end(),
            [&](std::uint32_t a, std::uint32_t b) { return deq_response(a) < deq_response(b); });
  std::unordered_map<std::uint32_t, char> taken;
  taken.reserve(values.dequeued.size());
  std::vector<std::uint32_t> order;
  order.reserve(values.dequeued.size() + values.stayed.size());
  std::size_t first_e = 0, first_d = 0;
  while (order.size() < values.dequeued.size()) {
    while (taken.count(by_enqueue[first_e])) ++first_e;
    while (taken.count(by_dequeue[first_d])) ++first_d;
    // y may go next when everything that returned before it began (both ways) has gone.
    const std::uint64_t enq_bound = enq_response(by_enqueue[first_e]), deq_bound = deq_response(by_dequeue[first_d]);
    std::uint32_t next = kNoOp;
    // Of those, the one whose enqueue returned first: enqueues are what the merge cannot put
    // off, so their order is the one to follow (by dequeues instead, the merge got stuck on 2
    // of 3 80-client histories).
    for (std::size_t k = first_e; k < by_enqueue.size(); ++k) {
      const std::uint32_t y = by_enqueue[k];
      // (a value dequeued before y was enqueued was ahead of y too: deq_bound bounds y's enqueue)
      if (!taken.count(y) && history.invoke(values.enqueue(y)) <= std::min(enq_bound, deq_bound) &&
          history.invoke(values.dequeue(y)) <= deq_bound) {
        next = y;
        break;
      }
    }
    if (next == kNoOp) return std::nullopt;  // a cycle, hence two values that must each come first
    taken[next] = 1;
    order.push_back(next);
  }
  return order;
}

void sort_for_merge(const QueueHistory& history, QueueValues& values) {
  std::sort(values.stayed.begin(), values.stayed.end(), [&](std::uint32_t a, std::uint32_t b) {
    return history.response(values.enqueue(a)) < history.response(values.enqueue(b));
  });
  auto by_invoke = [&](std::vector<std::uint32_t>& ops) {
    std::sort(ops.begin(), ops.end(),
              [&](std::uint32_t a, std::uint32_t b) { return history.invoke(a) < history.invoke(b); });
  };
  by_invoke(values.empties);
  by_invoke(values.failed);
}

namespace {

// The merge of merge_operations. Enqueues go just in time (Lowe): none goes before it must, so
// the queue stays as short as it can be, which is what dequeues that find it empty need. At
// each step the operation that returned first among those left decides what goes next:
// itself, or what must precede it.
class Merge {
 public:
  Merge(const QueueHistory& history, const QueueValues& values, const std::vector<std::uint32_t>& value_order)
      : history_(history),
        empties_(values.empties),
        failed_(values.failed),
        placed_(history.size(), 0),
        role_(history.size(), kNoOp) {
    for (std::uint32_t v : value_order) enqueues_.push_back(values.enqueue(v));
    for (std::size_t k = 0; k < values.dequeued.size(); ++k) dequeues_.push_back(values.dequeue(value_order[k]));
    using List = const std::vector<std::uint32_t>*;
    for (List list : {List{&enqueues_}, List{&dequeues_}, List{&empties_}, List{&failed_}})
      for (std::uint32_t i : *list)
        if (!history.pending(i)) due_.emplace(history.response(i), i);
    for (std::uint32_t k = 0; k < enqueues_.size(); ++k) role_[enqueues_[k]] = k;
    for (std::uint32_t k = 0; k < dequeues_.size(); ++k) role_[dequeues_[k]] = k;
    total_ = enqueues_.size() + dequeues_.size() + empties_.size() + failed_.size();
    order_.reserve(total_);
  }

  std::optional<std::vector<std::size_t>> run() {
    while (order_.size() < total_) {
      while (!due_.empty() && placed_[due_.top().second]) due_.pop();
      const std::uint64_t bound = due_.empty() ? TimedOp::kPending : due_.top().first;  // ready: began by then
      const bool progress = place_changeless(bound);
      if (dequeue_next() && ready(dequeues_[dequeued_], bound)) {
        // Dequeues go as soon as they may (their value in, real time allowing): an early
        // dequeue shortens the queue, which only helps the dequeues that find it empty.
        place(dequeues_[dequeued_++]);
        continue;
      }
      if (progress) continue;
      const std::uint32_t step = next_step();
      if (step == kNoOp || !ready(step, bound)) return std::nullopt;
      place(step);
      history_.ops[step].enqueue ? ++enqueued_ : ++dequeued_;
    }
    return std::move(order_);
  }

 private:
  bool ready(std::uint32_t i, std::uint64_t bound) const { return history_.invoke(i) <= bound; }
  bool dequeue_next() const { return dequeued_ < std::min(enqueued_, dequeues_.size()); }  // the next dequeue's value is in
  void place(std::uint32_t i) {
    placed_[i] = 1;
    order_.push_back(i);
  }
  // Failed operations change nothing, nor does an empty dequeue while the queue is empty:
  // placed as soon as they may be, they are in nobody's way. (The bound only grows, so what is
  // left of each list is a suffix in invocation order.)
  bool place_changeless(std::uint64_t bound) {
    bool progress = false;
    for (; next_failed_ < failed_.size() && ready(failed_[next_failed_], bound); progress = true)
      place(failed_[next_failed_++]);
    if (enqueued_ == dequeued_)
      for (; next_empty_ < empties_.size() && ready(empties_[next_empty_], bound); progress = true)
        place(empties_[next_empty_++]);
    return progress;
  }
  // What the first operation left to return needs next (kNoOp: nothing can go).
  std::uint32_t next_step() const {
    const std::uint32_t next_enqueue = enqueued_ < enqueues_.size() ? enqueues_[enqueued_] : kNoOp;
    const std::uint32_t next_dequeue = dequeue_next() ? dequeues_[dequeued_] : kNoOp;
    if (due_.empty())
      return next_dequeue != kNoOp ? next_dequeue : next_enqueue;  // only pending enqueues are left, with their dequeues
    const std::uint32_t first = due_.top().second;
    if (history_.ops[first].enqueue || (history_.ops[first].value != 0 && enqueued_ <= role_[first]))
      return next_enqueue;  // first, or an enqueue it needs, comes next
    return next_dequeue;    // dequeues until first (or, for an empty one, until empty)
  }

  const QueueHistory& history_;
  const std::vector<std::uint32_t>& empties_;
  const std::vector<std::uint32_t>& failed_;
  std::vector<std::uint32_t> enqueues_, dequeues_;  // in the value order
  std::vector<char> placed_;
  using Due = std::pair<std::uint64_t, std::uint32_t>;  // (response, op) of what is still to place
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::vector<std::uint32_t> role_;  // enqueue: position in enqueues_; dequeue: in dequeues_
  std::size_t total_ = 0;
  std::vector<std::size_t> order_;
  std::size_t enqueued_ = 0, dequeued_ = 0, next_failed_ = 0, next_empty_ = 0;
};

}  // namespace

std::optional<std::vector<std::size_t>> merge_operations(const QueueHistory& history, const QueueValues& values,
                                                         const std::vector<std::uint32_t>& value_order) {
  return Merge(history, values, value_order).run();
}

}  // namespace queue_decision

std::optional<SearchResult> decide_unique_queue(const std::vector<QueueOp>& ops, const std::vector<TimedOp>& timed) {
  using namespace queue_decision;
  const QueueHistory history{ops, timed};
  Step<QueueValues> gathered = gather_values(history);
  if (auto* stop = std::get_if<Stop>(&gathered)) return stopped(ops.size(), *stop);
  QueueValues& values = std::get<QueueValues>(gathered);
  // Where the construction does not go through, a violation only on a pattern.
  auto pattern = [&]() -> std::optional<SearchResult> {
    std::optional<std::vector<std::uint32_t>> witness = find_pattern(history, values);
    if (!witness) return std::nullopt;
    return decided_violation(ops.size(), std::move(*witness));
  };
  std::optional<std::vector<std::uint32_t>> value_order = dequeue_order(history, values);
  if (!value_order) return pattern();
  sort_for_merge(history, values);
  value_order->insert(value_order->end(), values.stayed.begin(), values.stayed.end());
  std::optional<std::vector<std::size_t>> order = merge_operations(history, values, *value_order);
  if (!order) return pattern();
  std::vector<std::uint32_t> queue;
  std::optional<SearchResult> result =
      certify_order(std::move(*order), timed, [&](std::size_t i) { return queue_apply(ops[i], queue); });
  if (!result) return pattern();
  result->memo_bytes = ops.size() * 6 * sizeof(std::uint32_t);
  return result;
}

}  // namespace duet::history::detail
