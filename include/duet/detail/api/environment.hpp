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

struct HandleStoreBase {
  virtual ~HandleStoreBase() = default;
  virtual std::size_t size() const = 0;
  /// Runs the well-formedness check on every live value; the first failure, if any.
  virtual std::optional<std::string> check_all() const = 0;
  /// A copy (the parallel checker's oracle state); throws when the types cannot be copied.
  virtual std::unique_ptr<HandleStoreBase> clone() const = 0;
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
      auto copy = std::make_unique<HandleStore>();
      copy->entries = entries;
      copy->check = check;
      return copy;
    } else {
      throw std::logic_error("duet::Api under threads needs copyable reference and candidate types");
    }
  }
  std::optional<std::string> check_all() const override {
    if (!check) return std::nullopt;
    for (const Entry& e : entries) {
      try {
        const Verdict v = (*check)(const_cast<Entry&>(e).r(), e.c);
        if (!v.ok) return "the well-formedness check fails on " + e.name + (v.why.empty() ? "" : ": " + v.why);
      } catch (...) {
        return "the well-formedness check fails on " + e.name + ": " + threw("it");
      }
    }
    return std::nullopt;
  }
};

struct Env {
  std::vector<std::unique_ptr<HandleStoreBase>> stores;  // by abstract type id
  const std::vector<std::string>* prefixes = nullptr;
  std::size_t next_var = 0;  // one counter for all variables, so names read in order: a0, s1, a2
  std::size_t max_handles = 32;
  std::string fresh(std::size_t type_id) { return (*prefixes)[type_id] + std::to_string(next_var++); }

  Env() = default;
  Env(Env&&) = default;
  Env& operator=(Env&&) = default;
  /// A deep copy: every store cloned (the parallel checker's oracle state).
  Env(const Env& o);
  Env& operator=(const Env& o);
};

}  // namespace detail
}  // namespace duet
