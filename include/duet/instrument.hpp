// Settings of duet::instrument, the runtime that duet_instrument(<target>) links: plain std::
// code on the fiber scheduler (docs/instrumented.md). Only for targets that link it.
//
//   TEST(BoostStack, Linearizable) {
//     duet::ignore_races_in("boost/lockfree/");  // its optimistic node reads race by design
//     EXPECT_TRUE(duet::check_parallel(stack_spec, {.executor = duet::fibers()}));
//   }
#pragma once

#include <string>

namespace duet {

/// Data races on plain memory with an access in a file whose path contains `path_part` are not
/// reported: for libraries that read memory optimistically and validate afterwards (lock-free
/// stacks reading a node another thread may be recycling, then re-checking with a tagged CAS),
/// which the C++ standard calls a data race and the library's authors accept. Applies to the
/// rest of the process; every other access is still checked. Paths come from the accesses'
/// file:line, which needs libbacktrace (GCC's, found when duet is built); a build without it
/// says so on stderr, and reports the races.
void ignore_races_in(const std::string& path_part);

}  // namespace duet
