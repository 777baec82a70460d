// Case (b): a state-machine spec checked with duet::check_sequential (the target case).
// A small bounded queue against a std::deque model, as in docs/examples/ring_buffer.hpp.
// The front end's own header and the GoogleTest glue, as the docs recommend; a tree from
// before the glue had its own header compiles the umbrella instead (the "before" column).
#if __has_include(<duet/gtest_glue.hpp>)
#include <duet/state_machine.hpp>
#include <duet/gtest_glue.hpp>
#else
#include <duet/gtest.hpp>
#endif

#include <cstddef>
#include <deque>
#include <optional>
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
inline std::string duet_show(const Push& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const Pop&) { return "pop()"; }
inline std::string duet_show(const Size&) { return "size()"; }

struct QueueSpec {
  static constexpr std::size_t capacity = 3;
  using Sut = BoundedQueue;
  using State = std::deque<int>;
  using Cmd = std::variant<Push, Pop, Size>;

  static constexpr const char* sut_name = "q";
  static Sut init_sut() { return Sut(capacity); }
  static std::string setup_cpp() { return "BoundedQueue q(" + std::to_string(capacity) + ");"; }

  static duet::Gen<Cmd> command(const State&) {
    static const duet::Gen<Cmd> gen =
        duet::one_of(duet::construct<Push>(duet::integers(-100, 100)).map([](Push p) { return Cmd(p); }),
                     duet::just(Cmd(Pop{})), duet::just(Cmd(Size{})));
    return gen;
  }
  static duet::Result run(const Cmd& cmd, Sut& q) {
    if (auto* p = std::get_if<Push>(&cmd)) return q.push(p->x);
    if (std::holds_alternative<Pop>(cmd)) return q.pop();
    return q.size();
  }
  static duet::Result expected(const Cmd& cmd, const State& s) {
    if (std::holds_alternative<Push>(cmd)) return s.size() < capacity;
    if (std::holds_alternative<Pop>(cmd)) return s.empty() ? std::optional<int>() : std::optional<int>(s.front());
    return s.size();
  }
  static void next(const Cmd& cmd, State& s) {
    if (auto* p = std::get_if<Push>(&cmd)) {
      if (s.size() < capacity) s.push_back(p->x);
    } else if (std::holds_alternative<Pop>(cmd)) {
      if (!s.empty()) s.pop_front();
    }
  }
};

}  // namespace

TEST(BoundedQueue, AgreesWithDeque) { EXPECT_TRUE(duet::check_sequential<QueueSpec>()); }
