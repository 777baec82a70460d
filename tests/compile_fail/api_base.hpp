// Pieces for the API front end's compile-failure cases.
#pragma once
#include <duet/api.hpp>

#include <vector>

namespace cfa {
using RefStack = std::vector<int>;
using CandStack = std::vector<int>;
inline RefStack make() { return {}; }
inline RefStack push(const RefStack& s, int x) {
  auto t = s;
  t.push_back(x);
  return t;
}
inline int size(const RefStack& s) { return static_cast<int>(s.size()); }
struct Opaque {
  int x;
};
inline std::string duet_show(const Opaque&) { return "Opaque{}"; }
}  // namespace cfa
