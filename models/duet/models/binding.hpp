// Shared by the models: the subject, made by Binding::make() when the binding has one, and the
// domains the calls draw from, which a binding may choose:
//
//   struct MyMap {
//     using Sut = MyStripedMap;
//     static duet::Gen<int> keys() { return duet::element_of({0, 1024, 2048, 3072}); }  // default: default_keys()
//     static duet::Gen<int> values() { return duet::integers(1, 9); }   // e.g. a map that reserves 0
//     ...
//   };
//
// A model names the domains it used (Spec::domain()) in its pass line and in a negative test's
// "found none" report, so that a check that found nothing says what it tried.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>

#include <duet/gen.hpp>
#include <duet/detail/model_text.hpp>
#include <duet/parallel.hpp>

namespace duet::models {

/// The keys a map or set model draws when its binding has no keys(): four keys, few enough that
/// calls collide on them, spread so that hash-based structures see them apart whichever bits
/// they go by: the low bits (0, 2, 1, 3: distinct modulo every power of two from 4 to 1024),
/// bits 10 and up (0, 1, 5, 3: distinct modulo 8, for tables whose stripes or buckets hold runs
/// of 1024 hashes), and the top bits (1073744899 is past 2^30).
inline Gen<int> default_keys() { return element_of({0, 1026, 5121, 1073744899}); }

namespace detail {

template <class Binding>
std::unique_ptr<typename Binding::Sut> make_subject() {
  if constexpr (requires { Binding::make(); }) return Binding::make();
  else return std::make_unique<typename Binding::Sut>();
}

/// A draft test's subject for a model over `Binding` (a model's draft_setup_cpp): made as the
/// check makes it (Binding::make(), or default-constructed), and `name`, an adapter whose member
/// functions call it through the binding under the model's call names, so that the draft's
/// calls (`q.push(0)`) compile whatever the subject's own names are. `members`: those
/// functions, over `B` (the binding) and `s` (the subject); a null one (a call the binding does
/// not have) is left out. The text is built in the library (duet/detail/model_text.hpp).
///
///   draft_subject<Binding>("q", {"void push(int x) { B::push(s, x); }",
///                                "std::optional<int> try_pop() { return B::try_pop(s); }",
///                                has_size ? "std::size_t size() { return B::size(s); }" : nullptr})
template <class Binding>
std::string draft_subject(std::string_view name, std::initializer_list<const char*> members) {
  return duet::detail::draft_subject_text(
      duet::type_name<Binding>(), requires { Binding::make(); }, name, members);
}

/// The binding's values(), or `fallback`.
template <class Binding>
Gen<int> values_of(Gen<int> fallback) {
  if constexpr (requires {
                  { Binding::values() } -> std::convertible_to<Gen<int>>;
                })
    return Binding::values();
  else return fallback;
}

/// The binding's keys(), or default_keys().
template <class Binding>
Gen<int> keys_of() {
  if constexpr (requires {
                  { Binding::keys() } -> std::convertible_to<Gen<int>>;
                })
    return Binding::keys();
  else return default_keys();
}

/// What a generator of ints draws, as a report names it (duet/detail/model_text.hpp).
using duet::detail::describe_ints;

}  // namespace detail
}  // namespace duet::models
