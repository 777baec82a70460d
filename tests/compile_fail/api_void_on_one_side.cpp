#include "api_base.hpp"
void declare(duet::Api& api) {
  auto stack = api.abstract<cfa::RefStack, cfa::CandStack>("s");
  auto clear = [](cfa::RefStack& s) { s.clear(); };
  auto clear_counting = [](cfa::CandStack& s) {
    const int n = static_cast<int>(s.size());
    s.clear();
    return n;
  };
  api.op("clear", duet::args(stack), duet::unit(), clear, clear_counting);  // void against int
}
