// A register holding a pair: write(a, b) and read() -> (a, b), both parts at once. A read that
// returns one part of a write with the other part of another (a torn read) fits no order.
//
//   struct SeqLockBinding {
//     using Sut = duet::models::SeqLock<int>;
//     static void write(Sut& s, int a, int b) { s.write(a, b); }
//     static std::pair<int, int> read(Sut& s) { return s.read(); }
//   };
//   duet::check_parallel<duet::models::PairRegister<SeqLockBinding>>();
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <variant>

#include <duet/parallel.hpp>
#include <duet/models/binding.hpp>

namespace duet::models {

struct PairWrite {
  int a, b;
};
struct PairRead {};
inline std::string duet_show(const PairWrite& w) { return "write(" + duet::show(w.a) + ", " + duet::show(w.b) + ")"; }
inline std::string duet_show(const PairRead&) { return "read()"; }

template <class Binding>
struct PairRegister {
  using Sut = typename Binding::Sut;
  using State = std::pair<int, int>;  // starts (0, 0)
  using Cmd = std::variant<PairWrite, PairRead>;
  static constexpr const char* sut_name = "r";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " r;"; }
  static std::unique_ptr<Sut> init_sut() { return detail::make_subject<Binding>(); }
  static std::string draft_setup_cpp() {
    return detail::draft_subject<Binding>(
        sut_name, {"void write(int a, int b) { B::write(s, a, b); }", "std::pair<int, int> read() { return B::read(s); }"});
  }

  /// The values written: the binding's values() (binding.hpp), or 1..9 (the pair starts (0, 0)).
  static Gen<int> values() { return models::detail::values_of<Binding>(integers(1, 9)); }
  static std::string domain() { return "values " + models::detail::describe_ints(values()); }
  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen =
        one_of(construct<PairWrite>(values(), values()).map([](PairWrite w) { return Cmd(w); }), just(Cmd(PairRead{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& r) {
    if (auto* w = std::get_if<PairWrite>(&c)) {
      Binding::write(r, w->a, w->b);
      return {};
    }
    return std::pair<int, int>(Binding::read(r));
  }
  static Result expected(const Cmd& c, const State& s) {
    if (std::holds_alternative<PairWrite>(c)) return {};
    return s;
  }
  static void next(const Cmd& c, State& s) {
    if (auto* w = std::get_if<PairWrite>(&c)) s = {w->a, w->b};
  }
};

}  // namespace duet::models
