// A FIFO queue model: push(x) and try_pop() -> optional, plus size() when the binding has it.
//
//   struct MutexQueue {
//     using Sut = MyQueue;
//     static void push(Sut& q, int x) { q.push(x); }
//     static std::optional<int> try_pop(Sut& q) { return q.try_pop(); }
//   };
//   duet::check_parallel<duet::models::Queue<MutexQueue>>();
#pragma once

#include <deque>
#include <optional>
#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct Push {
  int x;
};
struct TryPop {};
struct QueueSize {};
inline std::string duet_show(const Push& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const TryPop&) { return "try_pop()"; }
inline std::string duet_show(const QueueSize&) { return "size()"; }

template <class Binding>
struct Queue {
  static constexpr bool has_size = requires(typename Binding::Sut & q) { Binding::size(q); };
  using Sut = typename Binding::Sut;
  using State = std::deque<int>;
  using Cmd = std::variant<Push, TryPop, QueueSize>;
  static constexpr const char* sut_name = "q";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " q;"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"void push(int x) { B::push(s, x); }", "std::optional<int> try_pop() { return B::try_pop(s); }",
                   has_size ? "std::size_t size() { return B::size(s); }" : nullptr});
  }

  /// The values pushed: the binding's values() (binding.hpp), or 0..9.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }

  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen =
        has_size ? one_of(construct<Push>(values()).map([](Push p) { return Cmd(p); }), just(Cmd(TryPop{})),
                          just(Cmd(QueueSize{})))
                 : one_of(construct<Push>(values()).map([](Push p) { return Cmd(p); }), just(Cmd(TryPop{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& q) {
    if (auto* p = std::get_if<Push>(&c)) {
      Binding::push(q, p->x);
      return {};
    }
    if (std::holds_alternative<TryPop>(c)) return std::optional<int>(Binding::try_pop(q));
    if constexpr (has_size) return static_cast<std::size_t>(Binding::size(q));
    return {};
  }
  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Push>(c)) return {};
    if (std::holds_alternative<TryPop>(c)) return s.empty() ? std::optional<int>() : std::optional<int>(s.front());
    return s.size();
  }
  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<Push>(&c)) s.push_back(p->x);
    else if (std::holds_alternative<TryPop>(c) && !s.empty()) s.pop_front();
  }
};

}  // namespace duet::models
