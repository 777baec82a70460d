// A user's model struct as the history checker runs it (duet::history::Models::add): the
// concepts that say what the struct provides, the search's oracle over it for one part of a
// history (a nondeterministic model's state being the set of states it may be in), and the
// Model that wraps it. Included by duet/history_model.hpp after Model and components_by_key;
// not a public header.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include "duet/detail/history_search.hpp"

namespace duet::history {
namespace detail {

// What a user's model struct provides (see Models::add).
template <class Spec>
concept DeterministicStep = requires(const Spec& m, typename Spec::State& s, const Operation& op) {
  { m.step(s, op) } -> std::convertible_to<bool>;
};
template <class Spec>
concept NondeterministicStep = requires(const Spec& m, const typename Spec::State& s, const Operation& op,
                                        std::vector<typename Spec::State>& next) {
  {m.step(s, op, next)};
};
template <class Spec>
concept ModelSpec = std::copy_constructible<typename Spec::State> && std::equality_comparable<typename Spec::State> &&
    (DeterministicStep<Spec> || NondeterministicStep<Spec>)&&(
        requires(const Spec& m) { m.init(); } || requires(const Spec& m, const std::optional<Value>& v) { m.init(v); });

template <class Spec>
std::uint64_t spec_hash(const Spec& m, const typename Spec::State& s) {
  if constexpr (requires { m.hash(s); }) return static_cast<std::uint64_t>(m.hash(s));
  else return duet::hash_value(s);
}

template <class Spec>
std::string spec_show(const Spec& m, const typename Spec::State& s) {
  if constexpr (requires {
                  { m.show(s) } -> std::convertible_to<std::string>;
                })
    return m.show(s);
  else if constexpr (duet::printable<typename Spec::State>()) return duet::show(s);
  else return "(a state; give the model a show(const State&) to print it)";
}

// The search's oracle over a user's model, for one part: operations are the part's, by
// position. A nondeterministic model's oracle state is the set of states it may be in (as
// Porcupine's NondeterministicModel is turned into a deterministic one), kept in a canonical
// order (by hash, then as found) so that equal sets compare equal.
template <class Spec>
struct SpecOracle {
  static constexpr bool kNondeterministic = !DeterministicStep<Spec>;
  using UserState = typename Spec::State;
  using State = std::conditional_t<kNondeterministic, std::vector<UserState>, UserState>;
  static constexpr bool memo = true;
  const Spec* spec;
  std::vector<const Operation*> ops;
  std::vector<std::uint64_t> footprints;  // empty: the model gives none
  State start;
  mutable std::vector<UserState> scratch;

  State initial() const { return start; }
  bool apply(State& s, std::size_t i) const {
    if constexpr (kNondeterministic) {
      scratch.clear();
      for (const UserState& u : s) spec->step(u, *ops[i], scratch);
      if (scratch.empty()) return false;
      canonical(scratch);
      s.swap(scratch);
      return true;
    } else {
      return spec->step(s, *ops[i]);
    }
  }
  void canonical(std::vector<UserState>& set) const {
    std::vector<std::pair<std::uint64_t, std::size_t>> keyed(set.size());
    for (std::size_t k = 0; k < set.size(); ++k) keyed[k] = {spec_hash(*spec, set[k]), k};
    std::sort(keyed.begin(), keyed.end());
    std::vector<UserState> out;
    out.reserve(set.size());
    for (std::size_t k = 0; k < keyed.size(); ++k) {
      const UserState& u = set[keyed[k].second];
      bool seen = false;
      for (std::size_t j = k; j-- > 0 && keyed[j].first == keyed[k].first;)
        if (set[keyed[j].second] == u) seen = true;
      if (!seen) out.push_back(u);
    }
    set.swap(out);
  }
  std::uint64_t hash(const State& s) const {
    if constexpr (kNondeterministic) {
      std::uint64_t h = 0x6e64;
      for (const UserState& u : s) h = duet::detail::hash_combine(h, spec_hash(*spec, u));
      return h;
    } else {
      return spec_hash(*spec, s);
    }
  }
  bool equal(const State& a, const State& b) const {
    if constexpr (kNondeterministic) {
      if (a.size() != b.size()) return false;
      for (const UserState& u : a)
        if (std::find(b.begin(), b.end(), u) == b.end()) return false;
      return true;
    } else {
      return a == b;
    }
  }
  bool read_only(std::size_t i) const {
    // Not for a nondeterministic model: its oracle state is the set of states it may be in, and
    // a read narrows that set, so placing a read early may rule out every linearization.
    if constexpr (!kNondeterministic && requires(const Operation& op) { spec->read_only(op); })
      return spec->read_only(*ops[i]);
    else return false;
  }
  std::string show(const State& s) const {
    if constexpr (kNondeterministic) {
      if (s.size() == 1) return spec_show(*spec, s.front());
      std::string out = "one of {";
      for (std::size_t k = 0; k < s.size(); ++k) out += (k > 0 ? ", " : "") + spec_show(*spec, s[k]);
      return out + "}";
    } else {
      return spec_show(*spec, s);
    }
  }
};

// The search uses footprints (partial-order reduction, backjumping) only when the oracle has
// them: only a model that gives them gets this oracle.
template <class Spec>
struct SpecOracleWithFootprints : SpecOracle<Spec> {
  std::uint64_t footprint(std::size_t i) const { return this->footprints[i]; }
};

template <class Spec>
class SpecModel final : public Model {
 public:
  SpecModel(std::string name, std::string summary, Spec spec)
      : name_(std::move(name)), summary_(std::move(summary)), spec_(std::move(spec)) {}
  std::string_view name() const override { return name_; }
  std::string_view summary() const override { return summary_; }
  std::vector<std::vector<std::size_t>> partition(const History& h) const override {
    if constexpr (requires(const Operation& op) {
                    { spec_.keys(op) } -> std::convertible_to<std::vector<std::string>>;
                  })
      return components_by_key(h, [&](const Operation& op) { return spec_.keys(op); });
    else return Model::partition(h);
  }
  std::string initial_state(const std::optional<Value>& init) const override {
    const typename Spec::State s = start(init);
    if constexpr (requires {
                    { spec_.describe_initial(init) } -> std::convertible_to<std::string>;
                  })
      return spec_.describe_initial(init);
    else return "the state starts as " + spec_show(spec_, s);
  }
  PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const override {
    constexpr bool has_footprint = requires(const Operation& op) {
      { spec_.footprint(op) } -> std::convertible_to<std::string>;
    };
    using Oracle = std::conditional_t<has_footprint, SpecOracleWithFootprints<Spec>, SpecOracle<Spec>>;
    Oracle oracle;
    oracle.spec = &spec_;
    std::unordered_map<std::string, std::uint64_t> footprint_ids;
    for (std::size_t i : part) {
      const Operation& op = h.ops[i];
      if constexpr (requires { spec_.validate(op); }) {
        try {
          spec_.validate(op);
        } catch (const std::invalid_argument& e) {
          reject(h, op, e.what());
        }
      }
      oracle.ops.push_back(&op);
      if constexpr (has_footprint) {
        const std::string fp = spec_.footprint(op);
        oracle.footprints.push_back(fp.empty() ? duet::detail::kFootprintAll
                                               : footprint_ids.try_emplace(fp, footprint_ids.size()).first->second);
      }
    }
    if constexpr (SpecOracle<Spec>::kNondeterministic) oracle.start = {start(c.init)};
    else oracle.start = start(c.init);
    return search_part(h, part, oracle, c);
  }

 private:
  typename Spec::State start(const std::optional<Value>& init) const {
    if constexpr (requires { spec_.init(init); }) {
      return spec_.init(init);
    } else {
      if (init) throw std::invalid_argument("the model " + name_ + " takes no initial value (--init)");
      return spec_.init();
    }
  }
  std::string name_, summary_;
  Spec spec_;
};

}  // namespace detail
}  // namespace duet::history
