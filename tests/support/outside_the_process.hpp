// State kept outside the process, as a file, a server or the clock keeps it: memory shared with
// every process forked from this one, so that a trial in a process of its own (FiberOptions::
// trial_processes) sees what the trials before it left, wherever they ran. The subjects that use
// it are nondeterministic whatever duet does: their reports must say so.
#pragma once

#include <sys/mman.h>

#include <new>

namespace duet_test {

/// The one T of `Tag`, value-initialised in shared memory at its first use.
template <class T, class Tag = T>
T& outside_the_process() {
  static T* const kept = [] {
    void* block = ::mmap(nullptr, sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (block == MAP_FAILED) throw std::bad_alloc();
    return new (block) T{};
  }();
  return *kept;
}

}  // namespace duet_test
