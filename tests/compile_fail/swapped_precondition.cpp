#include "spec_base.hpp"
struct Spec : cf::Base {
  static bool precondition(const State&, const Cmd&) { return true; }  // arguments swapped
};
auto r = duet::check_sequential<Spec>();
