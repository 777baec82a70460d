#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto spec = duet::nondet(stack);  // the reference could not continue with its own stack
}
