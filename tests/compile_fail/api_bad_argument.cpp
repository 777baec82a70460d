#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  api.op("push", duet::args(stack, 3), stack, cfa::push, cfa::push);  // 3 is not a generator
}
