// Tests run natively or, for `make multiarch`, under qemu-user (DUET_TEST_EMULATED is defined
// when cross-compiled; DUET_TEST_TIME_SCALE is set by tests/multiarch/run.sh).
#pragma once

#include <cstdlib>
#include <string>

namespace duet_test {

/// GoogleTest's "threadsafe" death tests re-execute the test binary, which a cross-compiled
/// binary cannot do under qemu-user without binfmt_misc: there they fork only ("fast").
inline const char* reexec_death_test_style() {
#ifdef DUET_TEST_EMULATED
  return "fast";
#else
  return "threadsafe";
#endif
}

/// How much slower than native the tests run: a wall-clock expectation or budget in a test
/// is multiplied by it. 1 natively; tests/multiarch/run.sh sets DUET_TEST_TIME_SCALE under qemu.
inline double time_scale() {
  const char* v = std::getenv("DUET_TEST_TIME_SCALE");
  if (v == nullptr || *v == '\0') return 1.0;
  const double s = std::strtod(v, nullptr);
  return s >= 1.0 ? s : 1.0;
}

}  // namespace duet_test
