#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<duet::Solo, cfa::CandStack>("s");
  api.op("top", duet::args(stack), duet::value<int>(), cfa::top);  // top returns std::optional<int>
}
