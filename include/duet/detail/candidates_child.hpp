// The check that ends a child the candidate forked where control comes back from the candidate
// (engine/candidate_fork.hpp has the why); here so that a spec's own case loop, compiled in the
// test file, makes it too. Not a public header.
#pragma once

namespace duet::detail {

/// True only in a child of a fork() made while a check ran in the process, other than duet's
/// own; set by the process's fork handler (monitor.cpp). A plain bool: the parent never writes
/// it, and in the child the one thread there is writes and reads it.
extern bool in_candidates_child;

/// Ends a candidate's child with _exit (no atexit handlers, no stdio flush: its buffers hold the
/// parent's output), after one line on stderr.
[[noreturn]] void end_candidates_child() noexcept;

/// Where control comes back from the candidate: one load of a plain global.
inline void leave_if_candidates_child() noexcept {
  if (in_candidates_child) [[unlikely]]
    end_candidates_child();
}

}  // namespace duet::detail
