// Shared by the lock-free subjects (treiber_stack.hpp, ms_queue.hpp): every node a structure
// allocated, on a list of its own, freed together by its destructor, so that no node is
// reused (or freed) while the structure lives. The list is a plain std::atomic even in fiber
// runs: bookkeeping outside the algorithm, kept out of the schedule and the trace.
#pragma once

#include <atomic>
#include <utility>

namespace duet::models::detail {

/// Every node a stack or queue allocated, freed together by the owner's destructor.
template <class Node>
class NodeArena {
 public:
  NodeArena() = default;
  NodeArena(const NodeArena&) = delete;
  NodeArena& operator=(const NodeArena&) = delete;
  ~NodeArena() {
    for (Node* n = all_.load(); n != nullptr;) delete std::exchange(n, n->allocated_next);
  }
  template <class... Args>
  Node* make(Args&&... args) {
    Node* n = new Node(std::forward<Args>(args)...);
    n->allocated_next = all_.load();
    while (!all_.compare_exchange_weak(n->allocated_next, n)) {
    }
    return n;
  }

 private:
  std::atomic<Node*> all_{nullptr};
};

}  // namespace duet::models::detail
