// The unbroken API spec compiles: the failures beside it are due to what each one breaks.
#include "api_base.hpp"
duet::CheckResult check() {
  duet::Api api("Stack");
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s", [](const cfa::RefStack& r, const cfa::CandStack& c) {
    return r == c;
  });
  auto clear = [](cfa::RefStack& s) { s.clear(); };
  auto position = [](const cfa::RefStack& s) { return duet::integers(0, static_cast<int>(s.size())); };
  api.op("make", duet::args(), stack, cfa::make, cfa::make);
  api.op("push", duet::args(stack, duet::small_int()), stack, cfa::push, cfa::push);
  api.op("push_at", duet::args(stack, position), stack, cfa::push, cfa::push);
  api.op("push_name", duet::args(stack, duet::strings()), stack, cfa::push_name, cfa::push_name);
  api.op("size", duet::args(stack), duet::value<int>(), cfa::size, cfa::size);
  api.op("top", duet::args(stack), duet::optional_of(duet::value<int>()), cfa::top, cfa::top);
  api.op("top_or_minus_one", duet::args(stack), duet::value<int>(), cfa::top_or_minus_one, cfa::top_or_minus_one);
  api.op("clear", duet::args(stack), duet::unit(), clear, clear);

  duet::Api solo("SoloStack");
  auto solo_stack = solo.abstract<duet::Solo, cfa::CandStack>("s");
  solo.op("make", duet::args(), solo_stack, cfa::make);
  solo.op("top", duet::args(solo_stack), duet::optional_of(duet::value<int>()), cfa::top);
  return api.check();
}
