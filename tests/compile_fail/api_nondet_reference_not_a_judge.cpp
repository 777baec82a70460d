#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto judge = [](const cfa::RefStack& s, int) { return cfa::size(s); };  // not a duet::Diagnostic
  api.op("size", duet::args(stack), duet::nondet(duet::value<int>()), judge, cfa::size);
}
