// Tests whose subject tells threads apart (a thread_local's address, pthread_self(),
// std::this_thread::get_id()) need each fiber to be a thread of its own to it, which takes
// per-fiber storage: x86-64 with glibc only (src/execute/fibers/thread_locals.cpp). Elsewhere
// fibers share their thread's storage and identity, every fiber of a run is one thread to the
// subject, and such a test skips and says why.
#pragma once

#include <gtest/gtest.h>

#include "execute/fibers/thread_locals.hpp"

// `why`: what in the test tells threads apart.
#define DUET_SKIP_UNLESS_FIBERS_ARE_THREADS(why)                                             \
  if (!duet::detail::fiber::fiber_tls::supported())                                          \
  GTEST_SKIP() << why                                                                        \
               << ", and fibers share their thread's storage and identity on this platform " \
                  "(per-fiber storage: x86-64 with glibc)"
