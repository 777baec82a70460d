// A priority queue model: push(x) and try_pop() -> optional (the highest-priority item, or
// nullopt only when empty), plus top() -> optional, size() and empty() when the binding has
// them. PriorityQueue<B> pops the largest item first, as std::priority_queue does;
// PriorityQueue<B, Priority::min> the smallest. Bounded when the binding has a capacity: then
// push(x) -> bool, false only when the queue holds `capacity` items (and it is left as it was).
//
//   struct LockedHeap {                       // std::priority_queue behind a mutex
//     using Sut = MyLockedHeap;
//     static void push(Sut& q, int x) { q.push(x); }
//     static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
//   };
//   duet::check_parallel<duet::models::PriorityQueue<LockedHeap>>();
//
//   struct MinHeapOf4 {                       // bounded: push says whether it took the item
//     using Sut = MyBoundedMinHeap;
//     static constexpr std::size_t capacity = 4;
//     static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(capacity); }
//     static bool push(Sut& q, int x) { return q.try_push(x); }
//     static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
//   };
//   duet::check_parallel<duet::models::PriorityQueue<MinHeapOf4, duet::models::Priority::min>>();
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>
#include <duet/models/queue.hpp>

namespace duet::models {

/// Which item a priority queue hands out first.
enum class Priority {
  max,  // the largest (std::priority_queue, tbb::concurrent_priority_queue with std::less)
  min,  // the smallest (std::greater)
};

struct QueueTop {};
struct QueueEmpty {};
inline std::string duet_show(const QueueTop&) { return "top()"; }
inline std::string duet_show(const QueueEmpty&) { return "empty()"; }

/// Commands push(x) (Push), try_pop() (TryPop) and, when bound, top() (QueueTop), size()
/// (QueueSize) and empty() (QueueEmpty), on `q`. State: the items held, sorted, so that equal
/// queues are equal states (the parallel search memoises on them).
template <class Binding, Priority order = Priority::max>
struct PriorityQueue {
  using Sut = typename Binding::Sut;
  using State = std::vector<int>;  // ascending: the largest at the back, the smallest at the front
  using Cmd = std::variant<Push, TryPop, QueueTop, QueueSize, QueueEmpty>;
  static constexpr bool bounded = requires { Binding::capacity; };
  static constexpr bool has_top = requires(Sut & q) { Binding::top(q); };
  static constexpr bool has_size = requires(Sut & q) { Binding::size(q); };
  static constexpr bool has_empty = requires(Sut & q) { Binding::empty(q); };
  static constexpr const char* sut_name = "q";

  static std::string setup_cpp() {
    if constexpr (bounded) return duet::type_name<Sut>() + " q(" + std::to_string(std::size_t{Binding::capacity}) + ");";
    else return duet::type_name<Sut>() + " q;";
  }
  static std::unique_ptr<Sut> init_sut() { return models::detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return models::detail::draft_subject<Binding>(
        sut_name,
        {bounded ? "bool push(int x) { return static_cast<bool>(B::push(s, x)); }" : "void push(int x) { B::push(s, x); }",
         "std::optional<int> try_pop() { return B::try_pop(s); }",
         has_top ? "std::optional<int> top() { return B::top(s); }" : nullptr,
         has_size ? "std::size_t size() { return B::size(s); }" : nullptr,
         has_empty ? "bool empty() { return B::empty(s); }" : nullptr});
  }

  /// The values pushed: the binding's values() (binding.hpp), or 0..9.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }

  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = [] {
      std::vector<std::pair<unsigned, Gen<Cmd>>> calls = {{1, construct<Push>(values()).map([](Push p) { return Cmd(p); })},
                                                          {1, just(Cmd(TryPop{}))}};
      if (has_top) calls.emplace_back(1, just(Cmd(QueueTop{})));
      if (has_size) calls.emplace_back(1, just(Cmd(QueueSize{})));
      if (has_empty) calls.emplace_back(1, just(Cmd(QueueEmpty{})));
      return frequency<Cmd>(std::move(calls));
    }();
    return gen;
  }

  static Result run(const Cmd& c, Sut& q) {
    if (auto* p = std::get_if<Push>(&c)) {
      if constexpr (bounded) {
        return static_cast<bool>(Binding::push(q, p->x));
      } else {
        Binding::push(q, p->x);
        return {};
      }
    }
    if (std::holds_alternative<TryPop>(c)) return std::optional<int>(Binding::try_pop(q));
    if constexpr (has_top)
      if (std::holds_alternative<QueueTop>(c)) return std::optional<int>(Binding::top(q));
    if constexpr (has_size)
      if (std::holds_alternative<QueueSize>(c)) return static_cast<std::size_t>(Binding::size(q));
    if constexpr (has_empty)
      if (std::holds_alternative<QueueEmpty>(c)) return static_cast<bool>(Binding::empty(q));
    return {};  // a call the binding does not have is never generated
  }

  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Push>(c)) return bounded ? Result(s.size() < capacity()) : Result();
    if (std::holds_alternative<TryPop>(c) || std::holds_alternative<QueueTop>(c))
      return s.empty() ? std::optional<int>() : std::optional<int>(best(s));
    if (std::holds_alternative<QueueSize>(c)) return s.size();
    return s.empty();
  }

  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<Push>(&c)) {
      if (!bounded || s.size() < capacity()) s.insert(std::upper_bound(s.begin(), s.end(), p->x), p->x);
    } else if (std::holds_alternative<TryPop>(c) && !s.empty()) {
      order == Priority::max ? s.pop_back() : void(s.erase(s.begin()));
    }
  }

 private:
  static int best(const State& s) { return order == Priority::max ? s.back() : s.front(); }
  static constexpr std::size_t capacity() {
    if constexpr (bounded) return Binding::capacity;
    else return ~std::size_t{0};
  }
};

}  // namespace duet::models
