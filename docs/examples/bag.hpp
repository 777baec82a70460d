// Bags: the same candidate, wrong under one spec and right under another.
//
//   create()        -> bag
//   insert(b, x)    adds x
//   extract(b)      -> std::optional<int>: removes and returns some element; std::nullopt
//                      when the bag is empty
//
// A bag promises nothing about WHICH element extract returns. Writing the spec
// deterministically, with a reference that happens to be a stack (LIFO), over-specifies it:
// a queue (FIFO) candidate then disagrees, in four steps:
//   auto b0 = create();
//   insert(b0, 0);
//   insert(b0, 1);
//   assert(extract(b0) == 1);  // candidate finds 0
// That is a bug in the spec, not in the candidate. The faithful spec is nondeterministic:
// extract's reference receives the candidate's answer and accepts it if it is std::nullopt
// for an empty bag, or an element currently in the bag (which it then removes). Under that
// spec the FIFO candidate passes, while a candidate that really is wrong (`forgetful`:
// extract returns the oldest element but does not remove it) is still found.
#pragma once

#include <algorithm>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include <duet/api.hpp>

namespace bag {

// The reference: the bag's elements in insertion order.
namespace ref {
using Bag = std::vector<int>;
inline Bag create() { return {}; }
inline void insert(Bag& b, int x) { b.push_back(x); }

/// Deterministic: the most recently inserted element (a stack).
inline std::optional<int> extract_lifo(Bag& b) {
  if (b.empty()) return std::nullopt;
  const int x = b.back();
  b.pop_back();
  return x;
}

/// Nondeterministic: judges the candidate's answer `got`.
inline duet::Diagnostic<std::optional<int>> extract_any(Bag& b, const std::optional<int>& got) {
  if (!got) {
    if (b.empty()) return duet::valid(std::optional<int>());
    return duet::invalid("the bag is not empty");
  }
  auto it = std::find(b.begin(), b.end(), *got);
  if (it == b.end()) return duet::invalid(std::to_string(*got) + " is not in the bag");
  b.erase(it);
  return duet::valid(got);
}
}  // namespace ref

// The candidate: a queue. Right for a bag; wrong against a stack.
namespace fifo {
using Bag = std::deque<int>;
inline Bag create() { return {}; }
inline void insert(Bag& b, int x) { b.push_back(x); }
inline std::optional<int> extract(Bag& b) {
  if (b.empty()) return std::nullopt;
  const int x = b.front();
  b.pop_front();
  return x;
}
}  // namespace fifo

// A really wrong candidate: extract returns the oldest element but forgets to remove it.
namespace forgetful {
using fifo::Bag;
using fifo::create;
using fifo::insert;
inline std::optional<int> extract(Bag& b) {
  if (b.empty()) return std::nullopt;
  return b.front();  // THE BUG: no pop_front()
}
}  // namespace forgetful

/// The over-specified spec: extract must behave as a stack's pop.
template <class Extract>
duet::Api lifo_spec(Extract extract) {
  duet::Api api("BagAsStack");
  auto bag = api.abstract<ref::Bag, fifo::Bag>("b");
  api.op("create", duet::args(), bag, ref::create, fifo::create);
  api.op("insert", duet::args(bag, duet::integers(0, 9)), duet::unit(), ref::insert, fifo::insert);
  api.op("extract", duet::args(bag), duet::optional_of(duet::value<int>()), ref::extract_lifo, extract);
  return api;
}

/// The faithful spec: extract may return any element of the bag.
template <class Extract>
duet::Api any_spec(Extract extract) {
  duet::Api api("Bag");
  auto bag = api.abstract<ref::Bag, fifo::Bag>("b");
  api.op("create", duet::args(), bag, ref::create, fifo::create);
  api.op("insert", duet::args(bag, duet::integers(0, 9)), duet::unit(), ref::insert, fifo::insert);
  api.op("extract", duet::args(bag), duet::nondet(duet::optional_of(duet::value<int>())), ref::extract_any, extract);
  return api;
}

}  // namespace bag
