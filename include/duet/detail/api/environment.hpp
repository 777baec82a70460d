// duet::Api's machinery, part 1: the environment of one scenario, the live values of each
// abstract type (a handle store per type).
// Included by duet/api.hpp after the spec vocabulary it uses; not a public header.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <new>
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

/// What a handle store needs of an abstract type's values, as functions compiled once per
/// abstract type (handle_types<R, C>()): the store itself is compiled once, in the library.
/// Each function takes a handle's values (a Handle<R, C>).
struct HandleTypes {
  std::size_t size = 0, align = 0;  // of a Handle<R, C>
  void (*destroy)(void* handle) noexcept = nullptr;
  void (*copy)(void* to, const void* from) = nullptr;  // none: a type cannot be copied
  // The reference values are equal; none when the reference type has no == (a solo type's are).
  bool (*same_reference)(const void* a, const void* b) = nullptr;
  // Moves the candidate value of `from` into `to` (C need not be assignable: destroyed, built again).
  void (*take_candidate)(void* to, void* from) = nullptr;
};

/// A handle's well-formedness check (Api::abstract's), on its values.
using HandleCheck = std::function<Verdict(const void* handle)>;

/// The live values of one abstract type in a scenario, in the order they were made. A
/// handle's values never move (arguments point at them) until the store ends: each handle
/// (its variable's name, then its values) has a place in a chunk.
class HandleStore {
 public:
  /// An empty store of values described by `types`; `check` and the candidate type's name
  /// `type` (for a draft test) when the type has a well-formedness check.
  HandleStore(const HandleTypes& types, std::shared_ptr<const HandleCheck> check, std::string type);
  ~HandleStore();
  HandleStore(const HandleStore&) = delete;
  HandleStore& operator=(const HandleStore&) = delete;

  std::size_t size() const { return size_; }
  /// The first handle named `name`, or size() when none is.
  std::size_t find(const std::string& name) const;
  /// Handle i's values (a Handle<R, C>) and its variable's name ("a0").
  void* values(std::size_t i) const { return place(i) + values_offset_; }
  const std::string& name(std::size_t i) const { return *std::launder(reinterpret_cast<const std::string*>(place(i))); }
  /// Adds a handle named `name`, whose values construct(where, context) builds; nothing is
  /// added when it throws.
  void add(std::string name, void (*construct)(void* where, void* context), void* context);
  /// Runs the well-formedness check on every live value; the first failure, if any.
  std::optional<IllFormed> check_all() const;
  /// A copy (the parallel checker's oracle state); throws when the types cannot be copied.
  std::unique_ptr<HandleStore> clone() const;
  /// A store of the same type and check, with no value (a new scenario's).
  std::unique_ptr<HandleStore> empty_copy() const;
  /// The reference values equal those of `other` (a store of the same type) one by one; false
  /// when the reference type has no ==. Possible worlds after a crash that agree are merged.
  bool same_references(const HandleStore& other) const;
  /// Moves the candidate values of `from` (a store of the same type, with the same handles)
  /// into this one: the live candidate changes world, its reference values stay.
  void take_candidates(HandleStore& from);

 private:
  static constexpr std::size_t inline_chunks = 8;  // chunks whose address the store holds itself

  unsigned char* chunk(std::size_t k) const {
    return k < inline_chunks ? first_chunks_[k] : more_chunks_[k - inline_chunks];
  }
  unsigned char* place(std::size_t i) const {
    return chunk(i >> chunk_shift_) + (i & ((std::size_t{1} << chunk_shift_) - 1)) * stride_;
  }
  unsigned char* next_place();  // handle size_'s place, in a new chunk when the last is full
  std::size_t chunk_align() const;

  const HandleTypes* types_;
  std::shared_ptr<const HandleCheck> check_;
  std::string type_;
  std::size_t size_ = 0;
  std::size_t chunks_ = 0;
  std::size_t values_offset_;  // from a place to its values (after the name)
  std::size_t stride_;         // from a place to the next
  // A chunk holds 2^chunk_shift_ places, as many as fit in 1 KiB (at least one): small enough
  // for the allocator's per-thread cache, so that a scenario's store costs no trip to the heap.
  unsigned chunk_shift_ = 0;
  unsigned char* first_chunks_[inline_chunks] = {};
  std::vector<unsigned char*> more_chunks_;
};

/// The values of one handle: the reference's (none for duet::Solo) and the candidate's.
template <class R0, class C>
struct Handle {
  static constexpr bool solo = std::is_same_v<R0, Solo>;
  using R = std::conditional_t<solo, C, R0>;  // what predicates see
  [[no_unique_address]] std::conditional_t<solo, std::monostate, R0> r_;
  C c;
  R& r() {
    if constexpr (solo) return c;
    else return r_;
  }
  const R& r() const {
    if constexpr (solo) return c;
    else return r_;
  }
};

template <class R0, class C>
Handle<R0, C>& handle_at(const HandleStore& store, std::size_t i) {
  return *static_cast<Handle<R0, C>*>(store.values(i));
}

/// HandleTypes for Handle<R0, C>: one set of functions per abstract type.
template <class R0, class C>
constexpr HandleTypes make_handle_types() {
  using H = Handle<R0, C>;
  HandleTypes t;
  t.size = sizeof(H);
  t.align = alignof(H);
  t.destroy = [](void* h) noexcept { static_cast<H*>(h)->~H(); };
  if constexpr (std::is_copy_constructible_v<H>)
    t.copy = [](void* to, const void* from) { ::new (to) H(*static_cast<const H*>(from)); };
  if constexpr (H::solo) {
    t.same_reference = [](const void*, const void*) { return true; };  // no reference side
  } else if constexpr (EqualityComparable<R0>) {
    t.same_reference = [](const void* a, const void* b) {
      return static_cast<bool>(static_cast<const H*>(a)->r_ == static_cast<const H*>(b)->r_);
    };
  }
  t.take_candidate = [](void* to, void* from) {
    C& c = static_cast<H*>(to)->c;
    std::destroy_at(&c);
    std::construct_at(&c, std::move(static_cast<H*>(from)->c));
  };
  return t;
}
template <class R0, class C>
inline constexpr HandleTypes handle_types = make_handle_types<R0, C>();

/// False, for a static_assert in a branch only some template arguments reach.
template <class>
inline constexpr bool dependent_false = false;

/// duet::Api::abstract's store for values of abstract type (R0, C), with the well-formedness
/// check (nullptr: none) run after every operation.
template <class R0, class C, class Check>
std::unique_ptr<HandleStore> empty_store(Check check) {
  using H = Handle<R0, C>;
  std::shared_ptr<const HandleCheck> fn;
  if constexpr (std::is_invocable_v<const Check&, const typename H::R&, const C&>) {
    fn = std::make_shared<const HandleCheck>([check](const void* values) {
      const H& h = *static_cast<const H*>(values);
      return Verdict(check(h.r(), h.c));
    });
  } else if constexpr (std::is_invocable_v<const Check&, const C&>) {
    fn = std::make_shared<const HandleCheck>(
        [check](const void* values) { return Verdict(check(static_cast<const H*>(values)->c)); });
  } else if constexpr (!std::is_same_v<Check, std::nullptr_t>) {
    static_assert(dependent_false<Check>, "duet::Api::abstract: the check must be callable as check(const R&, const C&) (or "
                                          "check(const C&)) and return bool or duet::Verdict");
  }
  std::string type;  // for a draft test that runs the check again
  if constexpr (!std::is_same_v<Check, std::nullptr_t>) type = type_name<C>();
  return std::make_unique<HandleStore>(handle_types<R0, C>, std::move(fn), std::move(type));
}

/// duet::Api::recover's rebuilding of every live candidate value of a store after a crash.
template <class R0, class C, class F>
std::function<void(HandleStore&)> store_recovery(F fn) {
  static_assert(std::is_invocable_v<const F&, C&>,
                "duet::Api::recover: the function must take the candidate value to rebuild: void(C&)");
  static_assert(std::is_copy_constructible_v<C> && (std::is_same_v<R0, Solo> || std::is_copy_constructible_v<R0>),
                "duet::Api::recover: crash injection keeps copies of the reference (and candidate) values "
                "for each world a crash may have left: both types must be copyable");
  return [fn = std::move(fn)](HandleStore& store) {
    for (std::size_t i = 0; i < store.size(); ++i) fn(handle_at<R0, C>(store, i).c);
  };
}

/// duet::Api::state's printer of one value of abstract type (R0, C).
template <class R0, class C, class F>
std::function<std::string(const void*)> handle_printer(F show) {
  using H = Handle<R0, C>;
  static_assert(std::is_invocable_r_v<std::string, const F&, const typename H::R&>,
                "duet::Api::state: the printer takes the reference value (const R&; const C& for duet::Solo types) and "
                "returns std::string");
  return [show = std::move(show)](const void* values) { return std::string(show(static_cast<const H*>(values)->r())); };
}

struct Env {
  std::vector<std::unique_ptr<HandleStore>> stores;  // by abstract type id
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
