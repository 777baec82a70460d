#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto push_zero = [](const cfa::CandStack& s) { return cfa::push(s, 0); };  // one argument, not two
  api.op("push", duet::args(stack, duet::small_int()), stack, cfa::push, push_zero);
}
