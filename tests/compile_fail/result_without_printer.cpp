#include "spec_base.hpp"
struct Opaque {
  int x;
  bool operator==(const Opaque&) const = default;
};
duet::Result r = Opaque{1};
