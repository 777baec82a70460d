// Case (d): a signature-only duet::Lin description checked under threads with check_parallel
// (the candidate as its own oracle). The subject is a small mutex-guarded queue.
// The front end's own header and the GoogleTest glue, as the docs recommend; a tree from
// before the glue had its own header compiles the umbrella instead (the "before" column).
#if __has_include(<duet/gtest_glue.hpp>)
#include <duet/parallel.hpp>
#include <duet/gtest_glue.hpp>
#else
#include <duet/gtest.hpp>
#endif

#include <deque>
#include <mutex>
#include <optional>

namespace {

class LockedQueue {
 public:
  void push(int x) {
    std::lock_guard lock(m_);
    d_.push_back(x);
  }
  std::optional<int> try_pop() {
    std::lock_guard lock(m_);
    if (d_.empty()) return std::nullopt;
    const int x = d_.front();
    d_.pop_front();
    return x;
  }

 private:
  std::mutex m_;
  std::deque<int> d_;
};

}  // namespace

TEST(LockedQueue, LinearizableAsItsOwnOracle) {
  auto lin = duet::Lin<LockedQueue>("LockedQueue", "q")
                 .op(
                     "push", [](LockedQueue& q, int x) { q.push(x); }, duet::integers(0, 9))
                 .op("try_pop", [](LockedQueue& q) { return q.try_pop(); });
  EXPECT_TRUE(duet::check_parallel(lin));
}
