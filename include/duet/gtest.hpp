// GoogleTest integration (target duet::gtest, or duet::gtest_main for a ready main()): every
// front end and the glue. A test file that uses one front end compiles faster with that front
// end's header and duet/gtest_glue.hpp.
//
// - EXPECT_TRUE(duet::check_sequential<Spec>()) fails with duet's report as its message.
// - EXPECT_* written inside a spec's run(), expected(), postcondition() or next() are disagreements:
//   duet intercepts them while it searches and shrinks, and reports the shrunk case.
// - duet::gtest_main reads --duet_* flags (see duet/config.hpp).
//
//   #include <duet/gtest.hpp>
//   TEST(Queue, AgreesWithModel) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
#pragma once

#include "duet/duet.hpp"
#include "duet/gtest_glue.hpp"
