// The parallel golden drafts against the fixed subjects (DUET_DRAFT_FIXED): a draft test must
// pass once the bug it reproduces is gone, on fibers and on threads.
#define DUET_DRAFT_FIXED 1
#include "support/fiber_subjects.hpp"

#include "golden/expected/fiber_lost_update_draft.cpp"
#include "golden/expected/fiber_deadlock_draft.cpp"
#include "golden/expected/threads_off_by_one_draft.cpp"

// The invariant given to duet::Lin::invariant, as the draft asks for it.
#include "support/draft_subjects.hpp"
bool duet_invariant(const draft_subjects::CappedStack& s);
#include "golden/expected/invariant_draft.cpp"
bool duet_invariant(const draft_subjects::CappedStack& s) { return s.size() <= draft_subjects::CappedStack::kCapacity; }

// The null dereference's draft against the fixed stack: the call returns, the death test passes.
#include "support/crashing_subjects.hpp"
#include "golden/expected/isolated_crash_draft.cpp"

// The drafts of a signature-only description and of an API: their scenarios are checked
// against duet_lin() and duet_api(), which the user defines as the description of the test
// that found the failure (its name and operations: the draft's token is bound to them).
#include "support/scenario_subjects.hpp"
duet::Lin<fiber_subjects::Counter<true>> duet_lin() { return scenario_subjects::counter_lin<true>(); }
duet::Api duet_api() { return scenario_subjects::counter_api<true>(); }
#include "golden/expected/lin_lost_update_draft.cpp"
#include "golden/expected/api_lost_update_draft.cpp"
