// GoogleTest glue without the front ends: include it with the one front end a test file uses,
// which compiles faster than the umbrella duet/gtest.hpp. Link duet::gtest (or
// duet::gtest_main): the glue is compiled there, once, against the GoogleTest the project uses.
//
//   #include <duet/state_machine.hpp>
//   #include <duet/gtest_glue.hpp>
//   TEST(Queue, AgreesWithModel) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
//
// - EXPECT_TRUE(duet::check_...()) fails with duet's report as its message.
// - EXPECT_* written inside a spec's run(), expected(), postcondition() or next() are
//   disagreements: duet intercepts them while it searches and shrinks, and reports the shrunk
//   case.
#pragma once

#include <gtest/gtest.h>

#include "duet/check_result.hpp"

namespace duet::detail {

/// Installs the glue (src/integration/gtest_glue.cpp): GoogleTest's fake reporter as the engine's
/// assertion capture, and GoogleTest's per-thread state kept the scheduling thread's on fibers.
/// Idempotent; returns true.
bool register_gtest_glue() noexcept;

// Registered by including this header: any test file that uses duet with GoogleTest. The call
// also links the glue's object from duet::gtest's archive (a file that only defined it would not).
inline const bool gtest_glue_registered = register_gtest_glue();

}  // namespace duet::detail

namespace duet {

/// EXPECT_TRUE(duet::check_...()): CheckResult's conversion to testing::AssertionResult, the
/// report after a newline as the failure message. Found by CheckResult's conversion through
/// argument-dependent lookup.
testing::AssertionResult gtest_assertion_result(const CheckResult& r, testing::AssertionResult*);

}  // namespace duet
