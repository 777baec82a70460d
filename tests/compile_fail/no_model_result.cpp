#include "spec_base.hpp"
struct Spec {
  using Sut = cf::Counter;
  using State = int;
  using Cmd = std::variant<cf::Inc>;
  static duet::Gen<Cmd> command(const State&) { return duet::just(Cmd(cf::Inc{})); }
  static duet::Result run(const Cmd&, Sut& c) { return ++c.n; }
  static void next(const Cmd&, State& s) { ++s; }
};
auto r = duet::check_sequential<Spec>();
