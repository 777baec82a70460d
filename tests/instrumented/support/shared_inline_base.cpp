// The uninstrumented build of shared_inline.hpp's template, in a library of its own, as
// libstdc++.so holds std::string's: what the test library (handoff_library.cpp) calls when no
// instrumented module preempts it.
#include "shared_inline.hpp"

template __attribute__((visibility("default"))) void shared_inline::tally_add(shared_inline::Tally&);
