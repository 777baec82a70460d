// A register model: write(v), read() -> v, and compare_and_set(expected, v) -> bool when the
// binding has it.
//
//   struct AtomicRegister {
//     using Sut = std::atomic<int>;
//     static void write(Sut& r, int v) { r.store(v); }
//     static int read(Sut& r) { return r.load(); }
//     static bool cas(Sut& r, int expected, int v) { return r.compare_exchange_strong(expected, v); }
//   };
#pragma once

#include <string>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct Write {
  int value;
};
struct Read {};
struct Cas {
  int expected, value;
};
inline std::string duet_show(const Write& w) { return "write(" + duet::show(w.value) + ")"; }
inline std::string duet_show(const Read&) { return "read()"; }
inline std::string duet_show(const Cas& c) { return "cas(" + duet::show(c.expected) + ", " + duet::show(c.value) + ")"; }

template <class Binding>
struct Register {
  using Sut = typename Binding::Sut;
  static constexpr bool has_cas = requires(Sut & r) { Binding::cas(r, 0, 0); };
  using State = int;
  using Cmd = std::variant<Write, Read, Cas>;
  static constexpr const char* sut_name = "r";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " r{};"; }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"void write(int v) { B::write(s, v); }", "int read() { return static_cast<int>(B::read(s)); }",
                   has_cas ? "bool cas(int e, int v) { return static_cast<bool>(B::cas(s, e, v)); }" : nullptr});
  }
  /// The values written and compared: the binding's values() (binding.hpp), or 0..4.
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(0, 4)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = [] {
      auto v = values();
      std::vector<std::pair<unsigned, Gen<Cmd>>> ops{{1, construct<Write>(v).map([](Write w) { return Cmd(w); })},
                                                     {1, just(Cmd(Read{}))}};
      if (has_cas) ops.push_back({1, construct<Cas>(v, v).map([](Cas c) { return Cmd(c); })});
      return frequency<Cmd>(std::move(ops));
    }();
    return gen;
  }
  static Result run(const Cmd& c, Sut& r) {
    if (auto* w = std::get_if<Write>(&c)) {
      Binding::write(r, w->value);
      return {};
    }
    if (std::holds_alternative<Read>(c)) return static_cast<int>(Binding::read(r));
    if constexpr (has_cas) {
      const auto& cas = std::get<Cas>(c);
      return static_cast<bool>(Binding::cas(r, cas.expected, cas.value));
    }
    return {};
  }
  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<Write>(c)) return {};
    if (std::holds_alternative<Read>(c)) return s;
    return std::get<Cas>(c).expected == s;
  }
  static void next(const Cmd& c, State& s) {
    if (auto* w = std::get_if<Write>(&c)) s = w->value;
    else if (auto* cas = std::get_if<Cas>(&c); cas && cas->expected == s) s = cas->value;
  }
};

}  // namespace duet::models
