// A set model over small elements: insert(x) -> bool, erase(x) -> bool, contains(x) -> bool.
//
//   struct TbbSet {
//     using Sut = tbb::concurrent_set<int>;
//     static bool insert(Sut& s, int x) { return s.insert(x).second; }
//     static bool contains(Sut& s, int x) { return s.contains(x); }
//   };
#pragma once

#include <set>
#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct SetInsert {
  int x;
};
struct SetErase {
  int x;
};
struct SetContains {
  int x;
};
inline std::string duet_show(const SetInsert& c) { return "insert(" + duet::show(c.x) + ")"; }
inline std::string duet_show(const SetErase& c) { return "erase(" + duet::show(c.x) + ")"; }
inline std::string duet_show(const SetContains& c) { return "contains(" + duet::show(c.x) + ")"; }

template <class Binding>
struct Set {
  using Sut = typename Binding::Sut;
  static constexpr bool has_erase = requires(Sut & s) { Binding::erase(s, 0); };
  using State = std::set<int>;
  using Cmd = std::variant<SetInsert, SetErase, SetContains>;
  static constexpr const char* sut_name = "s";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " s;"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"bool insert(int x) { return static_cast<bool>(B::insert(s, x)); }",
                   "bool contains(int x) { return static_cast<bool>(B::contains(s, x)); }",
                   has_erase ? "bool erase(int x) { return static_cast<bool>(B::erase(s, x)); }" : nullptr});
  }
  /// The elements: the binding's keys() (binding.hpp), or default_keys().
  static Gen<int> keys() { return models::detail::keys_of<Binding>(); }
  static std::string domain() { return "keys " + models::detail::describe_ints(keys()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = [] {
      auto x = keys();
      std::vector<std::pair<unsigned, Gen<Cmd>>> ops{
          {2, construct<SetInsert>(x).map([](SetInsert c) { return Cmd(c); })},
          {2, construct<SetContains>(x).map([](SetContains c) { return Cmd(c); })}};
      if (has_erase) ops.push_back({1, construct<SetErase>(x).map([](SetErase c) { return Cmd(c); })});
      return frequency<Cmd>(std::move(ops));
    }();
    return gen;
  }
  static Result run(const Cmd& c, Sut& s) {
    if (auto* i = std::get_if<SetInsert>(&c)) return static_cast<bool>(Binding::insert(s, i->x));
    if (auto* q = std::get_if<SetContains>(&c)) return static_cast<bool>(Binding::contains(s, q->x));
    if constexpr (has_erase) return static_cast<bool>(Binding::erase(s, std::get<SetErase>(c).x));
    return {};
  }
  static Result expected(const Cmd& c, const State& s) {
    if (auto* i = std::get_if<SetInsert>(&c)) return !s.count(i->x);
    if (auto* q = std::get_if<SetContains>(&c)) return s.count(q->x) > 0;
    return s.count(std::get<SetErase>(c).x) > 0;
  }
  static void next(const Cmd& c, State& s) {
    if (auto* i = std::get_if<SetInsert>(&c)) s.insert(i->x);
    else if (auto* e = std::get_if<SetErase>(&c)) s.erase(e->x);
  }
};

}  // namespace duet::models
