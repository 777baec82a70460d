#include "spec_base.hpp"
struct Opaque {
  int x;
};
std::string duet_show(const Opaque&) { return "Opaque{}"; }
duet::Result r = Opaque{1};
