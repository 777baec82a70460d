#include "spec_base.hpp"
struct Spec : cf::Base {
  static void next(const Cmd&, State s) { ++s; }  // changes a copy
};
auto r = duet::check_sequential<Spec>();
