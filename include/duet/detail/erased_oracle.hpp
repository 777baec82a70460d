// One compiled search for oracles of every type. A Y-program's oracle (a state-machine model,
// a relaxed model, the candidate replayed) differs per spec, and instantiating the search for
// each costs every test file that declares a parallel check about a second of compiling; its
// histories are short, so the search behind a virtual interface (one instantiation, in the
// library) costs little at run time. Long histories keep the typed search (search.hpp).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "duet/detail/search_types.hpp"

namespace duet::detail {

/// An oracle's state behind one type: copies copy the state (assigning in place when both
/// sides hold one), swaps swap pointers.
class ErasedState {
 public:
  struct Box {
    virtual ~Box() = default;
    virtual std::unique_ptr<Box> clone() const = 0;
    virtual void assign(const Box& other) = 0;  // other holds the same type
  };
  ErasedState() = default;
  explicit ErasedState(std::unique_ptr<Box> box) : box_(std::move(box)) {}
  ErasedState(const ErasedState& other) : box_(other.box_ ? other.box_->clone() : nullptr) {}
  ErasedState& operator=(const ErasedState& other) {
    if (this == &other) return *this;
    if (box_ && other.box_) box_->assign(*other.box_);
    else box_ = other.box_ ? other.box_->clone() : nullptr;
    return *this;
  }
  ErasedState(ErasedState&&) noexcept = default;
  ErasedState& operator=(ErasedState&&) noexcept = default;
  friend void swap(ErasedState& a, ErasedState& b) noexcept { a.box_.swap(b.box_); }
  Box& box() { return *box_; }
  const Box& box() const { return *box_; }

 private:
  std::unique_ptr<Box> box_;
};

/// The oracle interface of the compiled search (see search.hpp for what each answers).
class SearchOracle {
 public:
  virtual ~SearchOracle() = default;
  virtual ErasedState initial() const = 0;
  virtual bool apply(ErasedState& s, std::size_t op) const = 0;
  virtual std::uint64_t hash(const ErasedState& s) const = 0;
  virtual bool equal(const ErasedState& a, const ErasedState& b) const = 0;
  virtual bool memo() const = 0;
};

/// linearize() over a SearchOracle, compiled once in the library.
SearchResult linearize_erased(const std::vector<TimedOp>& ops, const SearchOracle& oracle, Consistency consistency,
                              const SearchBudget& budget);

/// The copy assignment of the ready-made models' states (duet/models/), compiled once in the
/// library (src/frontends/model_states.cpp): the search assigns states on every step it
/// tries, and std::deque's assignment alone was 5 KB of code in every test file that checks a
/// queue. Any other state is assigned in place by the template.
void assign_state(std::deque<int>& to, const std::deque<int>& from);
void assign_state(std::vector<int>& to, const std::vector<int>& from);
void assign_state(std::set<int>& to, const std::set<int>& from);
void assign_state(std::map<int, int>& to, const std::map<int, int>& from);
template <class State>
void assign_state(State& to, const State& from) {
  to = from;
}

/// A typed oracle behind the SearchOracle interface.
template <class Oracle>
class ErasedOracleOf final : public SearchOracle {
  using State = typename Oracle::State;
  struct Held final : ErasedState::Box {
    explicit Held(State s) : value(std::move(s)) {}
    std::unique_ptr<Box> clone() const override { return std::make_unique<Held>(value); }
    void assign(const Box& other) override { assign_state(value, static_cast<const Held&>(other).value); }
    State value;
  };
  static State& value(ErasedState& s) { return static_cast<Held&>(s.box()).value; }
  static const State& value(const ErasedState& s) { return static_cast<const Held&>(s.box()).value; }

 public:
  explicit ErasedOracleOf(const Oracle& oracle) : oracle_(oracle) {}
  ErasedState initial() const override { return ErasedState(std::make_unique<Held>(oracle_.initial())); }
  bool apply(ErasedState& s, std::size_t op) const override { return oracle_.apply(value(s), op); }
  std::uint64_t hash(const ErasedState& s) const override { return oracle_.hash(value(s)); }
  bool equal(const ErasedState& a, const ErasedState& b) const override { return oracle_.equal(value(a), value(b)); }
  bool memo() const override { return Oracle::memo; }

 private:
  const Oracle& oracle_;
};

/// The search for a short history with any oracle, without instantiating it for the oracle's
/// type: what a parallel check's trials use. (Footprints, read-only operations and end states
/// are not asked of such oracles.)
///
///   const SearchResult r = linearize_short(ops, ModelOracle<Spec>{&cmds, &observed}, Consistency::linearizable, budget);
template <class Oracle>
SearchResult linearize_short(const std::vector<TimedOp>& ops, const Oracle& oracle, Consistency consistency,
                             const SearchBudget& budget = {}) {
  return linearize_erased(ops, ErasedOracleOf<Oracle>(oracle), consistency, budget);
}

}  // namespace duet::detail
