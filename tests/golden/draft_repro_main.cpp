// Compiles the golden draft tests (as duet writes them) against the subjects they were written
// for; ctest checks that each fails exactly as its report says. draft_fixed_main.cpp compiles the
// parallel ones against the fixed subjects, where they must pass.
#include "ring_buffer.hpp"
#include "support/fiber_subjects.hpp"
#include "support/test_specs.hpp"

#include "golden/expected/ring_buffer_draft.cpp"
#include "golden/expected/exception_draft.cpp"
#include "golden/expected/fiber_lost_update_draft.cpp"
#include "golden/expected/fiber_deadlock_draft.cpp"
#include "golden/expected/threads_off_by_one_draft.cpp"

// The invariant given to duet::Lin::invariant, as the draft asks for it.
#include "support/draft_subjects.hpp"
bool duet_invariant(const draft_subjects::CappedStack& s);
#include "golden/expected/invariant_draft.cpp"
bool duet_invariant(const draft_subjects::CappedStack& s) { return s.size() <= draft_subjects::CappedStack::kCapacity; }

// A call that kills the process (isolation mode): the draft runs it in a death test.
#include "support/crashing_subjects.hpp"
#include "golden/expected/isolated_crash_draft.cpp"

// A ready-made model over a binding: the draft calls the subject through the binding (SpscRing's
// own pop is try_pop), and replays two consumers popping the one item twice.
#include <duet/models/spsc_ring.hpp>
#include <memory>
#include "golden/expected/fiber_roles_draft.cpp"

// The drafts of a signature-only description and of an API: their scenarios are checked
// against duet_lin() and duet_api(), which the user defines as the description of the test
// that found the failure (its name and operations: the draft's token is bound to them).
#include "support/scenario_subjects.hpp"
duet::Lin<fiber_subjects::Counter<true>> duet_lin() { return scenario_subjects::counter_lin<true>(); }
duet::Api duet_api() { return scenario_subjects::counter_api<true>(); }
#include "golden/expected/lin_lost_update_draft.cpp"
#include "golden/expected/api_lost_update_draft.cpp"
