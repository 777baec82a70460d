// A Treiber stack written with plain std::atomic, as docs/instrumented.md shows it: compiled
// through duet_instrument, its atomics are steps of the fiber scheduler and its report names
// these lines. The racy push loads the head and then stores it: two pushes at once lose one.
// Nodes are never freed (a real stack reclaims them with hazard pointers or epochs), so a pop
// never reads freed memory and there is no ABA.
#pragma once

#include <atomic>
#include <optional>

namespace atomic_stack {

template <bool Racy>
class TreiberStack {
 public:
  void push(int v) {
    Node* n = new Node{v, head_.load()};
    if constexpr (Racy) {
      head_.store(n);  // the bug: a load, then a store
    } else {
      while (!head_.compare_exchange_weak(n->next, n)) {
      }
    }
  }

  std::optional<int> pop() {
    Node* h = head_.load();
    while (h != nullptr && !head_.compare_exchange_weak(h, h->next)) {
    }
    if (h == nullptr) return std::nullopt;
    return h->value;
  }

 private:
  struct Node {
    int value;
    Node* next;
  };
  std::atomic<Node*> head_{nullptr};
};

}  // namespace atomic_stack
