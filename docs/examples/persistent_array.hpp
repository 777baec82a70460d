// The prologue of the Monolith paper, "How Ed got fired": persistent arrays, a two-line
// reference that copies on set, and Ed's candidate that writes in place.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <duet/api.hpp>

namespace persistent {

// The reference: obviously correct, slow. set copies.
namespace ref {
using Array = std::vector<std::int64_t>;
inline Array make(int n, std::int64_t x) { return Array(static_cast<std::size_t>(n), x); }
inline std::int64_t get(const Array& a, int i) { return a.at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  Array b = a;
  b.at(static_cast<std::size_t>(i)) = x;
  return b;
}
inline int length(const Array& a) { return static_cast<int>(a.size()); }
}  // namespace ref

// Ed's candidate: set writes in place and returns the same array.
namespace ed {
using Array = std::shared_ptr<std::vector<std::int64_t>>;
inline Array make(int n, std::int64_t x) { return std::make_shared<std::vector<std::int64_t>>(static_cast<std::size_t>(n), x); }
inline std::int64_t get(const Array& a, int i) { return a->at(static_cast<std::size_t>(i)); }
inline Array set(const Array& a, int i, std::int64_t x) {
  a->at(static_cast<std::size_t>(i)) = x;
  return a;
}
}  // namespace ed

// What Ed should have written: a copy.
namespace fixed {
using ed::Array;
using ed::get;
using ed::make;
inline Array set(const Array& a, int i, std::int64_t x) {
  auto b = std::make_shared<std::vector<std::int64_t>>(*a);
  b->at(static_cast<std::size_t>(i)) = x;
  return b;
}
}  // namespace fixed

/// Bryn's spec: make, get and set, with indices depending on the array they index.
template <class Make, class Get, class Set>
duet::Api spec(Make make, Get get, Set set) {
  duet::Api api("PersistentArray");
  auto array = api.abstract<ref::Array, ed::Array>("a");
  auto element = duet::sequential();
  auto length = duet::integers(0, 15);
  auto nonempty = [](const ref::Array& a) { return !a.empty(); };
  auto index = [](const ref::Array& a) { return duet::integers(0, ref::length(a) - 1); };
  api.op("make", duet::args(length, element), array, ref::make, make);
  api.op("get", duet::args(array.where(nonempty), index), duet::value<std::int64_t>(), ref::get, get);
  api.op("set", duet::args(array.where(nonempty), index, element), array, ref::set, set);
  return api;
}

}  // namespace persistent
