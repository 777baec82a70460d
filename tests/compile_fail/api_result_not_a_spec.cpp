#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  api.op("size", duet::args(stack), duet::small_int(), cfa::size, cfa::size);  // a generator, not a result spec
}
