// Models of recorded histories: each compiles a partition's operations into a compact oracle
// for the one search core (include/duet/detail/search.hpp), and says how its histories split
// into independent parts (P-compositionality).
#pragma once

#include <chrono>
#include <cstdint>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "../history/quote.hpp"
#include "duet/detail/search.hpp"
#include "duet/history.hpp"

namespace duet::history::detail {

using duet::detail::SearchBudget;
using duet::detail::SearchResult;
using duet::detail::SearchVerdict;
using duet::detail::TimedOp;

/// One partition's outcome, in indices of History::ops.
struct PartOutcome {
  SearchResult search;                 // order in History::ops indices
  std::vector<std::string> states;     // printed state after each operation of the order
  std::optional<std::size_t> stuck;    // violation: the operation that cannot be placed
  std::string stuck_state;             // ... and the state where it cannot
};

class Model {
 public:
  virtual ~Model() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  /// Independent parts, each a list of indices into h.ops in increasing order.
  virtual std::vector<std::vector<std::size_t>> partition(const History& h) const;
  /// Throws std::invalid_argument ("file:line: ...") for operations the model cannot read.
  virtual PartOutcome check(const History& h, const std::vector<std::size_t>& part, const SearchBudget& budget,
                            bool want_states) const = 0;
};

/// Every operation in one part (models that do not partition, and --no-partition).
std::vector<std::vector<std::size_t>> single_part(const History& h);

/// nullptr if there is no such model.
const Model* find_model(std::string_view name);
std::vector<const Model*> all_models();

/// "file:line: what" for an operation that does not fit its model.
[[noreturn]] void reject(const History& h, const Operation& op, const std::string& what);

/// Interns values as dense ids (0 is reserved for "none" by the models that need it).
class Interner {
 public:
  Interner() { strings_.emplace_back(); }
  std::uint32_t id(const std::string& s) {
    auto [it, fresh] = ids_.try_emplace(s, static_cast<std::uint32_t>(strings_.size()));
    if (fresh) {
      strings_.push_back(s);
      bytes_ += 2 * s.capacity() + 96;  // the string twice (table and list), nodes, slots
    }
    return it->second;
  }
  const std::string& text(std::uint32_t id) const { return strings_[id]; }
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_ = 0;
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> strings_;
};

/// Runs the search for one part with an oracle built for it (indices local to the part), and
/// fills in the diagnosis: states along the order, the stuck operation and its state.
template <class Oracle>
PartOutcome search_part(const History& h, const std::vector<std::size_t>& part, const Oracle& oracle,
                        const SearchBudget& budget, bool want_states) {
  std::vector<TimedOp> timed(part.size());
  std::unordered_map<std::int64_t, std::uint32_t> processes;
  for (std::size_t i = 0; i < part.size(); ++i) {
    const Operation& op = h.ops[part[i]];
    auto [it, fresh] = processes.try_emplace(op.process, static_cast<std::uint32_t>(processes.size()));
    timed[i].process = it->second;
    timed[i].invoke = op.invoke;
    timed[i].response = op.outcome == Outcome::info ? TimedOp::kPending : op.response;
  }
  PartOutcome out;
  // The deadline may have passed while the history was read or this part prepared: the
  // search's own setup is not worth starting then (on a huge part it takes a while).
  if (std::chrono::steady_clock::now() >= budget.deadline) {
    out.search.verdict = SearchVerdict::unknown;
    out.search.stop = duet::detail::SearchStop::time;
    return out;
  }
  out.search = duet::detail::linearize(timed, oracle, duet::detail::Consistency::linearizable, budget);
  const bool violation = out.search.verdict == SearchVerdict::violation;
  if (want_states || violation) {
    typename Oracle::State s = oracle.initial();
    for (std::size_t local : out.search.order) {
      oracle.apply(s, local);
      if (want_states) out.states.push_back(oracle.show(s));
    }
    if (violation) {
      // The operation that blocks: of those not placed, the first to have returned (every
      // later operation would have to follow it, and it fits nowhere).
      std::vector<bool> placed(part.size(), false);
      for (std::size_t local : out.search.order) placed[local] = true;
      std::optional<std::size_t> stuck;
      for (std::size_t i = 0; i < part.size(); ++i)
        if (!placed[i] && timed[i].response != TimedOp::kPending && (!stuck || timed[i].response < timed[*stuck].response))
          stuck = i;
      if (stuck) out.stuck = part[*stuck];
      out.stuck_state = oracle.show(s);
    }
  }
  for (std::size_t& i : out.search.order) i = part[i];
  return out;
}

}  // namespace duet::history::detail
