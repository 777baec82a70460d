// A newcomer's first test of their own: a queue that drops every push once it holds three
// elements, checked against duet's ready-made queue model. It is red, as it should be: the
// consumer tests run it and expect a failure with duet's report.
#include <duet/gtest.hpp>
#include <duet/models/queue.hpp>

#include <deque>
#include <optional>

namespace {

class SmallQueue {
 public:
  void push(int x) {
    if (items_.size() < 3) items_.push_back(x);  // the bug: should not have a limit
  }
  std::optional<int> try_pop() {
    if (items_.empty()) return std::nullopt;
    const int x = items_.front();
    items_.pop_front();
    return x;
  }

 private:
  std::deque<int> items_;
};

struct SmallQueueBinding {
  using Sut = SmallQueue;
  static void push(Sut& q, int x) { q.push(x); }
  static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
};

TEST(SmallQueue, BehavesLikeAQueue) { EXPECT_TRUE(duet::check_sequential<duet::models::Queue<SmallQueueBinding>>()); }

}  // namespace
