// Models for the history checker: the interface duet's own models implement, and the way to
// bring your own (a lease, a queue whose dequeues time out, a grow-only set, ...) to
// check_history and to a duet-check of your own.
//
// A model is a plain struct (Porcupine's Model): its State, the initial state, and a step that
// applies one recorded operation to a state and says whether the operation's recorded result
// is possible there. Optional members tell the checker more (partitions, read-only operations,
// footprints, how to print a state).
//
//   struct GrowOnlySet {
//     using State = std::set<std::int64_t>;
//     State init() const { return {}; }
//     bool step(State& s, const duet::history::Operation& op) const {
//       if (op.f == "add") return s.insert(op.input.number), true;
//       if (op.outcome != duet::history::Outcome::ok) return true;  // a read with no result
//       return op.output.items.size() == s.size();                  // read -> every element
//     }
//   };
//   duet::history::Models models;
//   models.add("gset", "grow-only set: add x, read -> all", GrowOnlySet{});
//   // check_history(h, {.model = "gset", .models = &models}), or a whole duet-check:
//   // int main(int argc, char** argv) { return duet::history::cli_main(argc, argv, models); }
//
// Link duet::history.
#pragma once

#include <algorithm>
#include <concepts>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "duet/hash.hpp"
#include "duet/history.hpp"
#include "duet/show.hpp"

#include "duet/detail/history_search.hpp"

namespace duet::history {

/// A model of an object, as check_history uses it. duet's own models derive from it; for your
/// own, write a plain struct and add it to a Models (below), which wraps it in one of these.
class Model {
 public:
  virtual ~Model() = default;
  virtual std::string_view name() const = 0;
  virtual std::string_view summary() const = 0;
  /// Independent parts (P-compositionality), each a list of indices into h.ops in increasing
  /// order. The default: one part with every operation.
  virtual std::vector<std::vector<std::size_t>> partition(const History& h) const;
  /// The initial state in words, for reports ("the register starts at 0"). Throws
  /// std::invalid_argument when `init` does not fit the model (before any search).
  virtual std::string initial_state(const std::optional<Value>& init) const = 0;
  /// Checks one part. Throws std::invalid_argument ("file:line: ...") for an operation the
  /// model cannot read.
  virtual detail::PartOutcome check(const History& h, const std::vector<std::size_t>& part, const PartCheck& c) const = 0;
};

/// The connected components of operations that share a key: operations whose keys are disjoint
/// never constrain each other, so each component can be checked alone. An operation with no
/// keys touches everything (a read of a whole set) and joins every part.
///
///   auto parts = duet::history::components_by_key(h, [](const Operation& op) {
///     return std::vector<std::string>{op.key ? op.key->to_string() : ""};
///   });
template <class Keys>
std::vector<std::vector<std::size_t>> components_by_key(const History& h, Keys keys) {
  std::vector<std::size_t> all(h.ops.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (h.ops.empty()) return {all};
  std::unordered_map<std::string, std::size_t> key_ids;
  std::vector<std::size_t> parent;
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::size_t> first_key(h.ops.size());
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    const std::vector<std::string> ks = keys(h.ops[i]);
    if (ks.empty()) return {all};
    std::size_t root = static_cast<std::size_t>(-1);
    for (const std::string& k : ks) {
      auto [it, fresh] = key_ids.try_emplace(k, parent.size());
      if (fresh) parent.push_back(parent.size());
      const std::size_t r = find(it->second);
      if (root == static_cast<std::size_t>(-1)) root = r;
      else if (r != root) parent[r] = root;
    }
    first_key[i] = key_ids[ks.front()];
  }
  std::unordered_map<std::size_t, std::size_t> part_of_root;
  std::vector<std::vector<std::size_t>> parts;
  for (std::size_t i = 0; i < h.ops.size(); ++i) {
    auto [it, fresh] = part_of_root.try_emplace(find(first_key[i]), parts.size());
    if (fresh) parts.emplace_back();
    parts[it->second].push_back(i);
  }
  return parts;
}

}  // namespace duet::history

// After Model and components_by_key, which the wrapper of a user's model struct derives from and
// calls.
#include "duet/detail/history_spec_model.hpp"

namespace duet::history {

/// Models for check_history and cli_main, beside duet's own (which a model of the same name
/// here replaces).
///
/// A model struct has:
/// - `using State = ...;` copyable, `==`, hashable (duet::hash_value, or a member
///  `std::uint64_t hash(const State&) const`);
/// - `State init() const`, or `State init(const std::optional<Value>& init) const`, which
///  --init's value reaches (throw std::invalid_argument for one that does not fit);
/// - `bool step(State& s, const Operation& op) const`: applies op to s; false when op's
///  recorded result is impossible in s. Or, for a nondeterministic model,
///  `void step(const State& s, const Operation& op, std::vector<State>& next) const`, which
///  appends every state op may lead to (none: impossible).
///
/// and may have:
/// - `std::vector<std::string> keys(const Operation&) const`: partitions the history;
///  operations with disjoint keys are independent (no keys: touches everything);
/// - `bool read_only(const Operation&) const`: the operation never changes the state (not used
///  for a nondeterministic model, where a read narrows the states it may be in);
/// - `std::string footprint(const Operation&) const`: operations with different footprints
///  commute, and each reads and writes only its own part of the state ("": commutes with
///  nothing);
/// - `std::string show(const State&) const`, for reports (else duet::show where it can);
/// - `std::string describe_initial(const std::optional<Value>&) const`: "the lock starts free";
/// - `void validate(const Operation&) const`: throws std::invalid_argument for an operation
///  the model cannot read (reported with its file and line).
///
/// step sees every operation of the part: op.outcome is ok (check op.output), fail (completed
/// without effect, as the format defines) or info (never returned: it may take effect here
/// with any result; the checker also tries it not at all); op.result_unknown: completed, its
/// result not known.
///
///   duet::history::Models models;
///   models.add("gset", "grow-only set: add x, read -> all", GrowOnlySet{});
class Models {
 public:
  template <class Spec>
  requires detail::ModelSpec<Spec> Models& add(std::string name, std::string summary, Spec spec = Spec{}) {
    return add(std::make_unique<detail::SpecModel<Spec>>(std::move(name), std::move(summary), std::move(spec)));
  }
  /// A model written against the Model interface directly.
  Models& add(std::unique_ptr<Model> model) {
    if (!model) throw std::invalid_argument("duet::history::Models::add: no model");
    for (auto& m : models_)
      if (m->name() == model->name()) {
        m = std::move(model);
        return *this;
      }
    models_.push_back(std::move(model));
    return *this;
  }
  /// nullptr if none has that name.
  const Model* find(std::string_view name) const {
    for (const auto& m : models_)
      if (m->name() == name) return m.get();
    return nullptr;
  }
  std::vector<const Model*> all() const {
    std::vector<const Model*> out;
    for (const auto& m : models_) out.push_back(m.get());
    return out;
  }

 private:
  std::vector<std::unique_ptr<Model>> models_;
};

/// duet-check's whole command line (options, files, output, exit status), with `models`
/// beside duet's own: a checker for your own objects is a 10-line main.
///
///   int main(int argc, char** argv) { return duet::history::cli_main(argc, argv, models); }
int cli_main(int argc, char** argv, const Models& models = Models{});

}  // namespace duet::history
