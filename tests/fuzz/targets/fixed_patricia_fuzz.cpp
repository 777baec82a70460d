// libFuzzer / AFL++ target: see targets.hpp and docs/fuzzing.md.
#include "targets.hpp"

DUET_FUZZ_TARGET(duet_fuzz::fixed_patricia())
