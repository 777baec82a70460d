// The unbroken API spec compiles: the failures beside it are due to what each one breaks.
#include "api_base.hpp"
duet::CheckResult check() {
  duet::Api api("Stack");
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s", [](const cfa::RefStack& r, const cfa::CandStack& c) {
    return r == c;
  });
  auto clear = [](cfa::RefStack& s) { s.clear(); };
  api.op("make", duet::args(), stack, cfa::make, cfa::make);
  api.op("push", duet::args(stack, duet::small_int()), stack, cfa::push, cfa::push);
  api.op("size", duet::args(stack), duet::value<int>(), cfa::size, cfa::size);
  api.op("clear", duet::args(stack), duet::unit(), clear, clear);
  return api.check();
}
