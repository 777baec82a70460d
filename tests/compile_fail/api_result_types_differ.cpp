#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  // The reference returns int, the candidate std::optional<int>: value<int> fits only the first.
  api.op("top", duet::args(stack), duet::value<int>(), cfa::top_or_minus_one, cfa::top);
}
