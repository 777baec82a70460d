// Little-endian Patricia trees (Okasaki & Gill's integer maps, as in Filliâtre's ptmap): a map
// from 64-bit signed keys, tested against std::map.
//
// A branch tests one bit of the key, its *branching bit*, and stores the *prefix*: the key bits
// below that bit, which every key in the branch shares. Little-endian means the root tests the
// LOWEST bit where the keys differ; the further down, the higher the branching bit.
//
// The bug (ptmap's historical one): union must tell which of two branches sits higher, i.e.
// whose branching bit is lower, and compares the masks (1 << bit) with `<`. Compared as SIGNED
// integers, the mask of bit 63 (keys that differ only in the sign bit, such as 0 and INT64_MIN)
// is negative, so it looks like the lowest mask of all: union then puts a tree into a branch
// whose prefix its keys do not share. Nothing crashes, but the tree is malformed: a key may
// sit where lookups never go (find answers std::nullopt for a key the map holds), or twice
// (cardinal counts one key two times).
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include <duet/api.hpp>

namespace patricia {

using Key = std::int64_t;
using Value = std::int64_t;
using Bindings = std::vector<std::pair<Key, Value>>;

// ---- The reference: std::map, copied on every update (so persistent by value). ----
namespace ref {
using Map = std::map<Key, Value>;
inline Map empty() { return {}; }
inline Map add(const Map& m, Key k, Value v) {
  Map r = m;
  r[k] = v;
  return r;
}
inline Map remove(const Map& m, Key k) {
  Map r = m;
  r.erase(k);
  return r;
}
/// Left-biased: on a key in both maps, a's value wins.
inline Map union_(const Map& a, const Map& b) {
  Map r = a;
  r.insert(b.begin(), b.end());  // insert never overwrites
  return r;
}
inline std::optional<Value> find(const Map& m, Key k) {
  auto it = m.find(k);
  return it == m.end() ? std::nullopt : std::optional<Value>(it->second);
}
inline bool mem(const Map& m, Key k) { return m.count(k) != 0; }
inline std::size_t cardinal(const Map& m) { return m.size(); }
inline Bindings bindings(const Map& m) { return Bindings(m.begin(), m.end()); }
}  // namespace ref

// ---- The candidate: a persistent (shared, immutable) little-endian Patricia tree. ----

struct Node;
using Tree = std::shared_ptr<const Node>;  // nullptr: the empty map

struct Node {
  // A leaf when !left: key and value. A branch otherwise: prefix (in key), mask (one bit),
  // left (keys with that bit 0), right (bit 1); both children are non-empty.
  std::uint64_t key = 0;  // bits, as unsigned: the tree only looks at bits
  Value value = 0;
  std::uint64_t mask = 0;
  Tree left, right;
};

/// The candidate's map type: a root, copied in O(1).
struct Map {
  Tree root;
};

namespace detail {
inline std::uint64_t bits(Key k) { return static_cast<std::uint64_t>(k); }
inline bool zero_bit(std::uint64_t k, std::uint64_t m) { return (k & m) == 0; }
inline std::uint64_t prefix_below(std::uint64_t k, std::uint64_t m) { return k & (m - 1); }
inline bool match_prefix(std::uint64_t k, std::uint64_t p, std::uint64_t m) { return prefix_below(k, m) == p; }
inline std::uint64_t lowest_bit(std::uint64_t x) { return x & (~x + 1); }

inline Tree leaf(std::uint64_t k, Value v) { return std::make_shared<const Node>(Node{k, v, 0, nullptr, nullptr}); }
inline Tree branch(std::uint64_t p, std::uint64_t m, Tree l, Tree r) {
  if (!l) return r;  // collapse a branch that lost a side
  if (!r) return l;
  return std::make_shared<const Node>(Node{p, 0, m, std::move(l), std::move(r)});
}
/// Two non-empty trees with prefixes p0 and p1 that disagree below both trees' masks.
inline Tree join(std::uint64_t p0, Tree t0, std::uint64_t p1, Tree t1) {
  const std::uint64_t m = lowest_bit(p0 ^ p1);
  if (zero_bit(p0, m)) return branch(prefix_below(p0, m), m, std::move(t0), std::move(t1));
  return branch(prefix_below(p0, m), m, std::move(t1), std::move(t0));
}
/// A node's prefix: a leaf's key, a branch's prefix.
inline std::uint64_t prefix(const Node& n) { return n.key; }

/// Inserts k -> v; when k is present, `overwrite` says whether v replaces the old value.
inline Tree insert(const Tree& t, std::uint64_t k, Value v, bool overwrite) {
  if (!t) return leaf(k, v);
  if (!t->left) {
    if (t->key == k) return overwrite ? leaf(k, v) : t;
    return join(k, leaf(k, v), t->key, t);
  }
  if (!match_prefix(k, t->key, t->mask)) return join(k, leaf(k, v), t->key, t);
  if (zero_bit(k, t->mask)) return branch(t->key, t->mask, insert(t->left, k, v, overwrite), t->right);
  return branch(t->key, t->mask, t->left, insert(t->right, k, v, overwrite));
}

inline Tree erase(const Tree& t, std::uint64_t k) {
  if (!t) return t;
  if (!t->left) return t->key == k ? nullptr : t;
  if (!match_prefix(k, t->key, t->mask)) return t;
  if (zero_bit(k, t->mask)) return branch(t->key, t->mask, erase(t->left, k), t->right);
  return branch(t->key, t->mask, t->left, erase(t->right, k));
}

/// "Does the branch with mask m sit above the branch with mask n?" = is m the lower bit.
/// The masks are single bits, so this must be an UNSIGNED comparison...
inline bool higher_unsigned(std::uint64_t m, std::uint64_t n) { return m < n; }
/// ...and this is the historical bug: 1 << 63 is negative as a signed integer.
inline bool higher_signed(std::uint64_t m, std::uint64_t n) {
  return static_cast<std::int64_t>(m) < static_cast<std::int64_t>(n);
}

/// Left-biased union (s's values win), by walking both trees together.
template <bool (*Higher)(std::uint64_t, std::uint64_t)>
Tree merge(const Tree& s, const Tree& t) {
  if (!s) return t;
  if (!t) return s;
  if (!s->left) return insert(t, s->key, s->value, /*overwrite=*/true);
  if (!t->left) return insert(s, t->key, t->value, /*overwrite=*/false);
  const std::uint64_t p = s->key, m = s->mask, q = t->key, n = t->mask;
  if (m == n && p == q)  // the same branch: merge side by side
    return branch(p, m, merge<Higher>(s->left, t->left), merge<Higher>(s->right, t->right));
  if (Higher(m, n) && match_prefix(q, p, m)) {  // t fits inside one side of s
    if (zero_bit(q, m)) return branch(p, m, merge<Higher>(s->left, t), s->right);
    return branch(p, m, s->left, merge<Higher>(s->right, t));
  }
  if (Higher(n, m) && match_prefix(p, q, n)) {  // s fits inside one side of t
    if (zero_bit(p, n)) return branch(q, n, merge<Higher>(s, t->left), t->right);
    return branch(q, n, t->left, merge<Higher>(s, t->right));
  }
  return join(p, s, q, t);  // the prefixes disagree: a new branch above both
}

inline std::size_t count(const Tree& t) { return !t ? 0 : !t->left ? 1 : count(t->left) + count(t->right); }

inline void collect(const Tree& t, Bindings& out) {
  if (!t) return;
  if (!t->left) {
    out.emplace_back(static_cast<Key>(t->key), t->value);
    return;
  }
  collect(t->left, out);
  collect(t->right, out);
}
}  // namespace detail

inline Map empty() { return {}; }
inline Map add(const Map& m, Key k, Value v) { return {detail::insert(m.root, detail::bits(k), v, true)}; }
inline Map remove(const Map& m, Key k) { return {detail::erase(m.root, detail::bits(k))}; }

/// Walks down by the key's bits, giving up as soon as a branch's prefix does not match.
inline std::optional<Value> find(const Map& m, Key key) {
  const std::uint64_t k = detail::bits(key);
  const Node* n = m.root.get();
  while (n && n->left) {
    if (!detail::match_prefix(k, n->key, n->mask)) return std::nullopt;
    n = (detail::zero_bit(k, n->mask) ? n->left : n->right).get();
  }
  if (n && n->key == k) return n->value;
  return std::nullopt;
}
inline bool mem(const Map& m, Key k) { return find(m, k).has_value(); }

inline std::size_t cardinal(const Map& m) { return detail::count(m.root); }

/// All bindings, sorted by (signed) key. A little-endian tree's leaves are not in key order.
inline Bindings bindings(const Map& m) {
  Bindings out;
  detail::collect(m.root, out);
  std::sort(out.begin(), out.end());
  return out;
}

/// The correct union, and the historical one that compares masks as signed integers.
inline Map union_(const Map& a, const Map& b) { return {detail::merge<detail::higher_unsigned>(a.root, b.root)}; }
inline Map union_signed_masks(const Map& a, const Map& b) { return {detail::merge<detail::higher_signed>(a.root, b.root)}; }

// ---- The spec. ----

/// Keys worth trying: small ones, the extremes (bit 63 is the interesting branching bit: 0 and
/// INT64_MIN differ only there, as do -1 and INT64_MAX), and keys the map already holds.
inline duet::Gen<Key> keys_for(const ref::Map& m) {
  auto small = duet::integers<Key>(-8, 8);
  auto edges = duet::element_of<Key>({std::numeric_limits<Key>::min(), std::numeric_limits<Key>::max(),
                                      std::numeric_limits<Key>::min() + 1, -1, 0});
  if (m.empty()) return duet::one_of(small, edges);
  std::vector<Key> present;
  for (const auto& [k, v] : m) present.push_back(k);
  return duet::one_of(small, edges, duet::element_of(std::move(present)));
}

/// Keys without any bias (the benchmark's control): uniform over all 64-bit keys, or one the map
/// holds. Half of all pairs of such keys differ in the sign bit.
inline duet::Gen<Key> uniform_keys_for(const ref::Map& m) {
  duet::Gen<Key> uniform = [](duet::Source& s) { return static_cast<Key>(s.draw(~std::uint64_t{0})); };
  if (m.empty()) return uniform;
  std::vector<Key> present;
  for (const auto& [k, v] : m) present.push_back(k);
  return duet::one_of(uniform, duet::element_of(std::move(present)));
}

/// The spec, with the union under test as a parameter (the other operations are shared).
/// `edge_keys`: keys from keys_for (small, extreme, present); else from uniform_keys_for.
template <class Union>
duet::Api spec(Union union_op, bool edge_keys = true) {
  duet::Api api(edge_keys ? "PatriciaMap" : "PatriciaMapUniformKeys");
  auto map = api.abstract<ref::Map, Map>("m");
  auto value = duet::integers<Value>(0, 9);
  auto keys = [edge_keys](const ref::Map& m) { return edge_keys ? keys_for(m) : uniform_keys_for(m); };
  api.op("empty", duet::args(), map, ref::empty, empty);
  api.op("add", duet::args(map, keys, value), map, ref::add, add);
  api.op("remove", duet::args(map, keys), map, ref::remove, remove);
  api.op("union", duet::args(map, map), map, ref::union_, union_op);
  api.op("find", duet::args(map, keys), duet::optional_of(duet::value<Value>()), ref::find, find);
  api.op("mem", duet::args(map, keys), duet::value<bool>(), ref::mem, mem);
  api.op("cardinal", duet::args(map), duet::value<std::size_t>(), ref::cardinal, cardinal);
  api.op("bindings", duet::args(map), duet::value<Bindings>(), ref::bindings, bindings);
  return api;
}

}  // namespace patricia
