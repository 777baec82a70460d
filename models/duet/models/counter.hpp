// A counter model: incr() and get(). Bind a subject by giving its type and two functions:
//
//   struct AtomicCounter {
//     using Sut = std::atomic<long>;
//     static void incr(Sut& c) { c.fetch_add(1); }
//     static long get(Sut& c) { return c.load(); }
//   };
//   duet::check_parallel<duet::models::Counter<AtomicCounter>>();
#pragma once

#include <string>
#include <variant>

#include <duet/duet.hpp>

namespace duet::models {

struct Incr {};
struct Get {};
inline std::string duet_show(const Incr&) { return "incr()"; }
inline std::string duet_show(const Get&) { return "get()"; }

template <class Binding>
struct Counter {
  using Sut = typename Binding::Sut;
  using State = long;
  using Cmd = std::variant<Incr, Get>;
  static constexpr const char* sut_name = "c";
  static std::string setup_cpp() { return duet::type_name<Sut>() + " c{};"; }

  static Gen<Cmd> command(const State&) {
    static const Gen<Cmd> gen = one_of(just(Cmd(Incr{})), just(Cmd(Get{})));
    return gen;
  }
  static Result run(const Cmd& c, Sut& s) {
    if (std::holds_alternative<Incr>(c)) {
      Binding::incr(s);
      return {};
    }
    return static_cast<long>(Binding::get(s));
  }
  static Result expected(const Cmd& c, const State& n) {
    if (std::holds_alternative<Incr>(c)) return {};
    return n;
  }
  static void next(const Cmd& c, State& n) {
    if (std::holds_alternative<Incr>(c)) ++n;
  }
};

}  // namespace duet::models
