// A correct spec that the compile-failure cases below break one member at a time.
#pragma once
#include <duet/duet.hpp>

#include <variant>

namespace cf {
struct Inc {};
inline std::string duet_show(const Inc&) { return "inc()"; }
struct Counter {
  int n = 0;
};
struct Base {
  using Sut = Counter;
  using State = int;
  using Cmd = std::variant<Inc>;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(Inc{})); }
  static duet::Result run(const Cmd&, Sut& c) { return ++c.n; }
  static duet::Result expected(const Cmd&, const State& s) { return s + 1; }
  static void next(const Cmd&, State& s) { ++s; }
};
}  // namespace cf
