// A LIFO stack model: push(x) and pop() -> optional.
//
//   struct LockfreeStack {
//     using Sut = boost::lockfree::stack<int>;
//     static std::unique_ptr<Sut> make() { return std::make_unique<Sut>(64); }
//     static void push(Sut& s, int x) { s.push(x); }
//     static std::optional<int> pop(Sut& s) { int x; return s.pop(x) ? std::optional<int>(x) : std::nullopt; }
//   };
#pragma once

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct StackPush {
  int x;
};
struct StackPop {};
inline std::string duet_show(const StackPush& p) { return "push(" + duet::show(p.x) + ")"; }
inline std::string duet_show(const StackPop&) { return "pop()"; }

template <class Binding>
struct Stack {
  using Sut = typename Binding::Sut;
  using State = std::vector<int>;
  using Cmd = std::variant<StackPush, StackPop>;
  static constexpr const char* sut_name = "s";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " s;"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"void push(int x) { B::push(s, x); }", "std::optional<int> pop() { return B::pop(s); }"});
  }
  /// The values pushed: the binding's values() (binding.hpp), or 0..9.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen =
        one_of(construct<StackPush>(values()).map([](StackPush p) { return Cmd(p); }), just(Cmd(StackPop{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& s) {
    if (auto* p = std::get_if<StackPush>(&c)) {
      Binding::push(s, p->x);
      return {};
    }
    return std::optional<int>(Binding::pop(s));
  }
  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<StackPush>(c)) return {};
    return s.empty() ? std::optional<int>() : std::optional<int>(s.back());
  }
  static void next(const Cmd& c, State& s) {
    if (auto* p = std::get_if<StackPush>(&c)) s.push_back(p->x);
    else if (!s.empty()) s.pop_back();
  }
};

}  // namespace duet::models
