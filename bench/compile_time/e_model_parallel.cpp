// Case (e): check_parallel<Spec> with a ready-made model, duet::models::Queue, and a binding the
// user writes for a simple mutex-guarded queue (no bindings.hpp: see e_model_parallel_bindings.cpp for that).
// The front end's own header and the GoogleTest glue, as the docs recommend; a tree from
// before the glue had its own header compiles the umbrella instead (the "before" column).
#if __has_include(<duet/gtest_glue.hpp>)
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#else
#include <duet/gtest.hpp>
#endif
#include <duet/models/queue.hpp>

#include <deque>
#include <mutex>
#include <optional>

namespace {

struct LockedQueue {
  std::mutex m;
  std::deque<int> d;
};

struct LockedQueueBinding {
  using Sut = LockedQueue;
  static void push(Sut& q, int x) {
    std::lock_guard lock(q.m);
    q.d.push_back(x);
  }
  static std::optional<int> try_pop(Sut& q) {
    std::lock_guard lock(q.m);
    if (q.d.empty()) return std::nullopt;
    const int x = q.d.front();
    q.d.pop_front();
    return x;
  }
};

}  // namespace

TEST(LockedQueue, LinearizableAgainstQueueModel) {
  EXPECT_TRUE(duet::check_parallel<duet::models::Queue<LockedQueueBinding>>());
}
