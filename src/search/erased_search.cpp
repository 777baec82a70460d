// The search core instantiated once for a type-erased oracle (include/duet/detail/erased_oracle.hpp).
#include "duet/detail/erased_oracle.hpp"

#include "duet/detail/search.hpp"

namespace duet::detail {
namespace {

/// The SearchOracle interface as the search's Oracle concept.
struct ErasedOracle {
  using State = ErasedState;
  static constexpr bool memo = true;  // refined by memo_on()
  const SearchOracle* oracle;
  bool memo_on() const { return oracle->memo(); }
  State initial() const { return oracle->initial(); }
  bool apply(State& s, std::size_t op) const { return oracle->apply(s, op); }
  std::uint64_t hash(const State& s) const { return oracle->hash(s); }
  bool equal(const State& a, const State& b) const { return oracle->equal(a, b); }
};

}  // namespace

SearchResult linearize_erased(const std::vector<TimedOp>& ops, const SearchOracle& oracle, Consistency consistency,
                              const SearchBudget& budget) {
  return linearize(ops, ErasedOracle{&oracle}, consistency, budget);
}

}  // namespace duet::detail
