// Descriptors on fibers: what the calls that wait on descriptors (descriptors.cpp) ask of the
// timer descriptors, whose deadlines are virtual time (timer_descriptors.cpp).
#pragma once

#include <cstdint>
#include <sys/types.h>

namespace duet::detail::instrumented {

/// The object every call on a descriptor in a run is a step on and every wait for one blocks on:
/// a wake of it lets the waiting fibers look again.
const void* descriptors_object() noexcept;

/// Every timer descriptor whose virtual deadline has come expires now in the kernel, so that a
/// poll or a read of it sees it as a real expiry would leave it.
void fire_due_timers() noexcept;
/// Virtual nanoseconds until the earliest armed timer descriptor's deadline (fiber::kNoTimeout
/// when none is armed): a fiber that waits on descriptors waits at most that long, so that
/// virtual time stops there and the timer fires.
std::uint64_t next_timer_in() noexcept;
/// A read of `fd` put `n` bytes at `buffer`: where `fd` is a timer descriptor with a virtual
/// deadline, its expiry count becomes the virtual one (a periodic timer may have expired more
/// than once while virtual time jumped).
void virtual_expirations(int fd, void* buffer, ssize_t n) noexcept;
/// `fd` is closed: it is no timer descriptor any more.
void forget_timer(int fd) noexcept;
/// A timer descriptor that only a fiber's call arms (its deadline is virtual): no more than
/// another fiber can make a pipe ready does it become ready by itself.
bool virtual_timer(int fd) noexcept;

}  // namespace duet::detail::instrumented
