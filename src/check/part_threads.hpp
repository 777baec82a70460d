// Threads that search a history's parts, kept for the next history (check_history.cpp): starting
// a thread costs about as much as checking a small history (tens of microseconds each), and
// duet-check or a test checks many histories in one process. A check runs its work on the
// caller and on as many kept threads as it asks for, starting more only when fewer are kept.
// A check while another holds them (another thread checking a history at the same time), or in
// a forked child (where the parent's threads do not exist), starts threads of its own instead.
#pragma once

#include <cstddef>
#include <functional>

namespace duet::history::detail {

/// Runs work() on the calling thread and on `helpers` threads at once; returns when all have
/// returned. A helper that cannot be started leaves the work to the others (work() must share
/// it out itself, as check_history's parts do from a counter).
void run_on_part_threads(std::size_t helpers, const std::function<void()>& work);

}  // namespace duet::history::detail
