// Compiles the golden draft test (as duet writes it) against the demo's types; ctest checks
// that it fails exactly as the report says.
#include "ring_buffer.hpp"
#include "support/test_specs.hpp"

#include "golden/expected/ring_buffer_draft.cpp"
#include "golden/expected/exception_draft.cpp"
