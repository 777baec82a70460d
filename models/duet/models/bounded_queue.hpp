// A bounded FIFO queue model whose push and pop may wait: push(x) -> bool and pop() -> optional,
// where push returns false only when the queue stayed full, and pop returns nullopt only when
// it stayed empty, until the binding's wait gave up (a timed wait). A waiting call counts as
// taking effect when it returns, so a pop that waits for a concurrent push and then gets its
// item is explained like any other order.
//
//   struct Binding {
//     using Sut = MyBoundedQueue;
//     static constexpr std::size_t capacity = 2;
//     static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
//     static bool push(Sut& q, int x) { return q.try_push_for(x, std::chrono::milliseconds(1)); }
//     static std::optional<int> pop(Sut& q) { return q.try_pop_for(std::chrono::milliseconds(1)); }
//   };
//   duet::check_parallel<duet::models::BoundedQueue<Binding>>();
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct BoundedPush {
  int x;
};
struct BoundedPop {};
inline std::string duet_show(const BoundedPush& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const BoundedPop&) { return "pop()"; }

template <class Binding>
struct BoundedQueue {
  static constexpr std::size_t capacity = Binding::capacity;
  using Sut = typename Binding::Sut;
  using State = std::deque<int>;
  using Cmd = std::variant<BoundedPush, BoundedPop>;
  static constexpr const char* sut_name = "q";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " q(" + std::to_string(capacity) + ");"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(sut_name, {"bool push(int x) { return static_cast<bool>(B::push(s, x)); }",
                                                     "std::optional<int> pop() { return B::pop(s); }"});
  }

  /// The values pushed: the binding's values() (binding.hpp), or 0..9.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen =
        one_of(construct<BoundedPush>(values()).map([](BoundedPush p) { return Cmd(p); }), just(Cmd(BoundedPop{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& q) {
    if (auto* p = std::get_if<BoundedPush>(&c)) return static_cast<bool>(Binding::push(q, p->x));
    return std::optional<int>(Binding::pop(q));
  }
  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<BoundedPush>(c)) return s.size() < capacity;
    return s.empty() ? std::optional<int>() : std::optional<int>(s.front());
  }
  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<BoundedPush>(&c)) {
      if (s.size() < capacity) s.push_back(p->x);
    } else if (!s.empty()) {
      s.pop_front();
    }
  }
};

}  // namespace duet::models
