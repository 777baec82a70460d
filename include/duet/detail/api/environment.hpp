// duet::Api's machinery, part 1: the environment of one scenario, the live values of each
// abstract type (a handle store per type).
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace duet {
namespace detail {

/// A value the well-formedness check rejected: why, and the value's variable and candidate type
/// (a draft test re-runs the check on it).
struct IllFormed {
  std::string message;  // "the well-formedness check fails on s1: ..."
  std::string var;      // "s1"
  std::string type;     // the candidate type's name
};

/// The failure of a value's well-formedness check: `why` (empty: none given) on variable `var`.
IllFormed ill_formed(const std::string& var, const std::string& why, std::string type);

struct HandleStoreBase {
  virtual ~HandleStoreBase() = default;
  virtual std::size_t size() const = 0;
  /// Runs the well-formedness check on every live value; the first failure, if any.
  virtual std::optional<IllFormed> check_all() const = 0;
  /// A copy (the parallel checker's oracle state); throws when the types cannot be copied.
  virtual std::unique_ptr<HandleStoreBase> clone() const = 0;
  /// A store of the same type and check, with no value (a new scenario's).
  virtual std::unique_ptr<HandleStoreBase> empty_copy() const = 0;
  /// The reference values equal those of `other` (a store of the same type) one by one; false
  /// when the reference type has no ==. Possible worlds after a crash that agree are merged.
  virtual bool same_references(const HandleStoreBase& other) const = 0;
  /// Moves the candidate values of `from` (a store of the same type, with the same handles)
  /// into this one: the live candidate changes world, its reference values stay.
  virtual void take_candidates(HandleStoreBase& from) = 0;
};


template <class R0, class C>
struct HandleStore final : HandleStoreBase {
  static constexpr bool solo = std::is_same_v<R0, Solo>;
  using R = std::conditional_t<solo, C, R0>;
  struct Entry {
    [[no_unique_address]] std::conditional_t<solo, std::monostate, R0> r_;
    C c;
    std::string name;
    R& r() {
      if constexpr (solo) return c;
      else return r_;
    }
  };
  std::deque<Entry> entries;  // stable addresses: arguments point into it
  std::shared_ptr<const std::function<Verdict(const R&, const C&)>> check;

  std::size_t size() const override { return entries.size(); }
  std::unique_ptr<HandleStoreBase> clone() const override {
    if constexpr (std::is_copy_constructible_v<Entry>) {
      return std::make_unique<HandleStore>(*this);  // copy-constructs the entries (far less code than deque's =)
    } else {
      throw std::logic_error("duet::Api under threads needs copyable reference and candidate types");
    }
  }
  std::unique_ptr<HandleStoreBase> empty_copy() const override {
    auto store = std::make_unique<HandleStore>();
    store->check = check;
    return store;
  }
  bool same_references(const HandleStoreBase& other) const override {
    const auto& o = static_cast<const HandleStore&>(other);
    if (o.entries.size() != entries.size()) return false;
    if constexpr (solo) {
      return true;  // no reference side
    } else if constexpr (EqualityComparable<R0>) {
      for (std::size_t i = 0; i < entries.size(); ++i)
        if (!static_cast<bool>(entries[i].r_ == o.entries[i].r_)) return false;
      return true;
    } else {
      return false;
    }
  }
  void take_candidates(HandleStoreBase& from) override {
    auto& f = static_cast<HandleStore&>(from);
    for (std::size_t i = 0; i < entries.size() && i < f.entries.size(); ++i) {
      C& c = entries[i].c;
      std::destroy_at(&c);  // C need not be assignable (a candidate may hold references)
      std::construct_at(&c, std::move(f.entries[i].c));
    }
  }
  std::optional<IllFormed> check_all() const override {
    if (!check) return std::nullopt;
    for (const Entry& e : entries) {
      std::string why;
      try {
        Verdict v = (*check)(const_cast<Entry&>(e).r(), e.c);
        if (v.ok) continue;
        why = std::move(v.why);
      } catch (...) {
        why = threw("it");
      }
      return ill_formed(e.name, why, type_name<C>());
    }
    return std::nullopt;
  }
};

struct Env {
  std::vector<std::unique_ptr<HandleStoreBase>> stores;  // by abstract type id
  const std::vector<std::string>* prefixes = nullptr;
  std::size_t next_var = 0;  // one counter for all variables, so names read in order: a0, s1, a2
  std::size_t max_handles = 32;
  /// A new variable's name for a value of abstract type `type_id`: "a0", "s1".
  std::string fresh(std::size_t type_id);

  Env() = default;
  Env(Env&&) = default;
  Env& operator=(Env&&) = default;
  /// A deep copy: every store cloned (the parallel checker's oracle state).
  Env(const Env& o);
  Env& operator=(const Env& o);
};

}  // namespace detail
}  // namespace duet
