// What the ready-made models (models/duet/models/) print, compiled once in the library
// (src/frontends/model_text.cpp) rather than in every test file that checks a model: the
// domain a generator of ints draws from, as a pass line names it, and a draft test's adapter
// over a model's binding. binding.hpp gives them to the models under duet::models::detail.
// Not a public header.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "duet/detail/declarations.hpp"

namespace duet::detail {

/// What a generator of ints draws, as a report names it: "0, 1026, 5121, 1073744899" (up to 8
/// values), "0..9" (a whole range), or "23 values from -5 to 900"; found by drawing 512 values
/// with a fixed seed.
std::string describe_ints(const Gen<int>& gen);

/// A draft test's subject for a model over the binding `binding` (its type as C++ spells it):
/// made as the check makes it (`binding::make()` when `made_by_binding`, else
/// default-constructed), and `name`, an adapter whose member functions call it through the
/// binding under the model's call names. `members`: those functions, over `B` (the binding)
/// and `s` (the subject); a null one is a call the binding does not have, left out.
std::string draft_subject_text(const std::string& binding, bool made_by_binding, std::string_view name,
                               std::initializer_list<const char*> members);

}  // namespace duet::detail
