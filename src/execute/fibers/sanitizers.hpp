// Which sanitizers this translation unit is built with, for the code that must tell them about
// fibers: DUET_FIBER_ASAN (stack switches), DUET_FIBER_TSAN (fiber contexts), DUET_LSAN (what
// an abandoned fiber's frames owned).
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define DUET_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DUET_FIBER_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define DUET_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define DUET_FIBER_TSAN 1
#endif
#endif

#if defined(DUET_FIBER_ASAN)
#define DUET_LSAN 1
#elif defined(__has_feature)
#if __has_feature(leak_sanitizer)
#define DUET_LSAN 1
#endif
#endif

#ifdef DUET_LSAN
#include <sanitizer/lsan_interface.h>
#endif
