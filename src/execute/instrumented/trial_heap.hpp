// The trial heap (fiber::TrialHeap, src/execute/fibers/instrumented.hpp): in a trial's process
// of its own, every allocation of the subject's code (on a fiber, outside duet's own) comes from
// an arena mapped before the trials were forked, the same in each, so the subject's allocations
// land at the same addresses in the search and in every replay, whatever the forking process
// allocated meanwhile and whatever duet allocates beside them (a traced replay's trace). Other
// allocations, and every one outside such a process, are the C library's, one test away.
#pragma once

#include <cstddef>

namespace duet::detail::instrumented {

/// Installs the arena's prepare and begin (at the runtime's start-up).
void install_trial_heap() noexcept;
/// In a trial's process, after begin: allocations come from the arena.
bool trial_heap_active() noexcept;
/// `p` is a block of the arena (which only a trial's process allocates from).
bool trial_heap_owns(const void* p) noexcept;
/// free and realloc of the arena's blocks, and realloc of others in a trial's process.
void trial_heap_free(void* p) noexcept;
void* trial_heap_realloc(void* p, std::size_t n) noexcept;
/// Frees `p` to the arena or to the C library, whichever it came from, with no bookkeeping of
/// a run (free's own is in interpose.cpp).
void free_block(void* p) noexcept;

}  // namespace duet::detail::instrumented
