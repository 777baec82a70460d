// Case (e, variant): check_parallel<Spec> with a ready-made model and the ready-made binding
// duet::models::MutexQueue, which today means including bindings.hpp (it also pulls in oneTBB
// and Boost.Lockfree headers).
// The front end's own header and the GoogleTest glue, as the docs recommend; a tree from
// before the glue had its own header compiles the umbrella instead (the "before" column).
#if __has_include(<duet/gtest_glue.hpp>)
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#else
#include <duet/gtest.hpp>
#endif
#include <duet/models/bindings.hpp>
#include <duet/models/queue.hpp>

TEST(MutexQueue, LinearizableAgainstQueueModel) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<duet::models::MutexQueue>>());
}
