// Case (b2), a floor for case (b): the same bounded queue, the same std::deque model and the same
// three commands, tested with plain GoogleTest by a hand-written random loop (no duet). What
// this case costs over case (a) is the spec's own code and the standard headers it needs, which
// any test of this queue pays; case (b) minus this case is what duet adds.
#include <gtest/gtest.h>

#include <cstddef>
#include <deque>
#include <optional>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace {

class BoundedQueue {
 public:
  explicit BoundedQueue(std::size_t capacity) : slots_(capacity) {}
  bool push(int x) {
    if (count_ == slots_.size()) return false;
    slots_[tail_] = x;
    tail_ = (tail_ + 1) % slots_.size();
    ++count_;
    return true;
  }
  std::optional<int> pop() {
    if (count_ == 0) return std::nullopt;
    const int x = slots_[head_];
    head_ = (head_ + 1) % slots_.size();
    --count_;
    return x;
  }
  std::size_t size() const { return count_; }

 private:
  std::vector<int> slots_;
  std::size_t head_ = 0, tail_ = 0, count_ = 0;
};

struct Push {
  int x;
};
struct Pop {};
struct Size {};
using Cmd = std::variant<Push, Pop, Size>;
using Result = std::variant<bool, std::optional<int>, std::size_t>;

std::string show(const Cmd& cmd) {
  if (auto* p = std::get_if<Push>(&cmd)) return "push(" + std::to_string(p->x) + ")";
  return std::holds_alternative<Pop>(cmd) ? "pop()" : "size()";
}

constexpr std::size_t kCapacity = 3;

Cmd draw(std::mt19937_64& rng) {
  switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
    case 0: return Push{std::uniform_int_distribution<int>(-100, 100)(rng)};
    case 1: return Pop{};
    default: return Size{};
  }
}
Result run(const Cmd& cmd, BoundedQueue& q) {
  if (auto* p = std::get_if<Push>(&cmd)) return q.push(p->x);
  if (std::holds_alternative<Pop>(cmd)) return q.pop();
  return q.size();
}
Result expected(const Cmd& cmd, const std::deque<int>& s) {
  if (std::holds_alternative<Push>(cmd)) return s.size() < kCapacity;
  if (std::holds_alternative<Pop>(cmd)) return s.empty() ? std::optional<int>() : std::optional<int>(s.front());
  return s.size();
}
void next(const Cmd& cmd, std::deque<int>& s) {
  if (auto* p = std::get_if<Push>(&cmd)) {
    if (s.size() < kCapacity) s.push_back(p->x);
  } else if (std::holds_alternative<Pop>(cmd)) {
    if (!s.empty()) s.pop_front();
  }
}

}  // namespace

TEST(BoundedQueue, AgreesWithDequeByHand) {
  std::mt19937_64 rng(1);
  for (int scenario = 0; scenario < 100; ++scenario) {
    BoundedQueue q(kCapacity);
    std::deque<int> model;
    std::string program;
    for (int step = 0; step < 20; ++step) {
      const Cmd cmd = draw(rng);
      program += show(cmd) + ";\n";
      ASSERT_EQ(run(cmd, q), expected(cmd, model)) << program;
      next(cmd, model);
    }
  }
}
