#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto position = [](const cfa::RefStack& s) { return static_cast<int>(s.size()); };  // an int, not a Gen
  api.op("push", duet::args(stack, position), stack, cfa::push, cfa::push);
}
