#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto clear = [](cfa::RefStack& s) { s.clear(); };
  api.op("clear", duet::args(stack), duet::value<int>(), clear, clear);
}
