// Strings as dense ids, one id per distinct text, for the models' states: a state compares and
// hashes ids, not texts. The kv model's appends make new values while the search runs (a key's
// value followed by an appended text); concat(a, b) gives the id of that concatenation without
// writing its text out: each id carries a polynomial hash of its text modulo 2^61 - 1 and its
// length, from which a concatenation's are computed in constant time, and a new text is looked
// up among the others of equal hash and length. Two ids are only merged when their texts are
// equal: where hash and length match, the texts are compared (written out then, which only
// happens for a text reached twice along different ways, or a collision). A concatenation's
// text is written out on demand (text(), for reports and for the decisions that read values),
// and kept.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace duet::history::detail {

/// Interns values as dense ids.
class Interner {
 public:
  /// Id 0 is reserved (a model's "none": nil, no value): its text is empty, and id("") is
  /// another id.
  Interner() {
    nodes_.push_back(Node{0, 1, 0});
    leaves_.emplace_back();
  }

  /// The id of `s`.
  std::uint32_t id(const std::string& s) {
    const std::uint64_t h = hash_of(s);
    if (const std::uint32_t found = find(h, s.size(), [&](std::uint32_t c) { return text(c) == s; }); found != kNone)
      return found;
    return add_leaf(s, h);
  }

  /// The id of text(a) followed by text(b).
  std::uint32_t concat(std::uint32_t a, std::uint32_t b) {
    if (nodes_[b].length == 0) return a;
    if (nodes_[a].length == 0) return b;
    const Node& x = nodes_[a];
    const Node& y = nodes_[b];
    Node n{add(mul(x.hash, y.power), y.hash), mul(x.power, y.power), x.length + y.length, a, b};
    const auto same = [&](std::uint32_t c) {
      const Node& m = nodes_[c];
      return (m.left == a && m.right == b) || text(c) == text(a) + text(b);
    };
    if (const std::uint32_t found = find(n.hash, n.length, same); found != kNone) return found;
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(n);
    leaves_.emplace_back();
    by_hash_.emplace(key(n.hash, n.length), id);
    bytes_ += sizeof(Node) + 64;  // the node, its index entry
    return id;
  }

  /// The text of `id` (a concatenation's is written out the first time, then kept).
  const std::string& text(std::uint32_t id) const {
    const Node& n = nodes_[id];
    if (n.left == kLeaf) return leaves_[id];
    auto [it, fresh] = written_.try_emplace(id);
    std::string& out = it->second;  // stays valid while the texts of the parts are written out
    if (fresh) {
      // Left-deep chains (a value, then appends): down the left spine to a leaf or a text
      // written out already, then the right parts in order.
      std::vector<std::uint32_t> rights{n.right};
      std::uint32_t at = n.left;
      for (; nodes_[at].left != kLeaf && !written_.contains(at); at = nodes_[at].left) rights.push_back(nodes_[at].right);
      std::string whole = text(at);
      whole.reserve(n.length);
      for (auto r = rights.rbegin(); r != rights.rend(); ++r) whole += text(*r);
      out = std::move(whole);
      written_bytes_ += out.capacity() + 64;
    }
    return out;
  }

  /// Memory held: texts, nodes, index entries, texts written out.
  std::size_t bytes() const { return bytes_ + written_bytes_; }

 private:
  static constexpr std::uint32_t kLeaf = 0xffffffffu;
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr std::uint64_t kMod = (std::uint64_t{1} << 61) - 1;
  static constexpr std::uint64_t kBase = 0x1f3a5b7c9d2e4f61ULL % kMod;

  struct Node {
    std::uint64_t hash;   // sum of byte(i) * kBase^(length - 1 - i), modulo kMod
    std::uint64_t power;  // kBase^length modulo kMod
    std::uint32_t length;
    std::uint32_t left = kLeaf, right = kLeaf;  // a concatenation's parts; kLeaf: a text of its own
  };

  // a * b modulo 2^61 - 1 for a, b below it, in 64-bit words (no 128-bit type on every target):
  // with a = au 2^31 + ad and b likewise, 2^62 is 2 and 2^61 is 1 modulo 2^61 - 1.
  static std::uint64_t mul(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t au = a >> 31, ad = a & 0x7fffffffu, bu = b >> 31, bd = b & 0x7fffffffu;
    const std::uint64_t mid = ad * bu + au * bd;
    return reduce(au * bu * 2 + (mid >> 30) + ((mid & 0x3fffffffu) << 31) + ad * bd);
  }
  static std::uint64_t reduce(std::uint64_t x) {
    x = (x & kMod) + (x >> 61);
    return x >= kMod ? x - kMod : x;
  }
  static std::uint64_t add(std::uint64_t a, std::uint64_t b) {
    const std::uint64_t r = a + b;
    return r >= kMod ? r - kMod : r;
  }
  static std::uint64_t hash_of(std::string_view s) {
    std::uint64_t h = 0;
    for (const unsigned char c : s) h = add(mul(h, kBase), c + 1u);
    return h;
  }
  static std::uint64_t power_of(std::size_t n) {
    std::uint64_t p = 1;
    for (std::uint64_t b = kBase; n > 0; n >>= 1, b = mul(b, b))
      if (n & 1) p = mul(p, b);
    return p;
  }
  static std::uint64_t key(std::uint64_t hash, std::uint32_t length) { return hash ^ (std::uint64_t{length} << 40); }

  template <class Same>
  std::uint32_t find(std::uint64_t hash, std::size_t length, Same same) const {
    const auto [first, last] = by_hash_.equal_range(key(hash, static_cast<std::uint32_t>(length)));
    for (auto it = first; it != last; ++it)
      if (nodes_[it->second].hash == hash && nodes_[it->second].length == length && same(it->second)) return it->second;
    return kNone;
  }

  std::uint32_t add_leaf(const std::string& s) { return add_leaf(s, hash_of(s)); }
  std::uint32_t add_leaf(const std::string& s, std::uint64_t h) {
    const auto id = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(Node{h, power_of(s.size()), static_cast<std::uint32_t>(s.size())});
    leaves_.push_back(s);
    by_hash_.emplace(key(h, static_cast<std::uint32_t>(s.size())), id);
    bytes_ += s.capacity() + sizeof(Node) + 96;  // the text, its node, its index entry
    return id;
  }

  std::vector<Node> nodes_;
  std::vector<std::string> leaves_;  // a leaf's text; empty for a concatenation
  std::unordered_multimap<std::uint64_t, std::uint32_t> by_hash_;
  mutable std::unordered_map<std::uint32_t, std::string> written_;  // concatenations written out
  mutable std::size_t written_bytes_ = 0;
  std::size_t bytes_ = 0;
};

}  // namespace duet::history::detail
