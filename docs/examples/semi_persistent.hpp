// Semi-persistent arrays (Conchon and Filliâtre, ESOP 2008; the Monolith paper, section 4.2).
//
// A semi-persistent array looks like a persistent one: set(a, i, x) returns a new array, a
// *child* of a, and leaves a unchanged. But the API is more restrictive, which allows a faster
// implementation. The arrays created so far form a forest (make starts a tree, set adds a
// child). Within a tree, an array is *valid* if it is a (reflexive, transitive) parent of the
// array most recently accessed through get or set (or created by set). Only valid arrays may be
// passed to get and set, and doing so invalidates the array's strict descendants. length may
// be applied to ANY array, valid or not, and must not change which arrays are valid.
//
// The spec expresses the restriction as a precondition on the reference side:
//   array.where(ref::valid)
// so duet only generates scenarios that respect the API (it never calls get on an invalid
// array), while still comparing every result.
//
// Candidates here use Baker's rerooting trick: all the arrays of a tree share one mutable
// vector, held by the most recently accessed array (the root); every valid ancestor of the
// root holds a diff leading toward it. get and set first *reroot* the tree at their argument.
// Being semi-persistent, rerooting does not record the reverse diffs: the arrays it leaves
// behind are simply marked invalid (and using one afterwards throws std::logic_error).
//
// The bug (`rerooting_length`): length reroots too, like get does. That is harmless for a
// persistent array but wrong for a semi-persistent one: it silently invalidates the strict
// descendants of its argument, which the spec says must stay valid, and it cannot be applied
// to an invalid array at all. duet finds it in four steps:
//   auto a0 = make(1, 0);
//   auto a1 = set(a0, 0, 1);
//   length(a0);   // 1 -- and, in the candidate, a1 is now invalid
//   length(a1);   // <-- candidate throws std::logic_error (a1 is valid for the reference)
// For this to be observable, the reference must model validity exactly: ref::length leaves
// the stack alone, so a1 stays valid there and duet goes on using it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <variant>
#include <vector>

#include <duet/api.hpp>

namespace semi {

// ---------------------------------------------------------------------------------------
// The reference, as in the paper: each tree keeps a stack of its currently valid arrays, the
// path from the root of the tree down to the most recently accessed array. valid(a) searches
// the stack; get and set truncate it after their argument (invalidating its descendants).
// Arrays are identified by a number unique within their tree (not by address, so that no
// freed array can ever be mistaken for a live one).
namespace ref {

struct Tree {
  std::vector<std::uint64_t> path;  // ids of the valid arrays, the tree's root first
  std::uint64_t next_id = 0;
};
struct Node {
  std::vector<std::int64_t> data;  // a full copy: the reference is simple, not fast
  std::uint64_t id;
  std::shared_ptr<Tree> tree;
};
using Array = std::shared_ptr<const Node>;

inline bool valid(const Array& a) {
  const auto& path = a->tree->path;
  return std::find(path.begin(), path.end(), a->id) != path.end();
}
/// Truncates the stack after a (a must be valid).
inline void invalidate_descendants(const Array& a) {
  auto& path = a->tree->path;
  while (path.back() != a->id) path.pop_back();
}

inline Array make(int n, std::int64_t x) {
  auto tree = std::make_shared<Tree>();
  const std::uint64_t id = tree->next_id++;
  tree->path.push_back(id);
  return std::make_shared<const Node>(Node{std::vector<std::int64_t>(static_cast<std::size_t>(n), x), id, tree});
}
/// Any array, valid or not; validity does not change.
inline int length(const Array& a) { return static_cast<int>(a->data.size()); }
inline std::int64_t get(const Array& a, int i) {
  invalidate_descendants(a);
  return a->data.at(static_cast<std::size_t>(i));
}
inline Array set(const Array& a, int i, std::int64_t x) {
  invalidate_descendants(a);
  Node child{a->data, a->tree->next_id++, a->tree};
  child.data.at(static_cast<std::size_t>(i)) = x;
  a->tree->path.push_back(child.id);
  return std::make_shared<const Node>(std::move(child));
}

}  // namespace ref

// ---------------------------------------------------------------------------------------
// The candidate: Baker's trick, semi-persistent flavour.
namespace baker {

struct Node;
/// The most recently accessed array of its tree: it owns the shared vector.
struct Root {
  std::vector<std::int64_t> data;
};
/// A valid strict ancestor of the root: equal to `child` except that index i holds v.
struct Diff {
  std::size_t i;
  std::int64_t v;
  std::shared_ptr<Node> child;
};
/// An array that is no longer valid: nothing left to read.
struct Invalid {};

struct Node {
  std::size_t length;  // kept in every node, so that length needs no rerooting
  std::variant<Root, Diff, Invalid> state;
};
using Array = std::shared_ptr<Node>;

/// Makes a the root of its tree. The arrays between a and the old root (a's strict valid
/// descendants) become invalid: no reverse diff is recorded for them.
inline void reroot(const Array& a) {
  if (std::holds_alternative<Root>(a->state)) return;
  if (std::holds_alternative<Invalid>(a->state))
    throw std::logic_error("semi-persistent array used after it was invalidated");
  const Diff d = std::get<Diff>(a->state);  // a copy: keeps the child alive
  reroot(d.child);
  std::vector<std::int64_t> data = std::move(std::get<Root>(d.child->state).data);
  data[d.i] = d.v;
  d.child->state = Invalid{};
  a->state = Root{std::move(data)};
}

inline Array make(int n, std::int64_t x) {
  return std::make_shared<Node>(Node{static_cast<std::size_t>(n), Root{std::vector<std::int64_t>(static_cast<std::size_t>(n), x)}});
}
/// Correct: reads the length kept in the node, valid or not, and changes nothing.
inline int length(const Array& a) { return static_cast<int>(a->length); }
inline std::int64_t get(const Array& a, int i) {
  reroot(a);
  return std::get<Root>(a->state).data.at(static_cast<std::size_t>(i));
}
inline Array set(const Array& a, int i, std::int64_t x) {
  reroot(a);
  std::vector<std::int64_t>& data = std::get<Root>(a->state).data;
  const auto k = static_cast<std::size_t>(i);
  const std::int64_t old = data.at(k);
  data[k] = x;
  auto child = std::make_shared<Node>(Node{a->length, Root{std::move(data)}});
  a->state = Diff{k, old, child};  // a now reads through its child, which owns the vector
  return child;
}

/// THE BUG: length reroots, as get does, and reads the length of the shared vector. It
/// invalidates a's strict descendants (which the spec says length must not do), and throws on
/// an invalid array (to which the spec says length may be applied).
inline int rerooting_length(const Array& a) {
  reroot(a);
  return static_cast<int>(std::get<Root>(a->state).data.size());
}


/// Whether the candidate still considers a valid (white-box: for the check below).
inline bool valid(const Array& a) {
  const Node* n = a.get();
  while (const Diff* d = std::get_if<Diff>(&n->state)) n = d->child.get();
  return std::holds_alternative<Root>(n->state);
}

}  // namespace baker

/// The paper's spec: get and set have the precondition ref::valid; length has none.
///
/// With white_box, duet also checks after every step that the candidate and the reference
/// agree on the validity of every array (duet's well-formedness check, which may look inside
/// the candidate). Without it, the spec is black-box: a wrongly invalidated array is noticed
/// only when a later get, set or length on it goes wrong.
template <class Length>
duet::Api spec(Length length, bool white_box = false) {
  duet::Api api(white_box ? "SemiPersistentArrayWhiteBox" : "SemiPersistentArray");
  auto array = api.abstract<ref::Array, baker::Array>("a", [white_box](const ref::Array& r, const baker::Array& c) {
    return !white_box || ref::valid(r) == baker::valid(c);
  });
  auto element = duet::sequential();
  auto size = duet::integers(1, 8);
  auto index = [](const ref::Array& a) { return duet::integers(0, ref::length(a) - 1); };
  api.op("make", duet::args(size, element), array, ref::make, baker::make);
  api.op("length", duet::args(array), duet::value<int>(), ref::length, length);
  api.op("get", duet::args(array.where(ref::valid), index), duet::value<std::int64_t>(), ref::get, baker::get);
  api.op("set", duet::args(array.where(ref::valid), index, element), array, ref::set, baker::set);
  return api;
}

}  // namespace semi
