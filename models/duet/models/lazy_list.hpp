// The lazy list (Heller, Herlihy, Luchangco, Moir, Scherer and Shavit, 2005): a sorted linked set
// whose insert and erase lock the two nodes they change, and whose contains takes no lock at all.
// Each node carries a mark: erase marks its node (the logical removal, the moment it takes
// effect) before unlinking it, and an update validates under its locks that neither node is
// marked and that they are still adjacent, or starts again. contains walks the list without
// locks and answers from the node it stops at and its mark.
//
//   duet::models::LazyList<> set;                          // std types: production
//   duet::models::LazyList<duet::models::FiberSync> s;    // duet's types: fiber runs
//   s.insert(3); s.contains(3); s.erase(3);
//
//   duet::check_parallel<duet::models::LazyListSpec<>>(...);   // against the Set model
//
// Links are published with release stores and read with acquire loads (a new node's key and
// next are visible to whoever reaches it); the marks are written under their node's lock.
// Nodes are kept until the list is destroyed (node_arena.hpp): a walk may still stand on a node
// that was unlinked. Keys must lie strictly between INT_MIN and INT_MAX (the sentinels').
// Sync: see sync_traits.hpp.
#pragma once

#include <climits>
#include <mutex>
#include <utility>

#include <duet/gen.hpp>
#include <duet/models/node_arena.hpp>
#include <duet/models/set.hpp>
#include <duet/models/sync_traits.hpp>

namespace duet::models {

/// What a lazy list's update does under its two locks before it changes them: `Validate::ok`
/// says whether `pred` and `curr` may still be changed (the correct list: neither marked, and
/// adjacent). A parameter so that tests can build the list that skips it.
struct LazyListValidation {
  template <class Node>
  static bool ok(Node* pred, Node* curr) {
    return !pred->marked.load(std::memory_order_relaxed) && !curr->marked.load(std::memory_order_relaxed) &&
           pred->next.load(std::memory_order_relaxed) == curr;
  }
};

template <SyncTraits Sync = StdSync, class Validate = LazyListValidation>
class BasicLazyList {
 public:
  struct Node {
    explicit Node(int k) : key(k) {}
    const int key;
    typename Sync::template atomic<Node*> next{nullptr};
    typename Sync::template atomic<bool> marked{false};
    typename Sync::mutex lock;
    Node* allocated_next = nullptr;
  };

  BasicLazyList() : head_(nodes_.make(INT_MIN)) { head_->next.store(nodes_.make(INT_MAX), std::memory_order_relaxed); }
  BasicLazyList(const BasicLazyList&) = delete;
  BasicLazyList& operator=(const BasicLazyList&) = delete;

  bool insert(int key) {
    return locked_at(key, [&](Node* pred, Node* curr) {
      if (curr->key == key) return false;
      Node* n = nodes_.make(key);
      n->next.store(curr, std::memory_order_relaxed);
      pred->next.store(n, std::memory_order_release);
      return true;
    });
  }

  bool erase(int key) {
    return locked_at(key, [&](Node* pred, Node* curr) {
      if (curr->key != key) return false;
      curr->marked.store(true, std::memory_order_release);
      pred->next.store(curr->next.load(std::memory_order_relaxed), std::memory_order_release);
      return true;
    });
  }

  /// No lock: the node where a walk stops holds the key and is not marked.
  bool contains(int key) const {
    Node* curr = head_;
    while (curr->key < key) curr = curr->next.load(std::memory_order_acquire);
    return curr->key == key && !curr->marked.load(std::memory_order_acquire);
  }

 private:
  // An update: finds where `key` goes, locks the two nodes, and runs `change` on them once they
  // validate; otherwise (a concurrent update changed them) starts again.
  template <class Change>
  bool locked_at(int key, Change change) {
    for (;;) {
      const auto [pred, curr] = find(key);
      std::lock_guard p(pred->lock);
      std::lock_guard c(curr->lock);
      if (Validate::ok(pred, curr)) return change(pred, curr);
    }
  }

  // The last node with a key below `key`, and the one after it (its key at least `key`).
  std::pair<Node*, Node*> find(int key) const {
    Node* pred = head_;
    Node* curr = pred->next.load(std::memory_order_acquire);
    while (curr->key < key) {
      pred = curr;
      curr = curr->next.load(std::memory_order_acquire);
    }
    return {pred, curr};
  }

  detail::NodeArena<Node> nodes_;
  Node* const head_;
};

template <SyncTraits Sync = StdSync>
using LazyList = BasicLazyList<Sync>;

/// Binds a set with insert, erase and contains (each -> bool) to the Set model, over keys 1 to 3.
template <class S>
struct LazyListBinding {
  using Sut = S;
  static bool insert(Sut& s, int x) { return s.insert(x); }
  static bool erase(Sut& s, int x) { return s.erase(x); }
  static bool contains(Sut& s, int x) { return s.contains(x); }
  static Gen<int> keys() { return integers(1, 3); }
};

/// insert(x), erase(x) and contains(x) on a LazyList: linearizable.
template <SyncTraits Sync = FiberSync>
using LazyListSpec = Set<LazyListBinding<LazyList<Sync>>>;

}  // namespace duet::models
