#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  // top returns std::optional<int>: the spec is duet::optional_of(duet::value<int>()).
  api.op("top", duet::args(stack), duet::value<int>(), cfa::top, cfa::top);
}
