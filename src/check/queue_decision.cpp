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
#include <algorithm>
#include <limits>
#include <queue>
#include <unordered_map>

#include "model.hpp"

namespace duet::history::detail {

std::optional<SearchResult> decide_unique_queue(const std::vector<QueueOp>& ops, const std::vector<TimedOp>& timed) {
  using duet::detail::SearchVerdict;
  constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
  const std::size_t n = ops.size();
  auto inv = [&](std::uint32_t i) { return timed[i].invoke; };
  auto resp = [&](std::uint32_t i) { return timed[i].response; };  // kPending: never
  auto pending = [&](std::uint32_t i) { return timed[i].response == TimedOp::kPending; };

  SearchResult result;
  result.nodes = n;
  auto violation = [&](std::vector<std::size_t> witness) {
    result.verdict = SearchVerdict::violation;
    witness.erase(std::remove(witness.begin(), witness.end(), std::size_t{kNone}), witness.end());
    std::sort(witness.begin(), witness.end());
    witness.erase(std::unique(witness.begin(), witness.end()), witness.end());
    result.witness = std::move(witness);
    return result;
  };

  // ---- what each value did: its enqueue, its dequeue; the empty dequeues; the failed ----
  std::unordered_map<std::uint32_t, std::uint32_t> enqueue_of, dequeue_of;
  std::vector<std::uint32_t> empties, failed;
  for (std::uint32_t i = 0; i < n; ++i) {
    const QueueOp& op = ops[i];
    if (op.mode == Mode::fail) {
      if (!pending(i)) failed.push_back(i);
      continue;
    }
    if (op.enqueue && !enqueue_of.emplace(op.value, i).second) return std::nullopt;  // enqueued twice
    if (!op.enqueue && op.mode != Mode::ok) return std::nullopt;  // removed something, or nothing: a search
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const QueueOp& op = ops[i];
    if (op.enqueue || op.mode != Mode::ok) continue;
    if (op.value == 0) {
      empties.push_back(i);
      continue;
    }
    auto e = enqueue_of.find(op.value);
    if (e == enqueue_of.end()) return violation({i});                                    // never enqueued
    if (auto [d, fresh] = dequeue_of.emplace(op.value, i); !fresh) return violation({d->second, i, e->second});  // twice
    if (resp(i) < inv(e->second)) return violation({e->second, i});                     // before its enqueue began
  }
  // Values whose enqueue certainly happened: completed, or dequeued. (A pending enqueue of a
  // value nobody dequeued may never have taken effect; leaving it out keeps a linearizable
  // history linearizable.)
  std::vector<std::uint32_t> dequeued, stayed;  // by value: dequeued, or in the queue at the end
  for (const auto& [value, e] : enqueue_of) {
    if (dequeue_of.count(value)) dequeued.push_back(value);
    else if (!pending(e)) stayed.push_back(value);
  }
  auto enq = [&](std::uint32_t value) { return enqueue_of.at(value); };
  auto deq = [&](std::uint32_t value) { return dequeue_of.at(value); };

  // The patterns, for when the construction does not go through.
  auto find_pattern = [&]() -> std::optional<SearchResult> {
    for (std::uint32_t y : dequeued) {
      for (std::uint32_t x : stayed)  // x came in before y, and y left while x never did
        if (resp(enq(x)) < inv(enq(y))) return violation({enq(x), enq(y), deq(y)});
      for (std::uint32_t x : dequeued)  // x came in before y, y left before x did
        if (x != y && resp(enq(x)) < inv(enq(y)) && resp(deq(y)) < inv(deq(x)))
          return violation({enq(x), enq(y), deq(y), deq(x)});
    }
    for (std::uint32_t d : empties) {  // the queue held x all through d
      for (std::uint32_t x : stayed)
        if (resp(enq(x)) < inv(d)) return violation({enq(x), d});
      for (std::uint32_t x : dequeued)
        if (resp(enq(x)) < inv(d) && resp(d) < inv(deq(x))) return violation({enq(x), d, deq(x)});
    }
    return std::nullopt;
  };

  // ---- one order of the dequeued values, extending both real-time orders ----
  std::vector<std::uint32_t> by_enqueue = dequeued, by_dequeue = dequeued;
  std::sort(by_enqueue.begin(), by_enqueue.end(), [&](std::uint32_t a, std::uint32_t b) { return resp(enq(a)) < resp(enq(b)); });
  std::sort(by_dequeue.begin(), by_dequeue.end(), [&](std::uint32_t a, std::uint32_t b) { return resp(deq(a)) < resp(deq(b)); });
  std::unordered_map<std::uint32_t, char> taken;
  taken.reserve(dequeued.size());
  std::vector<std::uint32_t> order_values;
  order_values.reserve(dequeued.size() + stayed.size());
  std::size_t first_e = 0, first_d = 0;
  while (order_values.size() < dequeued.size()) {
    while (taken.count(by_enqueue[first_e])) ++first_e;
    while (taken.count(by_dequeue[first_d])) ++first_d;
    // y may go next when everything that returned before it began (both ways) has gone.
    const std::uint64_t enq_bound = resp(enq(by_enqueue[first_e])), deq_bound = resp(deq(by_dequeue[first_d]));
    std::uint32_t next = kNone;
    // Of those, the one whose enqueue returned first: enqueues are what the merge below cannot
    // put off, so their order is the one to follow (by dequeues instead, the merge got stuck on
    // 2 of 3 80-client histories).
    for (std::size_t k = first_e; k < by_enqueue.size(); ++k) {
      const std::uint32_t y = by_enqueue[k];
      // (a value dequeued before y was enqueued was ahead of y too: deq_bound bounds y's enqueue)
      if (!taken.count(y) && inv(enq(y)) <= std::min(enq_bound, deq_bound) && inv(deq(y)) <= deq_bound) {
        next = y;
        break;
      }
    }
    if (next == kNone) return find_pattern();  // a cycle, hence two values that must each come first
    taken[next] = 1;
    order_values.push_back(next);
  }
  std::sort(stayed.begin(), stayed.end(), [&](std::uint32_t a, std::uint32_t b) { return resp(enq(a)) < resp(enq(b)); });
  order_values.insert(order_values.end(), stayed.begin(), stayed.end());

  // ---- merge: enqueues and dequeues in that order, empty dequeues, failed operations ----
  std::vector<std::uint32_t> enqueues, dequeues;
  for (std::uint32_t v : order_values) enqueues.push_back(enq(v));
  for (std::size_t k = 0; k < dequeued.size(); ++k) dequeues.push_back(deq(order_values[k]));
  auto by_invoke = [&](std::vector<std::uint32_t>& v) {
    std::sort(v.begin(), v.end(), [&](std::uint32_t a, std::uint32_t b) { return inv(a) < inv(b); });
  };
  by_invoke(empties);
  by_invoke(failed);
  std::vector<char> placed(n, 0);
  using Due = std::pair<std::uint64_t, std::uint32_t>;  // (response, op) of what is still to place
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due;
  for (const auto* list : {&enqueues, &dequeues, &empties, &failed})
    for (std::uint32_t i : *list)
      if (!pending(i)) due.emplace(resp(i), i);
  std::vector<std::size_t> order;
  order.reserve(enqueues.size() + dequeues.size() + empties.size() + failed.size());
  auto place = [&](std::uint32_t i) {
    placed[i] = 1;
    order.push_back(i);
  };
  // Enqueues just in time (Lowe): none goes before it must, so the queue stays as short as it
  // can be, which is what dequeues that find it empty need. At each step the operation that
  // returned first among those left decides what goes next: itself, or what must precede it.
  std::vector<std::uint32_t> role(n, kNone);  // enqueue: position in `enqueues`; dequeue: in `dequeues`
  for (std::uint32_t k = 0; k < enqueues.size(); ++k) role[enqueues[k]] = k;
  for (std::uint32_t k = 0; k < dequeues.size(); ++k) role[dequeues[k]] = k;
  const std::size_t total = enqueues.size() + dequeues.size() + empties.size() + failed.size();
  std::size_t e = 0, d = 0, next_failed = 0, next_empty = 0;
  auto ready = [&](std::uint32_t i, std::uint64_t bound) { return inv(i) <= bound; };
  while (order.size() < total) {
    while (!due.empty() && placed[due.top().second]) due.pop();
    const std::uint64_t bound = due.empty() ? TimedOp::kPending : due.top().first;  // ready: began by then
    const std::size_t size = e - d;
    bool progress = false;
    // Failed operations change nothing, nor does an empty dequeue while the queue is empty:
    // placed as soon as they may be, they are in nobody's way. (The bound only grows, so what
    // is left of each list is a suffix in invocation order.)
    for (; next_failed < failed.size() && ready(failed[next_failed], bound); progress = true) place(failed[next_failed++]);
    if (size == 0)
      for (; next_empty < empties.size() && ready(empties[next_empty], bound); progress = true) place(empties[next_empty++]);
    // Dequeues go as soon as they may (their value in, real time allowing): an early dequeue
    // shortens the queue, which only helps the dequeues that find it empty.
    const bool dequeue_next = d < std::min(e, dequeues.size());  // the next dequeue's value is in
    if (dequeue_next && ready(dequeues[d], bound)) {
      place(dequeues[d++]);
      continue;
    }
    if (progress) continue;
    std::uint32_t step = kNone;
    if (due.empty()) {  // only pending enqueues are left, with their dequeues
      step = dequeue_next ? dequeues[d] : e < enqueues.size() ? enqueues[e] : kNone;
    } else {
      const std::uint32_t u = due.top().second;
      if (ops[u].enqueue || (ops[u].value != 0 && e <= role[u]))
        step = e < enqueues.size() ? enqueues[e] : kNone;  // u, or an enqueue it needs, comes next
      else
        step = dequeue_next ? dequeues[d] : kNone;  // dequeues until u (or, for an empty one, until empty)
    }
    if (step == kNone || !ready(step, bound)) return find_pattern();
    place(step);
    ops[step].enqueue ? ++e : ++d;
  }

  // ---- the order, replayed on the queue and checked against the history ----
  std::vector<std::uint32_t> queue;
  for (std::size_t i : order)
    if (!queue_apply(ops[i], queue)) return find_pattern();
  if (!order_fits_history(order, timed)) return find_pattern();
  result.verdict = SearchVerdict::ok;
  result.order = std::move(order);
  result.memo_bytes = n * 6 * sizeof(std::uint32_t);
  return result;
}

}  // namespace duet::history::detail
