// A trial's history judged in every order of its calls that its execution allows
// (call_order_check.hpp).
#include "execute/call_order_check.hpp"

#include <algorithm>
#include <bit>
#include <iterator>

namespace duet::detail {
namespace {

constexpr std::uint32_t kNoRead = ~std::uint32_t{0};

// The read of the clock that gave `time`, or kNoRead (a call of the prefix or the suffix, timed
// outside the run).
std::uint32_t read_of(const std::vector<std::uint64_t>& times, std::uint64_t time) {
  const auto it = std::lower_bound(times.begin(), times.end(), time);
  return it != times.end() && *it == time ? static_cast<std::uint32_t>(it - times.begin()) : kNoRead;
}

// The walk's states met: keys of a fixed number of words, in one table (open addressing), so
// that a state costs no allocation of its own.
class StateSet {
 public:
  explicit StateSet(std::size_t width) : width_(width) {}
  std::size_t size() const { return size_; }
  // False when `key` (width words) was in the set already.
  bool insert(const std::uint64_t* key) {
    if ((size_ + 1) * 2 > slots_) grow();
    for (std::size_t s = hash(key) & (slots_ - 1);; s = (s + 1) & (slots_ - 1)) {
      std::uint64_t* at = keys_.data() + s * width_;
      if (used_[s] == 0) {
        std::copy_n(key, width_, at);
        used_[s] = 1;
        ++size_;
        return true;
      }
      if (std::equal(key, key + width_, at)) return false;
    }
  }

 private:
  std::size_t hash(const std::uint64_t* key) const {
    std::uint64_t h = 0x9e3779b97f4a7c15u;
    for (std::size_t w = 0; w < width_; ++w) h = (h ^ key[w]) * 0xff51afd7ed558ccdu;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
  void grow() {
    std::vector<std::uint64_t> keys = std::move(keys_);
    std::vector<unsigned char> used = std::move(used_);
    const std::size_t old = slots_;
    slots_ = std::max<std::size_t>(64, slots_ * 2);
    keys_.assign(slots_ * width_, 0);
    used_.assign(slots_, 0);
    size_ = 0;
    for (std::size_t s = 0; s < old; ++s)
      if (used[s] != 0) insert(keys.data() + s * width_);
  }

  std::size_t width_;
  std::size_t slots_ = 0, size_ = 0;
  std::vector<std::uint64_t> keys_;
  std::vector<unsigned char> used_;
};

}  // namespace

CallOrderCheck::CallOrderCheck(const YShape& shape, TrialDriver& driver, bool searching)
    : driver_(driver), left_(searching && driver.leave_call_orders_to_check()) {
  if (!left_) return;  // threads, sampling strategies, replays: nothing to keep per program
  branch_of_.assign(shape.size(), 0);
  std::size_t at = shape.prefix;
  for (std::size_t b = 0; b < shape.branches.size(); ++b)
    for (std::size_t k = 0; k < shape.branches[b] && at < branch_of_.size(); ++k)
      branch_of_[at++] = static_cast<std::uint32_t>(b + 1);
}

CallOrderCheck::Verdict CallOrderCheck::judge(const std::vector<Observed>& observed, bool own, const Explains& explains) {
  if (!left_) return own ? Verdict::explained : Verdict::failed;
  const CallOrders orders = driver_.call_orders();
  // With the fences in the run, its own order is one its execution has: judged already.
  if (!orders.fences_left_out && !own) return Verdict::failed;
  bool listed = orders.complete;
  const Verdict v = listed ? judge(observed, own, orders, explains, listed) : Verdict::explained;
  if (v == Verdict::unexplained || !listed) {  // the search runs them, the failing one among them
    order_by_running();
    // Where the fences were left out, the orders kept are more than C++ allows
    // (fence_orders.hpp): the search with the fences decides, as it would have alone.
    failed_ = v == Verdict::unexplained && !orders.fences_left_out;
  }
  return v;
}

CallOrderCheck::Explained::iterator CallOrderCheck::explained_for(const std::vector<Observed>& observed) {
  return std::find_if(explained_.begin(), explained_.end(), [&](const auto& e) {
    return e.first.size() == observed.size() && std::equal(e.first.begin(), e.first.end(), observed.begin(),
                                                           [](const Result& r, const Observed& o) { return r == o.result; });
  });
}

bool CallOrderCheck::explained_before(const std::vector<Observed>& observed) {
  if (!left_) return false;
  const auto entry = explained_for(observed);
  return entry != explained_.end() && entry->second.contains(precedence(observed));
}

bool CallOrderCheck::search_again_with_fences(const std::string& failure) {
  if (!left_ || !driver_.fences_left_out()) return false;
  order_by_running();
  run_failure_ = failure;
  return true;
}

void CallOrderCheck::order_by_running() {
  driver_.order_calls_by_running();
  left_ = false;
}

std::string CallOrderCheck::unshown_failure() const {
  const std::string searched =
      driver_.program_complete() ? "ran no schedule that fails" : "ended (its budget) before a schedule that shows it";
  if (!run_failure_.empty())
    return "a run with the check's seq_cst fences at the calls' boundaries left out of the C++ memory model failed (" +
           run_failure_ + "), and the program's search, run again with them, " + searched +
           (driver_.program_complete() ? ": the failure needs an execution those fences rule out" : "") +
           "; the program is not known to pass";
  if (!failed_) return {};
  return "an order of the calls that a run's execution allows did not explain its results, and the program's search, "
         "run again ordering the calls by running, " +
         (driver_.program_complete() ? searched + ": duet's call orders and its search disagree (a bug of duet's)"
                                     : searched) +
         "; the program is not known to pass";
}

// The distinct precedences of one trial's calls over the orders of its clock reads: depth first
// over the reads that may come next. What a prefix of an order has decided (the reads placed,
// the precedence so far) is all its rest depends on, so a state met again is not walked again,
// and each precedence is reached once.
struct CallOrderCheck::OrderWalk {
  // Where it is given up (the search runs the orders instead): far more than 2 branches of 3
  // calls reach (at most 924 orders).
  static constexpr std::size_t kMaxStates = 200'000;
  using Visit = std::function<bool(const std::vector<std::uint32_t>&, const std::vector<std::uint64_t>&)>;

  OrderWalk(const std::vector<std::uint64_t>& before, const std::vector<std::uint64_t>& not_after,
            const std::vector<std::uint32_t>& branch_of, std::size_t calls)
      : before(before),
        not_after(not_after),
        invokes(before.size(), kNoRead),
        responds(before.size(), kNoRead),
        branch_of(branch_of),
        calls(calls),
        width((calls * calls + 63) / 64),
        seen(1 + width),
        key(1 + width),
        saved(before.size() * width) {}

  const std::vector<std::uint64_t>& before;
  const std::vector<std::uint64_t>& not_after;   // empty: every order `before` allows
  std::vector<std::uint32_t> invokes, responds;  // per read: the call it invokes or returns from, or kNoRead
  const std::vector<std::uint32_t>& branch_of;
  std::size_t calls = 0;
  Visit visit;                       // each precedence reached, with an order that gives it; false stops the walk
  std::size_t width;                 // words of a precedence
  StateSet seen;                     // (placed, precedence) met
  std::vector<std::uint64_t> key;    // scratch: a state as seen's key
  std::vector<std::uint64_t> saved;  // per depth: the precedence before the read placed there
  std::vector<std::uint32_t> order;
  bool stopped = false, too_many = false;

  bool first_visit(std::uint64_t placed, const std::vector<std::uint64_t>& precedence) {
    key[0] = placed;
    std::copy(precedence.begin(), precedence.end(), key.begin() + 1);
    return seen.insert(key.data());
  }
  void walk(std::uint64_t placed, std::vector<std::uint64_t>& precedence) {
    if (stopped || !first_visit(placed, precedence)) return;
    if (seen.size() > kMaxStates) {
      stopped = too_many = true;
      return;
    }
    if (order.size() == before.size()) {
      stopped = !visit(order, precedence);
      return;
    }
    const std::uint64_t all = before.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << before.size()) - 1;
    for (std::uint64_t free = all & ~placed; free != 0 && !stopped; free &= free - 1) {
      const auto r = static_cast<std::uint32_t>(std::countr_zero(free));
      if ((before[r] & ~placed) != 0 || (!not_after.empty() && (not_after[r] & placed) != 0)) continue;
      // Placing a read only adds precedences: kept at this depth, put back after.
      const auto keep = saved.begin() + static_cast<std::ptrdiff_t>(order.size() * width);
      const bool invokes_one = invokes[r] != kNoRead;
      if (invokes_one) {
        std::copy(precedence.begin(), precedence.end(), keep);
        returned_before(placed, invokes[r], precedence);
      }
      order.push_back(r);
      walk(placed | (std::uint64_t{1} << r), precedence);
      order.pop_back();
      if (invokes_one) std::copy_n(keep, width, precedence.begin());
    }
  }
  // Call b begins now: every call of another branch that has returned precedes it.
  void returned_before(std::uint64_t placed, std::uint32_t b, std::vector<std::uint64_t>& precedence) const {
    for (std::uint64_t done = placed; done != 0; done &= done - 1) {
      const std::uint32_t a = responds[static_cast<std::size_t>(std::countr_zero(done))];
      if (a == kNoRead || branch_of[a] == branch_of[b]) continue;
      const std::size_t bit = a * calls + b;
      precedence[bit / 64] |= std::uint64_t{1} << (bit % 64);
    }
  }
};

std::vector<std::uint64_t> CallOrderCheck::precedence(const std::vector<Observed>& observed) const {
  const std::size_t n = observed.size();
  std::vector<std::uint64_t> bits((n * n + 63) / 64, 0);
  for (std::size_t a = 0; a < n && a < branch_of_.size(); ++a)
    for (std::size_t b = 0; b < n && b < branch_of_.size(); ++b)
      if (branch_of_[a] != 0 && branch_of_[b] != 0 && branch_of_[a] != branch_of_[b] &&
          observed[a].response < observed[b].invoke)
        bits[(a * n + b) / 64] |= std::uint64_t{1} << ((a * n + b) % 64);
  return bits;
}

void CallOrderCheck::retime(std::vector<Observed>& history, const CallOrders& orders,
                            const std::vector<std::uint32_t>& order) const {
  std::vector<std::uint64_t> time(orders.times.size());
  for (std::size_t m = 0; m < order.size() && m < orders.times.size(); ++m) time[order[m]] = orders.times[m];
  for (std::size_t c = 0; c < history.size() && c < reads_.size(); ++c) {
    if (reads_[c].first != kNoRead) history[c].invoke = time[reads_[c].first];
    if (reads_[c].second != kNoRead) history[c].response = time[reads_[c].second];
  }
}

CallOrderCheck::Verdict CallOrderCheck::judge(const std::vector<Observed>& observed, bool own, const CallOrders& orders,
                                              const Explains& explains, bool& listed) {
  auto entry = explained_for(observed);
  if (entry == explained_.end()) {
    std::vector<Result> results;
    results.reserve(observed.size());
    for (const Observed& o : observed) results.push_back(o.result);
    explained_.emplace_back(std::move(results), std::set<std::vector<std::uint64_t>, WordsLess>{});
    entry = std::prev(explained_.end());
  }
  // Each branch call's reads of the clock; the prefix's and suffix's calls keep their times.
  OrderWalk w(orders.before, orders.not_after, branch_of_, observed.size());
  reads_.assign(observed.size(), {kNoRead, kNoRead});
  for (std::size_t c = 0; c < observed.size() && c < branch_of_.size(); ++c) {
    if (branch_of_[c] == 0) continue;
    reads_[c] = {read_of(orders.times, observed[c].invoke), read_of(orders.times, observed[c].response)};
    if (reads_[c].first != kNoRead) w.invokes[reads_[c].first] = static_cast<std::uint32_t>(c);
    if (reads_[c].second != kNoRead) w.responds[reads_[c].second] = static_cast<std::uint32_t>(c);
  }
  // The run's own order explained the calls (the caller judged it): it is not judged again.
  // (Where it did not, it is failing only if the fences allow it, with the fences left out.)
  if (own) entry->second.insert(precedence(observed));
  // Only the times change from order to order: one copy of the calls, retimed in place.
  std::vector<Observed> history = observed;
  bool failed = false;
  w.visit = [&](const std::vector<std::uint32_t>& order, const std::vector<std::uint64_t>& precedence) {
    if (entry->second.contains(precedence)) return true;
    retime(history, orders, order);
    if (!explains(history)) return !(failed = true);
    entry->second.insert(precedence);
    return true;
  };
  std::vector<std::uint64_t> precedence((observed.size() * observed.size() + 63) / 64, 0);
  w.walk(0, precedence);
  listed = !w.too_many;
  return failed ? Verdict::unexplained : Verdict::explained;
}

}  // namespace duet::detail
