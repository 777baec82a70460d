// Every jump between fiber contexts goes through resume_keeping_registers(): Boost.Context's
// jump keeps the general-purpose registers a call keeps, but on POWER (1.74, and later ones:
// boostorg/context#232) not the floating-point (f14-f31) and vector (v20-v31) registers the ABI
// says a call keeps too. A context that jumped away then came back to what the other context
// left there: GCC keeps a zero in v31 across calls and wrote a fiber's pointer as six "empty"
// vectors of the engine's trace, which freed it twice (seen on ppc64el, one test in four with
// threads started on fibers). Here the registers are declared clobbered by the jump, so the
// compiler saves them in this function's frame, on the stack that jumps away, and restores them
// when that stack is resumed. Elsewhere the same list costs a few stores per switch and guards
// against a Boost.Context that keeps less than the ABI on arm64 (d8-d15) or s390x (f8-f15).
// Internal.
#pragma once

#include <boost/context/fiber.hpp>

namespace duet::detail::fiber {

[[gnu::noinline]] inline boost::context::fiber resume_keeping_registers(boost::context::fiber&& f) {
#if defined(__powerpc64__)
  asm volatile("" ::
                   : "fr14", "fr15", "fr16", "fr17", "fr18", "fr19", "fr20", "fr21", "fr22", "fr23", "fr24", "fr25", "fr26",
                     "fr27", "fr28", "fr29", "fr30", "fr31", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
                     "v29", "v30", "v31");
#elif defined(__aarch64__)
  asm volatile("" ::: "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15");
#elif defined(__s390x__)
  asm volatile("" ::: "f8", "f9", "f10", "f11", "f12", "f13", "f14", "f15");
#endif
  return std::move(f).resume();
}

}  // namespace duet::detail::fiber
