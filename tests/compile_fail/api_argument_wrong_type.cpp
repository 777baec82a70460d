#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  // push_name takes a std::string where duet::small_int() gives an int.
  api.op("push_name", duet::args(stack, duet::small_int()), stack, cfa::push_name, cfa::push_name);
}
