// Pieces for the API front end's compile-failure cases.
#pragma once
#include <duet/api.hpp>

#include <optional>
#include <string>
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
inline std::optional<int> top(const RefStack& s) {
  if (s.empty()) return std::nullopt;
  return s.back();
}
inline int top_or_minus_one(const RefStack& s) { return s.empty() ? -1 : s.back(); }
inline RefStack push_name(const RefStack& s, const std::string& name) { return push(s, static_cast<int>(name.size())); }
struct Opaque {
  int x;
};
inline std::string duet_show(const Opaque&) { return "Opaque{}"; }
}  // namespace cfa
