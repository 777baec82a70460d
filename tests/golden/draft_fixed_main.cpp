// The parallel golden drafts against the fixed subjects (DUET_DRAFT_FIXED): a draft test must
// pass once the bug it reproduces is gone, on fibers and on threads.
#define DUET_DRAFT_FIXED 1
#include "support/fiber_subjects.hpp"

#include "golden/expected/fiber_lost_update_draft.cpp"
#include "golden/expected/fiber_deadlock_draft.cpp"
#include "golden/expected/threads_off_by_one_draft.cpp"
