// Persistent AVL sets as in OCaml's Set, and a bug that no result ever shows.
//
// OCaml's Set keeps |height(left) - height(right)| <= 2 at every node (a relaxed AVL invariant:
// <= 2 rather than the textbook <= 1), and that is the invariant checked here. Its union splits
// one set around the other's root and glues the pieces back with `join l v r`, which must
// accept trees of ANY heights: it walks down the taller tree's spine to a subtree about as tall
// as the other one, links them there, and rebalances on the way back up.
//
// The bug (cf. ocaml/ocaml issue 8176, "AVL mal équilibrés dans Set"): a join that only
// rebalances at the root. One rotation repairs a height difference of 3 (all that add and
// remove ever create), not of 4 or more: the result is an unbalanced tree. Every operation still answers correctly (a rotation never
// changes the contents, only the shape), so comparing results against std::set never fails;
// only a well-formedness check (stored heights right, balance within 2, keys in order) sees it,
// and the sets just get slower. It needs a union of sets of quite different sizes.
#pragma once

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <duet/api.hpp>

namespace avl {

// ---- The reference: std::set, copied on every update. ----
namespace ref {
using Set = std::set<int>;
inline Set empty() { return {}; }
inline Set of_list(const std::vector<int>& xs) { return {xs.begin(), xs.end()}; }
inline Set add(const Set& s, int x) {
  Set r = s;
  r.insert(x);
  return r;
}
inline Set remove(const Set& s, int x) {
  Set r = s;
  r.erase(x);
  return r;
}
inline Set union_(const Set& a, const Set& b) {
  Set r = a;
  r.insert(b.begin(), b.end());
  return r;
}
inline bool mem(const Set& s, int x) { return s.count(x) != 0; }
inline std::vector<int> elements(const Set& s) { return {s.begin(), s.end()}; }
}  // namespace ref

// ---- The candidate: OCaml's Set algorithms on shared immutable nodes. ----

struct Node;
using Tree = std::shared_ptr<const Node>;  // nullptr: the empty set
struct Node {
  Tree l;
  int v;
  Tree r;
  int h;  // height, stored
};

/// The candidate's set type: a root, copied in O(1).
struct Set {
  Tree root;
};

namespace detail {
inline int height(const Tree& t) { return t ? t->h : 0; }
inline Tree create(Tree l, int v, Tree r) {
  const int h = std::max(height(l), height(r)) + 1;
  return std::make_shared<const Node>(Node{std::move(l), v, std::move(r), h});
}

/// Builds l v r when the heights differ by at most 3: one single or double rotation at the
/// root. Used by add and remove, which change a height by at most one.
inline Tree bal(const Tree& l, int v, const Tree& r) {
  const int hl = height(l), hr = height(r);
  if (hl > hr + 2) {
    if (height(l->l) >= height(l->r)) return create(l->l, l->v, create(l->r, v, r));
    return create(create(l->l, l->v, l->r->l), l->r->v, create(l->r->r, v, r));
  }
  if (hr > hl + 2) {
    if (height(r->r) >= height(r->l)) return create(create(l, v, r->l), r->v, r->r);
    return create(create(l, v, r->l->l), r->l->v, create(r->l->r, r->v, r->r));
  }
  return create(l, v, r);
}

inline Tree add(const Tree& t, int x) {
  if (!t) return create(nullptr, x, nullptr);
  if (x == t->v) return t;
  if (x < t->v) return bal(add(t->l, x), t->v, t->r);
  return bal(t->l, t->v, add(t->r, x));
}

inline Tree add_min(int x, const Tree& t) { return t ? bal(add_min(x, t->l), t->v, t->r) : create(nullptr, x, nullptr); }
inline Tree add_max(int x, const Tree& t) { return t ? bal(t->l, t->v, add_max(x, t->r)) : create(nullptr, x, nullptr); }

/// Builds l v r for trees of any heights (all of l < v < all of r).
inline Tree join(const Tree& l, int v, const Tree& r) {
  if (!l) return add_min(v, r);
  if (!r) return add_max(v, l);
  if (l->h > r->h + 2) return bal(l->l, l->v, join(l->r, v, r));  // descend l's right spine
  if (r->h > l->h + 2) return bal(join(l, v, r->l), r->v, r->r);  // descend r's left spine
  return create(l, v, r);
}

/// THE BUG: rebalances only at the root. Right when the heights differ by 3 or less (as after
/// add), wrong beyond: the rotation leaves a node below the root whose sides differ by more
/// than 2. The contents are right either way: a rotation only changes the shape.
inline Tree join_root_only(const Tree& l, int v, const Tree& r) { return bal(l, v, r); }

using JoinFn = Tree (*)(const Tree&, int, const Tree&);

/// (elements < x, whether x is present, elements > x), glued with Join.
template <JoinFn Join>
std::tuple<Tree, bool, Tree> split(int x, const Tree& t) {
  if (!t) return {nullptr, false, nullptr};
  if (x == t->v) return {t->l, true, t->r};
  if (x < t->v) {
    auto [ll, present, rl] = split<Join>(x, t->l);
    return {ll, present, Join(rl, t->v, t->r)};
  }
  auto [lr, present, rr] = split<Join>(x, t->r);
  return {Join(t->l, t->v, lr), present, rr};
}

/// OCaml's union: split the shorter set around the taller one's root, recurse, join.
template <JoinFn Join>
Tree union_(const Tree& s1, const Tree& s2) {
  if (!s1) return s2;
  if (!s2) return s1;
  if (s1->h >= s2->h) {
    if (s2->h == 1) return add(s1, s2->v);
    auto [l2, present, r2] = split<Join>(s1->v, s2);
    return Join(union_<Join>(s1->l, l2), s1->v, union_<Join>(s1->r, r2));
  }
  if (s1->h == 1) return add(s2, s1->v);
  auto [l1, present, r1] = split<Join>(s2->v, s1);
  return Join(union_<Join>(l1, s2->l), s2->v, union_<Join>(r1, s2->r));
}

inline int min_elt(const Tree& t) { return t->l ? min_elt(t->l) : t->v; }
inline Tree remove_min(const Tree& t) { return t->l ? bal(remove_min(t->l), t->v, t->r) : t->r; }
/// Glues two trees whose heights differ by at most 2 (the two sides of a removed node).
inline Tree merge(const Tree& a, const Tree& b) {
  if (!a) return b;
  if (!b) return a;
  return bal(a, min_elt(b), remove_min(b));
}
inline Tree remove(const Tree& t, int x) {
  if (!t) return t;
  if (x == t->v) return merge(t->l, t->r);
  if (x < t->v) return bal(remove(t->l, x), t->v, t->r);
  return bal(t->l, t->v, remove(t->r, x));
}

inline void collect(const Tree& t, std::vector<int>& out) {
  if (!t) return;
  collect(t->l, out);
  out.push_back(t->v);
  collect(t->r, out);
}

/// The height of t if t is well formed (keys strictly between lo and hi); else why not.
inline int check(const Tree& t, std::optional<int> lo, std::optional<int> hi, std::string& why) {
  if (!t || !why.empty()) return 0;
  if ((lo && t->v <= *lo) || (hi && t->v >= *hi)) {
    why = "node " + std::to_string(t->v) + " is out of order";
    return 0;
  }
  const int hl = check(t->l, lo, t->v, why), hr = check(t->r, t->v, hi, why);
  if (!why.empty()) return 0;
  if (t->h != std::max(hl, hr) + 1) {
    why = "node " + std::to_string(t->v) + " stores height " + std::to_string(t->h) + ", has " +
          std::to_string(std::max(hl, hr) + 1);
  } else if (std::abs(hl - hr) > 2) {
    why = "node " + std::to_string(t->v) + " is unbalanced: left height " + std::to_string(hl) +
          ", right height " + std::to_string(hr);
  }
  return t->h;
}
}  // namespace detail

inline Set empty() { return {}; }
inline Set add(const Set& s, int x) { return {detail::add(s.root, x)}; }
/// The set of xs, built by adding them one by one.
inline Set of_list(const std::vector<int>& xs) {
  Set s;
  for (int x : xs) s = add(s, x);
  return s;
}
inline Set remove(const Set& s, int x) { return {detail::remove(s.root, x)}; }
inline bool mem(const Set& s, int x) {
  const Node* n = s.root.get();
  while (n && n->v != x) n = (x < n->v ? n->l : n->r).get();
  return n != nullptr;
}
inline std::vector<int> elements(const Set& s) {
  std::vector<int> out;
  detail::collect(s.root, out);
  return out;
}

/// The correct union and the one whose join rebalances only at the root.
inline Set union_(const Set& a, const Set& b) { return {detail::union_<detail::join>(a.root, b.root)}; }
inline Set union_root_only(const Set& a, const Set& b) {
  return {detail::union_<detail::join_root_only>(a.root, b.root)};
}

/// The well-formedness check: keys in order, stored heights right, and at every node
/// |height(left) - height(right)| <= 2 (OCaml's Set invariant).
inline duet::Verdict balanced(const Set& s) {
  std::string why;
  detail::check(s.root, std::nullopt, std::nullopt, why);
  if (why.empty()) return true;
  return duet::Verdict::fail(why);
}

// ---- The specs. ----

/// Elements to add, look up or remove: any in [0, 200], or one the set holds. Takes either
/// side's set: the reference's (std::set) or, with no reference, the candidate's.
struct ElementsFor {
  duet::Gen<int> operator()(const ref::Set& s) const { return pick(std::vector<int>(s.begin(), s.end())); }
  duet::Gen<int> operator()(const Set& s) const { return pick(elements(s)); }
  static duet::Gen<int> pick(std::vector<int> present) {
    auto any = duet::integers(0, 200);
    if (present.empty()) return any;
    return duet::one_of(any, duet::element_of(std::move(present)));
  }
};

/// Lists of elements for of_list (about five on average): with them a scenario builds sets of
/// quite different sizes in a few steps, which is what the bug needs. Building them with add
/// alone also works, but random scenarios rarely chain enough adds on the same set.
inline duet::Gen<std::vector<int>> lists() { return duet::vectors(duet::integers(0, 200)); }

/// Against std::set, with `check` run on every live set after every step (nullptr: none).
template <class Union, class Check>
duet::Api spec(Union union_op, Check check) {
  duet::Api api("AvlSet");
  auto set = api.abstract<ref::Set, Set>("s", check);
  api.op("empty", duet::args(), set, ref::empty, empty);
  api.op("add", duet::args(set, ElementsFor{}), set, ref::add, add);
  api.op("of_list", duet::args(lists()), set, ref::of_list, of_list);
  api.op("remove", duet::args(set, ElementsFor{}), set, ref::remove, remove);
  api.op("union", duet::args(set, set), set, ref::union_, union_op);
  api.op("mem", duet::args(set, ElementsFor{}), duet::value<bool>(), ref::mem, mem);
  api.op("elements", duet::args(set), duet::value<std::vector<int>>(), ref::elements, elements);
  return api;
}

/// No reference at all (invariant-only mode): sets are built only through the API, results
/// are printed but not compared, and `balanced` is the only oracle.
template <class Union>
duet::Api solo_spec(Union union_op) {
  duet::Api api("AvlSetSolo");
  auto set = api.abstract<duet::Solo, Set>("s", [](const Set& s) { return balanced(s); });
  api.op("empty", duet::args(), set, empty);
  api.op("add", duet::args(set, ElementsFor{}), set, add);
  api.op("of_list", duet::args(lists()), set, of_list);
  api.op("remove", duet::args(set, ElementsFor{}), set, remove);
  api.op("union", duet::args(set, set), set, union_op);
  api.op("mem", duet::args(set, ElementsFor{}), duet::value<bool>(), mem);
  api.op("elements", duet::args(set), duet::value<std::vector<int>>(), elements);
  return api;
}

}  // namespace avl
