// The stack of a case that crashed on a fiber: which calls of the code under test led to the
// fault. Captured in the signal handler as bare return addresses (async-signal-safe), made into
// text where allocating is safe: in the test process for a child that died (isolation), or in a
// helper process for a process that is about to die.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace duet::detail {

/// The most frames a crash stack keeps.
inline constexpr std::size_t kCrashFrames = 64;

/// Makes capture_crash_stack safe in a signal handler: the unwinder is loaded and has run once
/// (its first use allocates) and the symboliser's state exists. Called while no case runs.
void prepare_crash_stack() noexcept;

/// In a signal handler: the return addresses of the interrupted stack, outward from the
/// faulting instruction (`ucontext`: the handler's third argument). Async-signal-safe once
/// prepared. The number of addresses written to `pcs`.
std::size_t capture_crash_stack(void* ucontext, std::uintptr_t* pcs, std::size_t capacity) noexcept;

/// The frames as report lines, innermost first: "    #0  ns::Stack::top() const  stack.hpp:57".
/// The frames of the code under test come first: the C library's below a fault (raise, abort,
/// free) are folded into one line, and duet's fiber runtime that started the fiber is cut.
/// Empty for no addresses. Allocates: never in a signal handler.
std::string describe_crash_stack(std::span<const std::uintptr_t> pcs);

/// In the signal handler of a process about to die: describe_crash_stack written to stderr,
/// made in a helper process, so that a crash with the allocator's lock held cannot hang this
/// one (after a few seconds it writes the bare addresses instead).
void write_crash_stack(std::span<const std::uintptr_t> pcs) noexcept;

}  // namespace duet::detail
