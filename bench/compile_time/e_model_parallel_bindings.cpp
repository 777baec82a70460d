// Case (e, variant): check_parallel<Spec> with a ready-made model and the ready-made binding
// duet::models::MutexQueue, which today means including bindings.hpp (it also pulls in oneTBB
// and Boost.Lockfree headers).
#include <duet/gtest.hpp>
#include <duet/models/bindings.hpp>
#include <duet/models/queue.hpp>

TEST(MutexQueue, LinearizableAgainstQueueModel) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<duet::models::MutexQueue>>());
}
