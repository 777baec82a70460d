// What makes a fiber trial repeat exactly beyond its schedule: every trial starts from the same
// state of the things a subject may read besides its own memory. Here, the trial the calling
// thread is in (its virtual time starts at 0, and duet::instrument's random numbers start over,
// src/execute/instrumented/determinism.cpp) and FiberOptions::before_each_run, which resets a
// library's own globals. Internal: users' headers never see it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace duet::detail::fiber {

/// The fiber trial the calling thread is in, numbered in the process (each trial a new number,
/// also the replay of the same trial); 0 outside one. From a fiber with thread-local storage of
/// its own, read it as host_local(t_trial) (thread_locals.hpp).
extern constinit thread_local std::uint64_t t_trial;

/// A new trial starts on the calling thread, outside any run: `before` runs (the user's
/// FiberOptions::before_each_run; empty: nothing), then virtual time goes back to 0 and the
/// trial gets a new number. Returns what `before` threw, described; empty when it did not.
std::string begin_trial(const std::function<void()>& before);
/// The calling thread is in no trial any more (the check ended, or a run of its own did).
void end_trial() noexcept;

}  // namespace duet::detail::fiber
