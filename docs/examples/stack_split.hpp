// Pairs of abstract values: splitting a persistent stack.
//
//   empty()        -> stack
//   push(s, x)     -> stack      s with x on top (s itself is unchanged)
//   pop(s)         -> stack      s without its top (s nonempty)
//   top(s)         -> std::optional<int>
//   to_vector(s)   -> std::vector<int>, top first
//   split(s, n)    -> std::pair<stack, stack>: the top n elements, and the rest
//
// split's result is declared duet::pair_of(stack, stack): duet deconstructs the pair and binds
// BOTH parts as new handles, which later steps can observe (top, to_vector) or use (push,
// split again) separately.
//
// The bug (`split_off_by_one`): the candidate puts n + 1 elements in the first part (at most
// all of them). The two parts together still hold every element, in order. duet finds it in
// four steps:
//   auto s0 = empty();
//   auto s1 = push(s0, 0);
//   auto _ = split(s1, 0);  // {s2, s3}
//   assert(top(s2) == std::nullopt);  // <-- candidate finds 0
// (or, as short, `pop(s3);` where the candidate throws: its s3 is empty).
//
// Deconstruction is what finds it. `concatenated_spec` declares split's result as one vector,
// the two parts concatenated (duet::map_into): a spec that never looks at the parts
// separately, and under which the bug cannot be seen.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include <duet/api.hpp>

namespace stacks {

// The reference: a vector, top first.
namespace ref {
using Stack = std::vector<int>;
inline Stack empty() { return {}; }
inline Stack push(const Stack& s, int x) {
  Stack t{x};
  t.insert(t.end(), s.begin(), s.end());
  return t;
}
inline Stack pop(const Stack& s) { return Stack(s.begin() + 1, s.end()); }
inline std::optional<int> top(const Stack& s) {
  if (s.empty()) return std::nullopt;
  return s.front();
}
inline std::vector<int> to_vector(const Stack& s) { return s; }
inline int size(const Stack& s) { return static_cast<int>(s.size()); }
inline std::pair<Stack, Stack> split(const Stack& s, int n) {
  return {Stack(s.begin(), s.begin() + n), Stack(s.begin() + n, s.end())};
}
inline std::vector<int> concat(const std::pair<Stack, Stack>& parts) {
  std::vector<int> v = parts.first;
  v.insert(v.end(), parts.second.begin(), parts.second.end());
  return v;
}
}  // namespace ref

// The candidate: an immutable linked list; stacks share their tails.
namespace cons {
struct Cell {
  int head;
  std::shared_ptr<const Cell> tail;
};
using Stack = std::shared_ptr<const Cell>;
inline Stack empty() { return nullptr; }
inline Stack push(const Stack& s, int x) { return std::make_shared<const Cell>(Cell{x, s}); }
inline Stack pop(const Stack& s) {
  // The spec never pops an empty stack; a candidate that thinks it holds one says so.
  if (!s) throw std::logic_error("pop of an empty stack");
  return s->tail;
}
inline std::optional<int> top(const Stack& s) {
  if (!s) return std::nullopt;
  return s->head;
}
inline std::vector<int> to_vector(const Stack& s) {
  std::vector<int> v;
  for (const Cell* c = s.get(); c; c = c->tail.get()) v.push_back(c->head);
  return v;
}
/// The first k elements copied onto a fresh list; the rest shared with s.
inline std::pair<Stack, Stack> split_at(Stack s, int k) {
  std::vector<int> front;
  for (; k > 0 && s; --k, s = s->tail) front.push_back(s->head);
  Stack first = nullptr;
  for (auto it = front.rbegin(); it != front.rend(); ++it) first = push(first, *it);
  return {first, s};
}
inline std::pair<Stack, Stack> split(const Stack& s, int n) { return split_at(s, n); }
/// THE BUG: one element too many in the first part (the list runs out at the end, so
/// split(s, size) is still right).
inline std::pair<Stack, Stack> split_off_by_one(const Stack& s, int n) { return split_at(s, n + 1); }
inline std::vector<int> concat(const std::pair<Stack, Stack>& parts) {
  std::vector<int> v = to_vector(parts.first);
  const std::vector<int> rest = to_vector(parts.second);
  v.insert(v.end(), rest.begin(), rest.end());
  return v;
}
}  // namespace cons

/// Everything but split. (The order matters only to the shrinker, which prefers operations
/// declared first: observations come before pop, so that a shrunk scenario ends with a value
/// the candidate gets wrong rather than with the candidate's pop throwing on a stack it
/// wrongly holds empty.)
inline duet::Abstract<ref::Stack, cons::Stack> declare_stack(duet::Api& api) {
  auto stack = api.abstract<ref::Stack, cons::Stack>("s");
  auto nonempty = [](const ref::Stack& s) { return !s.empty(); };
  api.op("empty", duet::args(), stack, ref::empty, cons::empty);
  api.op("push", duet::args(stack, duet::integers(0, 9)), stack, ref::push, cons::push);
  api.op("top", duet::args(stack), duet::optional_of(duet::value<int>()), ref::top, cons::top);
  api.op("to_vector", duet::args(stack), duet::value<std::vector<int>>(), ref::to_vector, cons::to_vector);
  api.op("pop", duet::args(stack.where(nonempty)), stack, ref::pop, cons::pop);
  return stack;
}

/// split(s, n) with 0 <= n <= size(s).
inline auto split_point() {
  return [](const ref::Stack& s) { return duet::integers(0, ref::size(s)); };
}

/// Split's parts are deconstructed: each becomes a handle.
template <class Split>
duet::Api spec(Split split) {
  duet::Api api("StackSplit");
  auto stack = declare_stack(api);
  api.op("split", duet::args(stack, split_point()), duet::pair_of(stack, stack), ref::split, split);
  return api;
}

/// Split's parts are only observed glued back together: a blind spot for the off-by-one.
template <class Split>
duet::Api concatenated_spec(Split split) {
  duet::Api api("StackSplitConcatenated");
  auto stack = declare_stack(api);
  api.op("split", duet::args(stack, split_point()),
         duet::map_into(duet::value<std::vector<int>>(), ref::concat, cons::concat), ref::split, split);
  return api;
}

}  // namespace stacks
