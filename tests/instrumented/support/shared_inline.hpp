// Code that both the uninstrumented test library (handoff_library.cpp) and the instrumented test
// executable compile, as a library's header shares std::string or std::shared_ptr with its
// users: each has a weak copy of tally_add, and the library calls its own through its procedure
// linkage table, which the dynamic linker resolves to the executable's instrumented copy.
#pragma once

namespace shared_inline {

struct Tally {
  long n = 0;
};

// A template, not inlined nor cloned: a weak symbol in each module that calls it, as a
// template instance is.
#if defined(__clang__)
#define SHARED_INLINE_OUT_OF_LINE __attribute__((noinline))
#else
#define SHARED_INLINE_OUT_OF_LINE __attribute__((noipa))
#endif
template <class T>
SHARED_INLINE_OUT_OF_LINE void tally_add(T& t) {
  t.n = t.n + 1;
}

// What the library hands out: its calls are virtual, so no procedure-linkage stub marks them.
class Counter {
 public:
  virtual ~Counter() = default;
  virtual void add() = 0;  // under the library's own lock, invisible to duet
  virtual long get() = 0;
};

}  // namespace shared_inline
